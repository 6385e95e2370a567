// The menu: opponent, AI difficulty, move clock, the nine games with the overlap picker,
// Continue game, Practice, and the Play/Start button.

import type { App, Screen } from "../app";
import { CLOCKS, LEVELS, clockLabel, levelName, modeName, overlapName } from "../state/catalog";
import { selectMode } from "../state/choices";
import { choose, h, modal, popupMenu, toast } from "./dom";
import { modeCards } from "./modePicker";
import { opponentLabel } from "../state/texts";
import { graceLine, runningOnlineGame, type RunningOnlineGame } from "../state/online";
import type { NewGameOptions, SavedSummary } from "../network/types";

export function confirmReplace(app: App): Promise<boolean> {
  if (!app.saved) return Promise.resolve(true);
  return modal({
    title: "Start a new game?",
    body: ["Your saved game will be replaced by the new one."],
    buttons: [
      { label: "Keep", value: false },
      { label: "Start new game", value: true, primary: true },
    ],
  }).then((v) => v === true);
}

export function mountMenu(app: App, root: HTMLElement): Screen {
  if (app.onLanApp) return mountLanMenu(app, root);
  const offs: (() => void)[] = [];
  const screen = h("div", { class: "screen menu-screen" });
  root.append(screen);

  const render = () => {
    const m = app.menu;
    const focusedId = (document.activeElement as HTMLElement | null)?.dataset?.focusId;
    screen.replaceChildren();

    // More options: Settings, Statistics, Achievements, Leaderboard, Help & Rules (and Practice).
    const more = popupMenu({
      focusId: "more",
      items: [
        { label: "Settings", onSelect: () => app.show("settings") },
        { label: "Statistics", onSelect: () => app.showStats("statistics", "menu") },
        { label: "Achievements", onSelect: () => app.showStats("achievements", "menu") },
        { label: "Leaderboard", onSelect: () => app.showStats("leaderboard", "menu") },
        { label: "Help & Rules", onSelect: () => app.show("help") },
        { label: "Practice", onSelect: () => app.show("practice-setup") },
      ],
    });

    const header = h(
      "header",
      { class: "topbar" },
      h("h1", { class: "brand" }, h("span", { class: "brand-mark", "aria-hidden": "true" }, "◆"), "Boxed In"),
      h("div", { class: "topbar-end" }, more),
    );

    // Opponent
    const oppGroup = h(
      "div",
      { class: "segmented", role: "radiogroup", "aria-label": "Opponent" },
      (["ai", "local"] as const).map((o) =>
        h(
          "button",
          {
            type: "button",
            role: "radio",
            "aria-checked": String(m.opponent === o),
            class: m.opponent === o ? "selected" : "",
            "data-focus-id": `opp-${o}`,
            onclick: () => {
              app.menu = { ...app.menu, opponent: o };
              app.saveMenu();
              render();
            },
          },
          o === "ai" ? "vs AI" : "Local",
        ),
      ),
      // Online has a menu of its own: somebody on another device.
      h(
        "button",
        { type: "button", role: "radio", "aria-checked": "false", "data-focus-id": "opp-online", onclick: () => app.show("online") },
        "Online",
      ),
    );

    const levelBtn =
      m.opponent === "ai"
        ? h(
            "button",
            {
              type: "button",
              class: "chip",
              "data-focus-id": "level",
              "aria-haspopup": "dialog",
              onclick: async () => {
                const v = await choose({ title: "AI difficulty", options: LEVELS, current: m.level });
                if (v) {
                  app.menu = { ...app.menu, level: v as typeof m.level };
                  app.saveMenu();
                }
                render();
                (screen.querySelector('[data-focus-id="level"]') as HTMLElement | null)?.focus();
              },
            },
            `AI: ${levelName(m.level)}`,
          )
        : null;
    const clockBtn = h(
      "button",
      {
        type: "button",
        class: "chip",
        "data-focus-id": "clock",
        "aria-haspopup": "dialog",
        onclick: async () => {
          const v = await choose({
            title: "Move clock",
            options: CLOCKS.map((c) => ({ id: String(c), name: c ? `${c} seconds` : "No clock", line: c ? `Every roll and every edge must come within ${c} s; moves cannot be taken back.` : "Take as long as you like." })),
            current: String(m.clock),
          });
          if (v !== null) {
            app.menu = { ...app.menu, clock: Number(v) };
            app.saveMenu();
          }
          render();
          (screen.querySelector('[data-focus-id="clock"]') as HTMLElement | null)?.focus();
        },
      },
      clockLabel(m.clock),
    );

    const onlineCard = running ? renderRunning(app, running) : null;
    const continueCard = app.saved ? renderContinue(app, app.saved, render) : null;

    const practiceCard = h(
      "button",
      { type: "button", class: "practice-entry", "data-focus-id": "practice", onclick: () => app.show("practice-setup") },
      h("span", { class: "practice-title" }, "Practice"),
      h("span", { class: "practice-line" }, "A small seeded game with move previews and a history"),
    );

    const playLabel = m.opponent === "ai" ? "Play" : "Start";
    const playBar = h(
      "div",
      { class: "play-bar" },
      h(
        "div",
        { class: "play-summary", id: "play-summary" },
        h("strong", {}, modeName(m.mode) + (m.overlap ? ` · ${overlapName(m.overlap)}` : "")),
        h("span", {}, m.opponent === "ai" ? opponentLabel("ai", m.level) : "Local: 2 players"),
      ),
      h(
        "button",
        {
          type: "button",
          class: "btn primary play-btn",
          "aria-describedby": "play-summary",
          "data-focus-id": "play",
          onclick: async () => {
            if (!(await confirmReplace(app))) return;
            app.startGame(app.menuGameOptions());
          },
        },
        playLabel,
      ),
    );

    const list = modeCards({
      current: { mode: m.mode, overlap: m.overlap },
      onMode: (id) => {
        if (app.menu.mode === id) return;
        app.menu = selectMode(app.menu, id);
        app.saveMenu();
        render();
      },
      onOverlap: (v) => {
        if (v) {
          app.menu = { ...app.menu, overlap: v };
          app.saveMenu();
        }
        render();
        (screen.querySelector('[data-focus-id="overlap"]') as HTMLElement | null)?.focus();
      },
    });

    screen.append(
      header,
      h(
        "div",
        { class: "menu-body" },
        h(
          "section",
          { class: "menu-controls", "aria-label": "Choices" },
          h("div", { class: "field-label" }, "Opponent"),
          oppGroup,
          h("div", { class: "chip-row" }, levelBtn, clockBtn),
          onlineCard,
          continueCard,
          practiceCard,
          playBar,
        ),
        h("section", { class: "menu-games", "aria-label": "Game list" }, h("h2", { class: "field-label" }, "Game"), list),
      ),
    );
    if (focusedId) (screen.querySelector(`[data-focus-id="${focusedId}"]`) as HTMLElement | null)?.focus();
  };

  // The device's running online game (closing the page does not end it): offered back with the
  // grace its player has left to return, counted down here from the server's figure.
  let running: RunningOnlineGame | null = null;
  let graceEnds: number | null = null;
  let alive = true;
  const askRunning = () => {
    app.conn.runningOnline().then(
      (frame) => {
        if (!alive) return;
        running = runningOnlineGame(frame);
        graceEnds = running?.graceMs != null ? performance.now() + running.graceMs : null;
        render();
      },
      () => undefined, // offline or refused: the card waits for the next connection
    );
  };
  const tick = setInterval(() => {
    const line = screen.querySelector(".grace-line");
    if (!running || graceEnds === null || !line) return;
    const left = graceEnds - performance.now();
    line.textContent = graceLine(running.opponent, left);
    // The grace ran out: the server says whether the game is over (it is, unless the player
    // came back on another page).
    if (left <= 0) {
      graceEnds = null;
      askRunning();
    }
  }, 250);

  render();
  offs.push(
    app.conn.on({
      saved: () => render(),
      status: (s) => {
        if (s === "open") askRunning();
      },
    }),
  );
  if (app.conn.isOpen) askRunning();
  return {
    unmount: () => {
      alive = false;
      clearInterval(tick);
      offs.forEach((f) => f());
    },
  };
}

