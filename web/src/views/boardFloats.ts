// Where the score changes of one move ("+9", "−4") rise from: over their squares, apart from
// each other, sized for the board as it is on screen and kept inside it.

import { MARGIN, UNIT, boardSize } from "../state/geometry";
import { signed } from "../state/texts";
import type { PlayerNo, SquareChange } from "../network/types";

export interface FloatLabel {
  text: string;
  player: PlayerNo;
  x: number; // the label's centre, in SVG units
  y: number;
  size: number; // font size, in SVG units
  rise: number; // how far it rises while it fades, in SVG units
}

/** Screen pixels a score change should be at least, whatever the board's size. */
export const FLOAT_MIN_PX = 22;

/** The font size in SVG units for a board drawn at `pxPerUnit` screen pixels per unit. */
export function floatSize(pxPerUnit: number): number {
  const wanted = pxPerUnit > 0 ? FLOAT_MIN_PX / pxPerUnit : 46;
  return Math.min(UNIT * 1.1, Math.max(46, wanted));
}

const width = (text: string, size: number) => text.length * size * 0.62;

function overlaps(a: FloatLabel, b: FloatLabel): boolean {
  return Math.abs(a.x - b.x) < (width(a.text, a.size) + width(b.text, b.size)) / 2 && Math.abs(a.y - b.y) < (a.size + b.size) * 0.55;
}

/** Labels for the changes of one move on an n×n board (blocked squares score nothing: no label). */
export function placeFloats(changes: SquareChange[], n: number, size: number): FloatLabel[] {
  const total = boardSize(n);
  const rise = size * 0.9;
  const top = MARGIN / 2 + size / 2 + rise;
  const bottom = total - MARGIN / 2 - size / 2;
  const placed: FloatLabel[] = [];
  for (const ch of changes) {
    if (ch.kind === "blocked") continue;
    const text = signed(ch.points);
    const half = width(text, size) / 2;
    const x = Math.min(total - MARGIN / 2 - half, Math.max(MARGIN / 2 + half, MARGIN + (ch.col + ch.size / 2) * UNIT));
    const anchor = Math.min(bottom, Math.max(top, MARGIN + (ch.row + ch.size / 2) * UNIT));
    const label: FloatLabel = { text, player: ch.player, x, y: anchor, size, rise };
    // The square's centre, else the nearest free place below or above it within the board.
    const step = size * 1.15;
    for (let i = 0; i < 4 * n + 2; i++) {
      const y = anchor + Math.ceil(i / 2) * step * (i % 2 ? 1 : -1);
      if (y > bottom || y < top) continue;
      label.y = y;
      if (!placed.some((p) => overlaps(p, label))) break;
      label.y = anchor;
    }
    placed.push(label);
  }
  return placed;
}
