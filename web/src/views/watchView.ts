// The watch screen: an online game watched by its link (docs/protocol.md, Watching), live and
// read-only. The same board and score cards as the players', through the same updates and seq;
// nothing on it acts. When the game ends it shows the result, with a Review button that opens the
// same review screen as the players' (read-only, as theirs is), asked by the watch id.

import type { App, Screen } from "../app";
import { BoardView } from "./board";
import { ReviewView } from "./reviewView";
import { h } from "./dom";
import { GameSession } from "../state/gameSession";
import { ScoreView } from "./scoreView";
import { modeName, overlapName } from "../state/catalog";
import { awayText, clockText, diceLabel, finalScoresLine, historyLine } from "../state/texts";
import type { GameState } from "../network/types";

const FORFEITS: Record<string, string> = {
  left: "left the game",
  away: "did not come back in time",
  move_limit: "ran out of time for a move",
};

/** "Bob wins", "It's a tie": the result as a watcher, who plays neither seat, reads it. */
export function watchedResult(g: GameState): string {
  if (g.winner === null) return "";
  if (g.winner === 0) return "It's a tie";
  return `${g.players[g.winner - 1].name} wins`;
}

/** The status line for a watcher: whose turn and what they do, or how the game ended. */
export function watchedStatus(g: GameState): string {
  if (g.over) {
    const forfeit = g.online?.forfeit;
    const why = forfeit ? ` ${g.players[forfeit.player - 1].name} ${FORFEITS[forfeit.reason] ?? ""}.` : "";
    return `Game over — ${watchedResult(g)}.${why}`;
  }
  if (g.to_move === null) return "";
  const name = g.players[g.to_move - 1].name;
  if (g.die !== null && g.phase === "roll") return `${name}'s turn — rolling the dice`;
  return `${name}'s turn — drawing`;
}

export function watchersText(count: number): string {
  return count === 1 ? "1 watching" : `${count} watching`;
}

export function mountWatch(app: App, root: HTMLElement): Screen {
  const session = new GameSession(() => 1, undefined, true);
  const offs: (() => void)[] = [];

  const backBtn = h("button", { type: "button", class: "icon-btn", "aria-label": "Stop watching" }, "←");
  const title = h("h1", { class: "game-title" }, "Watching…");
  const count = h("div", { class: "watch-count", role: "status", "aria-live": "polite" });
  const topbar = h("header", { class: "topbar game-topbar" }, backBtn, title, h("div", { class: "topbar-end" }, count));
  const scores = new ScoreView(session);
  const board = new BoardView({ onPick: () => undefined }, "Game board (watching: read-only)");
  board.root.classList.add("disabled");
  const status = h("p", { class: "status", role: "status", "aria-live": "polite" }, "Opening the game…");
  const dice = h("p", { class: "watch-dice" });
  const previous = h("p", { class: "watch-previous" });
  const limit = h("p", { class: "move-limit", role: "timer", "aria-label": "Time left for the move", hidden: true });
  const away = h("p", { class: "away-line", role: "status", hidden: true });
  const resultTitle = h("h2", { class: "watch-result-title" });
  const resultScores = h("p", { class: "watch-result-scores" });
  const menuBtn = h("button", { type: "button", class: "btn primary" }, "Back to the menu");
  const reviewBtn = h("button", { type: "button", class: "btn" }, "Review");
  const after = h("div", { class: "watch-after form-buttons" }, reviewBtn, menuBtn);
  const result = h("section", { class: "watch-result", "aria-label": "Result", hidden: true }, resultTitle, resultScores, after);
  const gone = h("section", { class: "watch-gone", hidden: true });
  const main = h("div", { class: "board-column" }, scores.root, h("div", { class: "board-wrap" }, board.root), h("div", { class: "online-bar" }, limit, away));
  const panel = h("section", { class: "control-panel", "aria-label": "The game" }, h("p", { class: "watch-tag" }, "Watching — read-only"), status, dice, previous, result);
  const body = h("div", { class: "game-body" }, panel, main);
  const screen = h("main", { class: "screen game-screen watch-screen" }, topbar, body, gone);
  root.append(screen);

  function renderCount(): void {
    count.textContent = watchersText(Math.max(1, app.conn.watchers));
  }

  function render(): void {
    const g = session.game;
    if (!g) return;
    title.textContent = modeName(g.mode) + (g.overlap ? ` · ${overlapName(g.overlap)}` : "");
    scores.render(g);
    board.render(g, { faint: false, pulse: false, animate: null });
    status.textContent = watchedStatus(g);
    dice.textContent = g.over ? "" : diceLabel(g);
    const last = g.history[g.history.length - 1];
    const names: [string, string] = [g.players[0].name, g.players[1].name];
    previous.textContent = last ? `Previous turn: ${historyLine(last, names)}` : "No turn played yet";
    renderTimers();
    result.hidden = !g.over;
    if (g.over) {
      resultTitle.textContent = watchedResult(g);
      resultScores.textContent = finalScoresLine(g);
    }
    renderCount();
  }

  function renderTimers(): void {
    const g = session.game;
    const o = g?.online ?? null;
    if (!g || !o || g.over) {
      limit.hidden = away.hidden = true;
      return;
    }
    const left = session.moveLeft();
    limit.hidden = !(o.move_limit > 0 && left !== null);
    if (left !== null && !limit.hidden) limit.textContent = `Time left for ${g.players[(g.to_move ?? 1) - 1].name}'s move: ${clockText(left)}`;
    const awayPlayer = ([1, 2] as const).find((p) => session.shownAway(g, p));
    away.hidden = awayPlayer === undefined;
    if (awayPlayer !== undefined) away.textContent = awayText(g.players[awayPlayer - 1].name, session.awayLeft());
  }

  function showGone(message: string): void {
    body.hidden = true;
    gone.hidden = false;
    gone.replaceChildren(
      h("h2", {}, "Nothing to watch"),
      h("p", {}, message),
      h("div", { class: "form-buttons" }, h("button", { type: "button", class: "btn primary", onclick: () => stop() }, "Back to the menu")),
    );
  }

  function stop(): void {
    app.conn.leaveGame();
    history.replaceState(null, "", "/");
    app.show("menu");
  }

  offs.push(
    app.conn.on({
      game: (g, action) => {
        if (app.conn.watching === null) return;
        session.receive(g, action);
        render();
      },
      watch: (frame) => {
        if (frame.type === "watching") renderCount();
      },
      error: (code, message) => {
        if (code === "no_watch") showGone(message);
      },
    }),
  );
  let reviewing = false;
  function review(): void {
    const g = session.game;
    if (!g?.over || reviewing) return;
    reviewing = true;
    new ReviewView(app.conn, g, () => {
      reviewing = false;
      reviewBtn.focus();
    });
  }

  backBtn.addEventListener("click", stop);
  menuBtn.addEventListener("click", stop);
  reviewBtn.addEventListener("click", review);
  const tick = setInterval(renderTimers, 500);
  offs.push(() => clearInterval(tick));
  if (app.conn.game && app.conn.watching !== null) {
    session.receive(app.conn.game, undefined);
    render();
  }
  return {
    unmount() {
      offs.forEach((f) => f());
    },
  };
}
