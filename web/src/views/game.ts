// The game screen, for games against the AI, local games, practice games and online games.
// GameSession holds the state and applies the server's frames; the views (top bar, score cards,
// board, turn controls, practice panel, result window) render from it; this module builds the
// screen, passes the player's actions to the server and runs the clock and visibility.

import type { App, Screen } from "../app";
import { BoardView } from "./board";
import { randomSeed } from "../state/choices";
import { h, modal, toast, vibrate } from "./dom";
import { GameSession, type Applied } from "../state/gameSession";
import { GameTopbar } from "./gameTopbar";
import { PracticePanel } from "./practicePanel";
import { ResultView } from "./resultView";
import { ScoreView } from "./scoreView";
import { awayText, moveLimitText, rematchStatus } from "../state/texts";
import { TurnControls } from "./turnControls";
import type { EdgeRef, HistoryEntry } from "../network/types";

export function mountGame(app: App, root: HTMLElement): Screen {
  const session = new GameSession(() => app.conn.online?.seat ?? 1);
  let focusEdge: EdgeRef | null = null;
  let alive = true;
  const offs: (() => void)[] = [];

  // --- layout ---------------------------------------------------------------------------------
  const topbar = new GameTopbar(session, !app.onLanApp);
  const scores = new ScoreView(session);
  const board = new BoardView(
    {
      onPick: (edge) => pick(edge),
      onFocusEdge: (edge) => {
        focusEdge = edge;
        if (session.game && session.practice) practicePanel.renderPreview(session.game, focusEdge);
      },
      onTapSelect: () => renderAll(null),
      onKey: (key) => {
        // The turn's buttons from the board, so that a keyboard player need not leave it.
        const k = key.toLowerCase();
        if (k === "p" && session.practice) togglePause();
        else if (k === "r" && !controls.rollBtn.disabled && !controls.rollBtn.hidden) send("roll");
        else if (k === "e" && !controls.endBtn.disabled && !controls.endBtn.hidden) send("end_turn");
        else if (k === "u" && !controls.undoBtn.disabled && !session.online) send("undo");
        else return false;
        return true;
      },
    },
    "Game board. R rolls, E ends the turn, U undoes",
    app.settings.tapSelect,
  );
  const overlay = h("div", { class: "board-overlay", hidden: true });
  const boardWrap = h("div", { class: "board-wrap" }, board.root, overlay);
  // Online games: the move limit under the board, and the other player's connection.
  const moveLimit = h("p", { class: "move-limit", role: "timer", "aria-label": "Time left for the move", hidden: true });
  const awayLine = h("p", { class: "away-line", role: "status", hidden: true });
  // Watching (docs/protocol.md, Watching): the link for others to watch, and how many do.
  const watchers = h("p", { class: "watchers-line", role: "status", "aria-live": "polite", hidden: true });
  const shareBtn = h("button", { type: "button", class: "btn small share-watch", hidden: true }, "Share watch link");
  const watchLink = h("p", { class: "watch-link", hidden: true });
  const onlineBar = h("div", { class: "online-bar" }, moveLimit, awayLine, watchers, shareBtn, watchLink);
  const controls = new TurnControls(session);
  const practicePanel = new PracticePanel(board);
  const result = new ResultView(app, session, {
    alive: () => alive,
    render: () => renderAll(null),
    focusBoard: () => (controls.afterBar.hidden ? board.root : controls.resultsBtn).focus(),
    restart: (seed) => restart(seed ? randomSeed() : undefined),
    leave: (to) => leave(to),
    leaveOnline: () => leaveOnline(),
    askRematch: () => askRematch(),
  });

  const panel = h(
    "section",
    { class: "control-panel", "aria-label": "Controls" },
    controls.status, controls.deadNote, controls.turnControls, practicePanel.root, controls.afterBar,
  );
  const main = h("div", { class: "board-column" }, scores.root, boardWrap, board.info, onlineBar);
  const body = h("div", { class: "game-body" });
  if (app.settings.controls === "right") body.append(main, panel);
  else body.append(panel, main);
  const screen = h("div", { class: "screen game-screen" }, topbar.root, body);
  root.append(screen);

  // --- rendering ------------------------------------------------------------------------------
  function renderAll(animate: HistoryEntry | null): void {
    const g = session.game;
    if (!g) return;
    screen.classList.toggle("is-practice", session.practice);
    screen.classList.toggle("is-online", session.online);
    const human = session.myTurn(g);
    const canAct = human && app.conn.isOpen && !session.paused;
    topbar.render(g);
    scores.render(g);
    board.render(g, { faint: canAct && g.phase === "draw", pulse: human && !g.over && g.drawn_this_turn === 0, animate });
    board.root.classList.toggle("disabled", !canAct);
    controls.render(g, canAct, board.tapSelected !== null, result.open);
    practicePanel.root.hidden = !session.practice;
    if (session.practice) practicePanel.render(g, session.paused, focusEdge);
    renderOnline();
    overlay.hidden = !session.paused;
    overlay.textContent = session.paused ? "Paused — press Resume or P to go on" : "";
  }

  /** The move limit and the other player's grace, counted down from the last frame. */
  function renderOnline(): void {
    const g = session.game;
    const o = g?.online ?? null;
    shareBtn.hidden = !o;
    const count = o ? app.conn.watchers : 0;
    watchers.hidden = count === 0;
    watchers.textContent = count === 1 ? "1 watching" : `${count} watching`;
    if (g) scores.renderAway(g);
    if (!g || !o || g.over) {
      moveLimit.hidden = true;
      awayLine.hidden = true;
      return;
    }
    const left = session.moveLeft();
    moveLimit.hidden = !(o.move_limit > 0 && left !== null);
    if (left !== null && !moveLimit.hidden) {
      moveLimit.textContent = moveLimitText(g, session.me, left);
      moveLimit.classList.toggle("low", left < 15000);
    }
    const other = session.opp;
    awayLine.hidden = !session.shownAway(g, other);
    if (!awayLine.hidden) awayLine.textContent = awayText(g.players[other - 1].name, session.awayLeft());
  }

  // --- applying the server's frames -----------------------------------------------------------
  function show(applied: Applied | null): void {
    if (!applied) {
      renderAll(null);
      return;
    }
    const { game: next, animate, newGame, newlyOver } = applied;
    app.pendingStart = null;
    if (newGame) {
      focusEdge = null;
      // The game is on screen: its move clock runs.
      if (next.clock > 0 && !next.over && !document.hidden) app.conn.visibility(true);
    }
    if (animate) {
      const by = animate.player;
      if (next.players[by - 1]?.kind === "human") {
        const captured = animate.changes.some((c) => c.kind === "captured" && c.player === by);
        vibrate(app.settings.vibration, captured ? [30, 40, 30] : 12);
      }
    }
    result.follow(next);
    app.noteSavedFrom(next);
    renderAll(animate);
    if (newlyOver) {
      result.fetchExtras(next);
      setTimeout(() => alive && session.game?.game === next.game && result.show(), animate ? 700 : 0);
    }
  }

  offs.push(
    app.conn.on({
      game: (g, action) => {
        const applied = session.receive(g, action);
        if (applied) show(applied);
      },
      error: (code, _message, replyTo) => {
        session.pendingSeq = null;
        if (replyTo !== undefined && replyTo === app.pendingStart && !session.game) {
          app.pendingStart = null;
          app.show(code === "no_game" ? "menu" : app.screenName === "game" && session.practice ? "practice-setup" : "menu");
        }
      },
      status: () => renderAll(null),
      watch: (frame) => {
        if (frame.type === "watching") renderOnline();
        if (frame.type !== "watch_link" || frame.game !== session.game?.game) return;
        const url = new URL(frame.url, location.href).href;
        watchLink.hidden = false;
        watchLink.replaceChildren("Watch link: ", h("a", { href: url, target: "_blank", rel: "noopener" }, url));
        navigator.clipboard?.writeText(url).then(
          () => toast("Watch link copied"),
          () => undefined, // not allowed here: the link is on screen to copy
        );
      },
    }),
  );
  shareBtn.addEventListener("click", () => {
    const g = session.game;
    if (g && !app.conn.shareWatch(g.game)) toast("Not connected — reconnecting…");
  });

  // --- acting ---------------------------------------------------------------------------------
  function pick(edge: EdgeRef): void {
    const g = session.ready(app.conn.isOpen);
    if (!g) return;
    if (board.isDrawn(edge)) return; // a drawn edge does nothing
    if (g.phase === "roll") {
      toast("Roll the dice first");
      controls.rollBtn.focus();
      return;
    }
    if (app.conn.act("draw", edge)) {
      session.pendingSeq = g.seq;
      board.clearTapSelection();
      vibrate(app.settings.vibration, 8);
    }
  }

  function send(type: "roll" | "end_turn" | "undo"): void {
    const g = session.ready(app.conn.isOpen);
    if (!g) return;
    if (app.conn.act(type)) session.pendingSeq = g.seq;
  }

  controls.rollBtn.addEventListener("click", () => send("roll"));
  controls.endBtn.addEventListener("click", () => send("end_turn"));
  controls.undoBtn.addEventListener("click", () => send("undo"));
  controls.drawBtn.addEventListener("click", () => {
    const edge = board.tapSelected;
    if (edge) pick(edge);
  });

  function leave(to: "menu" | "practice-setup" | "online" | "lan" = "menu"): void {
    const g = session.game;
    if (g && !g.over) app.conn.visibility(false);
    app.noteSavedFrom(g);
    app.conn.leaveGame();
    app.show(to);
  }

  /** Leaves an online game for the online menu: a running one (after the player confirms) is given
   * to the other player, a finished one declines a rematch. */
  async function leaveOnline(): Promise<void> {
    const g = session.game;
    const id = g?.game ?? app.conn.online?.game;
    if (!id) {
      leave(app.onlineHome);
      return;
    }
    if (g && !g.over) {
      const name = g.players[session.opp - 1].name;
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
    leave(app.onlineHome);
  }

  function askRematch(): void {
    const g = session.game;
    if (!g || !g.over || !session.online) return;
    if (!["open", "offered"].includes(rematchStatus(g, session.me))) return;
    if (!app.conn.rematch(g.game, true)) toast("Not connected — reconnecting…");
  }

  topbar.backBtn.addEventListener("click", () => (session.online ? leaveOnline() : leave(session.practice ? "practice-setup" : "menu")));
  controls.exitBtn.addEventListener("click", () => (session.online ? leaveOnline() : leave()));
  controls.resultsBtn.addEventListener("click", () => result.show());
  controls.reviewBtn.addEventListener("click", () => session.game?.over && result.review(session.game));
  controls.againBtn.addEventListener("click", () => {
    const g = session.game;
    if (!g) return;
    if (session.online) askRematch();
    else app.startGame(app.againOptions(g));
  });

  // Practice buttons
  function togglePause(): void {
    const g = session.game;
    if (!g || g.over) return;
    setPaused(!session.paused);
  }
  function setPaused(p: boolean): void {
    if (session.paused === p) return;
    show(session.setPaused(p));
  }
  practicePanel.pauseBtn.addEventListener("click", togglePause);
  practicePanel.previewToggle.addEventListener("click", () => {
    practicePanel.togglePreview();
    if (session.game) practicePanel.renderPreview(session.game, focusEdge);
  });
  function restart(seed?: string): void {
    const g = session.game;
    if (!g) return;
    const opts = app.againOptions(g);
    if (seed) {
      opts.seed = seed;
      app.practice = { ...app.practice, seed };
    }
    session.clearQueue();
    app.startGame(opts);
  }
  practicePanel.restartBtn.addEventListener("click", () => restart());
  practicePanel.newSeedBtn.addEventListener("click", () => restart(randomSeed()));
  practicePanel.setupBtn.addEventListener("click", () => leave("practice-setup"));

  // --- clock, visibility ----------------------------------------------------------------------
  const tick = setInterval(() => {
    if (!session.game) return;
    topbar.renderClock();
    renderOnline();
    if (session.timeoutDue(app.conn.isOpen)) app.conn.act("timeout");
  }, 200);
  offs.push(() => clearInterval(tick));

  const onVisibility = () => {
    const visible = !document.hidden;
    const g = session.game;
    if (g && !g.over) app.conn.visibility(visible);
    if (!visible && session.practice) setPaused(true);
  };
  const onBlur = () => {
    setTimeout(() => {
      if (alive && session.practice && !document.hasFocus()) setPaused(true);
    }, 50);
  };
  document.addEventListener("visibilitychange", onVisibility);
  window.addEventListener("blur", onBlur);
  offs.push(() => document.removeEventListener("visibilitychange", onVisibility));
  offs.push(() => window.removeEventListener("blur", onBlur));

  // A game may already be here (state arrived before the screen was built).
  if (app.conn.game && !app.pendingStart) show(session.apply(app.conn.game, undefined));
  setTimeout(() => board.root.focus({ preventScroll: true }), 0);

  return {
    unmount() {
      alive = false;
      offs.forEach((f) => f());
      result.closeAll();
    },
  };
}
