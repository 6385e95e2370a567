// Names and descriptions the menu shows. These are labels, not rules: the engine decides play.
// The figures (board, die, square sizes, usual overlap rule), the taglines, the AI levels and the
// clocks come from generated/, which scripts/gen_catalog.py writes from the engine, so the menu
// cannot promise another game.

import { CLOCKS as CLOCK_CHOICES, LEVELS as LEVEL_IDS, LEVEL_NAMES, type Level } from "../generated/facts";
import { MODE_RULES, OVERLAP_IDS } from "../generated/rules";

export interface ModeInfo {
  id: string;
  name: string;
  tagline: string;
  dots: number;
  boxes: number;
  edges: number;
  die: number | null;
  sizes: number[];
  defaultOverlap: string | null;
  note?: string;
  blurb: string;
}

/** What the menu says about each mode; its figures are the engine's. */
const MODE_TEXTS: { id: string; name: string; note?: string; blurb: string }[] = [
  {
    id: "mini", name: "Mini",
    blurb: "The smallest grid with a four-sided die. Nine boxes, so every box you leave three-sided matters.",
  },
  {
    id: "standard", name: "Standard", note: "No dice: one line, plus one per capture",
    blurb: "No die at all. Draw one line a turn; closing a box earns you another line. Chains and sacrifices decide it.",
  },
  {
    id: "quick", name: "Quick",
    blurb: "The Standard grid played with a six-sided die: the easiest way to learn dice turns.",
  },
  {
    id: "classic", name: "Classic",
    blurb: "Forty-nine boxes and a six-sided die. A capture earns no extra edge, so plan to build and close boxes within one turn.",
  },
  {
    id: "chain_reaction", name: "Chain Reaction", note: "An edge that captures is free",
    blurb: "Like Classic, except an edge that closes a box does not use up your roll, so whole rows can fall in one turn.",
  },
  {
    id: "marathon", name: "Marathon",
    blurb: "The biggest grid, boxes only, and an eight-sided die. No single turn decides very much.",
  },
  {
    id: "strategic", name: "Strategic",
    blurb: "Adds 2×2 squares worth 4 points. The overlap rule decides how squares that share boxes interact.",
  },
  {
    id: "big_squares", name: "Big Squares",
    blurb: "Strategic's grid with 3×3 squares worth 9 as well, and a ten-sided die.",
  },
  {
    id: "expert", name: "Expert",
    blurb: "The largest grid, all three square sizes and a twelve-sided die. Starts on the Consume rule.",
  },
];

function rulesOf(id: string) {
  const rules = MODE_RULES.find((m) => m.id === id);
  if (!rules) throw new Error(`the engine has no mode ${id}: run scripts/gen_catalog.py`);
  return rules;
}

export const MODES: ModeInfo[] = MODE_TEXTS.map((t) => {
  const r = rulesOf(t.id);
  const dots = r.boxes + 1;
  return {
    ...t, tagline: r.tagline, dots, boxes: r.boxes * r.boxes, edges: 2 * r.boxes * dots, die: r.die, sizes: [...r.sizes],
    defaultOverlap: r.defaultOverlap,
  };
});

export const PRACTICE_BOARDS = MODE_RULES.filter((m) => m.practice).map((m) => m.boxes);

/** Whether a mode is a practice board (the engine's catalogue says). */
export function isPractice(modeId: string): boolean {
  return MODE_RULES.some((m) => m.id === modeId && m.practice);
}

export function modeInfo(id: string): ModeInfo | undefined {
  return MODES.find((m) => m.id === id);
}

export function modeName(id: string): string {
  const m = modeInfo(id);
  if (m) return m.name;
  const p = /^practice_(\d)x\1$/.exec(id);
  if (p) return `Practice ${p[1]}×${p[1]}`;
  return id;
}

export function sizesLabel(sizes: number[]): string {
  return sizes.map((s) => `${s}×${s}`).join(", ");
}

export function dieLabel(die: number | null): string {
  return die === null ? "No dice" : `d${die}`;
}

export interface OverlapInfo {
  id: string;
  name: string;
  line: string;
}

const OVERLAP_TEXTS: OverlapInfo[] = [
  { id: "independent", name: "Independent", line: "Every finished square scores; nothing else happens." },
  { id: "consume", name: "Consume", line: "A larger square wipes out the smaller ones inside it, yours too." },
  { id: "exclusive", name: "Exclusive", line: "A square only counts if none of its boxes is already taken." },
  { id: "takeover", name: "Takeover", line: "A larger square steals the opponent's smaller squares inside it." },
  { id: "protected", name: "Protected", line: "Any captured box inside a larger square blocks it for good." },
  { id: "layered", name: "Layered", line: "Bonus point per box shared with each of your own squares." },
  { id: "volatile", name: "Volatile", line: "A larger square erases the opponent's smaller squares inside it." },
  { id: "builder", name: "Builder", line: "Closing a larger square adds your smaller squares' points again." },
  { id: "territory", name: "Territory", line: "You score the boxes you hold; the latest square over a box owns it." },
  { id: "majority", name: "Majority", line: "Larger squares go to whoever holds more boxes inside them." },
  { id: "fortress", name: "Fortress", line: "Only the owner of everything inside may close a larger square." },
  { id: "home_turf", name: "Home Turf", line: "Double points inside your larger square, none inside theirs." },
  { id: "capped_layered", name: "Capped Layered", line: "Like Layered, but a box adds at most one bonus point." },
];

/** The engine's overlap rules in its order, each with what the menu says about it. */
export const OVERLAPS: OverlapInfo[] = OVERLAP_IDS.map((id) => {
  const text = OVERLAP_TEXTS.find((o) => o.id === id);
  if (!text) throw new Error(`no words for the overlap rule ${id}`);
  return text;
});

export function overlapName(id: string | null): string {
  if (!id) return "None";
  return OVERLAPS.find((o) => o.id === id)?.name ?? id;
}

export interface LevelInfo {
  id: Level;
  name: string;
  line: string;
}

const LEVEL_LINES: Record<Level, string> = {
  easy: "Draws random edges and uses its whole roll; scores mostly by luck.",
  normal: "Grabs any points on offer, otherwise avoids handing you boxes.",
  hard: "Plans the whole turn, weighs your best reply and stops early when it should.",
  expert: "Plays out many sample games from each option before choosing.",
};

/** The engine's AI levels in its order, each with what the menu says about it. */
export const LEVELS: LevelInfo[] = LEVEL_IDS.map((id) => ({ id, name: LEVEL_NAMES[id], line: LEVEL_LINES[id] }));

export function levelName(id: string | null): string {
  return LEVELS.find((l) => l.id === id)?.name ?? "";
}

export const CLOCKS: number[] = [...CLOCK_CHOICES];

export function clockLabel(seconds: number): string {
  return seconds ? `Clock: ${seconds} s` : "No clock";
}
