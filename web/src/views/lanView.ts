// The Same Wi-Fi screen (Play with Friends → Same Wi-Fi): Host a Game (mode and rule, then the
// waiting screen), the games seen on the network with Join, joining by a typed address, and the
// six-digit code on both screens with Let In or Cancel. The game itself is the online game
// screen: the page's own `boxedin lan` process sends `matched` and the state on /ws, as a
// gateway does, and the app shows it (app.ts).

import type { App, Screen } from "../app";
import { modeInfo, modeName, overlapName } from "../state/catalog";
import { h, toast } from "./dom";
import { LanLink, addressProblem, codeText, lanSocketUrl } from "../network/lanLink";
import { sameWifiLink } from "../state/sameWifi";
import { modeCards, type ModeChoice } from "./modePicker";
import { ONLINE_MODES, checkName } from "../state/online";
import type { LanStatusFrame } from "../network/types";

let shared: LanLink | null = null;

/** The page's one link to its `boxedin lan` process. When the host closes a game the joiner
 * is playing, the game screen gives way to this screen, which says so. The link connects once
 * the page's server said it is a `boxedin lan` (GET /same-wifi, app.place). */
export function sharedLan(app: App): LanLink {
  if (shared) return shared;
  const link = new LanLink(lanSocketUrl(location));
  link.on({
    closed: (frame) => {
      if (frame.reason !== "host_left" || app.screenName !== "game") return;
      app.conn.leaveGame();
      app.show("lan");
    },
  });
  shared = link;
  app.whenPlaced((place) => (place.here ? link.connect() : link.markUnavailable()));
  return link;
}

/** What Same Wi-Fi needs, said where the page comes from a game server: the game server cannot
 * reach the devices of the player's network, the player's own `boxedin lan` can. `link` opens
 * this machine's one, where the page was opened on the machine it runs on. */
export function sameWifiNeeds(link: string | null): HTMLElement[] {
  const parts: (HTMLElement | null)[] = [
    h("p", { class: "intro" }, "Same Wi-Fi plays another device on your network with no game server, so it cannot be played from this page: it needs the Same Wi-Fi app on each player's own machine."),
    h("p", { class: "same-wifi-steps" }, "On each machine run ", h("code", {}, "boxedin lan"), ", open the page it names in that machine's browser and choose Same Wi-Fi there."),
    link
      ? h("p", {}, h("a", { class: "btn primary lan-open", href: link }, "Open Same Wi-Fi on this machine"))
      : null,
  ];
  return parts.filter((e): e is HTMLElement => e !== null);
}

const NOT_CONNECTED = "Not connected to the Same Wi-Fi app — reconnecting…";

