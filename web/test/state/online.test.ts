import { describe, expect, it } from "vitest";
import {
  CODE_ALPHABET, ONLINE_MODES, checkName, codeProblem, graceLine, isRoomCode, loadFinished, loadName, modeMarks, mostPlayed,
  normaliseCode, noteFinished, playersOnlineText, runningOnlineGame, saveName,
} from "../../src/state/online";
import {
  awayText, forfeitLine, minutesText, moveLimitText, onlineErrorText, rematchLine, rematchStatus, resultTitle, statusText,
} from "../../src/state/texts";
import type { GameState, OnlineState, PresenceFrame } from "../../src/network/types";
import { MemoryStore, makeGame } from "../fixtures";

describe("names", () => {
  it("takes 1 to 20 letters, digits, spaces, _ and -, trimmed", () => {
    expect(checkName("  Ada  ")).toEqual({ ok: true, name: "Ada" });
    expect(checkName("a_b-c d 42")).toEqual({ ok: true, name: "a_b-c d 42" });
    expect(checkName("Zoë Åström")).toEqual({ ok: true, name: "Zoë Åström" });
    expect(checkName("x".repeat(20))).toEqual({ ok: true, name: "x".repeat(20) });
    expect(checkName(`  ${"x".repeat(20)}  `).ok).toBe(true);
  });

  it("refuses an empty name, a long one and other characters, saying why", () => {
    expect(checkName("   ")).toEqual({ ok: false, error: "Enter a name of 1 to 20 characters." });
    expect(checkName("x".repeat(21))).toEqual({ ok: false, error: "A name has at most 20 characters; this one has 21." });
    for (const bad of ["<b>Ada</b>", "Ada!", "a.b", "tab\there", "emoji 🙂", "quote'", "a&b"]) {
      expect(checkName(bad)).toEqual({ ok: false, error: "Use only letters, digits, spaces, _ and -." });
    }
  });

  it("is kept on the device", () => {
    const store = new MemoryStore();
    expect(loadName(store)).toBeNull();
    saveName(store, "Ada");
    expect(loadName(store)).toBe("Ada");
    saveName(store, "<script>");
    expect(loadName(store)).toBeNull(); // a name that could not be sent is not offered
    expect(loadName(null)).toBeNull();
  });
});

describe("room codes", () => {
  it("are read in upper case without spaces and dashes", () => {
    expect(normaliseCode("abc-def")).toBe("ABCDEF");
    expect(normaliseCode(" k7m 2qx ")).toBe("K7M2QX");
    expect(normaliseCode("K7M–2QX")).toBe("K7M2QX"); // an en dash, as phones type it
    expect(normaliseCode("")).toBe("");
  });

  it("are six characters of the alphabet without look-alikes", () => {
    expect(CODE_ALPHABET).not.toMatch(/[01ILO]/);
    expect(isRoomCode("K7M2QX")).toBe(true);
    expect(isRoomCode("K7M2Q")).toBe(false);
    expect(isRoomCode("K7M2QX9")).toBe(false);
    expect(isRoomCode("K0M2QX")).toBe(false);
    expect(isRoomCode("KIM2QX")).toBe(false);
  });

  it("say what is wrong before anything is sent", () => {
    expect(codeProblem("k7m-2qx")).toBeNull();
    expect(codeProblem("  ")).toBe("Enter the six-character code of your friend's room.");
    expect(codeProblem("K7M")).toBe("A room code has 6 characters; this one has 3.");
    expect(codeProblem("K7M2Q0")).toMatch(/^That is not a room code/);
  });
});

describe("Find Match marks", () => {
  const presence: PresenceFrame = {
    type: "presence",
    players_online: 12,
    modes: {
      mini: { waiting: true, games_now: 3, popular: true },
      classic: { waiting: false, games_now: 0, popular: true },
      quick: { waiting: false, games_now: 1, popular: false },
    },
  };

  it("lists the modes that can be played online, not the practice boards", () => {
    expect(ONLINE_MODES.map((m) => m.id)).toEqual([
      "mini", "standard", "quick", "classic", "chain_reaction", "marathon", "strategic", "big_squares", "expert",
    ]);
  });

  it("marks waiting opponents, games now, popular modes and the device's most played", () => {
    expect(modeMarks("mini", presence, ["mini"])).toEqual(["Opponent waiting", "Games now 3", "Popular", "Your most played"]);
    expect(modeMarks("classic", presence, [])).toEqual(["Popular"]);
    expect(modeMarks("quick", presence, [])).toEqual(["Games now 1"]);
    expect(modeMarks("expert", presence, ["expert"])).toEqual(["Your most played"]);
    expect(modeMarks("mini", null, [])).toEqual([]);
  });

  it("puts Your most played on the modes with the highest count above 0", () => {
    expect(mostPlayed({})).toEqual([]);
    expect(mostPlayed({ mini: 0 })).toEqual([]);
    expect(mostPlayed({ mini: 2, classic: 5, quick: 1 })).toEqual(["classic"]);
    expect(mostPlayed({ mini: 4, classic: 4, quick: 1 }).sort()).toEqual(["classic", "mini"]);
  });

  it("counts the players online", () => {
    expect(playersOnlineText(1)).toBe("1 player online");
    expect(playersOnlineText(0)).toBe("0 players online");
    expect(playersOnlineText(12)).toBe("12 players online");
  });
});

