// The game screen, for games against the AI, local games, practice games and online games.

import type { App, Screen } from "./app";
import { BoardView } from "./board";
import { modeName, overlapName } from "./catalog";
import { randomSeed } from "./choices";
import { h, modal, toast, vibrate } from "./dom";
import { edgeCount } from "./geometry";
import {
  DEAD_EDGES_NOTE, OPEN_EDGES_NOTE, STANDARD_NOTE, awayText, clockText, diceLabel, forfeitLine, historyLine,
  isHumanTurn, moveLimitText, rematchLine, rematchStatus, resultTitle, statusText,
} from "./texts";
import { resultExtras, type ResultExtras } from "./stats";
import { edgeKey, type EdgeRef, type GameState, type HistoryEntry, type PlayerNo } from "./types";

const SVG_NS = "http://www.w3.org/2000/svg";

function markIcon(player: 1 | 2): SVGSVGElement {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", `mark-icon p${player}`);
  svg.setAttribute("aria-hidden", "true");
  if (player === 1) {
    const poly = document.createElementNS(SVG_NS, "polygon");
    poly.setAttribute("points", "12,2 22,12 12,22 2,12");
    poly.setAttribute("class", "mark diamond");
    svg.appendChild(poly);
  } else {
    const c = document.createElementNS(SVG_NS, "circle");
    c.setAttribute("cx", "12");
    c.setAttribute("cy", "12");
    c.setAttribute("r", "8");
    c.setAttribute("class", "mark ring");
    svg.appendChild(c);
  }
  return svg;
}

function describeEdge(e: EdgeRef): string {
  return `${e[0] === "h" ? "Horizontal" : "Vertical"} edge, row ${e[1]}, column ${e[2]}`;
}

