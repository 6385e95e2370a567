// What the Statistics, Achievements and Leaderboard screens and the result window say, from the
// server's `stats` and `result` frames (docs/protocol.md, "### Statistics"). Pure and unit-tested:
// the server counts everything, the client only formats, orders and scales it.

import { LEVELS, MODES, OVERLAPS, levelName, modeName, overlapName } from "./catalog";
import type { AchievementState, LeaderboardEntry, ResultFrame, StatsFrame, StatsOverview, WinsAndGames } from "../network/types";

// --- numbers and durations --------------------------------------------------------------------

const pad2 = (n: number) => String(n).padStart(2, "0");

/**
 * A duration as the statistics show it: "45 s", "3 min 12 s", "1 h 05 min" (hours drop the
 * seconds). Null (nothing yet) is a dash.
 */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return "—";
  const total = Math.max(0, Math.round(seconds));
  if (total < 60) return `${total} s`;
  if (total < 3600) return `${Math.floor(total / 60)} min ${pad2(total % 60)} s`;
  const minutes = Math.round(total / 60);
  return `${Math.floor(minutes / 60)} h ${pad2(minutes % 60)} min`;
}

/** A share from 0 to 1 as a whole percentage: "63%". */
export function formatPercent(share: number): string {
  if (!Number.isFinite(share)) return "—";
  return `${Math.round(Math.max(0, Math.min(1, share)) * 100)}%`;
}

/** A count with thousands separated: 12 345 shows as "12,345". */
export function formatCount(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return "—";
  return Math.round(n).toLocaleString("en-GB");
}

/** An epoch-seconds date, as "3 Mar 2026". */
export function formatDate(epochSeconds: number): string {
  const d = new Date(epochSeconds * 1000);
  if (Number.isNaN(d.getTime())) return "";
  return d.toLocaleDateString("en-GB", { day: "numeric", month: "short", year: "numeric" });
}

/** A final score, yours first: "31 : 18". */
export function scoreText(scores: [number, number]): string {
  return `${scores[0]} : ${scores[1]}`;
}

// --- the overview -----------------------------------------------------------------------------

export interface StatItem {
  label: string;
  value: string;
}

export interface StatGroup {
  title: string;
  items: StatItem[];
}

/** The Overview tab's four groups, each a list of label and value. */
export function overviewGroups(o: StatsOverview): StatGroup[] {
  return [
    {
      title: "Performance",
      items: [
        { label: "Games", value: formatCount(o.games) },
        { label: "Wins", value: formatCount(o.wins) },
        { label: "Losses", value: formatCount(o.losses) },
        { label: "Ties", value: formatCount(o.ties) },
        { label: "Win rate", value: o.games > 0 ? formatPercent(o.win_rate) : "—" },
      ],
    },
    {
      title: "Streaks",
      items: [
        { label: "Current", value: winsText(o.current_streak) },
        { label: "Best", value: winsText(o.best_streak) },
      ],
    },
    {
      title: "Scoring",
      items: [
        { label: "Total Squares Captured", value: formatCount(o.squares_captured) },
        { label: "Total Points Scored", value: formatCount(o.points_scored) },
        { label: "Highest Game Score", value: o.games > 0 ? formatCount(o.highest_score) : "—" },
        { label: "Biggest Win Margin", value: o.biggest_margin === null ? "—" : pointsText(o.biggest_margin) },
      ],
    },
    {
      title: "Time Played",
      items: [
        { label: "Total Play Time", value: o.games > 0 ? formatDuration(o.play_seconds) : "—" },
        { label: "Longest Game", value: o.games > 0 ? formatDuration(o.longest_game_seconds) : "—" },
        { label: "Fastest Win", value: formatDuration(o.fastest_win_seconds) },
      ],
    },
  ];
}

function winsText(n: number): string {
  return `${n} ${n === 1 ? "win" : "wins"}`;
}

/** True when no game has been counted yet (a new device, or just after a reset). */
export function isEmptyStats(s: Pick<StatsFrame, "overview">): boolean {
  return s.overview.games === 0;
}

// --- bar charts -------------------------------------------------------------------------------

/**
 * Bar lengths for counts: the largest count fills `full`, the others in proportion; a count
 * above 0 is never shorter than `min`, so that it stays visible, and 0 is no bar at all. `scaleTo`
 * sets the count that fills `full` instead of the largest (e.g. the most games, for wins).
 */
export function barLengths(counts: number[], full: number, opts: { min?: number; scaleTo?: number } = {}): number[] {
  const min = opts.min ?? 0;
  const top = opts.scaleTo ?? Math.max(0, ...counts);
  return counts.map((c) => {
    if (!(c > 0) || !(top > 0)) return 0;
    const len = (Math.min(c, top) / top) * full;
    return Math.max(min, Math.round(len * 100) / 100);
  });
}

export interface WinsGamesRow {
  key: string;
  label: string;
  games: number;
  wins: number;
  /** Lengths in percent of the chart's width: games against the most games of any row. */
  gamesPct: number;
  winsPct: number;
  rate: string;
}

/**
 * The rows of a wins-and-games chart, in the catalog's order (unknown keys after it, by name),
 * rows without games left out.
 */
