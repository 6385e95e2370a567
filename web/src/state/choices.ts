// The menu's and the practice setup's last choices, remembered in the browser.

import { CLOCKS, MODES, OVERLAPS, PRACTICE_BOARDS, modeInfo } from "./catalog";
import { LEVELS, type Level } from "../generated/facts";
import type { KeyValueStore } from "./settings";

export interface MenuChoices {
  opponent: "ai" | "local";
  level: Level;
  clock: number;
  mode: string;
  overlap: string | null;
}

export const DEFAULT_MENU: MenuChoices = { opponent: "ai", level: "normal", clock: 0, mode: "classic", overlap: null };
const MENU_KEY = "boxedin.menu";

function read(store: KeyValueStore | null, key: string): Record<string, unknown> {
  try {
    const t = store?.getItem(key);
    const v = t ? JSON.parse(t) : {};
    return v && typeof v === "object" ? v : {};
  } catch {
    return {};
  }
}

function write(store: KeyValueStore | null, key: string, value: unknown): void {
  try {
    store?.setItem(key, JSON.stringify(value));
  } catch {
    /* not remembered this time */
  }
}

export function loadMenuChoices(store: KeyValueStore | null): MenuChoices {
  const raw = read(store, MENU_KEY);
  const mode = MODES.some((m) => m.id === raw.mode) ? String(raw.mode) : DEFAULT_MENU.mode;
  const info = modeInfo(mode)!;
  let overlap: string | null = info.defaultOverlap;
  if (info.defaultOverlap && OVERLAPS.some((o) => o.id === raw.overlap)) overlap = String(raw.overlap);
  return {
    opponent: raw.opponent === "local" ? "local" : "ai",
    level: LEVELS.find((l) => l === raw.level) ?? DEFAULT_MENU.level,
    clock: CLOCKS.includes(Number(raw.clock)) ? Number(raw.clock) : 0,
    mode,
    overlap,
  };
}

export function saveMenuChoices(store: KeyValueStore | null, m: MenuChoices): void {
  write(store, MENU_KEY, m);
}

/** Selecting a game sets the overlap rule back to that game's starting rule. */
export function selectMode(m: MenuChoices, mode: string): MenuChoices {
  const info = modeInfo(mode);
  if (!info) return m;
  if (m.mode === mode) return m;
  return { ...m, mode, overlap: info.defaultOverlap };
}

export interface PracticeChoices {
  boxes: number;
  opponent: "practice" | "local";
  seed: string;
}

const PRACTICE_KEY = "boxedin.practice";

const WORDS = ["amber", "birch", "cedar", "delta", "ember", "fable", "grove", "harbor", "iris", "juniper", "kite", "lumen", "maple", "nova", "orchid", "pebble", "quartz", "river", "sage", "thistle", "umber", "violet", "willow", "yarrow", "zephyr"];

export function randomSeed(rand: () => number = Math.random): string {
  const w = () => WORDS[Math.floor(rand() * WORDS.length)];
  return `${w()}-${w()}-${Math.floor(rand() * 900 + 100)}`;
}

export function loadPracticeChoices(store: KeyValueStore | null): PracticeChoices {
  const raw = read(store, PRACTICE_KEY);
  const boxes = PRACTICE_BOARDS.includes(Number(raw.boxes)) ? Number(raw.boxes) : 3;
  return { boxes, opponent: raw.opponent === "local" ? "local" : "practice", seed: randomSeed() };
}

export function savePracticeChoices(store: KeyValueStore | null, p: PracticeChoices): void {
  write(store, PRACTICE_KEY, { boxes: p.boxes, opponent: p.opponent });
}

/** A replay seed as the server takes it: trimmed, 1 to 96 characters; null when unusable. */
export function cleanSeed(seed: string): string | null {
  const t = seed.trim();
  return t.length >= 1 && t.length <= 96 ? t : null;
}
