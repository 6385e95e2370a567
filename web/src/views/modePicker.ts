// The list of game modes to pick from, the picked one with its overlap rule: the menu's new game
// and Create Room use it.

import { MODES, OVERLAPS, dieLabel, overlapName, sizesLabel, type ModeInfo } from "../state/catalog";
import { choose, h } from "./dom";

export interface ModeChoice {
  mode: string;
  overlap: string | null;
}

export function modeCards(opts: {
  current: ModeChoice;
  modes?: ModeInfo[];
  /** The radiogroup's name. */
  label?: string;
  onMode(mode: string): void;
  /** The overlap rule chosen, or null when the chooser was cancelled. */
  onOverlap(overlap: string | null): void;
}): HTMLElement {
  const { current } = opts;
  return h(
    "div",
    { class: "game-list", role: "radiogroup", "aria-label": opts.label ?? "Game" },
    (opts.modes ?? MODES).map((info) => {
      const selected = info.id === current.mode;
      const card = h(
        "div",
        {
          class: `mode-card ${selected ? "selected" : ""}`,
          role: "radio",
          tabindex: "0",
          "aria-checked": String(selected),
          "aria-label": `${info.name}: ${info.tagline}`,
          "data-mode": info.id,
          "data-focus-id": `mode-${info.id}`,
        },
        h(
          "div",
          { class: "mode-head" },
          h("span", { class: "mode-name" }, info.name),
          info.id === "classic" ? h("span", { class: "badge" }, "Recommended") : null,
        ),
        h("div", { class: "mode-tagline" }, info.tagline),
        h(
          "ul",
          { class: "mode-facts" },
          h("li", {}, `${info.dots}×${info.dots} dots · ${info.boxes} boxes`),
          h("li", {}, info.die ? `${dieLabel(info.die)} die` : "No dice"),
          h("li", {}, `Squares ${sizesLabel(info.sizes)}`),
        ),
        // Every card holds its blurb and overlap line (wide screens show them on all cards), so that
        // picking another card moves none of them.
        h("p", { class: `mode-blurb ${selected ? "" : "unselected"}` }, info.blurb),
        !selected && info.defaultOverlap
          ? h(
              "div",
              { class: "overlap-static unselected", "aria-hidden": "true" },
              h("span", { class: "overlap-label" }, "Overlap rule"),
              h("span", { class: "overlap-value" }, overlapName(info.defaultOverlap)),
              h("span", { class: "overlap-line" }, OVERLAPS.find((o) => o.id === info.defaultOverlap)?.line ?? ""),
            )
          : null,
        selected && info.defaultOverlap
          ? h(
              "button",
              {
                type: "button",
                class: "overlap-btn",
                "data-focus-id": "overlap",
                "aria-haspopup": "dialog",
                onclick: async (ev: Event) => {
                  ev.stopPropagation();
                  const v = await choose({ title: "Overlap rule", options: OVERLAPS, current: current.overlap ?? info.defaultOverlap! });
                  opts.onOverlap(v);
                },
              },
              h("span", { class: "overlap-label" }, "Overlap rule"),
              h("span", { class: "overlap-value" }, overlapName(current.overlap)),
              h("span", { class: "overlap-line" }, OVERLAPS.find((o) => o.id === current.overlap)?.line ?? ""),
            )
          : null,
      );
      const pick = () => opts.onMode(info.id);
      card.addEventListener("click", pick);
      card.addEventListener("keydown", (ev) => {
        if (ev.target !== card) return;
        if (ev.key === "Enter" || ev.key === " ") {
          ev.preventDefault();
          pick();
        }
      });
      return card;
    }),
  );
}
