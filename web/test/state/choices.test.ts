import { describe, expect, it } from "vitest";
import { DEFAULT_MENU, cleanSeed, loadMenuChoices, loadPracticeChoices, randomSeed, saveMenuChoices, selectMode } from "../../src/state/choices";
import { MODES, OVERLAPS } from "../../src/state/catalog";
import { MemoryStore } from "../fixtures";

describe("menu choices", () => {
  it("start on Classic against the Normal AI, no clock", () => {
    expect(loadMenuChoices(new MemoryStore())).toEqual(DEFAULT_MENU);
  });

  it("are remembered", () => {
    const store = new MemoryStore();
    const m = { opponent: "local" as const, level: "expert" as const, clock: 20, mode: "big_squares", overlap: "territory" };
    saveMenuChoices(store, m);
    expect(loadMenuChoices(store)).toEqual(m);
  });

  it("drop an overlap rule a 1x1 game cannot have, and bad values", () => {
    const store = new MemoryStore();
    saveMenuChoices(store, { opponent: "ai", level: "hard", clock: 15, mode: "quick", overlap: "consume" } as never);
    expect(loadMenuChoices(store)).toMatchObject({ mode: "quick", overlap: null, clock: 0 });
  });

  it("reset the overlap rule to the game's own when another game is selected", () => {
    const m = { ...DEFAULT_MENU, mode: "strategic", overlap: "exclusive" };
    expect(selectMode(m, "expert").overlap).toBe("consume");
    expect(selectMode(m, "big_squares").overlap).toBe("independent");
    expect(selectMode(m, "classic").overlap).toBeNull();
    expect(selectMode(m, "strategic")).toBe(m);
  });
});

describe("catalogue", () => {
  it("has nine games and thirteen overlap rules", () => {
    expect(MODES.map((m) => m.id)).toEqual(["mini", "standard", "quick", "classic", "chain_reaction", "marathon", "strategic", "big_squares", "expert"]);
    expect(OVERLAPS).toHaveLength(13);
    expect(MODES.filter((m) => m.defaultOverlap).map((m) => m.id)).toEqual(["strategic", "big_squares", "expert"]);
  });
});

describe("practice seed", () => {
  it("is trimmed and 1 to 96 characters", () => {
    expect(cleanSeed("  abc  ")).toBe("abc");
    expect(cleanSeed("   ")).toBeNull();
    expect(cleanSeed("")).toBeNull();
    expect(cleanSeed("x".repeat(96))).toBe("x".repeat(96));
    expect(cleanSeed(` ${"x".repeat(96)} `)).toBe("x".repeat(96));
    expect(cleanSeed("x".repeat(97))).toBeNull();
  });

  it("is prefilled with a usable random seed, on a 3x3 board against the computer", () => {
    const p = loadPracticeChoices(new MemoryStore());
    expect(p.boxes).toBe(3);
    expect(p.opponent).toBe("practice");
    expect(cleanSeed(p.seed)).toBe(p.seed);
    expect(randomSeed(() => 0)).toBe("amber-amber-100");
  });
});