describe("finished online games", () => {
  it("are counted per mode, once per game", () => {
    const store = new MemoryStore();
    expect(loadFinished(store)).toEqual({ counts: {}, games: [] });
    expect(noteFinished(store, "g_1", "mini")).toBe(true);
    expect(noteFinished(store, "g_1", "mini")).toBe(false);
    expect(noteFinished(store, "g_2", "mini")).toBe(true);
    expect(noteFinished(store, "g_3", "classic")).toBe(true);
    expect(loadFinished(store).counts).toEqual({ mini: 2, classic: 1 });
    expect(mostPlayed(loadFinished(store).counts)).toEqual(["mini"]);
  });

  it("survive unreadable storage and keep only the last game ids", () => {
    const store = new MemoryStore();
    store.setItem("boxedin.online.finished", "{oops");
    expect(loadFinished(store)).toEqual({ counts: {}, games: [] });
    store.setItem("boxedin.online.finished", JSON.stringify({ counts: { mini: 2, bad: -1, x: "7" }, games: ["g", 3] }));
    expect(loadFinished(store)).toEqual({ counts: { mini: 2 }, games: ["g"] });
    for (let i = 0; i < 60; i++) noteFinished(store, `g_${i}`, "quick");
    const kept = loadFinished(store);
    expect(kept.counts.quick).toBe(60);
    expect(kept.games.length).toBe(50);
  });
});

