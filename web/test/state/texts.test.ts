import { describe, expect, it } from "vitest";
import {
  DEAD_EDGES_NOTE, OPEN_EDGES_NOTE, diceLabel, finalScoresLine, historyLine, isHumanTurn, opponentLabel, resultTitle, signed, statusText,
} from "../../src/state/texts";
import { makeGame } from "../fixtures";

const local = { opponent: "local" as const, level: null, players: [{ name: "Player 1", kind: "human" as const }, { name: "Player 2", kind: "human" as const }] as [any, any] };
const practice = { opponent: "practice" as const, level: null, mode: "practice_3x3", die: null, capture_owes_line: true, players: [{ name: "You", kind: "human" as const }, { name: "Computer", kind: "practice" as const }] as [any, any] };

describe("status line", () => {
  it("asks for the roll, then counts the edges", () => {
    expect(statusText(makeGame())).toBe("Your turn — roll the dice");
    expect(statusText(makeGame({ phase: "draw", roll: 3, edges_left: 3 }))).toBe("Your turn — draw 3 edges");
    expect(statusText(makeGame({ phase: "draw", roll: 1, edges_left: 1 }))).toBe("Your turn — draw 1 edge");
    expect(statusText(makeGame({ phase: "draw", roll: 5, edges_left: 2, drawn_this_turn: 3 }))).toBe(
      "Your turn — draw up to 2 more edges, or end your turn",
    );
  });

  it("says the AI is thinking on its turn", () => {
    expect(statusText(makeGame({ to_move: 2 }))).toBe("AI (Hard) is thinking…");
    expect(statusText(makeGame({ to_move: 2, ai_thinking: true, phase: "draw" }))).toBe("AI (Hard) is thinking…");
    expect(isHumanTurn(makeGame({ to_move: 2 }))).toBe(false);
  });

  it("names the player in a local game", () => {
    expect(statusText(makeGame({ ...local }))).toBe("Player 1's turn — roll the dice");
    expect(statusText(makeGame({ ...local, to_move: 2, phase: "draw", roll: 4, edges_left: 4 }))).toBe("Player 2's turn — draw 4 edges");
    expect(isHumanTurn(makeGame({ ...local, to_move: 2 }))).toBe(true);
  });

  it("speaks of lines in standard rules and asks for another after a capture", () => {
    const std = { mode: "standard", die: null, capture_owes_line: true, phase: "draw" as const };
    expect(statusText(makeGame(std))).toBe("Your turn — draw a line");
    expect(statusText(makeGame({ ...std, drawn_this_turn: 1 }))).toBe("Your turn — you closed a box, draw another line");
    expect(statusText(makeGame({ ...practice, phase: "draw" }))).toBe("Your turn — draw a line");
    expect(statusText(makeGame({ ...practice, phase: "draw", to_move: 2 }))).toBe("Computer is thinking…");
  });

  it("reports the end", () => {
    expect(statusText(makeGame({ over: true, to_move: null, phase: "over", winner: 1 }))).toBe("Game over — You won!");
  });
});

describe("dice label", () => {
  it("shows the range before the roll and counts down after it", () => {
    expect(diceLabel(makeGame())).toBe("Rolls 1–6");
    expect(diceLabel(makeGame({ die: 12 }))).toBe("Rolls 1–12");
    expect(diceLabel(makeGame({ phase: "draw", roll: 5, edges_left: 3 }))).toBe("3 of 5 edges left");
    expect(diceLabel(makeGame({ phase: "draw", roll: 1, edges_left: 1 }))).toBe("1 of 1 edge left");
    expect(diceLabel(makeGame({ die: null }))).toBe("");
  });
});

describe("result window", () => {
  const over = { over: true, to_move: null, phase: "over" as const };
  it("names the winner against the AI", () => {
    expect(resultTitle(makeGame({ ...over, winner: 1, scores: [30, 19] }))).toBe("You won!");
    expect(resultTitle(makeGame({ ...over, winner: 2 }))).toBe("AI wins");
    expect(resultTitle(makeGame({ ...over, winner: 0 }))).toBe("It's a tie");
  });

  it("names the player in a local game", () => {
    expect(resultTitle(makeGame({ ...local, ...over, winner: 1 }))).toBe("Player 1 wins");
    expect(resultTitle(makeGame({ ...local, ...over, winner: 2 }))).toBe("Player 2 wins");
    expect(resultTitle(makeGame({ ...local, ...over, winner: 0 }))).toBe("It's a tie");
  });

  it("names the practice computer", () => {
    expect(resultTitle(makeGame({ ...practice, ...over, winner: 2 }))).toBe("Computer wins");
    expect(resultTitle(makeGame({ ...practice, ...over, winner: 1 }))).toBe("You won!");
  });

  it("has nothing to say while the game runs", () => {
    expect(resultTitle(makeGame())).toBe("");
  });

  it("lists the final scores and explains open edges", () => {
    expect(finalScoresLine(makeGame({ scores: [25, 24] }))).toBe("You 25 : 24 AI (Hard)");
    expect(OPEN_EDGES_NOTE).toBe("No scoring moves were left, so the game ended with edges still open.");
    expect(DEAD_EDGES_NOTE).toBe("Dashed lines can no longer score");
  });
});

describe("small texts", () => {
  it("signs score changes", () => {
    expect(signed(4)).toBe("+4");
    expect(signed(0)).toBe("+0");
    expect(signed(-1)).toBe("−1");
  });

  it("labels opponents", () => {
    expect(opponentLabel("ai", "hard")).toBe("vs AI (Hard)");
    expect(opponentLabel("local", null)).toBe("Local: 2 players");
  });

  it("writes a history entry with its orientation, row, column and boxes", () => {
    const entry = { player: 2, edge: ["v", 1, 2] as [string, number, number], changes: [{ kind: "captured", size: 1, row: 1, col: 1 }, { kind: "captured", size: 1, row: 1, col: 2 }] };
    expect(historyLine(entry, ["You", "Computer"])).toBe("Computer: Vertical, row 1, column 2 — claimed box (1, 1), box (1, 2)");
    expect(historyLine({ player: 1, edge: ["h", 0, 0], changes: [] }, ["You", "Computer"])).toBe("You: Horizontal, row 0, column 0");
  });
});
