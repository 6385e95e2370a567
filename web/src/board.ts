// The board as SVG: dots, edges, captured squares with their marks, faint drawable edges,
// dashed dead edges, the previous turn pulsing, capture animations; tap, drag, pinch, wheel and
// keyboard input.

import {
  MARGIN, UNIT, allEdges, boardSize, clampView, dotXY, edgeLine, fullView, isZoomed, nearestEdge,
  panBy, squareBoxes, viewBox, zoomAt, type View,
} from "./geometry";
import { signed } from "./texts";
import { edgeKey, type EdgeRef, type GameState, type HistoryEntry, type SquareChange } from "./types";

const SVG_NS = "http://www.w3.org/2000/svg";
const DRAG_THRESHOLD = 8; // pixels a pointer may move and still count as a tap

export interface RenderOptions {
  /** Faint lines where an edge can be drawn (the viewer's turn to draw). */
  faint: boolean;
  /** The previous turn's edges pulse in orange. */
  pulse: boolean;
  /** The move just applied, to animate its captures. */
  animate?: HistoryEntry | null;
  /** Boxes to highlight (the practice preview's immediate captures). */
  highlight?: SquareChange[];
}

export interface BoardCallbacks {
  /** A plain tap or click, or Enter/Space, picked this edge (drawn or not). */
  onPick(edge: EdgeRef): void;
  /** The hovered or keyboard-selected edge changed (null: none). */
  onFocusEdge?(edge: EdgeRef | null, how: "hover" | "keyboard"): void;
  onZoom?(zoomed: boolean): void;
  /** The player pressed P on the board. */
  onKey?(key: string): boolean;
}

function el<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number> = {}): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

function describeEdge(e: EdgeRef): string {
  return `${e[0] === "h" ? "Horizontal" : "Vertical"} edge, row ${e[1]}, column ${e[2]}`;
}

function diamond(cx: number, cy: number, r: number): string {
  return `${cx},${cy - r} ${cx + r},${cy} ${cx},${cy + r} ${cx - r},${cy}`;
}

export class BoardView {
  readonly root: HTMLDivElement;
  readonly svg: SVGSVGElement;
  private readonly layers: Record<string, SVGGElement> = {};
  private readonly live: HTMLDivElement;
  private n = 0;
  private size = 0;
  private view: View = fullView();
  private game: GameState | null = null;
  private drawn = new Set<string>();
  private openList: EdgeRef[] = [];
  private selected: EdgeRef | null = null;
  private hovered: EdgeRef | null = null;
  private interactive = false;
  private pointers = new Map<number, { x: number; y: number; sx: number; sy: number }>();
  private dragged = false;
  private pinchDist = 0;
  private keyboardActive = false;

  constructor(private readonly cb: BoardCallbacks, label = "Game board") {
    this.root = document.createElement("div");
    this.root.className = "board";
    this.root.tabIndex = 0;
    this.root.setAttribute("role", "group");
    this.root.setAttribute("aria-roledescription", "board");
    this.root.setAttribute("aria-label", `${label}. Arrow keys choose an edge, Enter or Space draws it.`);
    this.svg = el("svg", { class: "board-svg", "aria-hidden": "true", preserveAspectRatio: "xMidYMid meet" });
    for (const name of ["bg", "squares", "highlight", "marks", "open", "pulse", "drawn", "dots", "focus", "fx"]) {
      const g = el("g", { class: `layer-${name}` });
      this.layers[name] = g;
      this.svg.appendChild(g);
    }
    this.root.appendChild(this.svg);
    this.live = document.createElement("div");
    this.live.className = "sr-only";
    this.live.setAttribute("aria-live", "polite");
    this.root.appendChild(this.live);
    this.bindInput();
  }

  // --- rendering -----------------------------------------------------------------------------

