import { describe, expect, it } from "vitest";
import { watchIdOf } from "../../src/app";
import { watchedResult, watchedStatus, watchersText } from "../../src/views/watchView";
import { makeGame } from "../fixtures";

describe("the watch screen's words", () => {
  it("names players, never 'you': a watcher plays neither seat", () => {
    const names = [{ name: "Ada", kind: "human" as const }, { name: "Bo", kind: "human" as const }] as const;
    const running = makeGame({ opponent: "online", players: [...names], to_move: 2, phase: "roll", die: 6 });
    expect(watchedStatus(running)).toBe("Bo's turn — rolling the dice");
    const over = makeGame({ opponent: "online", players: [...names], over: true, winner: 1, to_move: null });
    expect(watchedResult(over)).toBe("Ada wins");
    expect(watchedStatus(over)).toBe("Game over — Ada wins.");
    expect(watchedResult(makeGame({ over: true, winner: 0 }))).toBe("It's a tie");
    expect(watchersText(1)).toBe("1 watching");
    expect(watchersText(3)).toBe("3 watching");
  });

  it("reads the watch id from a watch link's address only", () => {
    expect(watchIdOf("/watch/abcDEF123_-abcDEF123_-")).toBe("abcDEF123_-abcDEF123_-");
    expect(watchIdOf("/watch/")).toBeNull();
    expect(watchIdOf("/")).toBeNull();
    expect(watchIdOf("/watch/a/b")).toBeNull();
  });
});
