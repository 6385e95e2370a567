// Settings, kept in the browser (localStorage) and applied at once.

import { parseColour, pulseColour, toHex } from "./contrast";

export type Theme = "system" | "light" | "dark";
export type Palette = "indigo" | "forest" | "ocean" | "sunset" | "berry" | "graphite" | "custom";
export type First = "1" | "2" | "random";

export interface Settings {
  theme: Theme;
  palette: Palette;
  customHue: number;
  p1Colour: string;
  p2Colour: string;
  first: First;
  aiSpeed: "normal" | "fast";
  vibration: boolean;
  /** On boards whose dots sit close together, a tap selects an edge and a second tap draws it. */
  tapSelect: boolean;
  controls: "left" | "right";
}

export interface PlayerColour {
  id: string;
  name: string;
  light: string;
  dark: string;
}

// Eight player colours, each with a shade for light and for dark backgrounds.
export const PLAYER_COLOURS: PlayerColour[] = [
  { id: "green", name: "Green", light: "#1f8a4c", dark: "#4cc981" },
  { id: "blue", name: "Blue", light: "#2563d6", dark: "#6a9ef5" },
  { id: "red", name: "Red", light: "#c9302c", dark: "#f06a66" },
  { id: "purple", name: "Purple", light: "#7b3fc4", dark: "#b38cf0" },
  { id: "teal", name: "Teal", light: "#0f8286", dark: "#3cc6c9" },
  { id: "pink", name: "Pink", light: "#c2317a", dark: "#f07ab5" },
  { id: "gold", name: "Gold", light: "#9a6a00", dark: "#e5b53c" },
  { id: "slate", name: "Slate", light: "#4b5563", dark: "#a3adbb" },
];

export const PALETTES: { id: Palette; name: string; hue: number; sat: number }[] = [
  { id: "indigo", name: "Indigo", hue: 235, sat: 55 },
  { id: "forest", name: "Forest", hue: 140, sat: 35 },
  { id: "ocean", name: "Ocean", hue: 195, sat: 60 },
  { id: "sunset", name: "Sunset", hue: 18, sat: 70 },
  { id: "berry", name: "Berry", hue: 320, sat: 45 },
  { id: "graphite", name: "Graphite", hue: 220, sat: 8 },
  { id: "custom", name: "Custom", hue: 0, sat: 55 },
];

export const DEFAULT_SETTINGS: Settings = {
  theme: "system",
  palette: "indigo",
  customHue: 280,
  p1Colour: "green",
  p2Colour: "blue",
  first: "1",
  aiSpeed: "normal",
  vibration: true,
  tapSelect: true,
  controls: "left",
};

export const SETTINGS_KEY = "boxedin.settings";

export interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

function oneOf<T extends string>(value: unknown, options: readonly T[], fallback: T): T {
  return options.includes(value as T) ? (value as T) : fallback;
}

/** Settings from the store; anything missing or unreadable falls back to the default. */
export function loadSettings(store: KeyValueStore | null): Settings {
  const d = DEFAULT_SETTINGS;
  let raw: Record<string, unknown> = {};
  try {
    const text = store?.getItem(SETTINGS_KEY);
    if (text) raw = JSON.parse(text) ?? {};
  } catch {
    raw = {};
  }
  const colours = PLAYER_COLOURS.map((c) => c.id);
  let p1 = oneOf(raw.p1Colour, colours, d.p1Colour);
  let p2 = oneOf(raw.p2Colour, colours, d.p2Colour);
  if (p1 === p2) {
    p1 = d.p1Colour;
    p2 = d.p2Colour;
  }
  const hue = Number(raw.customHue);
  return {
    theme: oneOf(raw.theme, ["system", "light", "dark"] as const, d.theme),
    palette: oneOf(raw.palette, PALETTES.map((p) => p.id), d.palette),
    customHue: Number.isFinite(hue) ? Math.min(359, Math.max(0, Math.round(hue))) : d.customHue,
    p1Colour: p1,
    p2Colour: p2,
    first: oneOf(raw.first, ["1", "2", "random"] as const, d.first),
    aiSpeed: oneOf(raw.aiSpeed, ["normal", "fast"] as const, d.aiSpeed),
    vibration: typeof raw.vibration === "boolean" ? raw.vibration : d.vibration,
    tapSelect: typeof raw.tapSelect === "boolean" ? raw.tapSelect : d.tapSelect,
    controls: oneOf(raw.controls, ["left", "right"] as const, d.controls),
  };
}