  render(game: GameState, opts: RenderOptions): void {
    const resized = game.boxes !== this.n;
    this.game = game;
    if (resized) {
      this.n = game.boxes;
      this.size = boardSize(this.n);
      this.view = fullView();
      // Larger boards are drawn smaller: thicken lines and dots so they stay legible.
      const k = Math.max(1, this.n / 6);
      this.svg.style.setProperty("--k", String(k));
      this.layers.bg.replaceChildren(el("rect", { x: 2, y: 2, width: this.size - 4, height: this.size - 4, class: "board-bg", rx: 24 }));
      this.renderDots();
    }
    this.applyView();
    this.drawn = new Set(game.edges.map((e) => edgeKey(e)));
    const dead = new Set(game.dead_edges.map((e) => edgeKey(e)));
    this.openList = allEdges(this.n).filter((e) => !this.drawn.has(edgeKey(e)));
    this.interactive = opts.faint;
    this.renderSquares(game, opts.animate ?? null);
    this.renderHighlight(opts.highlight ?? []);

    // Open edges: faint where drawable on your turn, dashed when dead.
    const open = this.layers.open;
    open.replaceChildren();
    for (const e of this.openList) {
      const k = edgeKey(e);
      const [x1, y1, x2, y2] = edgeLine(e);
      if (dead.has(k)) open.appendChild(el("line", { x1, y1, x2, y2, class: "edge-dead" }));
      else if (opts.faint) open.appendChild(el("line", { x1, y1, x2, y2, class: "edge-faint" }));
    }

    // Drawn edges in their player's colour; the previous turn's pulse.
    const drawnG = this.layers.drawn;
    drawnG.replaceChildren();
    for (const e of game.edges) {
      const [x1, y1, x2, y2] = edgeLine([e[0], e[1], e[2]]);
      drawnG.appendChild(el("line", { x1, y1, x2, y2, class: `edge-drawn p${e[3]}` }));
    }
    const pulse = this.layers.pulse;
    pulse.replaceChildren();
    if (opts.pulse) {
      for (const h of game.history) {
        if (h.turn !== game.turn - 1) continue;
        const [x1, y1, x2, y2] = edgeLine(h.edge);
        pulse.appendChild(el("line", { x1, y1, x2, y2, class: "edge-pulse" }));
      }
    }
    if (opts.animate) this.floatChanges(opts.animate.changes);

    // Keep the keyboard selection on an open edge.
    if (this.selected && this.drawn.has(edgeKey(this.selected))) {
      this.selected = this.nextOpenAfter(this.selected);
    }
    if (this.hovered && this.drawn.has(edgeKey(this.hovered))) this.hovered = null;
    this.renderFocus();
  }

  private renderDots(): void {
    const g = this.layers.dots;
    g.replaceChildren();
    for (let r = 0; r <= this.n; r++) {
      for (let c = 0; c <= this.n; c++) {
        const [cx, cy] = dotXY(r, c);
        g.appendChild(el("circle", { cx, cy, r: 7 * Math.max(1, this.n / 6) ** 0.8, class: "dot" }));
      }
    }
  }