/** The running online game's card: one tap (Rejoin) brings it back on screen, through the online
 * menu, as the rule book says ("choose Online again in time and you are back in it"). */
function renderRunning(app: App, game: RunningOnlineGame): HTMLElement {
  return gameCard(
    { label: "Online game", extraClass: "online-running", mode: game.mode, overlap: game.overlap },
    `Online vs ${game.opponent}`,
    `You ${game.scores[0]} : ${game.scores[1]} ${game.opponent} · Round ${game.round}`,
    [h("p", { class: "grace-line", role: "timer", "aria-live": "off" }, graceLine(game.opponent, game.graceMs))],
    [h("button", { type: "button", class: "btn primary", "data-focus-id": "rejoin", onclick: () => app.show("online") }, "Rejoin")],
  );
}

/** A game offered back on the menu (the saved game, the running online game): one layout, so the
 * two cards read alike. */
function gameCard(
  card: { label: string; extraClass?: string; mode: string; overlap?: string | null },
  opponent: string,
  score: string,
  notes: HTMLElement[],
  buttons: HTMLElement[],
): HTMLElement {
  return h(
    "section",
    { class: card.extraClass ? `continue-card ${card.extraClass}` : "continue-card", "aria-label": card.label },
    h("h2", {}, card.label),
    h("div", { class: "continue-mode" }, modeName(card.mode) + (card.overlap ? ` · ${overlapName(card.overlap)}` : "")),
    h("div", { class: "continue-opp" }, opponent),
    h("div", { class: "continue-score" }, score),
    ...notes,
    h("div", { class: "continue-buttons" }, ...buttons),
  );
}

