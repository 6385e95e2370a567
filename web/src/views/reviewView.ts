// The review of a finished game (docs/protocol.md, Reviews): the game turn by turn (step buttons,
// arrow keys, a slider), the board after each turn, the figures the server worked out for it,
// and an advantage graph with each player's biggest mistakes marked. The client computes no
// figure: it shows the server's, as they come in, and says which are exact.

import type { Connection } from "../network/protocol";
import type { GameState, ReviewFrame, TurnFigures } from "../network/types";
import { h } from "./dom";

const SVG = "http://www.w3.org/2000/svg";
const CELL = 40;
const PAD = 16;

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, ...kids: Node[]): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  node.append(...kids);
  return node;
}

/** A margin as the player sees it: +2.0, −1.5, 0. */
export function signed(value: number): string {
  const rounded = Math.round(value * 10) / 10;
  if (rounded === 0) return "0";
  return (rounded > 0 ? "+" : "−") + Math.abs(rounded).toFixed(1);
}

function lineName(edge: readonly [string, number, number]): string {
  return `${edge[0] === "h" ? "across" : "down"} at row ${edge[1]}, column ${edge[2]}`;
}

/** Player 1's expected final margin after each turn analysed (null where not yet): the graph. */
export function advantage(turns: readonly (TurnFigures | null)[]): (number | null)[] {
  return turns.map((t) => (t === null ? null : t.player === 1 ? t.after : -t.after));
}

/** The sentence the progress line shows. */
export function progressLine(done: number, total: number): string {
  if (done >= total) return total === 1 ? "The one turn analysed." : `All ${total} turns analysed.`;
  return `Analysing turn ${done + 1} of ${total}…`;
}

export class ReviewView {
  private review: ReviewFrame | null = null;
  // 0: the empty board; k: after turn k - 1.
  private step = 0;
  private readonly dlg: HTMLDialogElement;
  private readonly progress = h("p", { class: "review-progress", role: "status", "aria-live": "polite" }, "Asking for the review…");
  private readonly boardBox = h("div", { class: "review-board" });
  private readonly figures = h("div", { class: "review-figures" });
  private readonly graphBox = h("div", { class: "review-graph" });
  private readonly mistakes = h("div", { class: "review-mistakes" });
  private readonly slider = h("input", { type: "range", min: 0, max: 0, value: 0, step: 1, class: "review-slider", "aria-label": "Turn" });
  private readonly stepLabel = h("span", { class: "review-step-label" });
  private readonly download = h("button", { type: "button", class: "btn", disabled: true }, "Download transcript");
  private readonly unsubscribe: () => void;

  constructor(
    conn: Connection,
    private readonly game: GameState,
    private readonly onClose: () => void,
  ) {
    const titleId = `dlg-${Math.random().toString(36).slice(2, 8)}`;
    const button = (label: string, text: string, go: () => void) =>
      h("button", { type: "button", class: "btn review-step", "aria-label": label, onclick: go }, text);
    const close = h("button", { type: "button", class: "btn primary" }, "Close");
    this.dlg = h(
      "dialog",
      { class: "dialog review-dialog", "aria-labelledby": titleId },
      h("h2", { id: titleId }, "Review"),
      this.progress,
      h(
        "div",
        { class: "review-main" },
        this.boardBox,
        h("div", { class: "review-side" }, this.figures, this.graphBox, this.mistakes),
      ),
      h(
        "div",
        { class: "review-controls" },
        button("First turn", "«", () => this.go(0)),
        button("Previous turn", "◀", () => this.go(this.step - 1)),
        this.slider,
        button("Next turn", "▶", () => this.go(this.step + 1)),
        button("Last turn", "»", () => this.go(this.total)),
        this.stepLabel,
      ),
      h("div", { class: "dialog-buttons" }, this.download, close),
    );
    this.slider.addEventListener("input", () => this.go(Number(this.slider.value)));
    this.dlg.addEventListener("keydown", (ev) => {
      const moves: Record<string, number> = { ArrowLeft: this.step - 1, ArrowRight: this.step + 1, Home: 0, End: this.total };
      if (!(ev.key in moves) || ev.target === this.slider) return;
      ev.preventDefault();
      this.go(moves[ev.key]);
    });
    this.download.addEventListener("click", () => this.save());
    close.addEventListener("click", () => this.close());
    this.dlg.addEventListener("cancel", (ev) => {
      ev.preventDefault();
      this.close();
    });
    this.unsubscribe = conn.on({ review: (frame) => frame.game === game.game && this.show(frame) });
    document.body.appendChild(this.dlg);
    this.dlg.showModal();
    close.focus();
    this.render();
    conn.review(game.game).then(
      (frame) => this.show(frame),
      (err: Error) => {
        this.progress.textContent = `The review is not available: ${err.message}`;
      },
    );
  }

