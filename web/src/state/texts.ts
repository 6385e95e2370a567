// What the status line, the dice panel and the result window say, from the server's state.

import type { ErrorCode } from "../generated/facts";
import type { GameState, PlayerNo } from "../network/types";

export function isHumanTurn(g: GameState): boolean {
  if (g.over || g.to_move === null) return false;
  return g.players[g.to_move - 1]?.kind === "human";
}

/** Whose turn, as the status line begins: "Your turn", "Player 2's turn". `me` is the viewer's
 * seat in an online game. */
function turnOwner(g: GameState, p: PlayerNo, me?: PlayerNo): string {
  if (g.opponent === "online") return p === (me ?? 1) ? "Your turn" : `${g.players[p - 1].name}'s turn`;
  if (g.opponent === "ai" || (g.opponent === "practice" && g.players[1]?.kind !== "human")) {
    return p === 1 ? "Your turn" : `${g.players[1].name}'s turn`;
  }
  return `${g.players[p - 1].name}'s turn`;
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The status line, for example "Your turn — roll the dice" or "AI (Hard) is thinking…"; `me`
 * is the viewer's seat in an online game. */
export function statusText(g: GameState, me?: PlayerNo): string {
  if (g.over) {
    const r = resultTitle(g, me);
    const why = g.opponent === "online" ? forfeitLine(g, me ?? 1) : null;
    // "You won!" ends its own sentence; "Bo wins" needs the full stop.
    return why ? `Game over — ${r}${/[.!?]$/.test(r) ? "" : "."} ${why}` : `Game over — ${r}`;
  }
  const p = g.to_move;
  if (p === null) return "";
  const player = g.players[p - 1];
  if (player.kind !== "human" || g.ai_thinking) return `${player.name} is thinking…`;
  const who = turnOwner(g, p, me);
  if (g.opponent === "online" && p !== (me ?? 1)) return who; // the other player's turn: nothing to do
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

/** The title of the result window (`me`: the viewer's seat in an online game). */
export function resultTitle(g: GameState, me?: PlayerNo): string {
  if (g.winner === null) return "";
  if (g.winner === 0) return "It's a tie";
  if (g.opponent === "online") return g.winner === (me ?? 1) ? "You won!" : `${g.players[g.winner - 1].name} wins`;
  const humanVsMachine = g.players[1].kind !== "human";
  if (humanVsMachine) {
    if (g.winner === 1) return "You won!";
    return g.opponent === "ai" ? "AI wins" : `${g.players[1].name} wins`;
  }
  return `${g.players[g.winner - 1].name} wins`;
}

// The rule book's own sentence; the server sets ended_with_open_edges only for a game that really
// stopped for want of scoring edges, never after a forfeit (whose window says why instead).
export const OPEN_EDGES_NOTE = "No scoring moves were left, so the game ended with edges still open.";
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
  if (opponent === "online") return "Online";
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

// --- online games -------------------------------------------------------------------------------

/** Minutes and seconds left, rounded up: "1:52", "0:04". */
export function minutesText(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** The move limit under the board: "Your move: 1:52 left", "Sam's move: 0:04 left". */
export function moveLimitText(g: GameState, me: PlayerNo, ms: number): string {
  const p = g.to_move;
  const whose = p === null ? "Move" : p === me ? "Your move" : `${g.players[p - 1].name}'s move`;
  return `${whose}: ${minutesText(ms)} left`;
}

/** An away player's grace: "Sam lost the connection — 1:23 left to come back". */
export function awayText(name: string, ms: number | null): string {
  if (ms === null) return `${name} lost the connection`;
  return `${name} lost the connection — ${minutesText(ms)} left to come back`;
}

const FORFEIT_REASONS: Record<string, [string, string]> = {
  // [about the viewer, about the other player]
  move_limit: ["You ran out of time.", "ran out of time."],
  away: ["You did not come back in time.", "did not come back in time."],
  left: ["You left the game.", "left the game."],
};

/** Why an online game ended before its end, or null: "Sam ran out of time." */
export function forfeitLine(g: GameState, me: PlayerNo): string | null {
  const f = g.online?.forfeit;
  if (!f) return null;
  const [mine, theirs] = FORFEIT_REASONS[f.reason] ?? ["You lost the game.", "lost the game."];
  return f.player === me ? mine : `${g.players[f.player - 1].name} ${theirs}`;
}

export type RematchStatus = "open" | "asked" | "offered" | "declined" | "starting";

/** Where a rematch stands for the viewer: nobody asked, the viewer asked, the other player asked,
 * the other player declined (or left), or both asked and the next game is starting. */
export function rematchStatus(g: GameState, me: PlayerNo): RematchStatus {
  const o = g.online;
  if (!o) return "declined";
  const opp = me === 1 ? 1 : 0;
  if (o.next_game) return "starting";
  // Somebody declined, or somebody left the game or did not come back within the grace: gone for
  // good, so the server refuses a rematch to either seat (player_gone).
  if (o.declined !== null || o.forfeit?.reason === "left" || o.forfeit?.reason === "away") {
    return "declined";
  }
  if (o.rematch[me - 1]) return "asked";
  if (o.rematch[opp]) return "offered";
  return "open";
}

/** The line of the result window about a rematch, or null. */
export function rematchLine(g: GameState, me: PlayerNo): string | null {
  const name = g.players[me === 1 ? 1 : 0].name;
  switch (rematchStatus(g, me)) {
    case "asked":
      return `Waiting for ${name}…`;
    case "offered":
      return `${name} wants a rematch`;
    case "declined":
      if (g.online?.declined === me) return "You declined a rematch.";
      if (g.online?.declined === null && g.online.forfeit?.reason === "left") {
        return g.online.forfeit.player === me ? "You left, so there is no rematch." : `${name} left, so there is no rematch.`;
      }
      if (g.online?.declined === null && g.online.forfeit?.reason === "away") {
        return g.online.forfeit.player === me ? "You did not come back, so there is no rematch." : `${name} did not come back, so there is no rematch.`;
      }
      return `${name} declined a rematch.`;
    case "starting":
      return "The rematch is starting…";
    default:
      return null;
  }
}

// The client's own words for some codes of the catalogue (generated/facts.ts): a code it does not
// have fails to compile.
const ONLINE_ERRORS: Partial<Record<ErrorCode, string>> = {
  bad_name: "That name cannot be used: 1 to 20 letters, digits, spaces, _ and -.",
  bad_code: "That is not a room code: six letters and digits, without 0, O, 1, I or L.",
  no_room: "There is no room with this code. Check it with your friend.",
  room_expired: "This room waited 30 minutes and has closed. Ask your friend for a new code.",
  room_closed: "Your friend closed this room. Ask them for a new code.",
  room_full: "Somebody has already joined this room.",
  own_room: "This is your own room: pass the code on to a friend.",
  too_many_tries: "Too many tries. Wait a minute, then try again.",
  in_game: "You are playing an online game already.",
  player_gone: "A player left or did not come back in time, so there is no rematch.",
  unavailable: "Online play is not available right now. Try again in a moment.",
};

/** A friendly sentence for an error of online play, else the server's own. */
export function onlineErrorText(code: string, message: string): string {
  return ONLINE_ERRORS[code as ErrorCode] ?? (message || code);
}
