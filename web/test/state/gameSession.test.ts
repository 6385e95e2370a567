import { describe, expect, it } from "vitest";
import { GameSession } from "../../src/state/gameSession";
import type { GameState } from "../../src/network/types";
import { makeGame } from "../fixtures";

const game = (over: Partial<GameState> = {}): GameState => makeGame(over);

describe("the game screen's state holder", () => {
  it("applies frames, tells a new game and a newly finished one, once", () => {
    let now = 1000;
    const s = new GameSession(() => 1, () => now);
    const first = s.apply(game({ game: "g1", seq: 0 }));
    expect(first.newGame).toBe(true);
    expect(s.apply(game({ game: "g1", seq: 1 })).newGame).toBe(false);
    const over = game({ game: "g1", seq: 2, over: true, phase: "over" });
    expect(s.apply(over).newlyOver).toBe(true);
    expect(s.apply({ ...over, seq: 3 }).newlyOver).toBe(false);
    now += 10;
    expect(s.apply(game({ game: "g2", seq: 0 })).newGame).toBe(true);
  });

  it("holds frames while paused and shows only the last on resuming", () => {
    const s = new GameSession(() => 1, () => 0);
    s.apply(game({ game: "g1", seq: 0 }));
    s.setPaused(true);
    expect(s.receive(game({ game: "g1", seq: 1 }), { draw: ["h", 0, 0] })).toBeNull();
    expect(s.receive(game({ game: "g1", seq: 2 }), { draw: ["h", 0, 1] })).toBeNull();
    expect(s.game?.seq).toBe(0);
    const shown = s.setPaused(false)!;
    expect(shown.game.seq).toBe(2);
    expect(shown.animate).toBeNull(); // two moves at once: nothing to animate
  });

  it("counts the move clock down from the frame and asks for the timeout at most once a second", () => {
    let now = 0;
    const s = new GameSession(() => 1, () => now);
    const g = game({ game: "g1", seq: 4, clock: 10, clock_remaining_ms: 3000 });
    expect(s.myTurn(g)).toBe(true);
    s.apply(g);
    expect(s.clockLeft()).toBe(3000);
    expect(s.timeoutDue(true)).toBe(false);
    now = 3001;
    expect(s.timeoutDue(true)).toBe(true);
    expect(s.timeoutDue(true)).toBe(false);
    now = 4100;
    expect(s.timeoutDue(true)).toBe(true);
    expect(s.timeoutDue(false)).toBe(false);
  });

  it("is ready for an action only on the viewer's turn, connected, and not while one is pending", () => {
    const s = new GameSession(() => 1, () => 0);
    const g = s.apply(game({ game: "g1", seq: 7 })).game;
    expect(s.ready(true)).toBe(g);
    expect(s.myTurn({ ...g, to_move: 2 })).toBe(false);
    expect(s.ready(false)).toBeNull();
    s.pendingSeq = 7;
    expect(s.ready(true)).toBeNull();
  });
});
