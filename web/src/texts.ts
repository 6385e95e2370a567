// What the status line, the dice panel and the result window say, from the server's state.

import type { GameState, PlayerNo } from "./types";

export function isHumanTurn(g: GameState): boolean {
  if (g.over || g.to_move === null) return false;
  return g.players[g.to_move - 1]?.kind === "human";
}

/** Whose turn, as the status line begins: "Your turn", "Player 2's turn". */
function turnOwner(g: GameState, p: PlayerNo): string {
  if (g.opponent === "ai" || (g.opponent === "practice" && g.players[1]?.kind !== "human")) {
    return p === 1 ? "Your turn" : `${g.players[1].name}'s turn`;
  }
  return `${g.players[p - 1].name}'s turn`;
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The status line, for example "Your turn — roll the dice" or "AI (Hard) is thinking…". */
export function statusText(g: GameState): string {
  if (g.over) {
    const r = resultTitle(g);
    return `Game over — ${r}`;
  }
  const p = g.to_move;
  if (p === null) return "";
  const player = g.players[p - 1];
  if (player.kind !== "human" || g.ai_thinking) return `${player.name} is thinking…`;
  const who = turnOwner(g, p);
  if (g.die === null) {
    // Standard rules: one line, another after each capture.
    if (g.capture_owes_line && g.drawn_this_turn > 0) return `${who} — you closed a box, draw another line`;
    return `${who} — draw a line`;
  }
  if (g.phase === "roll") return `${who} — roll the dice`;
  const left = g.edges_left ?? 0;
  if (g.drawn_this_turn === 0) return `${who} — draw ${plural(left, "edge", "edges")}`;
  return `${who} — draw up to ${plural(left, "more edge", "more edges")}, or end your turn`;
}

/** The label under the die: "Rolls 1–6" before the roll, "3 of 5 edges left" after it. */
export function diceLabel(g: GameState): string {
  if (g.die === null) return "";
  if (g.phase !== "draw" || g.roll === null || g.edges_left === null) return `Rolls 1–${g.die}`;
  return `${g.edges_left} of ${g.roll} ${g.roll === 1 ? "edge" : "edges"} left`;
}

/** The title of the result window. */
export function resultTitle(g: GameState): string {
  if (g.winner === null) return "";
  if (g.winner === 0) return "It's a tie";
  const humanVsMachine = g.players[1].kind !== "human";
  if (humanVsMachine) {
    if (g.winner === 1) return "You won!";
    return g.opponent === "ai" ? "AI wins" : `${g.players[1].name} wins`;
  }
  return `${g.players[g.winner - 1].name} wins`;
}

export const OPEN_EDGES_NOTE = "No edge could score any more, so the game stopped with some edges still undrawn.";
export const DEAD_EDGES_NOTE = "Dashed lines can no longer score";
export const STANDARD_NOTE = "Complete a square to go again!";

export function finalScoresLine(g: GameState): string {
  return `${g.players[0].name} ${g.scores[0]} : ${g.scores[1]} ${g.players[1].name}`;
}

/** A score change as it floats up from a square: +4, -1, +0. */
export function signed(points: number): string {
  return points < 0 ? `−${-points}` : `+${points}`;
}

/** The label of the opponent in the menu and on the Continue card. */
export function opponentLabel(opponent: string, level: string | null): string {
  if (opponent === "ai") {
    const name = level ? level[0].toUpperCase() + level.slice(1) : "";
    return `vs AI (${name})`;
  }
  if (opponent === "practice") return "vs Computer (practice)";
  return "Local: 2 players";
}

/** A history entry as the practice game lists it. */
export function historyLine(entry: { player: number; edge: [string, number, number]; changes: { kind: string; size: number; row: number; col: number }[] }, names: [string, string]): string {
  const [o, r, c] = entry.edge;
  const orient = o === "h" ? "Horizontal" : "Vertical";
  const claimed = entry.changes.filter((ch) => ch.kind === "captured");
  const boxes = claimed.length
    ? ` — claimed ${claimed.map((ch) => (ch.size > 1 ? `${ch.size}×${ch.size} at (${ch.row}, ${ch.col})` : `box (${ch.row}, ${ch.col})`)).join(", ")}`
    : "";
  return `${names[entry.player - 1]}: ${orient}, row ${r}, column ${c}${boxes}`;
}

export function clockText(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${s} s`;
}
