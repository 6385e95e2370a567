// The turn's controls under the status line: the die and Roll Dice, Draw (for an edge a tap
// selected on a small board), End Turn, Undo, and after the game Results / Play Again / Exit.

import { h } from "./dom";
import type { GameSession } from "../state/gameSession";
import { DEAD_EDGES_NOTE, STANDARD_NOTE, diceLabel, rematchStatus, statusText } from "../state/texts";
import type { GameState } from "../network/types";

export class TurnControls {
  readonly status = h("p", { class: "status", role: "status", "aria-live": "polite" }, "Starting the game…");
  readonly deadNote = h("p", { class: "dead-note", hidden: true }, DEAD_EDGES_NOTE);
  readonly rollBtn = h("button", { type: "button", class: "btn primary roll-btn" }, "Roll Dice");
  readonly drawBtn = h("button", { type: "button", class: "btn primary draw-btn", hidden: true }, "Draw");
  readonly endBtn = h("button", { type: "button", class: "btn end-btn" }, "End Turn");
  readonly undoBtn = h("button", { type: "button", class: "btn undo-btn" }, "Undo");
  readonly resultsBtn = h("button", { type: "button", class: "btn" }, "Results");
  readonly reviewBtn = h("button", { type: "button", class: "btn review-btn" }, "Review");
  readonly againBtn = h("button", { type: "button", class: "btn primary" }, "Play Again");
  readonly exitBtn = h("button", { type: "button", class: "btn" }, "Exit");
  readonly afterBar = h("div", { class: "after-bar", hidden: true }, this.resultsBtn, this.reviewBtn, this.againBtn, this.exitBtn);
  readonly turnControls: HTMLElement;
  private readonly dieFace = h("div", { class: "die-face", "aria-hidden": "true" }, "?");
  private readonly dieLabel = h("div", { class: "die-label" });
  private readonly dicePanel: HTMLElement;
  private readonly undoRow: HTMLElement;
  private readonly standardNote = h("span", { class: "standard-note" }, STANDARD_NOTE);

  constructor(private readonly session: GameSession) {
    this.dicePanel = h("div", { class: "dice-panel", role: "group", "aria-label": "Dice" }, this.dieFace, h("div", { class: "dice-side" }, this.dieLabel, this.rollBtn));
    this.undoRow = h("div", { class: "undo-row" }, this.undoBtn, this.standardNote);
    this.turnControls = h("div", { class: "turn-controls" }, this.dicePanel, h("div", { class: "button-stack" }, this.drawBtn, this.endBtn, this.undoRow));
  }

  /** `canAct`: the viewer's turn, connected and not paused; `selected`: an edge waits for Draw;
   * `resultOpen`: the result window is on screen (the after-game bar waits for it to close). */
  render(g: GameState, canAct: boolean, selected: boolean, resultOpen: boolean): void {
    const s = this.session;
    const prac = s.practice;
    const onl = s.online;
    this.status.textContent = statusText(g, onl ? s.me : undefined);
    this.deadNote.hidden = g.dead_edges.length === 0 || g.over;
    this.turnControls.hidden = prac || g.over;
    this.dicePanel.hidden = g.die === null;
    this.endBtn.hidden = g.die === null;
    if (g.die !== null) {
      this.dieFace.textContent = g.phase === "draw" && g.roll !== null ? String(g.roll) : `d${g.die}`;
      this.dieFace.classList.toggle("rolled", g.phase === "draw" && g.roll !== null);
      this.dieLabel.textContent = diceLabel(g);
      this.rollBtn.disabled = !(canAct && g.phase === "roll");
      this.endBtn.disabled = !(canAct && g.can_end_turn);
    }
    this.drawBtn.hidden = !selected || g.over;
    this.drawBtn.disabled = !(canAct && g.phase === "draw");
    this.undoRow.hidden = g.clock > 0 || onl; // no Undo online: an edge counts the moment it is drawn
    this.undoBtn.disabled = !(canAct && g.can_undo);
    this.standardNote.hidden = g.die !== null;
    this.afterBar.hidden = !(g.over && !resultOpen && s.resultSeenFor === g.game);
    this.againBtn.textContent = prac ? "Replay same seed" : onl ? "Rematch" : "Play Again";
    this.againBtn.disabled = onl && !["open", "offered"].includes(rematchStatus(g, s.me));
    this.exitBtn.hidden = prac;
  }
}
