import { describe, expect, it } from "vitest";
import { applyChanges } from "../../src/network/delta";
import type { EdgePreview, GameState, StateChanges } from "../../src/network/types";
import { makeGame } from "../fixtures";

// Games the engine played (tests/engine/service/test_update_changes.py writes them and runs this file
// with BOXEDIN_DELTA_GAMES naming the file): each game's first state, its update frames, and
// for every update the SHA-256 of the whole state the engine computed for the same seq.
declare const process: { env: Record<string, string | undefined> };
const GAMES = process.env.BOXEDIN_DELTA_GAMES;

interface PlayedGame {
  setup: Record<string, unknown>;
  first_state: GameState;
  updates: { seq: number; changes: StateChanges }[];
  digests: string[];
}

/** JSON with every object's keys sorted: the same text as the engine's check writes. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const object = value as Record<string, unknown>;
    const keys = Object.keys(object).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(object[key])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

async function digest(state: GameState): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(canonical(state))));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

describe("applying an update's changes", () => {
  const game = makeGame({ seq: 4, scores: [1, 0], edges: [["h", 0, 0, 1], ["v", 1, 1, 2]] });

  it("sets fields, drops fields and leaves the state it was given as it was", () => {
    const withPreviews = { ...game, previews: {} } as GameState;
    const out = applyChanges(withPreviews, { set: { seq: 5, roll: 3 }, drop: ["previews"] });
    expect(out.seq).toBe(5);
    expect(out.roll).toBe(3);
    expect("previews" in out).toBe(false);
    expect(withPreviews.seq).toBe(4);
    expect("previews" in withPreviews).toBe(true);
  });

  it("splices lists in order, each at the index the splices before it left", () => {
    const out = applyChanges(game, {
      splice: { edges: [[1, 0, [["h", 2, 0, 2]]], [2, 1, [["v", 2, 2, 1], ["v", 3, 3, 1]]]] },
    });
    expect(out.edges).toEqual([["h", 0, 0, 1], ["h", 2, 0, 2], ["v", 2, 2, 1], ["v", 3, 3, 1]]);
    expect(game.edges).toEqual([["h", 0, 0, 1], ["v", 1, 1, 2]]);
  });

  it("changes objects in part", () => {
    const preview: EdgePreview = { dead: false, captures: [], score_change: [0, 0], continuation: 0, one_short: 0 };
    const withPreviews = { ...game, previews: { "h0,1": preview, "h0,2": preview } } as GameState;
    const out = applyChanges(withPreviews, {
      patch: { previews: { drop: ["h0,2"], patch: { "h0,1": { set: { one_short: 2 } } } } },
    });
    expect(out.previews).toEqual({ "h0,1": { ...preview, one_short: 2 } });
    expect(preview.one_short).toBe(0);
  });
});

describe.skipIf(!GAMES)("the engine's games, rebuilt from their updates", () => {
  it("gives after every update the state the engine computed for its seq", async () => {
    const games = (await import(/* @vite-ignore */ GAMES as string)).default as PlayedGame[];
    expect(games.length).toBeGreaterThan(0);
    let updates = 0;
    for (const played of games) {
      let state = played.first_state;
      for (const [i, update] of played.updates.entries()) {
        expect(update.seq).toBe(state.seq + 1);
        state = applyChanges(state, update.changes);
        expect(await digest(state), `${JSON.stringify(played.setup)} seq ${update.seq}`).toBe(played.digests[i]);
        updates += 1;
      }
    }
    console.log(`checked ${updates} updates of ${games.length} games`);
  }, 60_000); // thousands of updates: far more than a unit test's default 5 s on a busy machine
});
