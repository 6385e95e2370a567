// Captured squares on the board: one tint and mark per box (split diagonally where both players'
// squares cover it), each held 2×2 and 3×3 square outlined in its owner's colour, inset by size so
// that nested outlines stay apart, and the words for a box: which squares cover it.

import { UNIT, dotXY, squareBoxes } from "../state/geometry";
import type { GameState, HeldSquare, PlayerNo } from "../network/types";

type El = <K extends keyof SVGElementTagNameMap>(tag: K, attrs?: Record<string, string | number>) => SVGElementTagNameMap[K];

function diamond(cx: number, cy: number, r: number): string {
  return `${cx},${cy - r} ${cx + r},${cy} ${cx},${cy + r} ${cx - r},${cy}`;
}

/** How far a square's outline sits inside its boxes, in SVG units, on an n×n board: clear of the
 * drawn edges (which thicken on larger boards, as board.ts does), and a 3×3 further in than a 2×2
 * so that a 2×2 inside a 3×3 keeps its own line. */
export function outlineInset(size: number, n: number): number {
  const k = Math.max(1, n / 6);
  return k * (10 + (size - 2) * 8);
}

/** Who covers each box (row-major): the holder under Territory, else the owners of the squares over it. */
export function boxOwners(game: GameState): Set<PlayerNo>[] {
  const n = game.boxes;
  const owners: Set<PlayerNo>[] = Array.from({ length: n * n }, () => new Set<PlayerNo>());
  if (Array.isArray(game.box_holders)) {
    game.box_holders.forEach((holder, i) => holder && owners[i].add(holder));
  } else {
    for (const s of game.squares) for (const [r, c] of squareBoxes(s.size, s.row, s.col)) owners[r * n + c].add(s.owner);
  }
  return owners;
}

/** The squares held over box (row, col), largest first. */
export function squaresCovering(squares: HeldSquare[], row: number, col: number): HeldSquare[] {
  return squares
    .filter((s) => row >= s.row && row < s.row + s.size && col >= s.col && col < s.col + s.size)
    .sort((a, b) => b.size - a.size || a.row - b.row || a.col - b.col);
}

/** "Box row 3, column 4: 2×2 square of Ann, 4 points; 1×1 box of AI, 1 point." */
export function describeBox(game: GameState, row: number, col: number): string {
  const where = `Box row ${row + 1}, column ${col + 1}`;
  const over = squaresCovering(game.squares, row, col);
  const holder = Array.isArray(game.box_holders) ? game.box_holders[row * game.boxes + col] : null;
  const held = holder ? ` Held by ${game.players[holder - 1].name}.` : "";
  if (!over.length) return `${where}: no square covers it.${held}`;
  const parts = over.map((s) => {
    const what = s.size === 1 ? "1×1 box" : `${s.size}×${s.size} square`;
    return `${what} of ${game.players[s.owner - 1].name}, ${s.points} ${Math.abs(s.points) === 1 ? "point" : "points"}`;
  });
  return `${where}: ${parts.join("; ")}.${held}`;
}

/** Draws the tints into `tints`, the marks into `marks` and the outlines into `outlines`. */
export function renderSquares(el: El, game: GameState, tints: SVGGElement, marks: SVGGElement, outlines: SVGGElement): void {
  tints.replaceChildren();
  marks.replaceChildren();
  outlines.replaceChildren();
  const n = game.boxes;
  boxOwners(game).forEach((set, i) => {
    if (!set.size) return;
    const r = Math.floor(i / n);
    const c = i % n;
    const [x, y] = dotXY(r, c);
    if (set.size === 2) {
      tints.appendChild(el("polygon", { points: `${x + 3},${y + 3} ${x + UNIT - 3},${y + 3} ${x + 3},${y + UNIT - 3}`, class: "fill p1" }));
      tints.appendChild(el("polygon", { points: `${x + UNIT - 3},${y + 3} ${x + UNIT - 3},${y + UNIT - 3} ${x + 3},${y + UNIT - 3}`, class: "fill p2" }));
    } else {
      tints.appendChild(el("rect", { x: x + 3, y: y + 3, width: UNIT - 6, height: UNIT - 6, class: `fill p${set.has(1) ? 1 : 2}` }));
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
  // Each held larger square: a casing in the board's colour, then its owner's line, so that the
  // line reads over tints of either colour. Player 2's line is dashed, for colour-blind players.
  for (const s of [...game.squares].sort((a, b) => b.size - a.size)) {
    if (s.size < 2) continue;
    const [x, y] = dotXY(s.row, s.col);
    const inset = outlineInset(s.size, n);
    const w = s.size * UNIT - 2 * inset;
    const box = { x: x + inset, y: y + inset, width: w, height: w, rx: 10 };
    outlines.appendChild(el("rect", { ...box, class: "outline-casing" }));
    outlines.appendChild(el("rect", { ...box, class: `outline p${s.owner}`, "data-size": s.size, "data-owner": s.owner, "data-row": s.row, "data-col": s.col }));
  }
}