  private get total(): number {
    return this.review?.total ?? 0;
  }

  private show(frame: ReviewFrame): void {
    // Frames can only add turns: an older one arriving late is not shown over a newer one.
    if (this.review && frame.done < this.review.done) return;
    this.review = frame;
    this.progress.textContent = progressLine(frame.done, frame.total);
    this.slider.max = String(frame.total);
    this.download.disabled = false;
    this.render();
  }

  go(step: number): void {
    this.step = Math.max(0, Math.min(this.total, step));
    this.render();
  }

  private close(): void {
    this.unsubscribe();
    this.dlg.close();
    this.dlg.remove();
    this.onClose();
  }

  private render(): void {
    const turn = this.step > 0 ? this.review?.turns[this.step - 1] ?? null : null;
    this.slider.value = String(this.step);
    this.stepLabel.textContent = this.step === 0 ? "Start" : `Turn ${this.step} of ${this.total}`;
    this.slider.setAttribute("aria-valuetext", this.stepLabel.textContent);
    this.renderBoard(turn);
    this.renderFigures(turn);
    this.renderGraph();
    this.renderMistakes();
  }

  private name(player: 1 | 2): string {
    return this.game.players[player - 1]?.name ?? `Player ${player}`;
  }

  private renderFigures(turn: TurnFigures | null): void {
    if (this.step === 0) {
      this.figures.replaceChildren(h("p", {}, "The empty board. Step forward to see each turn and what it was worth."));
      return;
    }
    if (!turn) {
      this.figures.replaceChildren(h("p", {}, `Turn ${this.step} is still being analysed.`));
      return;
    }
    const dice = this.game.die !== null;
    const kind = turn.exact ? "Exact" : "Estimated";
    this.figures.replaceChildren(
      h(
        "p",
        { class: "review-turn-head" },
        h("span", { class: `review-who p${turn.player}` }, this.name(turn.player)),
        turn.roll !== null ? ` rolled ${turn.roll}` : "",
        h("span", { class: `review-kind ${turn.exact ? "exact" : "estimated"}`, title: turn.exact ? "From the exact solver" : "From Expert's search, a longer one than in play" }, kind),
      ),
      h(
        "dl",
        { class: "review-values" },
        h("dt", {}, dice ? "Expected final margin with the best turn" : "Final margin with the best turn"),
        h("dd", {}, signed(turn.before)),
        h("dt", {}, dice ? "Expected after the turn played" : "After the turn played"),
        h("dd", {}, signed(turn.after)),
        h("dt", {}, "Points lost"),
        h("dd", { class: turn.loss > 0.05 ? "review-lost" : "" }, turn.loss > 0.05 ? turn.loss.toFixed(1) : "none"),
      ),
      h("p", { class: "review-lines" }, "Played: ", turn.played.map(lineName).join("; ") || "no line"),
      h("p", { class: "review-lines" }, "Best: ", turn.best.map(lineName).join("; ") || "end the turn"),
    );
  }

