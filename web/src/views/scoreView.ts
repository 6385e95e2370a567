// The game screen's score cards (name, points, whose turn, "You", "Away") and the score bar.

import { h } from "./dom";
import type { GameSession } from "../state/gameSession";
import { markIcon } from "./marks";
import type { GameState, PlayerNo } from "../network/types";

export class ScoreView {
  readonly root: HTMLElement;
  private readonly cards: HTMLElement[];
  private readonly bar1 = h("div", { class: "bar-seg p1" });
  private readonly bar2 = h("div", { class: "bar-seg p2" });
  private readonly scoreBar: HTMLElement;

  constructor(private readonly session: GameSession) {
    this.cards = [1, 2].map((p) =>
      h(
        "div",
        { class: `score-card p${p}`, "data-player": String(p), role: "group" },
        markIcon(p as 1 | 2),
        h("span", { class: "score-name" }, p === 1 ? "Player 1" : "Player 2"),
        h("span", { class: "you-tag", hidden: true }, "You"),
        h("span", { class: "away-tag", hidden: true }, "Away"),
        h("span", { class: "score-points" }, "0"),
        h("span", { class: "turn-label", hidden: true }, "TURN"),
      ),
    );
    this.scoreBar = h("div", { class: "score-bar", role: "img", "aria-label": "Score bar" }, this.bar1, this.bar2);
    this.root = h("section", { class: "scores", "aria-label": "Scores" }, h("div", { class: "score-cards" }, this.cards), this.scoreBar);
  }

  render(g: GameState): void {
    const onl = this.session.online;
    this.cards.forEach((card, i) => {
      const p = (i + 1) as PlayerNo;
      const name = g.players[i].name;
      // Names are text, never markup: in online games the other player chose theirs.
      const nameEl = card.querySelector(".score-name") as HTMLElement;
      nameEl.textContent = name;
      nameEl.title = name;
      // Long names (the AI's level) take a smaller type rather than being cut.
      nameEl.classList.toggle("long", name.length > 9);
      (card.querySelector(".score-points") as HTMLElement).textContent = String(g.scores[i]);
      const turn = !g.over && g.to_move === p;
      const mine = onl && !this.session.watcher && p === this.session.me;
      card.classList.toggle("turn", turn);
      (card.querySelector(".turn-label") as HTMLElement).hidden = !turn;
      (card.querySelector(".you-tag") as HTMLElement).hidden = !mine;
      card.dataset.label = `${name}${mine ? " (you)" : ""}: ${g.scores[i]} points${turn ? ", to move" : ""}`;
    });
    const a = Math.max(0, g.scores[0]);
    const b = Math.max(0, g.scores[1]);
    this.bar1.style.flexGrow = String(a);
    this.bar2.style.flexGrow = String(b);
    this.scoreBar.classList.toggle("empty", a + b === 0);
    this.scoreBar.setAttribute("aria-label", `Score ${g.scores[0]} to ${g.scores[1]}`);
    this.renderAway(g);
  }

  /** The other player's card marked away (and every card's label). */
  renderAway(g: GameState): void {
    this.cards.forEach((card, i) => {
      const away = this.session.shownAway(g, (i + 1) as PlayerNo);
      card.classList.toggle("away", away);
      (card.querySelector(".away-tag") as HTMLElement).hidden = !away;
      card.setAttribute("aria-label", `${card.dataset.label ?? ""}${away ? ", away" : ""}`);
    });
  }
}
