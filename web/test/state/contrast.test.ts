import { describe, expect, it } from "vitest";
import { NON_TEXT_CONTRAST, ORANGE_HUE, contrast, hslToRgb, hueOf, nearOrange, parseColour } from "../../src/state/contrast";
import { DEFAULT_SETTINGS, PALETTES, PLAYER_COLOURS, paletteVars, type Settings } from "../../src/state/settings";

/** Every palette (the custom one at every 15° of hue), both themes, every pair of player colours. */
function* everyBoard(): Generator<{ label: string; vars: Record<string, string> }> {
  for (const palette of PALETTES) {
    const hues = palette.id === "custom" ? Array.from({ length: 24 }, (_, i) => i * 15) : [DEFAULT_SETTINGS.customHue];
    for (const customHue of hues) {
      for (const dark of [false, true]) {
        for (const a of PLAYER_COLOURS) {
          for (const b of PLAYER_COLOURS) {
            if (a.id === b.id) continue;
            const s: Settings = { ...DEFAULT_SETTINGS, palette: palette.id, customHue, p1Colour: a.id, p2Colour: b.id };
            yield { label: `${palette.id}${palette.id === "custom" ? customHue : ""} ${dark ? "dark" : "light"} ${a.id}/${b.id}`, vars: paletteVars(s, dark) };
          }
        }
      }
    }
  }
}

describe("the previous turn's pulse", () => {
  it("stands out 3:1 from the board, and the board strip around the edge 3:1 from both players' edges, everywhere", () => {
    const failures: string[] = [];
    let boards = 0;
    for (const { label, vars } of everyBoard()) {
      boards++;
      const board = parseColour(vars["--surface"]);
      const pulse = parseColour(vars["--pulse"]);
      const checks: [string, number][] = [
        ["pulse/board", contrast(pulse, board)],
        ["board/p1", contrast(board, parseColour(vars["--p1"]))],
        ["board/p2", contrast(board, parseColour(vars["--p2"]))],
      ];
      for (const [what, ratio] of checks) if (ratio < NON_TEXT_CONTRAST) failures.push(`${label}: ${what} ${ratio.toFixed(2)}`);
    }
    expect(boards).toBe((6 + 24) * 2 * 56);
    expect(failures).toEqual([]);
  });

  it("pulses in orange (the rule book) on every board where neither player has Gold", () => {
    const notOrange: string[] = [];
    for (const { label, vars } of everyBoard()) {
      if (label.includes("gold")) continue;
      const { hue, saturation } = hueOf(parseColour(vars["--pulse"]));
      if (Math.abs(hue - ORANGE_HUE) > 5 || saturation < 0.9) notOrange.push(`${label}: ${vars["--pulse"]}`);
    }
    expect(notOrange).toEqual([]);
  });

  it("is orange on the first board a player sees, light and dark, instead of the dark purple it was", () => {
    for (const dark of [false, true]) {
      const v = paletteVars(DEFAULT_SETTINGS, dark);
      expect(hueOf(parseColour(v["--pulse"])).hue).toBeCloseTo(ORANGE_HUE, -1);
      expect(v["--pulse"]).not.toBe("#330363");
      expect(contrast(parseColour(v["--pulse"]), parseColour(v["--surface"]))).toBeGreaterThanOrEqual(NON_TEXT_CONTRAST);
    }
  });

  it("counts Gold as orange-like and the other player colours, greys among them, as not", () => {
    const near = PLAYER_COLOURS.flatMap((c) => [c.light, c.dark].filter((hex) => nearOrange(parseColour(hex))).map(() => c.id));
    expect([...new Set(near)]).toEqual(["gold"]);
  });

  it("is not orange where orange sits close to a player's colour (Gold, Sunset)", () => {
    const s: Settings = { ...DEFAULT_SETTINGS, palette: "sunset", p1Colour: "gold", p2Colour: "red" };
    for (const dark of [false, true]) {
      const v = paletteVars(s, dark);
      const pulse = parseColour(v["--pulse"]);
      const nearest = Math.min(contrast(pulse, parseColour(v["--p1"])), contrast(pulse, parseColour(v["--p2"])));
      // The old fixed orange against Gold:
      const orange = parseColour("#f28c1b");
      const oldNearest = Math.min(contrast(orange, parseColour(v["--p1"])), contrast(orange, parseColour(v["--p2"])));
      expect(nearest).toBeGreaterThan(oldNearest);
      expect(contrast(pulse, parseColour(v["--surface"]))).toBeGreaterThanOrEqual(NON_TEXT_CONTRAST);
    }
  });

  it("measures contrast as WCAG does", () => {
    expect(contrast([0, 0, 0], [255, 255, 255])).toBeCloseTo(21, 5);
    expect(contrast(parseColour("#777777"), [255, 255, 255])).toBeCloseTo(4.48, 2);
    expect(hslToRgb(0, 100, 50)).toEqual([255, 0, 0]);
    expect(parseColour("hsl(120 100% 25%)")).toEqual([0, 128, 0]);
  });
});
