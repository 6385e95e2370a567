import { describe, expect, it } from "vitest";
import { MODES, OVERLAPS, PRACTICE_BOARDS, modeInfo } from "../src/catalog";
import { MODE_RULES, OVERLAP_IDS } from "../src/generated/rules";

describe("the catalogue follows the engine's modes", () => {
  it("has words for every mode the engine plays, and for no other", () => {
    const engine = MODE_RULES.filter((m) => !m.practice).map((m) => m.id);
    expect(MODES.map((m) => m.id)).toEqual(engine);
    expect(PRACTICE_BOARDS).toEqual(MODE_RULES.filter((m) => m.practice).map((m) => m.boxes));
    expect(OVERLAPS.map((o) => o.id)).toEqual(OVERLAP_IDS);
  });

  it("shows the engine's figures", () => {
    const expert = modeInfo("expert")!;
    const rules = MODE_RULES.find((m) => m.id === "expert")!;
    expect(expert.dots).toBe(rules.boxes + 1);
    expect(expert.boxes).toBe(rules.boxes ** 2);
    expect(expert.edges).toBe(2 * rules.boxes * (rules.boxes + 1));
    expect(expert.die).toBe(rules.die);
    expect(expert.sizes).toEqual(rules.sizes);
    expect(expert.defaultOverlap).toBe(rules.defaultOverlap);
  });
});
