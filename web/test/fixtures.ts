import type { GameState, LeaderboardEntry, StatsFrame } from "../src/network/types";

export function makeGame(over: Partial<GameState> = {}): GameState {
  return {
    game: "g_test",
    seq: 0,
    opponent: "ai",
    level: "hard",
    clock: 0,
    ai_speed: "fast",
    seed: null,
    players: [
      { name: "You", kind: "human" },
      { name: "AI (Hard)", kind: "ai" },
    ],
    ai_thinking: false,
    clock_remaining_ms: null,
    online: null,
    mode: "classic",
    overlap: null,
    boxes: 7,
    die: 6,
    sizes: [1],
    capturing_edge_free: false,
    capture_owes_line: false,
    first: 1,
    to_move: 1,
    phase: "roll",
    roll: null,
    edges_left: null,
    drawn_this_turn: 0,
    turn: 0,
    round: 1,
    scores: [0, 0],
    over: false,
    winner: null,
    resigned: null,
    ended_with_open_edges: false,
    can_undo: false,
    can_end_turn: false,
    open_edges: 112,
    edges: [],
    squares: [],
    dead_edges: [],
    history: [],
    previews: {},
    ...over,
  };
}

export class MemoryStore {
  data = new Map<string, string>();
  getItem(k: string): string | null {
    return this.data.has(k) ? this.data.get(k)! : null;
  }
  setItem(k: string, v: string): void {
    this.data.set(k, v);
  }
}

/** A `stats` frame: a few games, three achievements, a Classic leaderboard. */
export function makeStats(over: Partial<StatsFrame> = {}): StatsFrame {
  const entry: LeaderboardEntry = { game: "g_1", mode: "classic", level: "hard", points: 189, scores: [31, 18], seconds: 754, ended: 1795000000 };
  return {
    type: "stats",
    overview: {
      games: 12, wins: 7, losses: 4, ties: 1, win_rate: 7 / 12, current_streak: 2, best_streak: 4,
      squares_captured: 240, points_scored: 260, highest_score: 33, biggest_margin: 17,
      play_seconds: 3900, longest_game_seconds: 754, fastest_win_seconds: 192,
    },
    details: {
      by_mode: { classic: { games: 8, wins: 5 }, mini: { games: 4, wins: 2 } },
      by_level: { hard: { games: 3, wins: 1 }, normal: { games: 9, wins: 6 } },
      by_overlap: {},
      dice: { "1": 10, "2": 12, "3": 8, "4": 9, "5": 11, "6": 10 },
    },
    achievements: [
      { id: "first_win", category: "Getting Started", name: "First Win", description: "Win a game against the AI", target: 1, progress: 1, unlocked_at: 1795000000 },
      { id: "games_10", category: "Getting Started", name: "Regular", description: "Finish 10 games against the AI", target: 10, progress: 12, unlocked_at: 1795000100 },
      { id: "local_5", category: "Other players", name: "Good Company", description: "Finish 5 games against other people", target: 5, progress: 2, unlocked_at: null },
    ],
    leaderboards: { all: [entry], classic: [entry] },
    ...over,
  };
}

export function emptyStats(): StatsFrame {
  return makeStats({
    overview: {
      games: 0, wins: 0, losses: 0, ties: 0, win_rate: 0, current_streak: 0, best_streak: 0, squares_captured: 0,
      points_scored: 0, highest_score: 0, biggest_margin: null, play_seconds: 0, longest_game_seconds: 0, fastest_win_seconds: null,
    },
    details: { by_mode: {}, by_level: {}, by_overlap: {}, dice: {} },
    leaderboards: { all: [] },
  });
}