function renderContinue(app: App, saved: SavedSummary, rerender: () => void): HTMLElement {
  const names = saved.opponent === "ai" ? ["You", "AI"] : saved.opponent === "practice" ? ["You", "Computer"] : ["Player 1", "Player 2"];
  return gameCard(
    { label: "Continue game", mode: saved.mode, overlap: saved.overlap },
    opponentLabel(saved.opponent, saved.level),
    `${names[0]} ${saved.scores[0]} : ${saved.scores[1]} ${names[1]} · Round ${saved.round}`,
    [],
    [
      h("button", { type: "button", class: "btn primary", "data-focus-id": "resume", onclick: () => app.resumeSaved() }, "Resume"),
      h(
        "button",
        {
          type: "button",
          class: "btn",
          "data-focus-id": "discard",
          onclick: async () => {
            const v = await modal({
              title: "Discard saved game?",
              body: ["The saved game will be deleted. This cannot be undone."],
              buttons: [
                { label: "Keep", value: false, primary: true },
                { label: "Discard", value: true, danger: true },
              ],
            });
            if (!v) return;
            try {
              await app.conn.discard();
            } catch (err) {
              toast(err instanceof Error ? err.message : "The saved game could not be deleted.");
              return;
            }
            app.saved = null;
            rerender();
          },
        },
        "Discard",
      ),
    ],
  );
}

/** The menu of a `boxedin lan`'s page: only what works with no game server behind it. Same Wi-Fi
 * and local games (its process plays both with the engine in-process), Settings and Help; no AI,
 * no online play, no statistics, no move clock (nothing keeps time there while the page is away). */
function mountLanMenu(app: App, root: HTMLElement): Screen {
  const screen = h("div", { class: "screen menu-screen lan-menu" });
  root.append(screen);
  const render = () => {
    const m = app.menu;
    const focusedId = (document.activeElement as HTMLElement | null)?.dataset?.focusId;
    const more = popupMenu({
      focusId: "more",
      items: [
        { label: "Settings", onSelect: () => app.show("settings") },
        { label: "Help & Rules", onSelect: () => app.show("help") },
      ],
    });
    const list = modeCards({
      current: { mode: m.mode, overlap: m.overlap },
      label: "Game for a local game",
      onMode: (id) => {
        if (app.menu.mode === id) return;
        app.menu = selectMode(app.menu, id);
        app.saveMenu();
        render();
      },
      onOverlap: (v) => {
        if (v) {
          app.menu = { ...app.menu, overlap: v };
          app.saveMenu();
        }
        render();
        (screen.querySelector('[data-focus-id="overlap"]') as HTMLElement | null)?.focus();
      },
    });
    const start = () => {
      const options: NewGameOptions = { mode: m.mode, opponent: "local", first: app.firstChoice(), clock: 0 };
      if (m.overlap) options.overlap = m.overlap;
      app.startGame(options);
    };
    screen.replaceChildren(
      h(
        "header",
        { class: "topbar" },
        h("h1", { class: "brand" }, h("span", { class: "brand-mark", "aria-hidden": "true" }, "◆"), "Boxed In"),
        h("div", { class: "topbar-end" }, more),
      ),
      h(
        "div",
        { class: "online-body" },
        h(
          "section",
          { class: "online-section", "aria-labelledby": "lan-menu-h" },
          h("h2", { id: "lan-menu-h", class: "section-title" }, "Same Wi-Fi"),
          h("p", {}, "This is the Same Wi-Fi app: host a game for another device on your network, or join one, with no internet and no game server."),
          h("button", { type: "button", class: "btn primary same-wifi-btn", "data-focus-id": "same-wifi", onclick: () => app.show("lan") }, "Same Wi-Fi"),
        ),
        h(
          "section",
          { class: "online-section", "aria-labelledby": "lan-local-h" },
          h("h2", { id: "lan-local-h", class: "section-title" }, "Local"),
          h("p", {}, "Two players take turns on this device. There is no move clock here, and a game is not kept once this app closes."),
          list,
        ),
        h("p", { class: "muted" }, "Games against the AI, online games, practice and statistics need a game server: they are on the game server's page, not here."),
        h(
          "div",
          { class: "play-bar" },
          h("div", { class: "play-summary", id: "play-summary" }, h("strong", {}, modeName(m.mode) + (m.overlap ? ` · ${overlapName(m.overlap)}` : "")), h("span", {}, "Local: 2 players")),
          h("button", { type: "button", class: "btn primary play-btn", "aria-describedby": "play-summary", "data-focus-id": "play", onclick: start }, "Start"),
        ),
      ),
    );
    if (focusedId) (screen.querySelector(`[data-focus-id="${focusedId}"]`) as HTMLElement | null)?.focus();
  };
  render();
  return { unmount: () => undefined };
}
