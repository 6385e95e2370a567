// The result window of a finished game: final scores, what the server says the game meant
// (leaderboard line, achievements), and what to do next. An online game's window follows the
// rematch while it is open (the other player may ask, or leave).

import type { App } from "../app";
import { isPractice } from "../state/catalog";
import { h, modal } from "./dom";
import type { GameSession } from "../state/gameSession";
import { markIcon } from "./marks";
import { ReviewView } from "./reviewView";
import { resultExtras, type ResultExtras } from "../state/stats";
import { OPEN_EDGES_NOTE, forfeitLine, rematchLine, rematchStatus, resultTitle } from "../state/texts";
import type { GameState } from "../network/types";

/** What the result window's buttons do, supplied by the game screen. */
export interface ResultActions {
  alive(): boolean;
  /** Renders the screen again (the after-game bar shows once the window closes). */
  render(): void;
  /** Where focus goes after View board. */
  focusBoard(): void;
  restart(seed?: "new"): void;
  leave(to: "menu" | "practice-setup"): void;
  leaveOnline(): Promise<void>;
  askRematch(): void;
}

export class ResultView {
  open = false;
  // The review is on screen (opened from the after-game bar before this window came up): the
  // window does not come up over it.
  private reviewing = false;
  // By game id: null while asked for. The open window's box for it, to fill in when it comes.
  private readonly extras = new Map<string, ResultExtras | null>();
  private extrasBox: { game: string; el: HTMLElement } | null = null;
  private online: { game: string; dlg: HTMLDialogElement; refresh(g: GameState): void } | null = null;

  constructor(private readonly app: App, private readonly session: GameSession, private readonly actions: ResultActions) {}

  /** Asks the server what the finished game meant; errors are ignored (the window works without). */
  fetchExtras(g: GameState): void {
    if (!g.over || g.opponent === "practice" || isPractice(g.mode) || this.extras.has(g.game)) return;
    this.app.stats = null; // the game changes the statistics: the next screen asks afresh
    this.extras.set(g.game, null);
    this.app.conn.gameResult(g.game).then(
      (frame) => {
        this.extras.set(g.game, resultExtras(frame));
        if (this.actions.alive()) this.fillExtras(g.game);
      },
      () => {
        this.extras.delete(g.game); // the Results button asks again
      },
    );
  }

  /** Opens the review of the finished game on screen; the screen renders again when it closes. */
  review(g: GameState): void {
    if (this.reviewing) return;
    this.reviewing = true;
    new ReviewView(this.app.conn, g, () => {
      this.reviewing = false;
      if (this.actions.alive()) this.actions.render();
    });
  }

  /** A new frame of the game: an open online window follows it. */
  follow(g: GameState): void {
    if (this.online && this.online.game === g.game) this.online.refresh(g);
  }

  private fillExtras(gameId: string): void {
    const info = this.extras.get(gameId);
    if (!info || !this.extrasBox || this.extrasBox.game !== gameId) return;
    this.extrasBox.el.replaceChildren(
      ...(info.leaderboard ? [h("p", { class: "result-leaderboard" }, info.leaderboard)] : []),
      ...(info.achievements.length ? [h("ul", { class: "result-achievements" }, info.achievements.map((line) => h("li", {}, line)))] : []),
    );
  }

  private scoreList(g: GameState, you: number | null): HTMLElement {
    return h(
      "ul",
      { class: "final-scores" },
      g.players.map((p, i) =>
        h(
          "li",
          { class: `p${i + 1} ${g.winner === i + 1 ? "winner" : ""}` },
          markIcon((i + 1) as 1 | 2),
          h("span", {}, p.name + (you === i + 1 ? " (you)" : "")),
          h("strong", {}, String(g.scores[i])),
        ),
      ),
    );
  }

