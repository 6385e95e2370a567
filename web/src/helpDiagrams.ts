// Small drawn examples for Help & Rules: each overlap rule shown on a box and the square around
// it, step by step, in the players' colours and marks, with the score after each step.

import { h } from "./dom";

const SVG_NS = "http://www.w3.org/2000/svg";
const CELL = 30; // one box, in the diagram's units
const PAD = 8;

type Who = 1 | 2; // 1: you, 2: the other player

/** A square in a diagram: size and top-left box, who holds it; `gone`: removed or never captured. */
interface Piece {
  size: number;
  row: number;
  col: number;
  who: Who;
  gone?: "removed" | "blocked";
}

interface Step {
  caption: string;
  pieces: Piece[];
  score: [number, number];
}

export interface OverlapExample {
  /** What the steps show, in a sentence. */
  title: string;
  boxes: number; // the diagram's board, boxes per side
  steps: Step[];
}

const box = (who: Who, row = 0, col = 0, gone?: Piece["gone"]): Piece => ({ size: 1, row, col, who, gone });
const sq = (size: number, who: Who, gone?: Piece["gone"], row = 0, col = 0): Piece => ({ size, row, col, who, gone });

// The examples. "You" are the diamond (Player 1's colour), "they" the ring.
export const OVERLAP_EXAMPLES: Record<string, OverlapExample> = {
  independent: {
    title: "Their box, then your 2×2 around it",
    boxes: 2,
    steps: [
      { caption: "They close a box: 1 point.", pieces: [box(2)], score: [0, 1] },
      { caption: "You close the 2×2 around it: 4 points. Both squares stay.", pieces: [box(2), sq(2, 1)], score: [4, 1] },
    ],
  },
  consume: {
    title: "Their box, then your 2×2 around it",
    boxes: 2,
    steps: [
      { caption: "They close a box: 1 point.", pieces: [box(2)], score: [0, 1] },
      { caption: "Your 2×2 swallows the box: they lose its point. Yours would go the same way.", pieces: [box(2, 0, 0, "removed"), sq(2, 1)], score: [4, 0] },
    ],
  },
  exclusive: {
    title: "Their box, then the 2×2 around it",
    boxes: 2,
    steps: [
      { caption: "They close a box: 1 point.", pieces: [box(2)], score: [0, 1] },
      { caption: "The 2×2 shares that box, so it can never be captured; its last edges score nothing.", pieces: [box(2), sq(2, 1, "blocked")], score: [0, 1] },
    ],
  },
  takeover: {
    title: "Their box, then your 2×2 around it",
    boxes: 2,
    steps: [
      { caption: "They close a box: 1 point.", pieces: [box(2)], score: [0, 1] },
      { caption: "Your 2×2 takes the box over, point and all: 4 + 1 for you.", pieces: [box(1), sq(2, 1)], score: [5, 0] },
    ],
  },
  protected: {
    title: "A box first, then the 2×2 around it",
    boxes: 2,
    steps: [
      { caption: "They close a box: 1 point.", pieces: [box(2)], score: [0, 1] },
      { caption: "A captured box inside shields the 2×2: nobody can capture it now.", pieces: [box(2), sq(2, 1, "blocked")], score: [0, 1] },
    ],
  },
  layered: {
    title: "Your box, then your 2×2 around it",
    boxes: 2,
    steps: [
      { caption: "You close a box: 1 point.", pieces: [box(1)], score: [1, 0] },
      { caption: "Your 2×2 sits on one of your boxes: 4 + 1 bonus. Over their boxes there is no bonus.", pieces: [box(1), sq(2, 1)], score: [6, 0] },
    ],
  },
  volatile: {
    title: "Their box, then your 2×2 around it",
    boxes: 2,
    steps: [
      { caption: "They close a box: 1 point.", pieces: [box(2)], score: [0, 1] },
      { caption: "Your 2×2 wipes out their box and its point. Your own boxes inside would stay.", pieces: [box(2, 0, 0, "removed"), sq(2, 1)], score: [4, 0] },
    ],
  },
  builder: {
    title: "Your box, then your 2×2 around it",
    boxes: 2,
    steps: [
      { caption: "You close a box: 1 point.", pieces: [box(1)], score: [1, 0] },
      { caption: "Your 2×2 pays its 4 and your box's 1 again. Built the other way round, no bonus.", pieces: [box(1), sq(2, 1)], score: [6, 0] },
    ],
  },
  territory: {
    title: "Their box, then your 2×2 around it",
    boxes: 2,
    steps: [
      { caption: "They hold one box: 1 point.", pieces: [box(2)], score: [0, 1] },
      { caption: "Your 2×2 repaints all four boxes: you hold 4, they hold none.", pieces: [box(1), box(1, 0, 1), box(1, 1, 0), box(1, 1, 1), sq(2, 1)], score: [4, 0] },
    ],
  },
  majority: {
    title: "Their box, then you close the 2×2 around it",
    boxes: 2,
    steps: [
      { caption: "They close a box: 1 point.", pieces: [box(2)], score: [0, 1] },
      { caption: "They hold more boxes inside, so the 2×2 you closed goes to them.", pieces: [box(2), sq(2, 2)], score: [0, 5] },
    ],
  },
  fortress: {
    title: "Their box, then you close the 2×2 around it",
    boxes: 2,
    steps: [
      { caption: "They close a box: 1 point.", pieces: [box(2)], score: [0, 1] },
      { caption: "Only they could have taken this 2×2; closed by you it is lost to both.", pieces: [box(2), sq(2, 1, "blocked")], score: [0, 1] },
    ],
  },
  home_turf: {
    title: "Your 2×2, then your box inside it",
    boxes: 2,
    steps: [
      { caption: "You close a 2×2: 4 points.", pieces: [sq(2, 1)], score: [4, 0] },
      { caption: "A box inside your own 2×2 counts double. Inside theirs it would count nothing.", pieces: [sq(2, 1), box(1)], score: [6, 0] },
    ],
  },
  capped_layered: {
    title: "Your box, your 2×2 over it, your 3×3 over both",
    boxes: 3,
    steps: [
      { caption: "Box and 2×2: 1 + 4 + 1 bonus.", pieces: [box(1), sq(2, 1)], score: [6, 0] },
      { caption: "The 3×3: 9, plus 1 for each of the four boxes you already cover (13); Layered pays the corner box twice (14).", pieces: [box(1), sq(2, 1), sq(3, 1)], score: [19, 0] },
    ],
  },
};

