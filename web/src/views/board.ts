// The board as SVG: dots, edges, captured squares with their marks and outlines, faint drawable
// edges, dashed dead edges, the previous turn pulsing, capture animations; tap, drag, pinch, wheel
// and keyboard input; while zoomed, an overview and the Whole board button on the board itself.

import { floatSize, placeFloats } from "./boardFloats";
import { describeBox, renderSquares, squaresCovering } from "./boardSquares";
import {
  MARGIN, UNIT, allEdges, boardSize, clampView, dotXY, edgeLine, fullView, isZoomed, nearestEdge,
  panBy, viewBox, zoomAt, type View,
} from "../state/geometry";
import { edgeKey, type EdgeRef, type GameState, type HistoryEntry, type SquareChange } from "../network/types";

const SVG_NS = "http://www.w3.org/2000/svg";
const DRAG_THRESHOLD = 8; // pixels a pointer may move and still count as a tap
/** Below this many screen pixels between dots a fingertip covers several edges: a tap selects. */
export const TAP_SELECT_BELOW_PX = 40;
/** How near (in boxes) a tap must be to an edge to select it; the middle of a box is 0.5 away. */
const TAP_SELECT_REACH = 0.35;
/** The middle of a box, this far (in boxes) from every edge, names the box instead of an edge. */
const BOX_CORE = 0.3;

