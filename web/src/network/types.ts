// The shapes of docs/protocol.md. The client reads them; it never computes a rule.

export type Orientation = "h" | "v";
export type EdgeRef = [Orientation, number, number];
export type PlayerNo = 1 | 2;
export type DrawnEdge = [Orientation, number, number, PlayerNo];

export interface SquareChange {
  size: number;
  row: number;
  col: number;
  kind: "captured" | "blocked" | "removed" | "taken_over";
  player: PlayerNo;
  points: number;
}

export interface HistoryEntry {
  turn: number;
  player: PlayerNo;
  edge: EdgeRef;
  changes: SquareChange[];
  score_change: [number, number];
}

export interface EdgePreview {
  dead: boolean;
  captures: SquareChange[];
  score_change: [number, number];
  continuation: number;
  one_short: number;
}

export interface HeldSquare {
  size: number;
  row: number;
  col: number;
  owner: PlayerNo;
  points: number;
}

export interface PlayerInfo {
  name: string;
  kind: "human" | "ai" | "practice";
}

export type Opponent = "ai" | "local" | "practice" | "online";
export type Level = "easy" | "normal" | "hard" | "expert";

export interface GameState {
  game: string;
  seq: number;
  opponent: Opponent;
  level: Level | null;
  clock: number;
  ai_speed: "normal" | "fast";
  seed: string | null;
  players: [PlayerInfo, PlayerInfo];
  ai_thinking: boolean;
  clock_remaining_ms: number | null;
  online: OnlineState | null; // null unless the opponent is online
  mode: string;
  overlap: string | null;
  boxes: number;
  die: number | null;
  sizes: number[];
  capturing_edge_free: boolean;
  capture_owes_line: boolean;
  first: PlayerNo;
  to_move: PlayerNo | null;
  phase: "roll" | "draw" | "over";
  roll: number | null;
  edges_left: number | null;
  drawn_this_turn: number;
  turn: number;
  round: number;
  scores: [number, number];
  over: boolean;
  winner: 0 | 1 | 2 | null;
  resigned: PlayerNo | null;
  ended_with_open_edges: boolean;
  can_undo: boolean;
  can_end_turn: boolean;
  open_edges: number;
  edges: DrawnEdge[];
  squares: HeldSquare[];
  box_holders?: (PlayerNo | null)[];
  dead_edges: EdgeRef[];
  history: HistoryEntry[];
  previews?: Record<string, EdgePreview>;
}

// --- online play (docs/protocol.md, "Online play") -------------------------------------------

export type ForfeitReason = "move_limit" | "away" | "left";

/** Who lost an online game without playing it to its end, and why. */
export interface Forfeit {
  player: PlayerNo;
  reason: ForfeitReason;
}

/** What an online game has besides the game. */
export interface OnlineState {
  move_limit: number; // seconds per move, 0 for none
  move_remaining_ms: number | null;
  connected: [boolean, boolean];
  away_remaining_ms: [number | null, number | null];
  forfeit: Forfeit | null;
  rematch: [boolean, boolean];
  declined: PlayerNo | null;
  next_game: string | null;
  via: "room" | "find_match";
}

export interface OpenRoom {
  code: string;
  mode: string;
  overlap: string | null;
  expires_in: number; // seconds
}

export interface ModePresence {
  waiting: boolean;
  games_now: number;
  popular: boolean;
}

export interface OnlineStatusFrame {
  type: "online_status";
  game: string | null; // the device's running online game
  room: OpenRoom | null;
  waiting: string | null; // the mode the device looks for a game in
  reply_to?: string | number;
}

export interface PresenceFrame {
  type: "presence";
  players_online: number;
  modes: Record<string, ModePresence>;
}

export interface MatchWaitingFrame {
  type: "match_waiting";
  mode: string;
  reply_to?: string | number;
}

export interface MatchCancelledFrame {
  type: "match_cancelled";
  cancelled: boolean;
  reply_to?: string | number;
}

export interface RoomFrame {
  type: "room";
  code: string;
  mode: string;
  overlap: string | null;
  expires_in: number; // seconds
  reply_to?: string | number;
}

export interface RoomClosedFrame {
  type: "room_closed";
  code: string | null; // null when there was no open room
  reply_to?: string | number;
}

export type MatchVia = "room" | "find_match" | "rematch";

export interface MatchedFrame {
  type: "matched";
  game: string;
  seat: PlayerNo; // which player this device is
  via: MatchVia;
  reply_to?: string | number;
}

export type OnlineFrame =
  | OnlineStatusFrame
  | PresenceFrame
  | MatchWaitingFrame
  | MatchCancelledFrame
  | RoomFrame
  | RoomClosedFrame
  | MatchedFrame;

export interface SavedSummary {
  game: string;
  mode: string;
  overlap: string | null;
  opponent: Opponent;
  level: Level | null;
  scores: [number, number];
  round: number;
  updated: number;
}

// What an update changed in the game state (docs/protocol.md, "The update frame"), applied by
// delta.ts: fields gone, fields set whole, lists spliced ([at, removed, items]) and objects
// changed in part.
export interface StateChanges {
  drop?: string[];
  set?: { [field: string]: unknown };
  splice?: { [field: string]: [number, number, unknown[]][] };
  patch?: { [field: string]: StateChanges };
}

