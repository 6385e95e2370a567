import { describe, expect, it } from "vitest";
import {
  MARGIN, MAX_ZOOM, UNIT, allEdges, boardSize, clampView, edgeCount, edgeLine, fullView, isZoomed, nearestEdge,
  panBy, viewBox, zoomAt,
} from "../../src/state/geometry";

const at = (bx: number, by: number): [number, number] => [MARGIN + bx * UNIT, MARGIN + by * UNIT];

describe("nearest edge", () => {
  it("picks the edge whose middle was tapped", () => {
    expect(nearestEdge(3, ...at(0.5, 0))?.edge).toEqual(["h", 0, 0]);
    expect(nearestEdge(3, ...at(1.5, 2))?.edge).toEqual(["h", 2, 1]);
    expect(nearestEdge(3, ...at(3, 2.5))?.edge).toEqual(["v", 2, 3]);
    expect(nearestEdge(3, ...at(0, 0.5))?.edge).toEqual(["v", 0, 0]);
  });

  it("picks the closer of the horizontal and vertical candidates inside a box", () => {
    // Near the top side of box (1, 1)
    expect(nearestEdge(3, ...at(1.45, 1.2))?.edge).toEqual(["h", 1, 1]);
    // Near its left side
    expect(nearestEdge(3, ...at(1.15, 1.55))?.edge).toEqual(["v", 1, 1]);
    // Near its bottom-right corner, slightly more to the right: the vertical edge
    expect(nearestEdge(3, ...at(1.92, 1.75))?.edge).toEqual(["v", 1, 2]);
    expect(nearestEdge(3, ...at(1.75, 1.93))?.edge).toEqual(["h", 2, 1]);
  });

  it("reports the distance in SVG units", () => {
    const hit = nearestEdge(4, ...at(2.5, 1.2));
    expect(hit?.edge).toEqual(["h", 1, 2]);
    expect(hit?.distance).toBeCloseTo(0.2 * UNIT);
  });

  it("clamps to the board's rim and ignores taps far outside it", () => {
    expect(nearestEdge(2, ...at(-0.2, 0.5))?.edge).toEqual(["v", 0, 0]);
    expect(nearestEdge(2, ...at(1.5, 2.3))?.edge).toEqual(["h", 2, 1]);
    expect(nearestEdge(2, ...at(5, 5))).toBeNull();
    expect(nearestEdge(2, ...at(-2, 0))).toBeNull();
  });

  it("agrees with a brute-force search over every edge", () => {
    const n = 5;
    const seg = (e: ["h" | "v", number, number], x: number, y: number) => {
      const [x1, y1, x2, y2] = edgeLine(e);
      const dx = Math.max(Math.min(x1, x2) - x, 0, x - Math.max(x1, x2));
      const dy = Math.max(Math.min(y1, y2) - y, 0, y - Math.max(y1, y2));
      return Math.hypot(dx, dy);
    };
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let i = 0; i < 500; i++) {
      const x = rand() * boardSize(n);
      const y = rand() * boardSize(n);
      const hit = nearestEdge(n, x, y, Infinity)!;
      const best = Math.min(...allEdges(n).map((e) => seg(e, x, y)));
      expect(hit.distance).toBeCloseTo(best, 6);
    }
  });

  it("lists every edge once, in reading order", () => {
    for (const n of [2, 3, 7, 11]) {
      const edges = allEdges(n);
      expect(edges.length).toBe(edgeCount(n));
      expect(new Set(edges.map((e) => e.join())).size).toBe(edges.length);
    }
    expect(allEdges(1)).toEqual([["h", 0, 0], ["v", 0, 0], ["v", 0, 1], ["h", 1, 0]]);
  });
});

describe("zoom and pan", () => {
  const size = boardSize(7);

  it("starts showing the whole board", () => {
    expect(isZoomed(fullView())).toBe(false);
    expect(viewBox(fullView(), size)).toBe(`0 0 ${size} ${size}`);
  });

  it("keeps the zoom centre where it is on screen", () => {
    const v = zoomAt(fullView(), size, 2, 300, 200);
    expect(v.scale).toBe(2);
    // The point (300, 200) was at 300/size of the window and stays there.
    const w = size / v.scale;
    expect((300 - v.x) / w).toBeCloseTo(300 / size);
    expect((200 - v.y) / w).toBeCloseTo(200 / size);
  });

  it("zooms at most three times and never out past the whole board", () => {
    let v = fullView();
    for (let i = 0; i < 10; i++) v = zoomAt(v, size, 1.5, 100, 100);
    expect(v.scale).toBe(MAX_ZOOM);
    for (let i = 0; i < 10; i++) v = zoomAt(v, size, 0.5, 100, 100);
    expect(v).toEqual(fullView());
  });

  it("pans by the drag in board units and stays inside the board", () => {
    const v = zoomAt(fullView(), size, 2, size / 2, size / 2);
    const moved = panBy(v, size, -50, 0, 0.5); // dragging left by 50 px at 0.5 px per unit
    expect(moved.x).toBeCloseTo(v.x + 100);
    const far = panBy(v, size, -100000, -100000, 1);
    expect(far.x).toBeCloseTo(size - size / 2);
    expect(far.y).toBeCloseTo(size - size / 2);
    const back = panBy(v, size, 100000, 100000, 1);
    expect(back.x).toBe(0);
    expect(back.y).toBe(0);
  });

  it("cannot pan the whole board", () => {
    expect(panBy(fullView(), size, 80, -40, 1)).toEqual(fullView());
  });

  it("clamps any view into range", () => {
    expect(clampView({ scale: 9, x: -5, y: 1e6 }, size)).toEqual({ scale: 3, x: 0, y: size - size / 3 });
  });
});