export function mountGame(app: App, root: HTMLElement): Screen {
  let game: GameState | null = null;
  let paused = false;
  let queued: { game: GameState; action?: Record<string, unknown> }[] = [];
  let resultOpen = false;
  let resultSeenFor: string | null = null;
  let pendingSeq: number | null = null;
  let clockDeadline: number | null = null;
  let timeoutSent: { seq: number; at: number } | null = null;
  let previewOn = true;
  let focusEdge: EdgeRef | null = null;
  let alive = true;
  // What the server says a finished game meant (leaderboard line, achievements), by game id:
  // null while asked for. The open result window's box for it, to fill in when it comes.
  const extras = new Map<string, ResultExtras | null>();
  let extrasBox: { game: string; el: HTMLElement } | null = null;
  const offs: (() => void)[] = [];
  const practice = () => !!game && (game.opponent === "practice" || game.mode.startsWith("practice_"));
  // An online game: the device plays one seat (from `matched`), the other player another device.
  const online = () => !!game && game.opponent === "online";
  const me = (): PlayerNo => app.conn.online?.seat ?? 1;
  const opp = (): PlayerNo => (me() === 1 ? 2 : 1);
  /** Whether the viewer may act: a person to move, and in an online game the viewer's own seat. */
  const myTurn = (g: GameState) => isHumanTurn(g) && (g.opponent !== "online" || g.to_move === me());
  // The online game's timers, counted down here from the server's figures of the last frame.
  let moveDeadline: number | null = null;
  let awayDeadline: number | null = null;
  // Since when each player is away (by the frames), to show it only once it lasts: a game starts
  // with both players not yet connected, and a dropped socket is often back within a moment.
  let awaySince: [number | null, number | null] = [null, null];
  const AWAY_SHOWN_AFTER_MS = 1000;
  /** Whether to show the other player as away (the viewer's own connection is the banner's). */
  const shownAway = (g: GameState, p: PlayerNo) => {
    const since = awaySince[p - 1];
    return g.opponent === "online" && !g.over && p !== me() && since !== null && performance.now() - since >= AWAY_SHOWN_AFTER_MS;
  };
  let onlineResult: { game: string; dlg: HTMLDialogElement; refresh(g: GameState): void } | null = null;

  // --- layout ---------------------------------------------------------------------------------
  const backBtn = h("button", { type: "button", class: "icon-btn", "aria-label": "Back to menu (the game is saved)" }, "←");
  const title = h("div", { class: "game-title" }, "Starting…");
  const round = h("div", { class: "round", "aria-live": "off" });
  const clock = h("div", { class: "clock", role: "timer", "aria-label": "Move clock", hidden: true });
  const zoomBtn = h("button", { type: "button", class: "btn small zoom-reset", hidden: true, "aria-label": "Show the whole board" }, "Whole board");
  const topbar = h("header", { class: "topbar game-topbar" }, backBtn, title, h("div", { class: "topbar-end" }, round, clock, zoomBtn));

  const cards = [1, 2].map((p) =>
    h(
      "div",
      { class: `score-card p${p}`, "data-player": String(p) },
      markIcon(p as 1 | 2),
      h("span", { class: "score-name" }, p === 1 ? "Player 1" : "Player 2"),
      h("span", { class: "you-tag", hidden: true }, "You"),
      h("span", { class: "away-tag", hidden: true }, "Away"),
      h("span", { class: "score-points" }, "0"),
      h("span", { class: "turn-label", hidden: true }, "TURN"),
    ),
  );
  const bar1 = h("div", { class: "bar-seg p1" });
  const bar2 = h("div", { class: "bar-seg p2" });
  const scoreBar = h("div", { class: "score-bar", role: "img", "aria-label": "Score bar" }, bar1, bar2);
  const scores = h("section", { class: "scores", "aria-label": "Scores" }, h("div", { class: "score-cards" }, cards), scoreBar);

  const board = new BoardView({
    onPick: (edge) => pick(edge),
    onFocusEdge: (edge) => {
      focusEdge = edge;
      renderPreview();
    },
    onZoom: (z) => {
      zoomBtn.hidden = !z;
    },
    onKey: (key) => {
      if ((key === "p" || key === "P") && practice()) {
        togglePause();
        return true;
      }
      return false;
    },
  });
  const overlay = h("div", { class: "board-overlay", hidden: true });
  const boardWrap = h("div", { class: "board-wrap" }, board.root, overlay);
  // Online games: the move limit under the board, and the other player's connection.
  const moveLimit = h("p", { class: "move-limit", role: "timer", "aria-label": "Time left for the move", hidden: true });
  const awayLine = h("p", { class: "away-line", role: "status", hidden: true });
  const onlineBar = h("div", { class: "online-bar" }, moveLimit, awayLine);

  const status = h("p", { class: "status", role: "status", "aria-live": "polite" }, "Starting the game…");
  const deadNote = h("p", { class: "dead-note", hidden: true }, DEAD_EDGES_NOTE);

  // Dice and buttons
  const dieFace = h("div", { class: "die-face", "aria-hidden": "true" }, "?");
  const dieLabel = h("div", { class: "die-label" });
  const rollBtn = h("button", { type: "button", class: "btn primary roll-btn" }, "Roll Dice");
  const dicePanel = h("div", { class: "dice-panel", role: "group", "aria-label": "Dice" }, dieFace, h("div", { class: "dice-side" }, dieLabel, rollBtn));
  const endBtn = h("button", { type: "button", class: "btn end-btn" }, "End Turn");
  const undoBtn = h("button", { type: "button", class: "btn undo-btn" }, "Undo");
  const standardNote = h("span", { class: "standard-note" }, STANDARD_NOTE);
  const undoRow = h("div", { class: "undo-row" }, undoBtn, standardNote);
  const resultsBtn = h("button", { type: "button", class: "btn" }, "Results");
  const againBtn = h("button", { type: "button", class: "btn primary" }, "Play Again");
  const exitBtn = h("button", { type: "button", class: "btn" }, "Exit");
  const afterBar = h("div", { class: "after-bar", hidden: true }, resultsBtn, againBtn, exitBtn);
  const turnControls = h("div", { class: "turn-controls" }, dicePanel, h("div", { class: "button-stack" }, endBtn, undoRow));

  // Practice controls
  const previewBox = h("div", { class: "preview", "aria-live": "polite" });
  const previewToggle = h("button", { type: "button", class: "btn small", "aria-pressed": "false" }, "Hide preview");
  const pauseBtn = h("button", { type: "button", class: "btn" }, "Pause");
  const restartBtn = h("button", { type: "button", class: "btn" }, "Restart");
  const newSeedBtn = h("button", { type: "button", class: "btn" }, "New seed");
  const setupBtn = h("button", { type: "button", class: "btn" }, "Change setup");
  const edgeCounter = h("div", { class: "edge-counter" });
  const historyList = h("ol", { class: "history-list" });
  const practicePanel = h(
    "div",
    { class: "practice-panel", hidden: true },
    h("div", { class: "preview-head" }, h("h2", {}, "Preview"), previewToggle),
    previewBox,
    h("div", { class: "practice-buttons" }, pauseBtn, restartBtn, newSeedBtn, setupBtn),
    edgeCounter,
    h("section", { class: "history", "aria-label": "Move history" }, h("h2", {}, "Move history"), historyList),
  );

  const panel = h("section", { class: "control-panel", "aria-label": "Controls" }, status, deadNote, turnControls, practicePanel, afterBar);
  const main = h("div", { class: "board-column" }, scores, boardWrap, onlineBar);
  const body = h("div", { class: "game-body" });
  if (app.settings.controls === "right") body.append(main, panel);
  else body.append(panel, main);
  const screen = h("div", { class: "screen game-screen" }, topbar, body);
  root.append(screen);

  // --- rendering ------------------------------------------------------------------------------
  function renderAll(animate: HistoryEntry | null): void {
    if (!game) return;
    const g = game;
    const prac = practice();
    const onl = online();
    screen.classList.toggle("is-practice", prac);
    screen.classList.toggle("is-online", onl);
    const human = myTurn(g);
    const canAct = human && app.conn.isOpen && !paused;
    title.textContent = prac
      ? `${modeName(g.mode)} · seed “${g.seed ?? ""}”`
      : modeName(g.mode) + (g.overlap ? ` · ${overlapName(g.overlap)}` : "");
    round.textContent = prac ? "" : `Round ${g.round}`;
    round.hidden = prac;

    cards.forEach((card, i) => {
      const p = (i + 1) as 1 | 2;
      // Names are text, never markup: in online games the other player chose theirs.
      (card.querySelector(".score-name") as HTMLElement).textContent = g.players[i].name;
      (card.querySelector(".score-points") as HTMLElement).textContent = String(g.scores[i]);
      const turn = !g.over && g.to_move === p;
      const mine = onl && p === me();
      card.classList.toggle("turn", turn);
      (card.querySelector(".turn-label") as HTMLElement).hidden = !turn;
      (card.querySelector(".you-tag") as HTMLElement).hidden = !mine;
      card.dataset.label = `${g.players[i].name}${mine ? " (you)" : ""}: ${g.scores[i]} points${turn ? ", to move" : ""}`;
    });
    const a = Math.max(0, g.scores[0]);
    const b = Math.max(0, g.scores[1]);
    bar1.style.flexGrow = String(a);
    bar2.style.flexGrow = String(b);
    scoreBar.classList.toggle("empty", a + b === 0);
    scoreBar.setAttribute("aria-label", `Score ${g.scores[0]} to ${g.scores[1]}`);

    status.textContent = statusText(g, onl ? me() : undefined);
    deadNote.hidden = g.dead_edges.length === 0 || g.over;

    board.render(g, {
      faint: canAct && g.phase === "draw",
      pulse: human && !g.over && g.drawn_this_turn === 0,
      animate,
    });
    board.root.classList.toggle("disabled", !canAct);

    // Turn controls
    turnControls.hidden = prac || g.over;
    dicePanel.hidden = g.die === null;
    endBtn.hidden = g.die === null;
    if (g.die !== null) {
      dieFace.textContent = g.phase === "draw" && g.roll !== null ? String(g.roll) : `d${g.die}`;
      dieFace.classList.toggle("rolled", g.phase === "draw" && g.roll !== null);
      dieLabel.textContent = diceLabel(g);
      rollBtn.disabled = !(canAct && g.phase === "roll");
      endBtn.disabled = !(canAct && g.can_end_turn);
    }
    undoRow.hidden = g.clock > 0 || onl; // no Undo online: an edge counts the moment it is drawn
    undoBtn.disabled = !(canAct && g.can_undo);
    standardNote.hidden = g.die !== null;

    // Practice panel
    practicePanel.hidden = !prac;
    if (prac) {
      const total = edgeCount(g.boxes);
      edgeCounter.textContent = `Edges drawn: ${total - g.open_edges} of ${total}`;
      const names: [string, string] = [g.players[0].name, g.players[1].name];
      historyList.replaceChildren(...g.history.map((entry) => h("li", { class: `p${entry.player}` }, historyLine(entry, names))));
      historyList.scrollTop = historyList.scrollHeight;
      pauseBtn.textContent = paused ? "Resume" : "Pause";
      pauseBtn.disabled = g.over;
      renderPreview();
    }
    afterBar.hidden = !(g.over && !resultOpen && resultSeenFor === g.game);
    againBtn.textContent = prac ? "Replay same seed" : onl ? "Rematch" : "Play Again";
    againBtn.disabled = onl && !["open", "offered"].includes(rematchStatus(g, me()));
    exitBtn.hidden = prac;
    backBtn.setAttribute("aria-label", onl ? (g.over ? "Back to the online menu" : "Leave the game") : "Back to menu (the game is saved)");
    renderClock();
    renderOnline();
    overlay.hidden = !paused;
    overlay.textContent = paused ? "Paused — press Resume or P to go on" : "";
  }

  function renderPreview(): void {
    if (!game || !practice()) return;
    board.setHighlight([]);
    if (!previewOn) {
      previewBox.replaceChildren(h("p", { class: "muted" }, "Preview hidden."));
      return;
    }
    const edge = focusEdge && !board.isDrawn(focusEdge) ? focusEdge : null;
    const pv = edge ? game.previews?.[edgeKey(edge)] : undefined;
    if (!edge || !pv) {
      previewBox.replaceChildren(h("p", { class: "muted" }, game.over ? "The game is over." : "Point at an open edge, or focus the board and use the arrow keys, to preview it."));
      return;
    }
    const captured = pv.captures.filter((c) => c.kind === "captured");
    const boxes = captured.reduce((n, c) => n + c.size * c.size, 0);
    board.setHighlight(captured);
    previewBox.replaceChildren(
      h("p", { class: "preview-edge" }, describeEdge(edge)),
      h(
        "dl",
        { class: "preview-facts" },
        h("dt", {}, "Immediate captures"),
        h("dd", {}, boxes ? `${boxes} ${boxes === 1 ? "box" : "boxes"} (highlighted)` : "None"),
        h("dt", {}, "Capture continuation"),
        h("dd", {}, `${pv.continuation} more ${pv.continuation === 1 ? "box" : "boxes"}`),
        h("dt", {}, "Three-sided boxes left open"),
        h("dd", {}, String(pv.one_short)),
      ),
    );
  }

  function renderClock(): void {
    if (!game || game.clock <= 0 || game.over) {
      clock.hidden = true;
      return;
    }
    clock.hidden = false;
    if (clockDeadline === null) {
      clock.textContent = "⏱ –";
      clock.classList.remove("low");
      return;
    }
    const left = clockDeadline - performance.now();
    clock.textContent = `⏱ ${clockText(left)}`;
    clock.classList.toggle("low", left < 5000);
  }

  /** The other player's card marked away (and every card's label). */
  function renderAway(g: GameState): void {
    cards.forEach((card, i) => {
      const away = shownAway(g, (i + 1) as PlayerNo);
      card.classList.toggle("away", away);
      (card.querySelector(".away-tag") as HTMLElement).hidden = !away;
      card.setAttribute("aria-label", `${card.dataset.label ?? ""}${away ? ", away" : ""}`);
    });
  }

  /** The move limit and the other player's grace, counted down from the last frame. */
  function renderOnline(): void {
    const g = game;
    const o = g?.online ?? null;
    if (!g || !o || g.over) {
      moveLimit.hidden = true;
      awayLine.hidden = true;
      if (g) renderAway(g);
      return;
    }
    const now = performance.now();
    renderAway(g);
    moveLimit.hidden = !(o.move_limit > 0 && moveDeadline !== null);
    if (!moveLimit.hidden && moveDeadline !== null) {
      const left = moveDeadline - now;
      moveLimit.textContent = moveLimitText(g, me(), left);
      moveLimit.classList.toggle("low", left < 15000);
    }
    const other = opp();
    awayLine.hidden = !shownAway(g, other);
    if (!awayLine.hidden) awayLine.textContent = awayText(g.players[other - 1].name, awayDeadline === null ? null : awayDeadline - now);
  }

  // --- applying the server's frames -----------------------------------------------------------
  function apply(next: GameState, action: Record<string, unknown> | undefined): void {
    const prev = game;
    const newGame = !prev || prev.game !== next.game;
    game = next;
    pendingSeq = null;
    app.pendingStart = null;
    if (newGame) {
      resultSeenFor = null;
      focusEdge = null;
      // The game is on screen: its move clock runs.
      if (next.clock > 0 && !next.over && !document.hidden) app.conn.visibility(true);
    }
    let animate: HistoryEntry | null = null;
    if (action && Array.isArray(action.draw) && next.history.length) {
      animate = next.history[next.history.length - 1];
      const by = Number(action.by ?? animate.player);
      if (next.players[by - 1]?.kind === "human") {
        const captured = animate.changes.some((c) => c.kind === "captured" && c.player === by);
        vibrate(app.settings.vibration, captured ? [30, 40, 30] : 12);
      }
    }
    clockDeadline = next.clock_remaining_ms !== null && next.clock > 0 && !next.over ? performance.now() + next.clock_remaining_ms : null;
    const o = next.online;
    moveDeadline = o && o.move_remaining_ms !== null && !next.over ? performance.now() + o.move_remaining_ms : null;
    if (newGame) awaySince = [null, null];
    awaySince = [0, 1].map((i) => (o && !next.over && !o.connected[i] ? (awaySince[i] ?? performance.now()) : null)) as [number | null, number | null];
    const awayMs = o ? o.away_remaining_ms[opp() - 1] : null;
    awayDeadline = awayMs !== null && awayMs !== undefined ? performance.now() + awayMs : null;
    if (onlineResult && onlineResult.game === next.game) onlineResult.refresh(next);
    app.noteSavedFrom(next);
    renderAll(animate);
    if (next.over && resultSeenFor !== next.game) {
      resultSeenFor = next.game;
      fetchExtras(next);
      setTimeout(() => alive && game?.game === next.game && showResult(), animate ? 700 : 0);
    }
  }

  offs.push(
    app.conn.on({
      game: (g, action) => {
        if (paused) {
          queued.push({ game: g, action });
          return;
        }
        apply(g, action);
      },
      error: (code, _message, replyTo) => {
        pendingSeq = null;
        if (replyTo !== undefined && replyTo === app.pendingStart && !game) {
          app.pendingStart = null;
          app.show(code === "no_game" ? "menu" : app.screenName === "game" && practice() ? "practice-setup" : "menu");
        }
      },
      status: () => renderAll(null),
    }),
  );

  // --- acting ---------------------------------------------------------------------------------
  function ready(): GameState | null {
    if (!game || game.over || paused || !app.conn.isOpen || !myTurn(game)) return null;
    if (pendingSeq === game.seq) return null;
    return game;
  }

  function pick(edge: EdgeRef): void {
    const g = ready();
    if (!g) return;
    if (board.isDrawn(edge)) return; // a drawn edge does nothing
    if (g.phase === "roll") {
      toast("Roll the dice first");
      rollBtn.focus();
      return;
    }
    if (app.conn.act("draw", edge)) {
      pendingSeq = g.seq;
      vibrate(app.settings.vibration, 8);
    }
  }

  function send(type: "roll" | "end_turn" | "undo"): void {
    const g = ready();
    if (!g) return;
    if (app.conn.act(type)) pendingSeq = g.seq;
  }

  rollBtn.addEventListener("click", () => send("roll"));
  endBtn.addEventListener("click", () => send("end_turn"));
  undoBtn.addEventListener("click", () => send("undo"));
  zoomBtn.addEventListener("click", () => {
    board.showWholeBoard();
    board.root.focus();
  });

  function leave(to: "menu" | "practice-setup" | "online" = "menu"): void {
    if (game && !game.over) app.conn.visibility(false);
    app.noteSavedFrom(game);
    app.conn.leaveGame();
    app.show(to);
  }

  /** Leaves an online game for the online menu: a running one (after the player confirms) is given
   * to the other player, a finished one declines a rematch. */
  async function leaveOnline(): Promise<void> {
    const g = game;
    const id = g?.game ?? app.conn.online?.game;
    if (!id) {
      leave("online");
      return;
    }
    if (g && !g.over) {
      const name = g.players[opp() - 1].name;
      const sure = await modal({
        title: "Leave the game?",
        body: [`Leaving gives the game to ${name}: ${name} wins.`],
        buttons: [
          { label: "Stay", value: false, primary: true },
          { label: "Leave game", value: true, danger: true },
        ],
      });
      // (Had it ended while the question was open, leaving now only declines a rematch.)
      if (!sure || !alive) return;
    }
    if (!app.conn.leaveOnline(id)) {
      toast("Not connected — reconnecting…");
      return;
    }
    leave("online");
  }

  function askRematch(): void {
    const g = game;
    if (!g || !g.over || !online()) return;
    if (!["open", "offered"].includes(rematchStatus(g, me()))) return;
    if (!app.conn.rematch(g.game, true)) toast("Not connected — reconnecting…");
  }

  backBtn.addEventListener("click", () => (online() ? leaveOnline() : leave(practice() ? "practice-setup" : "menu")));
  exitBtn.addEventListener("click", () => (online() ? leaveOnline() : leave()));
  resultsBtn.addEventListener("click", () => showResult());
  againBtn.addEventListener("click", () => {
    if (!game) return;
    if (online()) askRematch();
    else app.startGame(app.againOptions(game));
  });

  // Practice buttons
  function togglePause(): void {
    if (!game || game.over) return;
    setPaused(!paused);
  }
  function setPaused(p: boolean): void {
    if (paused === p) return;
    paused = p;
    if (!paused) {
      const items = queued;
      queued = [];
      if (items.length) {
        const last = items[items.length - 1];
        apply(last.game, items.length === 1 ? last.action : undefined);
        return;
      }
    }
    renderAll(null);
  }
  pauseBtn.addEventListener("click", togglePause);
  previewToggle.addEventListener("click", () => {
    previewOn = !previewOn;
    previewToggle.textContent = previewOn ? "Hide preview" : "Show preview";
    previewToggle.setAttribute("aria-pressed", String(!previewOn));
    renderPreview();
  });
  const restart = (seed?: string) => {
    if (!game) return;
    const opts = app.againOptions(game);
    if (seed) {
      opts.seed = seed;
      app.practice = { ...app.practice, seed };
    }
    paused = false;
    queued = [];
    app.startGame(opts);
  };
  restartBtn.addEventListener("click", () => restart());
  newSeedBtn.addEventListener("click", () => restart(randomSeed()));
  setupBtn.addEventListener("click", () => leave("practice-setup"));

  // --- result window --------------------------------------------------------------------------
  /** Asks the server what the finished game meant; errors are ignored (the window works without). */
  function fetchExtras(g: GameState): void {
    if (!g.over || g.opponent === "practice" || g.mode.startsWith("practice_") || extras.has(g.game)) return;
    app.stats = null; // the game changes the statistics: the next screen asks afresh
    extras.set(g.game, null);
    app.conn.gameResult(g.game).then(
      (frame) => {
        extras.set(g.game, resultExtras(frame));
        if (alive) fillExtras(g.game);
      },
      () => {
        extras.delete(g.game); // the Results button asks again
      },
    );
  }

  function fillExtras(gameId: string): void {
    const info = extras.get(gameId);
    if (!info || !extrasBox || extrasBox.game !== gameId) return;
    extrasBox.el.replaceChildren(
      ...(info.leaderboard ? [h("p", { class: "result-leaderboard" }, info.leaderboard)] : []),
      ...(info.achievements.length ? [h("ul", { class: "result-achievements" }, info.achievements.map((line) => h("li", {}, line)))] : []),
    );
  }

  async function showResult(): Promise<void> {
    if (!game || !game.over || resultOpen) return;
    if (online()) {
      showOnlineResult();
      return;
    }
    const g = game;
    resultOpen = true;
    renderAll(null);
    const prac = practice();
    const body: (Node | string)[] = [
      h("h3", { class: "final-head" }, "Final scores"),
      h(
        "ul",
        { class: "final-scores" },
        g.players.map((p, i) =>
          h("li", { class: `p${i + 1} ${g.winner === i + 1 ? "winner" : ""}` }, markIcon((i + 1) as 1 | 2), h("span", {}, p.name), h("strong", {}, String(g.scores[i]))),
        ),
      ),
    ];
    if (g.ended_with_open_edges) body.push(h("p", { class: "note" }, OPEN_EDGES_NOTE));
    // Filled in when the server's result arrives (it may take a moment).
    const extraBox = h("div", { class: "result-extra", "aria-live": "polite" });
    body.push(extraBox);
    extrasBox = { game: g.game, el: extraBox };
    fetchExtras(g);
    fillExtras(g.game);
    const buttons = prac
      ? [
          { label: "Replay same seed", value: "replay", primary: true },
          { label: "New seed", value: "seed" },
          { label: "View board", value: "view" },
          { label: "Change setup", value: "setup" },
        ]
      : [
          { label: "Play again", value: "again", primary: true },
          { label: "View board", value: "view" },
          { label: "Exit", value: "exit" },
        ];
    const choice = await modal<string>({ title: resultTitle(g), body, buttons, className: "result-dialog", dismissValue: "view" });
    resultOpen = false;
    if (extrasBox?.el === extraBox) extrasBox = null;
    if (!alive) return;
    switch (choice) {
      case "again":
      case "replay":
        restart();
        return;
      case "seed":
        restart(randomSeed());
        return;
      case "setup":
        leave("practice-setup");
        return;
      case "exit":
        leave();
        return;
      default:
        renderAll(null);
        (afterBar.hidden ? board.root : resultsBtn).focus();
    }
  }

  /** The result window of an online game: who won and why, and the rematch, which it follows
   * while it is open (the other player may ask, or leave). */
  function showOnlineResult(): void {
    if (!game || !game.over || resultOpen) return;
    const g = game;
    resultOpen = true;
    renderAll(null);
    const titleId = `dlg-${Math.random().toString(36).slice(2, 8)}`;
    const dlg = h("dialog", { class: "dialog result-dialog online-result", "aria-labelledby": titleId });
    const reason = h("p", { class: "forfeit-line" });
    const rematchInfo = h("p", { class: "rematch-line", role: "status", "aria-live": "polite" });
    const rematchBtn = h("button", { type: "button", class: "btn primary" }, "Rematch");
    const viewBtn = h("button", { type: "button", class: "btn" }, "View board");
    const exit = h("button", { type: "button", class: "btn" }, "Exit");
    const extraBox = h("div", { class: "result-extra", "aria-live": "polite" });
    const title = h("h2", { id: titleId });
    const list = h("ul", { class: "final-scores" });
    dlg.append(
      title,
      reason,
      h("h3", { class: "final-head" }, "Final scores"),
      list,
      ...(g.ended_with_open_edges ? [h("p", { class: "note" }, OPEN_EDGES_NOTE)] : []),
      extraBox,
      rematchInfo,
      h("div", { class: "dialog-buttons" }, rematchBtn, viewBtn, exit),
    );
    const refresh = (cur: GameState) => {
      title.textContent = resultTitle(cur, me());
      const why = forfeitLine(cur, me());
      reason.textContent = why ?? "";
      reason.hidden = !why;
      list.replaceChildren(
        ...cur.players.map((p, i) =>
          h(
            "li",
            { class: `p${i + 1} ${cur.winner === i + 1 ? "winner" : ""}` },
            markIcon((i + 1) as 1 | 2),
            h("span", {}, p.name + (i + 1 === me() ? " (you)" : "")),
            h("strong", {}, String(cur.scores[i])),
          ),
        ),
      );
      const line = rematchLine(cur, me());
      rematchInfo.textContent = line ?? "";
      rematchInfo.hidden = !line;
      const st = rematchStatus(cur, me());
      rematchBtn.disabled = !(st === "open" || st === "offered");
      rematchBtn.textContent = st === "offered" ? "Accept rematch" : "Rematch";
    };
    const close = () => {
      if (onlineResult?.dlg === dlg) onlineResult = null;
      if (extrasBox?.el === extraBox) extrasBox = null;
      resultOpen = false;
      dlg.close();
      dlg.remove();
    };
    rematchBtn.addEventListener("click", askRematch);
    viewBtn.addEventListener("click", () => {
      close();
      renderAll(null);
      (afterBar.hidden ? board.root : resultsBtn).focus();
    });
    exit.addEventListener("click", () => {
      void leaveOnline();
    });
    dlg.addEventListener("cancel", (ev) => {
      ev.preventDefault();
      viewBtn.click();
    });
    onlineResult = { game: g.game, dlg, refresh };
    extrasBox = { game: g.game, el: extraBox };
    refresh(g);
    fetchExtras(g);
    fillExtras(g.game);
    document.body.appendChild(dlg);
    dlg.showModal();
    (rematchBtn.disabled ? viewBtn : rematchBtn).focus();
  }

  // --- clock, visibility ----------------------------------------------------------------------
  const tick = setInterval(() => {
    if (!game) return;
    renderClock();
    renderOnline();
    if (clockDeadline === null || game.over || !myTurn(game) || !app.conn.isOpen) return;
    if (clockDeadline - performance.now() > 0) return;
    const now = performance.now();
    if (timeoutSent && timeoutSent.seq === game.seq && now - timeoutSent.at < 1000) return;
    timeoutSent = { seq: game.seq, at: now };
    app.conn.act("timeout");
  }, 200);
  offs.push(() => clearInterval(tick));

  const onVisibility = () => {
    const visible = !document.hidden;
    if (game && !game.over) app.conn.visibility(visible);
    if (!visible && practice()) setPaused(true);
  };
  const onBlur = () => {
    setTimeout(() => {
      if (alive && practice() && !document.hasFocus()) setPaused(true);
    }, 50);
  };
  document.addEventListener("visibilitychange", onVisibility);
  window.addEventListener("blur", onBlur);
  offs.push(() => document.removeEventListener("visibilitychange", onVisibility));
  offs.push(() => window.removeEventListener("blur", onBlur));

  // A game may already be here (state arrived before the screen was built).
  if (app.conn.game && !app.pendingStart) apply(app.conn.game, undefined);
  setTimeout(() => board.root.focus({ preventScroll: true }), 0);

  return {
    unmount() {
      alive = false;
      offs.forEach((f) => f());
      document.querySelectorAll("dialog.result-dialog").forEach((d) => {
        (d as HTMLDialogElement).close();
        d.remove();
      });
    },
  };
}
