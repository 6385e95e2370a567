import { describe, expect, it } from "vitest";
import { placeFloats, floatSize, type FloatLabel } from "../../src/views/boardFloats";
import { MARGIN, boardSize } from "../../src/state/geometry";
import type { SquareChange } from "../../src/network/types";

const change = (size: number, row: number, col: number, points: number, kind: SquareChange["kind"] = "captured"): SquareChange => ({
  size, row, col, points, kind, player: points > 0 ? 1 : 2,
});

function apart(a: FloatLabel, b: FloatLabel): boolean {
  const w = (l: FloatLabel) => l.text.length * l.size * 0.62;
  return Math.abs(a.x - b.x) >= (w(a) + w(b)) / 2 || Math.abs(a.y - b.y) >= (a.size + b.size) * 0.55;
}

describe("score changes of one move", () => {
  it("do not stack on one spot: +9 and −4 on the same corner come apart", () => {
    const labels = placeFloats([change(3, 0, 0, 9), change(2, 0, 0, -4), change(1, 1, 1, 1)], 12, floatSize(0.29));
    expect(labels).toHaveLength(3);
    for (let i = 0; i < labels.length; i++) for (let j = i + 1; j < labels.length; j++) expect(apart(labels[i], labels[j])).toBe(true);
  });

  it("stay inside the board, rise included, even from its top row and corners", () => {
    const n = 12;
    const size = floatSize(0.29);
    const total = boardSize(n);
    const labels = placeFloats([change(1, 0, 0, 1), change(1, 0, 11, -1), change(3, 9, 9, 9), change(1, 11, 0, 1)], n, size);
    for (const l of labels) {
      expect(l.y - l.rise - l.size / 2).toBeGreaterThanOrEqual(MARGIN / 2 - 0.01);
      expect(l.y + l.size / 2).toBeLessThanOrEqual(total - MARGIN / 2 + 0.01);
      const half = (l.text.length * l.size * 0.62) / 2;
      expect(l.x - half).toBeGreaterThanOrEqual(MARGIN / 2 - 0.01);
      expect(l.x + half).toBeLessThanOrEqual(total - MARGIN / 2 + 0.01);
    }
  });

  it("are sized for the board on screen: at least 22 px on a phone's 12×12 board", () => {
    const pxPerUnit = 370 / boardSize(12);
    expect(floatSize(pxPerUnit) * pxPerUnit).toBeGreaterThanOrEqual(22);
    expect(floatSize(1)).toBe(46); // a big board on a desktop keeps the old size
  });

  it("leave blocked squares without a label", () => {
    expect(placeFloats([change(2, 0, 0, 0, "blocked")], 9, 46)).toEqual([]);
  });
});