  private renderBoard(turn: TurnFigures | null): void {
    const n = this.game.boxes;
    const size = n * CELL + 2 * PAD;
    const at = (v: number) => PAD + v * CELL;
    const board = svg("svg", { viewBox: `0 0 ${size} ${size}`, role: "img", "aria-label": this.step === 0 ? "The empty board" : `The board after turn ${this.step}` });
    const shown = this.step === 0 ? null : turn;
    if (shown) {
      for (const sq of shown.board.squares) {
        board.append(svg("rect", { x: at(sq.col), y: at(sq.row), width: sq.size * CELL, height: sq.size * CELL, class: `review-square p${sq.owner}` }));
      }
      const played = new Set(shown.played.map((e) => e.join(",")));
      for (const [o, r, c, who] of shown.board.edges) {
        const [x2, y2] = o === "h" ? [c + 1, r] : [c, r + 1];
        const cls = `review-edge p${who}${played.has(`${o},${r},${c}`) ? " review-played" : ""}`;
        board.append(svg("line", { x1: at(c), y1: at(r), x2: at(x2), y2: at(y2), class: cls }));
      }
      if (shown.loss > 0.05) {
        for (const [o, r, c] of shown.best) {
          const [x2, y2] = o === "h" ? [c + 1, r] : [c, r + 1];
          board.append(svg("line", { x1: at(c), y1: at(r), x2: at(x2), y2: at(y2), class: "review-best" }));
        }
      }
    } else if (this.step > 0) {
      board.setAttribute("aria-label", `Turn ${this.step} is still being analysed`);
    }
    for (let r = 0; r <= n; r++) for (let c = 0; c <= n; c++) board.append(svg("circle", { cx: at(c), cy: at(r), r: 3.5, class: "review-dot" }));
    const scores = shown ? shown.board.scores : [0, 0];
    this.boardBox.replaceChildren(
      board,
      h("p", { class: "review-scores" }, `${this.name(1)} ${scores[0]} · ${this.name(2)} ${scores[1]}`),
      ...(shown && shown.loss > 0.05 ? [h("p", { class: "review-legend" }, "Dashed: the best turn")] : []),
    );
  }

  private renderGraph(): void {
    const review = this.review;
    const width = 320;
    const height = 120;
    const graph = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "review-graph-svg", role: "img" });
    if (!review || review.total === 0) {
      graph.setAttribute("aria-label", "The advantage graph, empty until the first turns are analysed");
      this.graphBox.replaceChildren(h("h3", {}, "Advantage"), graph);
      return;
    }
    const values = advantage(review.turns);
    const known = values.filter((v): v is number => v !== null);
    const top = Math.max(1, ...known.map(Math.abs));
    const x = (i: number) => 8 + ((width - 16) * (i + 1)) / review.total;
    const y = (v: number) => height / 2 - ((height / 2 - 8) * v) / top;
    graph.setAttribute("aria-label", `Advantage of ${this.name(1)} after each turn: above the middle line ${this.name(1)} leads, below ${this.name(2)}`);
    graph.append(svg("line", { x1: 8, y1: height / 2, x2: width - 8, y2: height / 2, class: "review-axis" }));
    let path = `M 8 ${height / 2}`;
    values.forEach((v, i) => {
      if (v !== null) path += ` L ${x(i).toFixed(1)} ${y(v).toFixed(1)}`;
    });
    graph.append(svg("path", { d: path, class: "review-line" }));
    if (this.step > 0) graph.append(svg("line", { x1: x(this.step - 1), y1: 4, x2: x(this.step - 1), y2: height - 4, class: "review-cursor" }));
    review.mistakes.forEach((turns, p) => {
      for (const turnNo of turns) {
        const i = review.turns.findIndex((t) => t?.turn === turnNo);
        const v = values[i];
        if (i < 0 || v === null || v === undefined) continue;
        const mark = svg("circle", { cx: x(i), cy: y(v), r: 6, class: `review-mistake p${p + 1}` });
        mark.addEventListener("click", () => this.go(i + 1));
        graph.append(mark);
      }
    });
    this.graphBox.replaceChildren(h("h3", {}, "Advantage"), graph);
  }

  private renderMistakes(): void {
    const review = this.review;
    if (!review) {
      this.mistakes.replaceChildren();
      return;
    }
    const rows = review.mistakes.map((turns, p) => {
      const player = (p + 1) as 1 | 2;
      const buttons = turns.map((turnNo) => {
        const i = review.turns.findIndex((t) => t?.turn === turnNo);
        const t = review.turns[i];
        return h(
          "button",
          { type: "button", class: `btn review-mistake-btn p${player}`, onclick: () => this.go(i + 1) },
          `Turn ${i + 1}: −${t ? t.loss.toFixed(1) : "?"}`,
        );
      });
      return h(
        "div",
        { class: "review-mistake-row" },
        h("span", { class: `review-who p${player}` }, `${this.name(player)}'s biggest mistakes`),
        ...(buttons.length ? buttons : [h("span", { class: "muted" }, review.done < review.total ? " none so far" : " none")]),
      );
    });
    this.mistakes.replaceChildren(...rows);
  }

  private save(): void {
    if (!this.review) return;
    const blob = new Blob([JSON.stringify(this.review.transcript, null, 1)], { type: "application/json" });
    const link = h("a", { href: URL.createObjectURL(blob), download: `boxedin-${this.game.mode}-${this.game.game.slice(0, 8)}.json` });
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 1000);
  }
}
