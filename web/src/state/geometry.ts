// Board geometry in SVG units, nearest-edge hit testing and zoom/pan arithmetic.
// Coordinates follow ../shared/spec/rules-notes.md: rows go down, columns go right, from 0;
// h(r, c) joins dot (r, c) to dot (r, c+1); v(r, c) joins dot (r, c) to dot (r+1, c).

import type { EdgeRef } from "../network/types";

export const UNIT = 100; // one box, in SVG units
export const MARGIN = 40; // space around the dots

export function boardSize(n: number): number {
  return n * UNIT + 2 * MARGIN;
}

/** SVG position of dot (row, col). */
export function dotXY(row: number, col: number): [number, number] {
  return [MARGIN + col * UNIT, MARGIN + row * UNIT];
}

/** End points of an edge in SVG units: [x1, y1, x2, y2]. */
export function edgeLine(e: EdgeRef): [number, number, number, number] {
  const [o, r, c] = e;
  const [x1, y1] = dotXY(r, c);
  return o === "h" ? [x1, y1, x1 + UNIT, y1] : [x1, y1, x1, y1 + UNIT];
}

export function edgeMid(e: EdgeRef): [number, number] {
  const [x1, y1, x2, y2] = edgeLine(e);
  return [(x1 + x2) / 2, (y1 + y2) / 2];
}

/** Every edge of an n x n board, in reading order (top to bottom, then left to right). */
export function allEdges(n: number): EdgeRef[] {
  const list: EdgeRef[] = [];
  for (let r = 0; r <= n; r++) {
    for (let c = 0; c < n; c++) list.push(["h", r, c]);
    if (r < n) for (let c = 0; c <= n; c++) list.push(["v", r, c]);
  }
  return list;
}

export function edgeCount(n: number): number {
  return 2 * n * (n + 1);
}

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

function segmentDistance(px: number, py: number, x1: number, y1: number, x2: number, y2: number): number {
  const dx = Math.max(Math.min(x1, x2) - px, 0, px - Math.max(x1, x2));
  const dy = Math.max(Math.min(y1, y2) - py, 0, py - Math.max(y1, y2));
  return Math.hypot(dx, dy);
}

export interface Hit {
  edge: EdgeRef;
  distance: number; // in SVG units
}

/**
 * The edge nearest to the SVG point (x, y) on an n x n board, or null when the point is further
 * than `reach` SVG units from every edge (a tap well outside the board).
 */
export function nearestEdge(n: number, x: number, y: number, reach = UNIT * 0.75): Hit | null {
  if (n < 1) return null;
  const bx = (x - MARGIN) / UNIT;
  const by = (y - MARGIN) / UNIT;
  const hr = clamp(Math.round(by), 0, n);
  const hc = clamp(Math.floor(bx), 0, n - 1);
  const vc = clamp(Math.round(bx), 0, n);
  const vr = clamp(Math.floor(by), 0, n - 1);
  const dh = segmentDistance(bx, by, hc, hr, hc + 1, hr);
  const dv = segmentDistance(bx, by, vc, vr, vc, vr + 1);
  const hit: Hit = dh <= dv ? { edge: ["h", hr, hc], distance: dh * UNIT } : { edge: ["v", vr, vc], distance: dv * UNIT };
  return hit.distance <= reach ? hit : null;
}

// --- zoom and pan ------------------------------------------------------------------------
// The view is the part of the board shown: a square window of side size/scale whose top-left
// corner is (x, y), in SVG units. It becomes the SVG's viewBox.

export const MAX_ZOOM = 3;

export interface View {
  scale: number;
  x: number;
  y: number;
}

export function fullView(): View {
  return { scale: 1, x: 0, y: 0 };
}

export function isZoomed(v: View): boolean {
  return v.scale > 1.001;
}

/** Keeps the scale within 1..3 and the window inside the board. */
export function clampView(v: View, size: number): View {
  const scale = clamp(v.scale, 1, MAX_ZOOM);
  const w = size / scale;
  return { scale, x: clamp(v.x, 0, size - w), y: clamp(v.y, 0, size - w) };
}

/** Zooms by `factor` keeping the SVG point (px, py) where it is on screen. */
export function zoomAt(v: View, size: number, factor: number, px: number, py: number): View {
  const scale = clamp(v.scale * factor, 1, MAX_ZOOM);
  const w0 = size / v.scale;
  const w1 = size / scale;
  const fx = (px - v.x) / w0;
  const fy = (py - v.y) / w0;
  return clampView({ scale, x: px - fx * w1, y: py - fy * w1 }, size);
}

/** Moves the window by a drag of (dx, dy) screen pixels when one SVG unit is `pxPerUnit` pixels. */
export function panBy(v: View, size: number, dx: number, dy: number, pxPerUnit: number): View {
  if (pxPerUnit <= 0) return v;
  return clampView({ scale: v.scale, x: v.x - dx / pxPerUnit, y: v.y - dy / pxPerUnit }, size);
}

export function viewBox(v: View, size: number): string {
  const w = size / v.scale;
  return `${v.x} ${v.y} ${w} ${w}`;
}

/** Boxes covered by a square of size k at (row, col). */
export function squareBoxes(size: number, row: number, col: number): [number, number][] {
  const out: [number, number][] = [];
  for (let r = row; r < row + size; r++) for (let c = col; c < col + size; c++) out.push([r, c]);
  return out;
}
