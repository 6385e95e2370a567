// The game screen's top bar: back, the game's name, the round and the move clock. It keeps one
// height whatever the board does (zooming shows its controls on the board, not here).

import { modeName, overlapName } from "../state/catalog";
import { h } from "./dom";
import type { GameSession } from "../state/gameSession";
import { clockIcon } from "./marks";
import { clockText } from "../state/texts";
import type { GameState } from "../network/types";

export class GameTopbar {
  readonly root: HTMLElement;
  readonly backBtn = h("button", { type: "button", class: "icon-btn", "aria-label": "Back to menu (the game is saved)" }, "←");
  private readonly title = h("h1", { class: "game-title" }, "Starting…");
  private readonly round = h("div", { class: "round", "aria-live": "off" });
  private readonly clockText = h("span", { class: "clock-text" }, "–");
  private readonly clock = h("div", { class: "clock", role: "timer", "aria-label": "Move clock", hidden: true }, clockIcon(), this.clockText);

  /** `kept`: a game left with the back arrow is kept (not on a `boxedin lan`'s page, which keeps none). */
  constructor(private readonly session: GameSession, private readonly kept = true) {
    this.root = h("header", { class: "topbar game-topbar" }, this.backBtn, this.title, h("div", { class: "topbar-end" }, this.round, this.clock));
  }

  render(g: GameState): void {
    const prac = this.session.practice;
    const onl = this.session.online;
    const name = prac ? `${modeName(g.mode)} · seed “${g.seed ?? ""}”` : modeName(g.mode) + (g.overlap ? ` · ${overlapName(g.overlap)}` : "");
    this.title.textContent = name;
    this.title.title = name;
    this.round.textContent = prac ? "" : `Round ${g.round}`;
    this.round.hidden = prac;
    this.backBtn.setAttribute("aria-label", onl ? (g.over ? "Back to the online menu" : "Leave the game") : prac ? "Back to the practice setup" : this.kept ? "Back to menu (the game is saved)" : "Back to menu (the game ends)");
    this.renderClock();
  }

  renderClock(): void {
    const g = this.session.game;
    if (!g || g.clock <= 0 || g.over) {
      this.clock.hidden = true;
      return;
    }
    this.clock.hidden = false;
    const left = this.session.clockLeft();
    this.clockText.textContent = left === null ? "–" : clockText(left);
    this.clock.classList.toggle("low", left !== null && left < 5000);
  }
}