  private renderSquares(game: GameState, animate: HistoryEntry | null): void {
    const sq = this.layers.squares;
    const marks = this.layers.marks;
    sq.replaceChildren();
    marks.replaceChildren();
    const n = this.n;
    // Who covers each box: the holder under territory, else the owners of the squares over it.
    const owners: Set<number>[] = Array.from({ length: n * n }, () => new Set<number>());
    const territory = Array.isArray(game.box_holders);
    if (territory) {
      game.box_holders!.forEach((holder, i) => holder && owners[i].add(holder));
    } else {
      for (const s of game.squares) for (const [r, c] of squareBoxes(s.size, s.row, s.col)) owners[r * n + c].add(s.owner);
    }
    // One tint per box (split diagonally where both players' squares lie), one mark or two.
    owners.forEach((set, i) => {
      if (!set.size) return;
      const r = Math.floor(i / n);
      const c = i % n;
      const [x, y] = dotXY(r, c);
      if (set.size === 2) {
        sq.appendChild(el("polygon", { points: `${x + 3},${y + 3} ${x + UNIT - 3},${y + 3} ${x + 3},${y + UNIT - 3}`, class: "fill p1" }));
        sq.appendChild(el("polygon", { points: `${x + UNIT - 3},${y + 3} ${x + UNIT - 3},${y + UNIT - 3} ${x + 3},${y + UNIT - 3}`, class: "fill p2" }));
      } else {
        const p = set.has(1) ? 1 : 2;
        sq.appendChild(el("rect", { x: x + 3, y: y + 3, width: UNIT - 6, height: UNIT - 6, class: `fill p${p}` }));
      }
      const cx = x + UNIT / 2;
      const cy = y + UNIT / 2;
      if (set.size === 2) {
        marks.appendChild(el("polygon", { points: diamond(cx - 20, cy - 8, 14), class: "mark diamond p1" }));
        marks.appendChild(el("circle", { cx: cx + 20, cy: cy + 8, r: 11, class: "mark ring p2" }));
      } else if (set.has(1)) {
        marks.appendChild(el("polygon", { points: diamond(cx, cy, 18), class: "mark diamond p1" }));
      } else {
        marks.appendChild(el("circle", { cx, cy, r: 14, class: "mark ring p2" }));
      }
    });
    // Thin outlines show where the larger squares are.
    for (const s of game.squares) {
      if (s.size < 2) continue;
      const [x, y] = dotXY(s.row, s.col);
      const inset = 8 + (s.size - 2) * 6;
      const w = s.size * UNIT - 2 * inset;
      sq.appendChild(el("rect", { x: x + inset, y: y + inset, width: w, height: w, rx: 8, class: `outline p${s.owner}` }));
    }
    // A square captured by the move just made grows into place.
    for (const ch of animate?.changes ?? []) {
      if (ch.kind !== "captured" && ch.kind !== "taken_over") continue;
      const [x, y] = dotXY(ch.row, ch.col);
      const w = ch.size * UNIT - 6;
      const rect = el("rect", { x: x + 3, y: y + 3, width: w, height: w, rx: 8, class: `fresh grow p${ch.player}` });
      this.layers.fx.appendChild(rect);
      setTimeout(() => rect.remove(), 700);
    }
  }

  /** Highlights the boxes a previewed edge would capture at once. */
  setHighlight(changes: SquareChange[]): void {
    this.renderHighlight(changes);
  }

  private renderHighlight(changes: SquareChange[]): void {
    const g = this.layers.highlight;
    g.replaceChildren();
    for (const ch of changes) {
      if (ch.kind !== "captured") continue;
      const [x, y] = dotXY(ch.row, ch.col);
      g.appendChild(el("rect", { x: x + 8, y: y + 8, width: ch.size * UNIT - 16, height: ch.size * UNIT - 16, rx: 8, class: "preview-box" }));
    }
  }

  private floatChanges(changes: SquareChange[]): void {
    const fx = this.layers.fx;
    for (const ch of changes) {
      if (ch.kind === "blocked") continue;
      const [x, y] = dotXY(ch.row, ch.col);
      const cx = x + (ch.size * UNIT) / 2;
      const cy = y + (ch.size * UNIT) / 2;
      const t = el("text", { x: cx, y: cy, class: `float p${ch.player}`, "text-anchor": "middle", "dominant-baseline": "middle" });
      t.textContent = signed(ch.points);
      fx.appendChild(t);
      setTimeout(() => t.remove(), 1400);
    }
  }

  private renderFocus(): void {
    const g = this.layers.focus;
    g.replaceChildren();
    const player = this.game?.to_move ?? 1;
    if (this.hovered && this.interactive) {
      const [x1, y1, x2, y2] = edgeLine(this.hovered);
      g.appendChild(el("line", { x1, y1, x2, y2, class: `edge-hover p${player}` }));
    }
    if (this.selected && this.keyboardActive) {
      const [x1, y1, x2, y2] = edgeLine(this.selected);
      g.appendChild(el("line", { x1, y1, x2, y2, class: "edge-selected" }));
    }
  }

  // --- zoom ----------------------------------------------------------------------------------

  private applyView(): void {
    this.svg.setAttribute("viewBox", viewBox(this.view, this.size));
    this.root.classList.toggle("zoomed", isZoomed(this.view));
  }