export function saveSettings(store: KeyValueStore | null, settings: Settings): void {
  try {
    store?.setItem(SETTINGS_KEY, JSON.stringify(settings));
  } catch {
    /* storage full or blocked: the settings still apply for this visit */
  }
}

/**
 * Picks a colour for one player. The two players always differ: choosing the colour the other
 * player has swaps the two.
 */
export function pickPlayerColour(settings: Settings, player: 1 | 2, colour: string): Settings {
  const mine = player === 1 ? "p1Colour" : "p2Colour";
  const theirs = player === 1 ? "p2Colour" : "p1Colour";
  if (!PLAYER_COLOURS.some((c) => c.id === colour)) return settings;
  const next = { ...settings };
  if (settings[theirs] === colour) next[theirs] = settings[mine];
  next[mine] = colour;
  return next;
}

export function colourById(id: string): PlayerColour {
  return PLAYER_COLOURS.find((c) => c.id === id) ?? PLAYER_COLOURS[0];
}

/** The first player to send with new_game. */
export function firstForServer(first: First): 1 | 2 | "random" {
  return first === "random" ? "random" : first === "2" ? 2 : 1;
}

export function effectiveDark(theme: Theme, systemDark: boolean): boolean {
  return theme === "dark" || (theme === "system" && systemDark);
}

/** CSS custom properties for a palette in light or dark mode. */
export function paletteVars(settings: Settings, dark: boolean): Record<string, string> {
  const p = PALETTES.find((x) => x.id === settings.palette) ?? PALETTES[0];
  const hue = p.id === "custom" ? settings.customHue : p.hue;
  const sat = p.sat;
  const p1 = colourById(settings.p1Colour);
  const p2 = colourById(settings.p2Colour);
  const vars: Record<string, string> = dark
    ? {
        "--bg": `hsl(${hue} ${Math.min(sat, 30)}% 9%)`,
        "--surface": `hsl(${hue} ${Math.min(sat, 25)}% 14%)`,
        "--surface-2": `hsl(${hue} ${Math.min(sat, 25)}% 19%)`,
        "--border": `hsl(${hue} ${Math.min(sat, 20)}% 30%)`,
        "--text": `hsl(${hue} 15% 92%)`,
        "--muted": `hsl(${hue} 10% 70%)`,
        "--accent": `hsl(${hue} ${Math.max(sat, 10)}% 72%)`,
        "--accent-strong": `hsl(${hue} ${Math.max(sat, 10)}% 65%)`,
        "--on-accent": `hsl(${hue} 40% 10%)`,
        "--dot": `hsl(${hue} 15% 85%)`,
        "--faint": `hsl(${hue} 15% 60%)`,
        "--focus": `hsl(${hue} 90% 75%)`,
      }
    : {
        "--bg": `hsl(${hue} ${Math.min(sat, 40)}% 97%)`,
        "--surface": `hsl(${hue} 20% 100%)`,
        "--surface-2": `hsl(${hue} ${Math.min(sat, 40)}% 93%)`,
        "--border": `hsl(${hue} ${Math.min(sat, 25)}% 80%)`,
        "--text": `hsl(${hue} 25% 13%)`,
        "--muted": `hsl(${hue} 10% 38%)`,
        "--accent": `hsl(${hue} ${sat}% 42%)`,
        "--accent-strong": `hsl(${hue} ${sat}% 34%)`,
        "--on-accent": "#ffffff",
        "--dot": `hsl(${hue} 25% 20%)`,
        "--faint": `hsl(${hue} 10% 55%)`,
        "--focus": `hsl(${hue} 90% 45%)`,
      };
  vars["--p1"] = dark ? p1.dark : p1.light;
  vars["--p2"] = dark ? p2.dark : p2.light;
  // The board is drawn on the surface colour: the pulse is picked to stand out from it and from
  // both players' edges.
  vars["--pulse"] = toHex(pulseColour(parseColour(vars["--surface"]), parseColour(vars["--p1"]), parseColour(vars["--p2"])));
  return vars;
}
