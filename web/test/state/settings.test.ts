import { describe, expect, it } from "vitest";
import {
  DEFAULT_SETTINGS, PLAYER_COLOURS, SETTINGS_KEY, colourById, effectiveDark, firstForServer, loadSettings,
  paletteVars, pickPlayerColour, saveSettings,
} from "../../src/state/settings";
import { MemoryStore } from "../fixtures";

describe("settings persistence", () => {
  it("starts from the defaults", () => {
    expect(loadSettings(new MemoryStore())).toEqual(DEFAULT_SETTINGS);
    expect(loadSettings(null)).toEqual(DEFAULT_SETTINGS);
    expect(DEFAULT_SETTINGS.p1Colour).toBe("green");
    expect(DEFAULT_SETTINGS.p2Colour).toBe("blue");
    expect(DEFAULT_SETTINGS.palette).toBe("indigo");
  });

  it("saves and loads every field", () => {
    const store = new MemoryStore();
    const s = {
      ...DEFAULT_SETTINGS, theme: "dark" as const, palette: "custom" as const, customHue: 123, p1Colour: "red", p2Colour: "teal",
      first: "random" as const, aiSpeed: "fast" as const, vibration: false, tapSelect: false, controls: "right" as const,
    };
    saveSettings(store, s);
    expect(JSON.parse(store.getItem(SETTINGS_KEY)!)).toEqual(s);
    expect(loadSettings(store)).toEqual(s);
  });

  it("repairs unreadable or invalid stored values", () => {
    const store = new MemoryStore();
    store.setItem(SETTINGS_KEY, "{not json");
    expect(loadSettings(store)).toEqual(DEFAULT_SETTINGS);
    store.setItem(SETTINGS_KEY, JSON.stringify({ theme: "neon", customHue: 999, p1Colour: "blue", p2Colour: "blue", vibration: "yes", tapSelect: 1, controls: "top" }));
    const s = loadSettings(store);
    expect(s.theme).toBe("system");
    expect(s.customHue).toBe(359);
    expect([s.p1Colour, s.p2Colour]).toEqual(["green", "blue"]);
    expect(s.vibration).toBe(true);
    expect(s.tapSelect).toBe(true);
    expect(s.controls).toBe("left");
  });

  it("survives a store that throws", () => {
    const broken = { getItem: () => { throw new Error("denied"); }, setItem: () => { throw new Error("full"); } };
    expect(loadSettings(broken)).toEqual(DEFAULT_SETTINGS);
    expect(() => saveSettings(broken, DEFAULT_SETTINGS)).not.toThrow();
  });
});

describe("player colours", () => {
  it("offers eight distinct colours", () => {
    expect(PLAYER_COLOURS).toHaveLength(8);
    expect(new Set(PLAYER_COLOURS.map((c) => c.id)).size).toBe(8);
  });

  it("picks a free colour for one player only", () => {
    const s = pickPlayerColour(DEFAULT_SETTINGS, 1, "red");
    expect([s.p1Colour, s.p2Colour]).toEqual(["red", "blue"]);
  });

  it("swaps when a player picks the other player's colour", () => {
    const s = pickPlayerColour(DEFAULT_SETTINGS, 1, "blue");
    expect([s.p1Colour, s.p2Colour]).toEqual(["blue", "green"]);
    const t = pickPlayerColour(s, 2, "blue");
    expect([t.p1Colour, t.p2Colour]).toEqual(["green", "blue"]);
  });

  it("ignores unknown colours and leaves the input unchanged", () => {
    expect(pickPlayerColour(DEFAULT_SETTINGS, 2, "plaid")).toBe(DEFAULT_SETTINGS);
    pickPlayerColour(DEFAULT_SETTINGS, 1, "blue");
    expect(DEFAULT_SETTINGS.p1Colour).toBe("green");
  });

  it("puts the chosen colours into the palette, per theme", () => {
    const s = { ...DEFAULT_SETTINGS, p1Colour: "purple", p2Colour: "gold" };
    expect(paletteVars(s, false)["--p1"]).toBe(colourById("purple").light);
    expect(paletteVars(s, true)["--p2"]).toBe(colourById("gold").dark);
  });
});

describe("theme and first player", () => {
  it("follows the system only when asked to", () => {
    expect(effectiveDark("system", true)).toBe(true);
    expect(effectiveDark("system", false)).toBe(false);
    expect(effectiveDark("light", true)).toBe(false);
    expect(effectiveDark("dark", false)).toBe(true);
  });

  it("uses the custom hue only for the custom palette", () => {
    const custom = paletteVars({ ...DEFAULT_SETTINGS, palette: "custom", customHue: 77 }, false);
    expect(custom["--accent"]).toContain("hsl(77 ");
    const indigo = paletteVars({ ...DEFAULT_SETTINGS, customHue: 77 }, false);
    expect(indigo["--accent"]).not.toContain("hsl(77 ");
  });

  it("maps who moves first to the protocol's values", () => {
    expect(firstForServer("1")).toBe(1);
    expect(firstForServer("2")).toBe(2);
    expect(firstForServer("random")).toBe("random");
  });
});
