// The shapes of docs/protocol.md. The client reads them; it never computes a rule. The server
// frames are generated from their models (services/gateway/server_frames/, by
// scripts/gen_catalog.py): here they get the names the client code uses.

import type * as G from "../generated/frames";
import type { Level } from "../generated/facts";

export type {
  AchievementState,
  EdgePreview,
  Forfeit,
  GameState,
  HeldSquare,
  HistoryEntry,
  LanGame,
  LanHosting,
  LanLink,
  LeaderboardEntry,
  LeaderboardLine,
  ModePresence,
  OnlineState,
  OpenRoom,
  PresenceFrame,
  RoomFrame,
  SavedSummary,
  ReviewBoard,
  SquareChange,
  StateChanges,
  TurnFigures,
  StatsDetails,
  StatsOverview,
  WinsAndGames,
} from "../generated/frames";
export type { Level } from "../generated/facts";

export type PlayerNo = G.GameState["first"];
export type EdgeRef = G.HistoryEntry["edge"];
export type Orientation = EdgeRef[0];
export type DrawnEdge = G.GameState["edges"][number];
export type PlayerInfo = G.Player;
export type ReviewFrame = G.Review;
export type Opponent = G.GameState["opponent"];

// --- online play (docs/protocol.md, "Online play") -------------------------------------------

export type ForfeitReason = G.Forfeit["reason"];
export type OnlineStatusFrame = G.OnlineStatus;
export type MatchWaitingFrame = G.MatchWaiting;
export type MatchCancelledFrame = G.MatchCancelled;
export type RoomClosedFrame = G.RoomClosed;
export type MatchVia = G.Matched["via"];
export type MatchedFrame = G.Matched;
export type RunningOnlineFrame = G.RunningOnline;
export type OnlineFrame =
  | G.OnlineStatus
  | G.PresenceFrame
  | G.MatchWaiting
  | G.MatchCancelled
  | G.RoomFrame
  | G.RoomClosed
  | G.Matched;

// Watching an online game (docs/protocol.md, "Watching").
export type WatchFrame = G.WatchLink | G.Watched | G.Watching;

// What an update applied: a player's action ("by" 1 or 2), or what changed around the game.
export type UpdateAction = G.Update["action"];

// --- statistics, achievements and the leaderboard (docs/protocol.md, "### Statistics") ---------

export type StatsFrame = G.Stats;
export type ResultFrame = G.Result;
export type ResetConfirmFrame = G.ResetConfirm;
export type SavedFrame = G.Saved;

// Same Wi-Fi (docs/protocol.md): what a boxedin lan process tells its own browser on /lan.
export type LanStatusFrame = G.LanStatus;
export type LanClosedFrame = G.LanClosed;
export type LanFrame = G.LanStatus | G.LanClosed;

// The server's frames. A reply carries reply_to when the client's frame had an id. An update's
// action is every UpdateAction; the client reads it loosely, as a record.
export type ServerFrame =
  | Exclude<G.ServerFrame, G.Update>
  | (Omit<G.Update, "action"> & { action: Record<string, unknown> });

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