export function winsGamesRows(map: Record<string, WinsAndGames>, kind: "mode" | "level" | "overlap"): WinsGamesRow[] {
  const order: string[] = kind === "mode" ? MODES.map((m) => m.id) : kind === "level" ? LEVELS.map((l) => l.id) : OVERLAPS.map((o) => o.id);
  const name = (k: string) => (kind === "mode" ? modeName(k) : kind === "level" ? levelName(k) || k : overlapName(k));
  const keys = Object.keys(map)
    .filter((k) => (map[k]?.games ?? 0) > 0)
    .sort((a, b) => rank(order, a) - rank(order, b) || a.localeCompare(b));
  const most = Math.max(0, ...keys.map((k) => map[k].games));
  const games = barLengths(keys.map((k) => map[k].games), 100, { min: 1, scaleTo: most });
  const wins = barLengths(keys.map((k) => map[k].wins), 100, { min: 1, scaleTo: most });
  return keys.map((k, i) => ({
    key: k,
    label: name(k),
    games: map[k].games,
    wins: map[k].wins,
    gamesPct: games[i],
    winsPct: wins[i],
    rate: formatPercent(map[k].wins / map[k].games),
  }));
}

function rank(order: string[], key: string): number {
  const i = order.indexOf(key);
  return i < 0 ? order.length : i;
}

export interface DiceBar {
  face: number;
  count: number;
  share: string;
  height: number;
}

/**
 * The dice distribution: one bar per face from 1 to the highest face rolled (faces never rolled
 * in between show as 0), heights scaled so that the most rolled face is `full` high.
 */
export function diceBars(dice: Record<string, number>, full: number): DiceBar[] {
  const faces = Object.keys(dice)
    .map(Number)
    .filter((f) => Number.isInteger(f) && f >= 1 && (dice[String(f)] ?? 0) > 0);
  if (!faces.length) return [];
  const top = Math.max(...faces);
  const counts = Array.from({ length: top }, (_, i) => Math.max(0, dice[String(i + 1)] ?? 0));
  const total = counts.reduce((a, b) => a + b, 0);
  const heights = barLengths(counts, full, { min: 2 });
  return counts.map((count, i) => ({ face: i + 1, count, share: formatPercent(total ? count / total : 0), height: heights[i] }));
}

/** A tidy round top for a chart's axis: 1, 2, 5, 10, 20, 50... at or above n. */
export function niceCeiling(n: number): number {
  if (!(n > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(n));
  for (const m of [1, 2, 5, 10]) if (m * p >= n) return m * p;
  return 10 * p;
}

// --- achievements -----------------------------------------------------------------------------

export interface AchievementGroup {
  category: string;
  items: AchievementState[];
  unlocked: number;
}

/** Achievements grouped by category, in the order the server lists them. */
export function groupAchievements(list: AchievementState[]): AchievementGroup[] {
  const groups: AchievementGroup[] = [];
  const byName = new Map<string, AchievementGroup>();
  for (const a of list) {
    let g = byName.get(a.category);
    if (!g) {
      g = { category: a.category, items: [], unlocked: 0 };
      byName.set(a.category, g);
      groups.push(g);
    }
    g.items.push(a);
    if (a.unlocked_at !== null) g.unlocked += 1;
  }
  return groups;
}

/** The line under an achievement that counts something up: "3 / 10". */
export function progressText(a: AchievementState): string {
  return `${formatCount(Math.min(a.progress, a.target))} / ${formatCount(a.target)}`;
}

/** "Achievement unlocked: First Win — Win a game against the AI" */
export function unlockedLine(a: Pick<AchievementState, "name" | "description">): string {
  return `Achievement unlocked: ${a.name} — ${a.description}`;
}

// --- the leaderboard --------------------------------------------------------------------------

export interface LeaderboardTab {
  key: string;
  label: string;
  entries: LeaderboardEntry[];
}

/** "All games" first, then every mode that has entries, in the catalog's order. */
export function leaderboardTabs(boards: Record<string, LeaderboardEntry[]>): LeaderboardTab[] {
  const order = MODES.map((m) => m.id);
  const modes = Object.keys(boards)
    .filter((k) => k !== "all" && (boards[k]?.length ?? 0) > 0)
    .sort((a, b) => rank(order, a) - rank(order, b) || a.localeCompare(b));
  return [
    { key: "all", label: "All games", entries: boards.all ?? [] },
    ...modes.map((k) => ({ key: k, label: modeName(k), entries: boards[k] })),
  ];
}

/** What a leaderboard entry shows beside its rank and points, each with its kind. */
export function entryFacts(e: LeaderboardEntry, withMode: boolean): { kind: "mode" | "score" | "level" | "time" | "date"; text: string }[] {
  return [
    ...(withMode ? [{ kind: "mode" as const, text: modeName(e.mode) }] : []),
    { kind: "score", text: scoreText(e.scores) },
    { kind: "level", text: levelName(e.level) || e.level },
    { kind: "time", text: formatDuration(e.seconds) },
    { kind: "date", text: formatDate(e.ended) },
  ];
}

// --- the result window ------------------------------------------------------------------------

export interface ResultExtras {
  /** The leaderboard sentence of a win against the AI, e.g. "189 points: place 2 on your Classic leaderboard." */
  leaderboard: string | null;
  /** One line per achievement the game unlocked, in order. */
  achievements: string[];
}

/** What the result window adds once the server has counted the game. */
export function resultExtras(frame: Pick<ResultFrame, "leaderboard" | "achievements">): ResultExtras {
  const sentence = frame.leaderboard?.sentence?.trim();
  return {
    leaderboard: sentence ? sentence : null,
    achievements: (frame.achievements ?? []).map(unlockedLine),
  };
}

/** "1 point", "56 points". */
export function pointsText(n: number): string {
  return `${formatCount(n)} ${n === 1 ? "point" : "points"}`;
}
