import { describe, expect, it } from "vitest";
import { OVERLAP_EXAMPLES } from "../src/helpDiagrams";
import { OVERLAP_DETAILS, STRATEGY } from "../src/helpTexts";
import { OVERLAP_IDS } from "../src/generated/rules";

describe("Help & Rules", () => {
  it("explains every overlap rule the engine has, each with a drawn example", () => {
    for (const id of OVERLAP_IDS) {
      expect(OVERLAP_DETAILS[id]?.what.length, id).toBeGreaterThan(80);
      expect(OVERLAP_DETAILS[id]?.tip.length, id).toBeGreaterThan(30);
      const ex = OVERLAP_EXAMPLES[id];
      expect(ex?.steps.length, id).toBeGreaterThanOrEqual(2);
      for (const step of ex.steps) for (const p of step.pieces) expect(p.row + p.size, id).toBeLessThanOrEqual(ex.boxes);
    }
    expect(Object.keys(OVERLAP_EXAMPLES).sort()).toEqual([...OVERLAP_IDS].sort());
  });

  it("has a Strategy section on chains, loops, the double-cross and control", () => {
    const text = STRATEGY.map((p) => p.title + " " + p.text.join(" ")).join(" ").toLowerCase();
    for (const word of ["chain", "loop", "double-cross", "control"]) expect(text).toContain(word);
  });
});