export function mountLan(app: App, root: HTMLElement): Screen {
  const link = sharedLan(app);
  let hostView = false;
  let choice: ModeChoice = defaultChoice(app.menu.mode, app.menu.overlap);
  let address = "";
  let formError: string | null = null;
  let nameError: string | null = null;
  let alive = true;
  const screen = h("div", { class: "screen online-screen lan-screen" });
  root.append(screen);

  function topbar(title: string, back: { label: string; onClick(): void }): HTMLElement {
    return h(
      "header",
      { class: "topbar" },
      h("button", { type: "button", class: "icon-btn online-back", "aria-label": back.label, onclick: back.onClick }, "←"),
      h("h1", { class: "game-title" }, title),
    );
  }

  // On a `boxedin lan`'s page this screen is the online menu: its back arrow leads to the menu.
  const toOnline = app.onLanApp
    ? { label: "Back to menu", onClick: () => app.show("menu") }
    : { label: "Back to the online menu", onClick: () => app.show("online") };

  function render(): void {
    if (!alive) return;
    screen.replaceChildren();
    const s = link.status;
    screen.dataset.view = link.available === false ? "unavailable" : !s ? "connecting" : s.link ? `link-${s.link.state}` : s.hosting ? "hosting" : hostView ? "host" : "home";
    if (link.available === false) return renderUnavailable();
    if (!s) {
      screen.append(topbar("Same Wi-Fi", toOnline), body(h("p", { class: "online-wait", role: "status" }, "Connecting to the Same Wi-Fi app…")));
      return;
    }
    if (!app.onlineName) return renderName();
    if (s.link) return renderLink(s);
    if (s.hosting) return renderHosting(s);
    if (hostView) return renderHost();
    renderHome(s);
  }

  function body(...children: (HTMLElement | null)[]): HTMLElement {
    return h("div", { class: "online-body lan-body" }, ...children);
  }

  function notice(): HTMLElement | null {
    return link.lastClosed ? h("p", { class: "online-notice lan-notice", role: "alert" }, link.lastClosed.message) : null;
  }

  function renderUnavailable(): void {
    const place = app.place;
    const open = place ? sameWifiLink(place, location.hostname, app.onlineName) : null;
    screen.append(topbar("Same Wi-Fi", toOnline), body(...sameWifiNeeds(open)));
  }

  function renderName(): void {
    const input = h("input", { id: "lan-name", type: "text", maxlength: "40", autocomplete: "nickname", spellcheck: "false" });
    const error = h("p", { class: "form-error", role: "alert" }, nameError ?? "");
    error.hidden = !nameError;
    const form = h(
      "form",
      { class: "online-name-form", novalidate: true },
      h("label", { for: "lan-name", class: "field-label" }, "Your name"),
      input,
      h("p", { class: "muted" }, "1 to 20 characters: letters, digits, spaces, _ and -. The other player sees it."),
      error,
      h("div", { class: "form-buttons" }, h("button", { type: "submit", class: "btn primary" }, "Continue")),
    );
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const check = checkName(input.value);
      nameError = check.ok ? null : check.error;
      if (check.ok) app.setOnlineName(check.name);
      render();
    });
    screen.append(topbar("Same Wi-Fi", toOnline), body(form));
    setTimeout(() => input.focus(), 0);
  }

  function renderHome(s: LanStatusFrame): void {
    const games = h("ul", { class: "match-list lan-games", "aria-label": "Games on this network" });
    for (const g of s.games) {
      games.append(
        h(
          "li",
          { class: "lan-game", "data-name": g.name },
          // The same rows as Find Match's list: the whole row joins.
          h(
            "button",
            { type: "button", class: "match-mode", onclick: () => act(link.joinGame(g.id, app.onlineName ?? "")) },
            h("span", { class: "match-name" }, g.name),
            h("span", { class: "match-line" }, choiceLabel({ mode: g.mode, overlap: g.overlap })),
            h("span", { class: "match-marks" }, h("span", { class: "mark-badge mark-waiting" }, "Join")),
          ),
        ),
      );
    }
    const input = h("input", { id: "lan-address", type: "text", value: address, maxlength: "64", autocomplete: "off", spellcheck: "false", placeholder: "192.168.1.20:47000" });
    input.addEventListener("input", () => {
      address = input.value;
    });
    const error = h("p", { class: "form-error", role: "alert" }, formError ?? "");
    error.hidden = !formError;
    const form = h(
      "form",
      { class: "join-form", novalidate: true },
      h("label", { for: "lan-address", class: "field-label" }, "Join by address"),
      h("div", { class: "join-row" }, input, h("button", { type: "submit", class: "btn" }, "Join")),
      error,
    );
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      formError = addressProblem(input.value);
      if (formError) render();
      else act(link.joinAddress(input.value, app.onlineName ?? ""));
    });
    screen.append(
      topbar("Same Wi-Fi", toOnline),
      body(
        notice(),
        h("p", { class: "intro" }, "Play another device on this network: no internet and no game server needed. What the two devices say to each other is encrypted."),
        h(
          "section",
          { class: "online-section", "aria-labelledby": "lan-host-h" },
          h("h2", { id: "lan-host-h", class: "section-title" }, "Host a Game"),
          h("p", { class: "muted" }, "Your device runs the game: keep the app open until it ends."),
          h("button", { type: "button", class: "btn", onclick: () => { hostView = true; render(); } }, "Host a Game"),
        ),
        h(
          "section",
          { class: "online-section", "aria-labelledby": "lan-games-h" },
          h("h2", { id: "lan-games-h", class: "section-title" }, "Games on this network"),
          s.games.length ? games : h("p", { class: "muted lan-none", role: "status" }, "No games seen on this network yet. The list follows by itself."),
          form,
        ),
      ),
    );
  }

  function renderHost(): void {
    const list = modeCards({
      current: choice,
      modes: ONLINE_MODES,
      label: "Game to host",
      onMode: (id) => {
        if (choice.mode === id) return;
        choice = defaultChoice(id, null);
        render();
      },
      onOverlap: (v) => {
        if (v) choice = { ...choice, overlap: v };
        render();
      },
    });
    const host = () => {
      const info = modeInfo(choice.mode);
      act(link.host(choice.mode, info?.defaultOverlap ? choice.overlap : null, app.onlineName ?? ""));
    };
    screen.append(
      topbar("Host a Game", { label: "Back", onClick: () => { hostView = false; render(); } }),
      body(
        h("p", { class: "intro" }, "Pick the game; the other player sees it in their list."),
        list,
        h(
          "div",
          { class: "play-bar" },
          h("div", { class: "play-summary", id: "lan-summary" }, h("strong", {}, choiceLabel(choice)), h("span", {}, "On this network")),
          h("button", { type: "button", class: "btn primary play-btn lan-host-btn", "aria-describedby": "lan-summary", onclick: host }, "Host a Game"),
        ),
      ),
    );
  }

  function renderHosting(s: LanStatusFrame): void {
    const hosting = s.hosting!;
    screen.append(
      topbar("Your game", { label: "Stop hosting and go back", onClick: () => act(link.stop()) }),
      body(
        notice(),
        h("p", { class: "room-game" }, choiceLabel(hosting)),
        h("div", { class: "waiting-dots", "aria-hidden": "true" }, h("span", {}), h("span", {}), h("span", {})),
        h("p", { class: "online-wait", role: "status" }, "Waiting for another player to join…"),
        h("p", { class: "muted" }, "Your game is in the list of the devices on this network. Where that list stays empty, they can type this address: ", h("strong", { class: "lan-address" }, hosting.address)),
        h("div", { class: "form-buttons" }, h("button", { type: "button", class: "btn", onclick: () => act(link.stop()) }, "Stop hosting")),
      ),
    );
  }

  function renderLink(s: LanStatusFrame): void {
    const l = s.link!;
    const other = l.name ?? "the other player";
    if (l.state === "connecting") {
      screen.append(
        topbar("Joining", { label: "Cancel and go back", onClick: () => act(link.cancel()) }),
        body(
          h("p", { class: "online-wait", role: "status" }, "Connecting to the host…"),
          h("div", { class: "form-buttons" }, h("button", { type: "button", class: "btn", onclick: () => act(link.cancel()) }, "Cancel")),
        ),
      );
      return;
    }
    if (l.state === "playing") {
      screen.append(
        topbar("Same Wi-Fi", toOnline),
        body(
          h("p", { role: "status" }, `You are linked with ${other}: the game runs on this link.`),
          h(
            "div",
            { class: "form-buttons" },
            h("button", { type: "button", class: "btn primary", onclick: backToGame }, "Back to the game"),
            h("button", { type: "button", class: "btn", onclick: () => act(link.stop()) }, l.role === "host" ? "Close the game" : "Leave"),
          ),
        ),
      );
      return;
    }
    const code = l.code ?? "";
    const shown = h(
      "p",
      { class: "room-code lan-code", "data-code": code },
      h("span", { class: "room-code-chars", "aria-hidden": "true" }, codeText(code)),
      h("span", { class: "sr-only" }, `Code: ${[...code].join(" ")}`),
    );
    const hosting = l.role === "host";
    screen.append(
      topbar(hosting ? "Let them in?" : "Check the code", { label: "Cancel and go back", onClick: () => act(link.cancel()) }),
      body(
        h("p", {}, hosting ? `${other} wants to join. Is this the code on ${other}'s screen too?` : `Compare the code with ${other}'s screen. ${other} lets you in when the two are the same.`),
        h("div", { class: "room-code-box" }, shown),
        h("p", { class: "muted" }, "The same code on both screens means the two devices talk to each other with nobody in between. If they differ, cancel."),
        h(
          "div",
          { class: "form-buttons" },
          h("button", { type: "button", class: "btn", onclick: () => act(link.cancel()) }, "Cancel"),
          hosting ? h("button", { type: "button", class: "btn primary lan-let-in", onclick: () => act(link.letIn()) }, "Let In") : null,
        ),
        hosting ? null : h("p", { class: "online-wait", role: "status" }, `Waiting for ${other} to let you in…`),
      ),
    );
  }

  function backToGame(): void {
    if (app.conn.game) {
      app.show("game");
      return;
    }
    // Without the game on the page (it was left for the menu), the process is asked for it, as
    // the online menu asks a game server: `matched` and the state bring it back on screen (app.ts).
    if (app.conn.onlineMenu(true) === null) toast("Not connected — reconnecting…");
  }

  function act(sent: boolean): void {
    if (!sent) toast(NOT_CONNECTED);
  }

  const off = link.on({
    status: () => {
      if (!link.status?.hosting) hostView = false;
      render();
    },
    closed: () => render(),
    available: () => render(),
    error: (code, message) => {
      if (code === "bad_address" || code === "no_game") formError = message;
      else toast(message || code);
      render();
    },
  });
  render();

  return {
    unmount() {
      alive = false;
      off();
    },
  };
}

function defaultChoice(mode: string, overlap: string | null): ModeChoice {
  const info = ONLINE_MODES.find((m) => m.id === mode) ?? ONLINE_MODES.find((m) => m.id === "classic")!;
  return { mode: info.id, overlap: info.defaultOverlap ? (overlap ?? info.defaultOverlap) : null };
}

function choiceLabel(c: ModeChoice): string {
  return modeName(c.mode) + (c.overlap ? ` · ${overlapName(c.overlap)}` : "");
}