describe("online game texts", () => {
  const online = (o: Partial<OnlineState> = {}): OnlineState => ({
    move_limit: 120, move_remaining_ms: 90_000, connected: [true, true], away_remaining_ms: [null, null], forfeit: null,
    rematch: [false, false], declined: null, next_game: null, via: "find_match", ...o,
  });
  const game = (over: Partial<GameState> = {}, o: Partial<OnlineState> = {}) =>
    makeGame({
      opponent: "online", level: null, players: [{ name: "Ada", kind: "human" }, { name: "Bo", kind: "human" }],
      online: online(o), ...over,
    });

  it("says whose turn it is from the viewer's seat", () => {
    expect(statusText(game(), 1)).toBe("Your turn — roll the dice");
    expect(statusText(game(), 2)).toBe("Ada's turn");
    expect(statusText(game({ to_move: 2, phase: "draw", roll: 3, edges_left: 3 }), 2)).toBe("Your turn — draw 3 edges");
    expect(statusText(game({ to_move: 2, phase: "draw", roll: 3, edges_left: 3 }), 1)).toBe("Bo's turn");
  });

  it("names the winner from the viewer's seat", () => {
    const over = { over: true, to_move: null, phase: "over" as const };
    expect(resultTitle(game({ ...over, winner: 2 }), 2)).toBe("You won!");
    expect(resultTitle(game({ ...over, winner: 2 }), 1)).toBe("Bo wins");
    expect(resultTitle(game({ ...over, winner: 0 }), 1)).toBe("It's a tie");
    expect(statusText(game({ ...over, winner: 1 }), 1)).toBe("Game over — You won!");
    expect(statusText(game({ ...over, winner: 1 }, { forfeit: { player: 2, reason: "away" } }), 2)).toBe(
      "Game over — Ada wins. You did not come back in time.",
    );
    // "You won!" ends its own sentence: no full stop after it.
    expect(statusText(game({ ...over, winner: 1 }, { forfeit: { player: 2, reason: "move_limit" } }), 1)).toBe(
      "Game over — You won! Bo ran out of time.",
    );
  });

  it("says why a game was lost without being played to its end", () => {
    expect(forfeitLine(game(), 1)).toBeNull();
    expect(forfeitLine(game({}, { forfeit: { player: 2, reason: "move_limit" } }), 1)).toBe("Bo ran out of time.");
    expect(forfeitLine(game({}, { forfeit: { player: 2, reason: "move_limit" } }), 2)).toBe("You ran out of time.");
    expect(forfeitLine(game({}, { forfeit: { player: 1, reason: "away" } }), 2)).toBe("Ada did not come back in time.");
    expect(forfeitLine(game({}, { forfeit: { player: 1, reason: "left" } }), 2)).toBe("Ada left the game.");
  });

  it("follows the rematch", () => {
    const over = { over: true, to_move: null, phase: "over" as const, winner: 1 as const };
    expect(rematchStatus(game(over), 1)).toBe("open");
    expect(rematchLine(game(over), 1)).toBeNull();
    expect(rematchStatus(game(over, { rematch: [true, false] }), 1)).toBe("asked");
    expect(rematchLine(game(over, { rematch: [true, false] }), 1)).toBe("Waiting for Bo…");
    expect(rematchStatus(game(over, { rematch: [true, false] }), 2)).toBe("offered");
    expect(rematchLine(game(over, { rematch: [true, false] }), 2)).toBe("Ada wants a rematch");
    expect(rematchStatus(game(over, { declined: 2 }), 1)).toBe("declined");
    expect(rematchLine(game(over, { declined: 2 }), 1)).toBe("Bo declined a rematch.");
    expect(rematchLine(game(over, { forfeit: { player: 2, reason: "left" } }), 1)).toBe("Bo left, so there is no rematch.");
    // Leave: the leaver may not ask either (the server refuses both seats, player_gone).
    expect(rematchStatus(game(over, { forfeit: { player: 1, reason: "left" } }), 1)).toBe("declined");
    expect(rematchLine(game(over, { forfeit: { player: 1, reason: "left" } }), 1)).toBe("You left, so there is no rematch.");
    // A grace that ran out: gone for good, like Leave, for both players (the server refuses).
    expect(rematchStatus(game(over, { forfeit: { player: 2, reason: "away" } }), 1)).toBe("declined");
    expect(rematchLine(game(over, { forfeit: { player: 2, reason: "away" } }), 1)).toBe("Bo did not come back, so there is no rematch.");
    expect(rematchStatus(game(over, { forfeit: { player: 2, reason: "away" } }), 2)).toBe("declined");
    expect(rematchLine(game(over, { forfeit: { player: 2, reason: "away" } }), 2)).toBe("You did not come back, so there is no rematch.");
    expect(rematchStatus(game(over, { forfeit: { player: 2, reason: "move_limit" } }), 1)).toBe("open");
    expect(rematchStatus(game(over, { rematch: [true, true], next_game: "g_2" }), 1)).toBe("starting");
  });

  it("counts down the move limit and an away player's grace", () => {
    expect(minutesText(120_000)).toBe("2:00");
    expect(minutesText(61_001)).toBe("1:02");
    expect(minutesText(4_000)).toBe("0:04");
    expect(minutesText(-5)).toBe("0:00");
    expect(moveLimitText(game(), 1, 83_500)).toBe("Your move: 1:24 left");
    expect(moveLimitText(game(), 2, 3_000)).toBe("Ada's move: 0:03 left");
    expect(awayText("Bo", 89_000)).toBe("Bo lost the connection — 1:29 left to come back");
    expect(awayText("Bo", null)).toBe("Bo lost the connection");
  });

  it("explains the errors of online play", () => {
    expect(onlineErrorText("no_room", "no room has this code")).toMatch(/^There is no room with this code/);
    for (const code of ["bad_code", "no_room", "room_expired", "room_closed", "room_full", "own_room", "too_many_tries", "in_game", "player_gone"]) {
      expect(onlineErrorText(code, "")).not.toBe(code);
    }
    expect(onlineErrorText("something_new", "The server's sentence.")).toBe("The server's sentence.");
  });
});

describe("the running online game on the menu", () => {
  const state = (o: Partial<OnlineState>, over: Partial<GameState> = {}): GameState =>
    makeGame({
      game: "g1", opponent: "online", level: null, mode: "mini", overlap: null, round: 3, scores: [2, 5],
      players: [{ name: "Ada", kind: "human" }, { name: "Bo", kind: "human" }],
      online: {
        move_limit: 0, move_remaining_ms: null, connected: [true, false], away_remaining_ms: [null, 71_500], forfeit: null,
        rematch: [false, false], declined: null, next_game: null, via: "room", ...o,
      },
      ...over,
    });

  it("is told from the seat of this device: the other player, the scores mine first, the grace left", () => {
    const card = runningOnlineGame({ type: "running_online", game: "g1", seat: 2, state: state({}) });
    expect(card).toEqual({ game: "g1", mode: "mini", overlap: null, me: 2, opponent: "Ada", scores: [5, 2], round: 3, graceMs: 71_500 });
    expect(graceLine("Ada", 71_500)).toBe("Back within 1:12, or Ada wins");
    expect(graceLine("Ada", 0)).toBe("Back within 0:00, or Ada wins");
  });

  it("has no grace while the player is here on another page", () => {
    const card = runningOnlineGame({ type: "running_online", game: "g1", seat: 1, state: state({}) });
    expect(card?.graceMs).toBeNull();
    expect(card?.opponent).toBe("Bo");
    expect(graceLine("Bo", null)).toBe("On screen on another page");
  });

  it("is no card without a game, or for a game that is over", () => {
    expect(runningOnlineGame({ type: "running_online", game: null, seat: null, state: null })).toBeNull();
    expect(runningOnlineGame({ type: "running_online", game: "g1", seat: 2, state: state({}, { over: true }) })).toBeNull();
  });
});