  private setView(v: View): void {
    const was = isZoomed(this.view);
    this.view = clampView(v, this.size);
    this.applyView();
    if (was !== isZoomed(this.view)) this.cb.onZoom?.(isZoomed(this.view));
  }

  get zoomed(): boolean {
    return isZoomed(this.view);
  }

  get currentView(): View {
    return { ...this.view };
  }

  showWholeBoard(): void {
    this.setView(fullView());
  }

  zoomBy(factor: number): void {
    const c = this.view.x + this.size / this.view.scale / 2;
    const d = this.view.y + this.size / this.view.scale / 2;
    this.setView(zoomAt(this.view, this.size, factor, c, d));
  }

  // --- input ---------------------------------------------------------------------------------

  private toSvg(clientX: number, clientY: number): [number, number] | null {
    const ctm = this.svg.getScreenCTM();
    if (!ctm) return null;
    const p = new DOMPoint(clientX, clientY).matrixTransform(ctm.inverse());
    return [p.x, p.y];
  }

  private pxPerUnit(): number {
    return this.svg.getScreenCTM()?.a ?? 1;
  }

  private bindInput(): void {
    const svg = this.svg;
    svg.addEventListener("pointerdown", (ev) => {
      svg.setPointerCapture?.(ev.pointerId);
      this.pointers.set(ev.pointerId, { x: ev.clientX, y: ev.clientY, sx: ev.clientX, sy: ev.clientY });
      if (this.pointers.size === 1) this.dragged = false;
      if (this.pointers.size === 2) {
        this.dragged = true; // a pinch never draws
        const [a, b] = [...this.pointers.values()];
        this.pinchDist = Math.hypot(a.x - b.x, a.y - b.y);
      }
    });
    svg.addEventListener("pointermove", (ev) => {
      const p = this.pointers.get(ev.pointerId);
      if (!p) {
        if (ev.pointerType === "mouse") this.hoverAt(ev.clientX, ev.clientY);
        return;
      }
      const dx = ev.clientX - p.x;
      const dy = ev.clientY - p.y;
      p.x = ev.clientX;
      p.y = ev.clientY;
      if (this.pointers.size === 2) {
        const [a, b] = [...this.pointers.values()];
        const dist = Math.hypot(a.x - b.x, a.y - b.y);
        if (this.pinchDist > 0 && dist > 0) {
          const mid = this.toSvg((a.x + b.x) / 2, (a.y + b.y) / 2);
          if (mid) this.setView(zoomAt(this.view, this.size, dist / this.pinchDist, mid[0], mid[1]));
        }
        this.pinchDist = dist;
        return;
      }
      if (!this.dragged && Math.hypot(ev.clientX - p.sx, ev.clientY - p.sy) > DRAG_THRESHOLD) this.dragged = true;
      if (this.dragged) {
        if (this.zoomed) this.setView(panBy(this.view, this.size, dx, dy, this.pxPerUnit()));
      } else if (ev.pointerType === "mouse") {
        this.hoverAt(ev.clientX, ev.clientY);
      }
    });
    const end = (ev: PointerEvent, cancelled: boolean) => {
      const p = this.pointers.get(ev.pointerId);
      if (!p) return;
      this.pointers.delete(ev.pointerId);
      if (this.pointers.size > 0) {
        this.pinchDist = 0;
        return;
      }
      if (cancelled || this.dragged) return;
      const pt = this.toSvg(ev.clientX, ev.clientY);
      if (!pt) return;
      const hit = nearestEdge(this.n, pt[0], pt[1]);
      if (hit) this.cb.onPick(hit.edge);
    };
    svg.addEventListener("pointerup", (ev) => end(ev, false));
    svg.addEventListener("pointercancel", (ev) => end(ev, true));
    svg.addEventListener("pointerleave", (ev) => {
      if (ev.pointerType === "mouse" && this.hovered) {
        this.hovered = null;
        this.renderFocus();
        this.cb.onFocusEdge?.(this.selected, "hover");
      }
    });
    svg.addEventListener(
      "wheel",
      (ev) => {
        ev.preventDefault();
        const pt = this.toSvg(ev.clientX, ev.clientY);
        if (!pt) return;
        const factor = Math.exp(-ev.deltaY * (ev.deltaMode === 1 ? 0.05 : 0.0015));
        this.setView(zoomAt(this.view, this.size, factor, pt[0], pt[1]));
      },
      { passive: false },
    );
    this.root.addEventListener("keydown", (ev) => this.onKey(ev));
    this.root.addEventListener("focus", () => {
      this.keyboardActive = this.root.matches(":focus-visible");
      if (!this.selected) this.selected = this.openList[0] ?? null;
      this.renderFocus();
      if (this.selected) this.cb.onFocusEdge?.(this.selected, "keyboard");
    });
    this.root.addEventListener("blur", () => {
      this.keyboardActive = false;
      this.renderFocus();
    });
  }