  async show(): Promise<void> {
    const g = this.session.game;
    if (!g || !g.over || this.open || this.reviewing) return;
    if (this.session.online) {
      this.showOnline(g);
      return;
    }
    this.open = true;
    this.actions.render();
    const prac = this.session.practice;
    const body: (Node | string)[] = [h("h3", { class: "final-head" }, "Final scores"), this.scoreList(g, null)];
    if (g.ended_with_open_edges) body.push(h("p", { class: "note" }, OPEN_EDGES_NOTE));
    // Filled in when the server's result arrives (it may take a moment).
    const extraBox = h("div", { class: "result-extra", "aria-live": "polite" });
    body.push(extraBox);
    this.extrasBox = { game: g.game, el: extraBox };
    this.fetchExtras(g);
    this.fillExtras(g.game);
    const buttons = prac
      ? [
          { label: "Replay same seed", value: "replay", primary: true },
          { label: "New seed", value: "seed" },
          { label: "View board", value: "view" },
          { label: "Change setup", value: "setup" },
          { label: "Review", value: "review" },
        ]
      : [
          { label: "Play again", value: "again", primary: true },
          { label: "Review", value: "review" },
          { label: "View board", value: "view" },
          { label: "Exit", value: "exit" },
        ];
    const choice = await modal<string>({ title: resultTitle(g), body, buttons, className: "result-dialog", dismissValue: "view" });
    this.open = false;
    if (this.extrasBox?.el === extraBox) this.extrasBox = null;
    if (!this.actions.alive()) return;
    switch (choice) {
      case "again":
      case "replay":
        this.actions.restart();
        return;
      case "seed":
        this.actions.restart("new");
        return;
      case "setup":
        this.actions.leave("practice-setup");
        return;
      case "exit":
        this.actions.leave("menu");
        return;
      case "review":
        this.actions.render();
        this.review(g);
        return;
      default:
        this.actions.render();
        this.actions.focusBoard();
    }
  }

  private showOnline(g: GameState): void {
    const s = this.session;
    this.open = true;
    this.actions.render();
    const titleId = `dlg-${Math.random().toString(36).slice(2, 8)}`;
    const dlg = h("dialog", { class: "dialog result-dialog online-result", "aria-labelledby": titleId });
    const reason = h("p", { class: "forfeit-line" });
    const rematchInfo = h("p", { class: "rematch-line", role: "status", "aria-live": "polite" });
    const rematchBtn = h("button", { type: "button", class: "btn primary" }, "Rematch");
    const viewBtn = h("button", { type: "button", class: "btn" }, "View board");
    const reviewBtn = h("button", { type: "button", class: "btn" }, "Review");
    const exit = h("button", { type: "button", class: "btn" }, "Exit");
    const extraBox = h("div", { class: "result-extra", "aria-live": "polite" });
    const title = h("h2", { id: titleId });
    const list = h("div");
    dlg.append(
      title,
      reason,
      h("h3", { class: "final-head" }, "Final scores"),
      list,
      ...(g.ended_with_open_edges ? [h("p", { class: "note" }, OPEN_EDGES_NOTE)] : []),
      extraBox,
      rematchInfo,
      h("div", { class: "dialog-buttons" }, rematchBtn, reviewBtn, viewBtn, exit),
    );
    const refresh = (cur: GameState) => {
      title.textContent = resultTitle(cur, s.me);
      const why = forfeitLine(cur, s.me);
      reason.textContent = why ?? "";
      reason.hidden = !why;
      list.replaceChildren(this.scoreList(cur, s.me));
      const line = rematchLine(cur, s.me);
      rematchInfo.textContent = line ?? "";
      rematchInfo.hidden = !line;
      const st = rematchStatus(cur, s.me);
      rematchBtn.disabled = !(st === "open" || st === "offered");
      rematchBtn.textContent = st === "offered" ? "Accept rematch" : "Rematch";
    };
    const close = () => {
      if (this.online?.dlg === dlg) this.online = null;
      if (this.extrasBox?.el === extraBox) this.extrasBox = null;
      this.open = false;
      dlg.close();
      dlg.remove();
    };
    rematchBtn.addEventListener("click", () => this.actions.askRematch());
    viewBtn.addEventListener("click", () => {
      close();
      this.actions.render();
      this.actions.focusBoard();
    });
    reviewBtn.addEventListener("click", () => {
      close();
      this.actions.render();
      this.review(g);
    });
    exit.addEventListener("click", () => {
      void this.actions.leaveOnline();
    });
    dlg.addEventListener("cancel", (ev) => {
      ev.preventDefault();
      viewBtn.click();
    });
    this.online = { game: g.game, dlg, refresh };
    this.extrasBox = { game: g.game, el: extraBox };
    refresh(g);
    this.fetchExtras(g);
    this.fillExtras(g.game);
    document.body.appendChild(dlg);
    dlg.showModal();
    (rematchBtn.disabled ? viewBtn : rematchBtn).focus();
  }

  /** Closes any result window (the screen is going). */
  closeAll(): void {
    document.querySelectorAll("dialog.result-dialog").forEach((d) => {
      (d as HTMLDialogElement).close();
      d.remove();
    });
  }
}
