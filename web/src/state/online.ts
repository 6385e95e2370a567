// Online play, the parts that need no page: the player's name, room codes, the marks of the
// Find Match list, and what the device keeps (its name, the online games it finished per mode).

import { MODES, type ModeInfo, isPractice } from "./catalog";
import { CODE_ALPHABET, CODE_LENGTH, NAME_MAX } from "../generated/facts";
import type { KeyValueStore } from "./settings";
import { minutesText } from "./texts";
import type { PlayerNo, PresenceFrame, RunningOnlineFrame } from "../network/types";

// --- the name ---------------------------------------------------------------------------------

export { NAME_MAX } from "../generated/facts";
// Letters and digits of any script, "_", "-" and spaces (the server's check, \w plus "-" and " ").
const NAME_CHARS = /^[\p{L}\p{N}_\- ]+$/u;

export type NameCheck = { ok: true; name: string } | { ok: false; error: string };

/** A name as the server takes it: trimmed, 1 to 20 characters, letters, digits, spaces, _ and -. */
export function checkName(raw: string): NameCheck {
  const name = raw.trim();
  const length = [...name].length;
  if (length === 0) return { ok: false, error: "Enter a name of 1 to 20 characters." };
  if (length > NAME_MAX) return { ok: false, error: `A name has at most ${NAME_MAX} characters; this one has ${length}.` };
  if (!NAME_CHARS.test(name)) return { ok: false, error: "Use only letters, digits, spaces, _ and -." };
  return { ok: true, name };
}

// --- room codes -------------------------------------------------------------------------------

export { CODE_ALPHABET, CODE_LENGTH } from "../generated/facts";

/** A code as typed, the way the server reads it: upper case, without spaces and dashes. */
export function normaliseCode(raw: string): string {
  return raw.toUpperCase().replace(/[\s\u2010-\u2015\u2212-]+/g, "");
}

/** Whether a (normalised) code can be a room's: six characters of the code alphabet. */
export function isRoomCode(code: string): boolean {
  return code.length === CODE_LENGTH && [...code].every((c) => CODE_ALPHABET.includes(c));
}

/** What is wrong with a typed code before it is sent, or null when it may be a room's. */
export function codeProblem(raw: string): string | null {
  const code = normaliseCode(raw);
  if (!code) return "Enter the six-character code of your friend's room.";
  if (code.length !== CODE_LENGTH) return `A room code has ${CODE_LENGTH} characters; this one has ${code.length}.`;
  if (!isRoomCode(code)) return "That is not a room code: codes use the letters A to Z and the digits 2 to 9, without 0, O, 1, I or L.";
  return null;
}

// --- the modes played online and their marks -------------------------------------------------

/** The modes that can be played online: every mode but the practice boards. */
export const ONLINE_MODES: ModeInfo[] = MODES.filter((m) => !isPractice(m.id));

/** The modes with the most online games finished on this device (none before the first). */
export function mostPlayed(counts: Record<string, number>): string[] {
  let best = 0;
  for (const n of Object.values(counts)) if (Number.isFinite(n) && n > best) best = n;
  if (best <= 0) return [];
  return Object.keys(counts).filter((mode) => counts[mode] === best);
}

/** The marks of a mode in the Find Match list, in the order they are shown. */
export function modeMarks(mode: string, presence: PresenceFrame | null, most: string[]): string[] {
  const marks: string[] = [];
  const p = presence?.modes[mode];
  if (p?.waiting) marks.push("Opponent waiting");
  if (p && p.games_now > 0) marks.push(`Games now ${p.games_now}`);
  if (p?.popular) marks.push("Popular");
  if (most.includes(mode)) marks.push("Your most played");
  return marks;
}

export function playersOnlineText(n: number): string {
  return n === 1 ? "1 player online" : `${n} players online`;
}

// --- the running online game, offered back on the menu ---------------------------------------------

export interface RunningOnlineGame {
  game: string;
  mode: string;
  overlap: string | null;
  me: PlayerNo;
  opponent: string;
  /** [mine, theirs] */
  scores: [number, number];
  round: number;
  /** The grace left to come back (the server's figure when it answered), or null when this
   * device's player is not away (the game is on screen elsewhere). */
  graceMs: number | null;
}

/** The menu's card of the device's running online game, from the server's answer; null when
 * there is none (or it is over). */
export function runningOnlineGame(frame: RunningOnlineFrame): RunningOnlineGame | null {
  const g = frame.state;
  if (!frame.game || !frame.seat || !g || g.over || !g.online) return null;
  const me = frame.seat;
  const them = me === 1 ? 2 : 1;
  const away = g.online.connected[me - 1] ? null : g.online.away_remaining_ms[me - 1];
  return {
    game: frame.game,
    mode: g.mode,
    overlap: g.overlap,
    me,
    opponent: g.players[them - 1].name,
    scores: [g.scores[me - 1], g.scores[them - 1]],
    round: g.round,
    graceMs: away ?? null,
  };
}

/** What the card says of the grace: "Back within 1:23, or Sam wins". */
export function graceLine(opponent: string, ms: number | null): string {
  if (ms === null) return "On screen on another page";
  return `Back within ${minutesText(ms)}, or ${opponent} wins`;
}

// --- what the device keeps ---------------------------------------------------------------------

const NAME_KEY = "boxedin.online.name";
const FINISHED_KEY = "boxedin.online.finished";
const GAMES_REMEMBERED = 50;

export function loadName(store: KeyValueStore | null): string | null {
  try {
    const raw = store?.getItem(NAME_KEY);
    if (!raw) return null;
    const check = checkName(raw);
    return check.ok ? check.name : null;
  } catch {
    return null;
  }
}

export function saveName(store: KeyValueStore | null, name: string): void {
  try {
    store?.setItem(NAME_KEY, name);
  } catch {
    /* kept for this visit only */
  }
}

export interface FinishedGames {
  /** Online games finished on this device, per mode. */
  counts: Record<string, number>;
  /** The ids of the last games counted, so that a game is counted once. */
  games: string[];
}

export function loadFinished(store: KeyValueStore | null): FinishedGames {
  try {
    const raw = JSON.parse(store?.getItem(FINISHED_KEY) ?? "{}");
    const counts: Record<string, number> = {};
    if (raw && typeof raw.counts === "object" && raw.counts) {
      for (const [mode, n] of Object.entries(raw.counts)) {
        if (typeof n === "number" && Number.isInteger(n) && n > 0) counts[mode] = n;
      }
    }
    const games = Array.isArray(raw?.games) ? raw.games.filter((g: unknown): g is string => typeof g === "string") : [];
    return { counts, games: games.slice(-GAMES_REMEMBERED) };
  } catch {
    return { counts: {}, games: [] };
  }
}

/** Counts a finished online game for its mode, once per game id; true when it was counted now. */
export function noteFinished(store: KeyValueStore | null, game: string, mode: string): boolean {
  const kept = loadFinished(store);
  if (kept.games.includes(game)) return false;
  kept.counts[mode] = (kept.counts[mode] ?? 0) + 1;
  kept.games = [...kept.games, game].slice(-GAMES_REMEMBERED);
  try {
    store?.setItem(FINISHED_KEY, JSON.stringify(kept));
  } catch {
    return false;
  }
  return true;
}
