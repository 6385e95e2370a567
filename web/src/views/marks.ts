// The players' marks as small icons (score cards, result windows): a diamond for Player 1, a
// ring for Player 2, the same marks the board puts in captured boxes.

const SVG_NS = "http://www.w3.org/2000/svg";

export function markIcon(player: 1 | 2): SVGSVGElement {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", `mark-icon p${player}`);
  svg.setAttribute("aria-hidden", "true");
  if (player === 1) {
    const poly = document.createElementNS(SVG_NS, "polygon");
    poly.setAttribute("points", "12,2 22,12 12,22 2,12");
    poly.setAttribute("class", "mark diamond");
    svg.appendChild(poly);
  } else {
    const c = document.createElementNS(SVG_NS, "circle");
    c.setAttribute("cx", "12");
    c.setAttribute("cy", "12");
    c.setAttribute("r", "8");
    c.setAttribute("class", "mark ring");
    svg.appendChild(c);
  }
  return svg;
}

/** A stopwatch drawn in SVG: the emoji is a missing glyph in some browsers' fonts. */
export function clockIcon(): SVGSVGElement {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", "clock-icon");
  svg.setAttribute("aria-hidden", "true");
  const parts: [string, Record<string, string>][] = [
    ["circle", { cx: "12", cy: "13.5", r: "8" }],
    ["path", { d: "M12 13.5V9M9.5 2.5h5M12 2.5v3M18.5 6l1.5-1.5" }],
  ];
  for (const [tag, attrs] of parts) {
    const node = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    svg.appendChild(node);
  }
  return svg;
}
