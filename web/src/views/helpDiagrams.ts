// Small drawn examples for Help & Rules: each overlap rule's steps (state/helpExamples.ts) drawn
// on a box and the square around it, in the players' colours and marks, with the score after each.

import { OVERLAP_EXAMPLES, type Piece } from "../state/helpExamples";
import { h } from "./dom";

const SVG_NS = "http://www.w3.org/2000/svg";
const CELL = 30; // one box, in the diagram's units
const PAD = 8;

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
