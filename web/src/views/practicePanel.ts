// The practice panel: the preview of the edge pointed at, the practice buttons, the edge count
// and the move history.

import type { BoardView } from "./board";
import { h } from "./dom";
import { edgeCount } from "../state/geometry";
import { historyLine } from "../state/texts";
import { edgeKey, type EdgeRef, type GameState } from "../network/types";

export function describeEdge(e: EdgeRef): string {
  return `${e[0] === "h" ? "Horizontal" : "Vertical"} edge, row ${e[1]}, column ${e[2]}`;
}

export class PracticePanel {
  readonly root: HTMLElement;
  readonly previewToggle = h("button", { type: "button", class: "btn small", "aria-pressed": "false" }, "Hide preview");
  readonly pauseBtn = h("button", { type: "button", class: "btn" }, "Pause");
  readonly restartBtn = h("button", { type: "button", class: "btn" }, "Restart");
  readonly newSeedBtn = h("button", { type: "button", class: "btn" }, "New seed");
  readonly setupBtn = h("button", { type: "button", class: "btn" }, "Change setup");
  previewOn = true;
  private readonly previewBox = h("div", { class: "preview", "aria-live": "polite" });
  private readonly edgeCounter = h("div", { class: "edge-counter" });
  private readonly historyList = h("ol", { class: "history-list" });

  constructor(private readonly board: BoardView) {
    this.root = h(
      "div",
      { class: "practice-panel", hidden: true },
      h("div", { class: "preview-head" }, h("h2", {}, "Preview"), this.previewToggle),
      this.previewBox,
      h("div", { class: "practice-buttons" }, this.pauseBtn, this.restartBtn, this.newSeedBtn, this.setupBtn),
      this.edgeCounter,
      h("section", { class: "history", "aria-label": "Move history" }, h("h2", {}, "Move history"), this.historyList),
    );
  }

  togglePreview(): void {
    this.previewOn = !this.previewOn;
    this.previewToggle.textContent = this.previewOn ? "Hide preview" : "Show preview";
    this.previewToggle.setAttribute("aria-pressed", String(!this.previewOn));
  }

  render(g: GameState, paused: boolean, focusEdge: EdgeRef | null): void {
    const total = edgeCount(g.boxes);
    this.edgeCounter.textContent = `Edges drawn: ${total - g.open_edges} of ${total}`;
    const names: [string, string] = [g.players[0].name, g.players[1].name];
    this.historyList.replaceChildren(...g.history.map((entry) => h("li", { class: `p${entry.player}` }, historyLine(entry, names))));
    this.historyList.scrollTop = this.historyList.scrollHeight;
    this.pauseBtn.textContent = paused ? "Resume" : "Pause";
    this.pauseBtn.disabled = g.over;
    this.renderPreview(g, focusEdge);
  }

  renderPreview(g: GameState, focusEdge: EdgeRef | null): void {
    this.board.setHighlight([]);
    if (!this.previewOn) {
      this.previewBox.replaceChildren(h("p", { class: "muted" }, "Preview hidden."));
      return;
    }
    const edge = focusEdge && !this.board.isDrawn(focusEdge) ? focusEdge : null;
    const pv = edge ? g.previews?.[edgeKey(edge)] : undefined;
    if (!edge || !pv) {
      this.previewBox.replaceChildren(h("p", { class: "muted" }, g.over ? "The game is over." : "Point at an open edge, or focus the board and use the arrow keys, to preview it."));
      return;
    }
    const captured = pv.captures.filter((c) => c.kind === "captured");
    const boxes = captured.reduce((n, c) => n + c.size * c.size, 0);
    this.board.setHighlight(captured);
    this.previewBox.replaceChildren(
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
}
