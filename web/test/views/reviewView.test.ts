import { describe, expect, it } from "vitest";
import { advantage, progressLine, signed } from "../../src/views/reviewView";
import type { TurnFigures } from "../../src/network/types";

function turn(player: 1 | 2, after: number): TurnFigures {
  return {
    turn: 0, player, roll: null, played: [], best: [], before: after, after, loss: 0, exact: true, seconds: 0,
    board: { edges: [], squares: [], scores: [0, 0] },
  };
}

describe("the review screen's wording and graph", () => {
  it("shows margins with their sign, rounded to a tenth", () => {
    expect(signed(2)).toBe("+2.0");
    expect(signed(-1.26)).toBe("−1.3");
    expect(signed(0.01)).toBe("0");
  });

  it("says which turn is being analysed, then that all are", () => {
    expect(progressLine(11, 40)).toBe("Analysing turn 12 of 40…");
    expect(progressLine(40, 40)).toBe("All 40 turns analysed.");
    expect(progressLine(1, 1)).toBe("The one turn analysed.");
  });

  it("graphs player 1's expected margin: a player 2 turn's value is turned round, a missing turn is a gap", () => {
    expect(advantage([turn(1, 3), turn(2, 1), null])).toEqual([3, -1, null]);
  });
});