// What an update applied: a player's action ("by" 1 or 2), or what changed around the game.
export type UpdateAction =
  | { roll: number; by: PlayerNo }
  | { draw: EdgeRef; by: PlayerNo }
  | { end_turn: true; by: PlayerNo }
  | { undo: true; by: PlayerNo }
  | { timeout: true; by: PlayerNo }
  | { resign: true; by: PlayerNo }
  | { resume: true }
  | { visibility: boolean }
  | { forfeit: ForfeitReason; by: PlayerNo }
  | { connected: boolean; by: PlayerNo }
  | { rematch: boolean; by: PlayerNo };

// --- statistics, achievements and the leaderboard (docs/protocol.md, "### Statistics") ---------

export interface StatsOverview {
  games: number;
  wins: number;
  losses: number;
  ties: number;
  win_rate: number; // 0 to 1
  current_streak: number;
  best_streak: number;
  squares_captured: number;
  points_scored: number;
  highest_score: number;
  biggest_margin: number | null; // null before the first win
  play_seconds: number;
  longest_game_seconds: number;
  fastest_win_seconds: number | null; // null before the first win
}

export interface WinsAndGames {
  games: number;
  wins: number;
}

export interface StatsDetails {
  by_mode: Record<string, WinsAndGames>;
  by_level: Record<string, WinsAndGames>;
  by_overlap: Record<string, WinsAndGames>; // modes with 1x1 boxes only are not here
  dice: Record<string, number>; // the device's own rolls by face ("1" to "12")
}

export interface AchievementState {
  id: string;
  category: string;
  name: string;
  description: string;
  target: number; // above 1 for those that count something up
  progress: number;
  unlocked_at: number | null; // epoch seconds; null while locked
}

export interface LeaderboardEntry {
  game: string;
  mode: string;
  level: string; // "easy", "normal", "hard" or "expert"
  points: number;
  scores: [number, number]; // yours, theirs
  seconds: number;
  ended: number; // epoch seconds
}

// What a finished game was worth on the leaderboard (the result window's sentence).
export interface LeaderboardLine {
  points: number;
  mode: string;
  place: number | null; // 1 to 10, or null when it did not place
  all_place: number | null;
  sentence: string;
}

export interface StatsFrame {
  type: "stats";
  overview: StatsOverview;
  details: StatsDetails;
  achievements: AchievementState[];
  leaderboards: Record<string, LeaderboardEntry[]>; // "all" and one per mode, best first
  reply_to?: string | number;
}

export interface ResultFrame {
  type: "result";
  game: string;
  leaderboard: LeaderboardLine | null; // null unless the game was a win against the AI
  achievements: AchievementState[]; // those the game unlocked, in order
  reply_to?: string | number;
}

export interface ResetConfirmFrame {
  type: "reset_confirm";
  token: string;
  expires_in: number; // seconds
  reply_to?: string | number;
}

// Same Wi-Fi (docs/protocol.md): what a boxedin lan process tells its own browser on /lan.
export interface LanHosting {
  mode: string;
  overlap: string | null;
  address: string; // host:port, for a joiner whose network blocks multicast
}

export interface LanGame {
  id: string;
  name: string; // the host's player name
  mode: string;
  overlap: string | null;
  address: string;
}

export interface LanLink {
  role: "host" | "join";
  state: "connecting" | "code" | "playing";
  code: string | null; // the six digits both screens show, once the handshake is done
  name: string | null; // the other player's name, once known
}

export interface LanStatusFrame {
  type: "lan_status";
  hosting: LanHosting | null;
  link: LanLink | null;
  games: LanGame[];
  reply_to?: string | number;
}

export interface LanClosedFrame {
  type: "lan_closed";
  reason: "cancelled" | "host_left" | "unreachable" | "refused" | "broken";
  message: string;
}

export type LanFrame = LanStatusFrame | LanClosedFrame;

// The server's frames (services/gateway/outgoing.py; tests/services/test_outgoing_frames.py
// checks that they agree). A reply carries reply_to when the client's frame had an id. An
// update's action is every UpdateAction; the client reads it loosely, as a record.
export type ServerFrame =
  | { type: "welcome"; device: string; saved: SavedSummary | null; server_time: number; reply_to?: string | number }
  | { type: "state"; seq: number; game: GameState; reply_to?: string | number }
  | { type: "update"; seq: number; action: Record<string, unknown>; changes: StateChanges }
  | { type: "saved"; saved: SavedSummary | null; reply_to?: string | number }
  | { type: "error"; code: string; message: string; reply_to?: string | number; seq?: number }
  | { type: "ack"; reply_to?: string | number; seq?: number }
  | { type: "pong"; reply_to?: string | number }
  | StatsFrame
  | ResultFrame
  | ResetConfirmFrame
  | OnlineFrame
  | LanFrame;

export interface NewGameOptions {
  mode: string;
  overlap?: string;
  opponent?: Opponent;
  level?: Level;
  first?: 1 | 2 | "random";
  clock?: number;
  ai_speed?: "normal" | "fast";
  seed?: string;
}

export function edgeKey(e: EdgeRef | DrawnEdge): string {
  return `${e[0]}${e[1]},${e[2]}`;
}