function svgEl<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

function drawStep(n: number, pieces: Piece[]): SVGSVGElement {
  const size = n * CELL + 2 * PAD;
  const svg = svgEl("svg", { viewBox: `0 0 ${size} ${size}`, class: "rule-diagram", "aria-hidden": "true" });
  svg.appendChild(svgEl("rect", { x: 1, y: 1, width: size - 2, height: size - 2, rx: 6, class: "rd-bg" }));
  for (const p of pieces) {
    const x = PAD + p.col * CELL;
    const y = PAD + p.row * CELL;
    const w = p.size * CELL;
    if (p.gone === "blocked") {
      svg.appendChild(svgEl("rect", { x: x + 4, y: y + 4, width: w - 8, height: w - 8, rx: 4, class: "rd-blocked" }));
      continue;
    }
    if (p.size === 1) {
      svg.appendChild(svgEl("rect", { x: x + 2, y: y + 2, width: w - 4, height: w - 4, class: `rd-fill p${p.who} ${p.gone ? "gone" : ""}` }));
      const cx = x + w / 2;
      const cy = y + w / 2;
      svg.appendChild(
        p.who === 1
          ? svgEl("polygon", { points: `${cx},${cy - 7} ${cx + 7},${cy} ${cx},${cy + 7} ${cx - 7},${cy}`, class: `mark diamond p1 ${p.gone ? "gone" : ""}` })
          : svgEl("circle", { cx, cy, r: 6, class: `mark ring p2 rd-ring ${p.gone ? "gone" : ""}` }),
      );
      if (p.gone) svg.appendChild(svgEl("path", { d: `M${x + 6} ${y + 6}L${x + w - 6} ${y + w - 6}M${x + w - 6} ${y + 6}L${x + 6} ${y + w - 6}`, class: "rd-cross" }));
    } else {
      const inset = 3 + (p.size - 2) * 4;
      svg.appendChild(svgEl("rect", { x: x + inset, y: y + inset, width: w - 2 * inset, height: w - 2 * inset, rx: 5, class: `rd-outline p${p.who}` }));
    }
  }
  for (let r = 0; r <= n; r++) for (let c = 0; c <= n; c++) svg.appendChild(svgEl("circle", { cx: PAD + c * CELL, cy: PAD + r * CELL, r: 2.4, class: "dot" }));
  return svg;
}

/** The figure for one overlap rule: its steps side by side, each with its caption and score. */
export function overlapFigure(ruleId: string, you = "You", them = "They"): HTMLElement | null {
  const ex = OVERLAP_EXAMPLES[ruleId];
  if (!ex) return null;
  return h(
    "figure",
    { class: "rule-example", "data-rule": ruleId },
    h("figcaption", {}, `Example: ${ex.title}`),
    h(
      "ol",
      { class: "rule-steps" },
      ex.steps.map((s) =>
        h("li", {}, drawStep(ex.boxes, s.pieces), h("p", {}, s.caption), h("p", { class: "rd-score" }, `${you} ${s.score[0]} · ${them} ${s.score[1]}`)),
      ),
    ),
  );
}