  private hoverAt(clientX: number, clientY: number): void {
    const pt = this.toSvg(clientX, clientY);
    const hit = pt ? nearestEdge(this.n, pt[0], pt[1], UNIT * 0.45) : null;
    const edge = hit && !this.drawn.has(edgeKey(hit.edge)) ? hit.edge : null;
    const same = (edge && this.hovered && edgeKey(edge) === edgeKey(this.hovered)) || (!edge && !this.hovered);
    if (same) return;
    this.hovered = edge;
    this.renderFocus();
    this.cb.onFocusEdge?.(edge ?? this.selected, "hover");
  }

  private nextOpenAfter(e: EdgeRef): EdgeRef | null {
    if (!this.openList.length) return null;
    const order = allEdges(this.n).map(edgeKey);
    const idx = order.indexOf(edgeKey(e));
    for (const cand of this.openList) if (order.indexOf(edgeKey(cand)) > idx) return cand;
    return this.openList[0];
  }

  private moveSelection(step: number): void {
    if (!this.openList.length) return;
    let idx = this.selected ? this.openList.findIndex((e) => edgeKey(e) === edgeKey(this.selected!)) : -1;
    if (idx < 0) idx = step > 0 ? -1 : 0;
    idx = (idx + step + this.openList.length) % this.openList.length;
    this.selected = this.openList[idx];
    this.keyboardActive = true;
    this.renderFocus();
    this.live.textContent = describeEdge(this.selected);
    this.cb.onFocusEdge?.(this.selected, "keyboard");
    this.scrollIntoView(this.selected);
  }

  /** When zoomed, pans so that the selected edge is visible. */
  private scrollIntoView(e: EdgeRef): void {
    if (!this.zoomed) return;
    const [x1, y1] = edgeLine(e);
    const w = this.size / this.view.scale;
    const v = { ...this.view };
    if (x1 < v.x + MARGIN || x1 > v.x + w - MARGIN) v.x = x1 - w / 2;
    if (y1 < v.y + MARGIN || y1 > v.y + w - MARGIN) v.y = y1 - w / 2;
    this.setView(v);
  }

  private onKey(ev: KeyboardEvent): void {
    if (this.cb.onKey?.(ev.key)) {
      ev.preventDefault();
      return;
    }
    switch (ev.key) {
      case "ArrowRight":
      case "ArrowDown":
        this.moveSelection(1);
        break;
      case "ArrowLeft":
      case "ArrowUp":
        this.moveSelection(-1);
        break;
      case "Home":
        this.selected = null;
        this.moveSelection(1);
        break;
      case "End":
        this.selected = null;
        this.moveSelection(-1);
        break;
      case "Enter":
      case " ":
        if (this.selected) this.cb.onPick(this.selected);
        break;
      case "+":
      case "=":
        this.zoomBy(1.25);
        break;
      case "-":
        this.zoomBy(0.8);
        break;
      default:
        return;
    }
    ev.preventDefault();
  }

  get selectedEdge(): EdgeRef | null {
    return this.selected;
  }

  get hoveredEdge(): EdgeRef | null {
    return this.hovered;
  }

  isDrawn(e: EdgeRef): boolean {
    return this.drawn.has(edgeKey(e));
  }
}