export interface RenderOptions {
  /** Faint lines where an edge can be drawn (the viewer's turn to draw). */
  faint: boolean;
  /** The previous turn's edges pulse (in the colour state/settings.ts picks for the board). */
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
  /** A tap selected this edge, to be drawn by a second tap or Draw (null: the selection went). */
  onTapSelect?(edge: EdgeRef | null): void;
  /** The player pressed a key on the board the board itself does not use. */
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

/** The boxes on either side of an edge that exist on an n×n board. */
function boxesBeside(e: EdgeRef, n: number): [number, number][] {
  const [o, r, c] = e;
  const sides: [number, number][] = o === "h" ? [[r - 1, c], [r, c]] : [[r, c - 1], [r, c]];
  return sides.filter(([br, bc]) => br >= 0 && bc >= 0 && br < n && bc < n);
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
  private tapped: EdgeRef | null = null;
  private inspected: [number, number] | null = null;
  /** The box line under the board: which squares cover the box tapped, hovered or beside the
   * keyboard's edge. */
  readonly info: HTMLParagraphElement;
  private readonly wholeBtn: HTMLButtonElement;
  private readonly overview: SVGSVGElement;
  private readonly overviewView: SVGRectElement;

  constructor(private readonly cb: BoardCallbacks, label = "Game board", private readonly tapSelect = false) {
    this.root = document.createElement("div");
    this.root.className = "board";
    this.root.tabIndex = 0;
    this.root.setAttribute("role", "group");
    this.root.setAttribute("aria-roledescription", "board");
    this.root.setAttribute("aria-label", `${label}. Arrow keys choose an edge, Enter or Space draws it.`);
    this.svg = el("svg", { class: "board-svg", "aria-hidden": "true", preserveAspectRatio: "xMidYMid meet" });
    for (const name of ["bg", "squares", "highlight", "marks", "outlines", "open", "pulse", "drawn", "dots", "focus", "fx"]) {
      const g = el("g", { class: `layer-${name}` });
      this.layers[name] = g;
      this.svg.appendChild(g);
    }
    this.root.appendChild(this.svg);
    this.live = document.createElement("div");
    this.live.className = "sr-only";
    this.live.setAttribute("aria-live", "polite");
    this.root.appendChild(this.live);
    // Zoomed: where the view is on the whole board, and the way back, over the board's corner
    // (the top bar keeps its height and its title).
    this.overviewView = el("rect", { class: "overview-view" });
    this.overview = el("svg", { class: "board-overview", "aria-hidden": "true" });
    this.wholeBtn = document.createElement("button");
    this.wholeBtn.type = "button";
    this.wholeBtn.className = "btn small zoom-reset";
    this.wholeBtn.textContent = "Whole board";
    this.wholeBtn.setAttribute("aria-label", "Show the whole board");
    this.wholeBtn.addEventListener("click", (ev) => {
      ev.stopPropagation();
      this.showWholeBoard();
      this.root.focus();
    });
    const tools = document.createElement("div");
    tools.className = "board-tools";
    tools.append(this.overview, this.wholeBtn);
    this.root.appendChild(tools);
    this.info = document.createElement("p");
    this.info.className = "box-info";
    this.info.setAttribute("aria-live", "polite");
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
      this.overview.setAttribute("viewBox", `0 0 ${this.size} ${this.size}`);
      this.overview.replaceChildren(el("rect", { x: 0, y: 0, width: this.size, height: this.size, rx: 24, class: "overview-board" }), this.overviewView);
      this.renderDots();
      this.tapped = null;
      this.inspected = null;
    }
    this.applyView();
    this.drawn = new Set(game.edges.map((e) => edgeKey(e)));
    const dead = new Set(game.dead_edges.map((e) => edgeKey(e)));
    this.openList = allEdges(this.n).filter((e) => !this.drawn.has(edgeKey(e)));
    this.interactive = opts.faint;
    // A tapped edge that is drawn or no longer drawable goes quietly: the screen reads
    // tapSelected after rendering.
    if (this.tapped && (this.drawn.has(edgeKey(this.tapped)) || !this.interactive)) this.tapped = null;
    renderSquares(el, game, this.layers.squares, this.layers.marks, this.layers.outlines);
    this.growCaptures(opts.animate ?? null);
    if (this.inspected) this.info.textContent = describeBox(game, ...this.inspected);
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
      // A band in the pulse colour with a strip of the board's colour between it and the edge:
      // the band never touches a player's colour (state/settings.ts picks it against the board).
      for (const h of game.history) {
        if (h.turn !== game.turn - 1) continue;
        const [x1, y1, x2, y2] = edgeLine(h.edge);
        pulse.appendChild(el("line", { x1, y1, x2, y2, class: "edge-pulse" }));
        pulse.appendChild(el("line", { x1, y1, x2, y2, class: "edge-pulse-gap" }));
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

  /** A square captured by the move just made grows into place. */
  private growCaptures(animate: HistoryEntry | null): void {
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
    for (const f of placeFloats(changes, this.n, floatSize(this.pxPerUnit()))) {
      const t = el("text", { x: f.x, y: f.y, class: `float p${f.player}`, "text-anchor": "middle", "dominant-baseline": "middle" });
      t.style.fontSize = `${f.size}px`;
      t.style.setProperty("--rise", `${-f.rise}px`);
      t.textContent = f.text;
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
    // The keyboard's edge and a tapped edge: a dashed line in the text colour on a casing of the
    // board's colour, unlike any drawn edge.
    for (const [edge, kind] of [[this.keyboardActive ? this.selected : null, "keyboard"], [this.tapped, "tap"]] as const) {
      if (!edge) continue;
      const [x1, y1, x2, y2] = edgeLine(edge);
      g.appendChild(el("line", { x1, y1, x2, y2, class: `edge-selected-casing ${kind}` }));
      g.appendChild(el("line", { x1, y1, x2, y2, class: `edge-selected ${kind}` }));
    }
  }

  // --- tap selection and box inspection ----------------------------------------------------------

  /** The edge a tap selected and a second tap (or Draw) draws, if any. */
  get tapSelected(): EdgeRef | null {
    return this.tapped;
  }

  clearTapSelection(): void {
    this.setTapped(null);
  }

  private setTapped(edge: EdgeRef | null): void {
    const same = (edge && this.tapped && edgeKey(edge) === edgeKey(this.tapped)) || (!edge && !this.tapped);
    this.tapped = edge;
    this.renderFocus();
    if (edge) this.live.textContent = `${describeEdge(edge)} selected: tap it again or press Draw`;
    if (!same) this.cb.onTapSelect?.(edge);
  }

  /** Whether taps select first: the setting is on and the dots are close together on screen. */
  get selectsOnTap(): boolean {
    return this.tapSelect && this.pxPerUnit() * UNIT < TAP_SELECT_BELOW_PX;
  }

  /** Lists the squares covering box (row, col) under the board (null: clears the line). */
  inspectBox(box: [number, number] | null): void {
    this.inspected = box;
    this.root.classList.toggle("inspecting", !!box);
    this.layers.highlight.querySelector(".inspect-box")?.remove();
    if (!box || !this.game) {
      this.info.textContent = "";
      return;
    }
    const [x, y] = dotXY(box[0], box[1]);
    this.layers.highlight.appendChild(el("rect", { x: x + 4, y: y + 4, width: UNIT - 8, height: UNIT - 8, rx: 6, class: "inspect-box" }));
    this.info.textContent = describeBox(this.game, box[0], box[1]);
  }

  /** The box whose middle the SVG point is in, or null (near an edge, or off the board). */
  private boxCoreAt(x: number, y: number): [number, number] | null {
    const bx = (x - MARGIN) / UNIT;
    const by = (y - MARGIN) / UNIT;
    if (bx < 0 || by < 0 || bx >= this.n || by >= this.n) return null;
    const fx = bx - Math.floor(bx);
    const fy = by - Math.floor(by);
    if (Math.min(fx, 1 - fx, fy, 1 - fy) < BOX_CORE) return null;
    return [Math.floor(by), Math.floor(bx)];
  }

  /** A plain tap or click at an SVG point: a box's middle names the box; near an edge, the edge
   * is drawn, or selected first where the dots are close together. */
  private tapAt(x: number, y: number, pointerType: string): void {
    const selecting = pointerType !== "mouse" && this.selectsOnTap;
    const box = this.boxCoreAt(x, y);
    const hit = nearestEdge(this.n, x, y, (selecting ? TAP_SELECT_REACH : 0.75) * UNIT);
    if (box || !hit) {
      if (selecting) this.setTapped(null);
      this.inspectBox(box);
      return;
    }
    if (!selecting) {
      this.cb.onPick(hit.edge);
      return;
    }
    if (this.drawn.has(edgeKey(hit.edge)) || !this.interactive) {
      this.setTapped(null);
      this.inspectBox(boxesBeside(hit.edge, this.n)[0] ?? null);
      return;
    }
    if (this.tapped && edgeKey(this.tapped) === edgeKey(hit.edge)) this.cb.onPick(hit.edge);
    else this.setTapped(hit.edge);
  }

  // --- zoom ----------------------------------------------------------------------------------

  private applyView(): void {
    this.svg.setAttribute("viewBox", viewBox(this.view, this.size));
    const zoomed = isZoomed(this.view);
    this.root.classList.toggle("zoomed", zoomed);
    const w = this.size / this.view.scale;
    for (const [k, v] of Object.entries({ x: this.view.x, y: this.view.y, width: w, height: w })) this.overviewView.setAttribute(k, String(v));
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
      if (pt) this.tapAt(pt[0], pt[1], ev.pointerType);
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
    // On the board's element, so that the wheel zooms over the overview and Whole board too.
    this.root.addEventListener(
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
    const box = pt ? this.boxCoreAt(pt[0], pt[1]) : null;
    if (box || this.inspected) {
      const same = box && this.inspected && box[0] === this.inspected[0] && box[1] === this.inspected[1];
      if (!same) this.inspectBox(box);
    }
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
    const game = this.game;
    this.inspectBox(boxesBeside(this.selected, this.n).find(([r, c]) => game && squaresCovering(game.squares, r, c).length > 0) ?? null);
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
