// The game screen's state: the game the server last sent, frames held back while practice is
// paused, the request waiting for its answer, and the timers counted down from the last frame.
// It applies the server's frames; the views (views/game.ts and the views it builds) render from it.

import { isPractice } from "./catalog";
import { isHumanTurn } from "./texts";
import type { GameState, HistoryEntry, PlayerNo } from "../network/types";

/** What applying one frame changed, for the views. */
export interface Applied {
  game: GameState;
  /** The move just made (to animate), when the frame answers a drawn edge. */
  animate: HistoryEntry | null;
  /** Whether this frame starts another game than the one before. */
  newGame: boolean;
  /** Whether the frame ends the game and its result has not been shown yet. */
  newlyOver: boolean;
}

/** How long the other player's connection must stay lost before the screen says so: a game
 * starts with both players not yet connected, and a dropped socket is often back within a moment. */
export const AWAY_SHOWN_AFTER_MS = 1000;

export class GameSession {
  game: GameState | null = null;
  paused = false;
  /** The seq of the game when the last action went out, until the next frame answers it. */
  pendingSeq: number | null = null;
  /** The game whose result window has been shown (it opens once per game). */
  resultSeenFor: string | null = null;
  private queued: { game: GameState; action?: Record<string, unknown> }[] = [];
  // Deadlines on the performance.now() clock, from the remaining times of the last frame.
  private clockDeadline: number | null = null;
  private moveDeadline: number | null = null;
  private awayDeadline: number | null = null;
  private awaySince: [number | null, number | null] = [null, null];
  private timeoutSent: { seq: number; at: number } | null = null;

  /** `seat`: the viewer's seat in an online game (1 otherwise); `watcher`: the viewer watches an
   * online game by its link and has no seat in it (docs/protocol.md, Watching). */
  constructor(
    private readonly seat: () => PlayerNo,
    private readonly now: () => number = () => performance.now(),
    readonly watcher = false,
  ) {}

  get practice(): boolean {
    const g = this.game;
    return !!g && (g.opponent === "practice" || isPractice(g.mode));
  }

  /** An online game: the device plays one seat, the other player another device. */
  get online(): boolean {
    return this.game?.opponent === "online";
  }

  get me(): PlayerNo {
    return this.seat();
  }

  get opp(): PlayerNo {
    return this.me === 1 ? 2 : 1;
  }

  /** Whether the viewer may act: a person to move, and in an online game the viewer's own seat. */
  myTurn(g: GameState): boolean {
    if (this.watcher) return false;
    return isHumanTurn(g) && (g.opponent !== "online" || g.to_move === this.me);
  }

  /** Whether to show player `p` as away (the viewer's own connection is the banner's). */
  shownAway(g: GameState, p: PlayerNo): boolean {
    const since = this.awaySince[p - 1];
    return g.opponent === "online" && !g.over && (this.watcher || p !== this.me) && since !== null && this.now() - since >= AWAY_SHOWN_AFTER_MS;
  }

  /** A frame from the server: applied at once, or held while practice is paused (null). */
  receive(next: GameState, action?: Record<string, unknown>): Applied | null {
    if (this.paused) {
      this.queued.push({ game: next, action });
      return null;
    }
    return this.apply(next, action);
  }

  apply(next: GameState, action?: Record<string, unknown>): Applied {
    const prev = this.game;
    const newGame = !prev || prev.game !== next.game;
    const now = this.now();
    this.game = next;
    this.pendingSeq = null;
    if (newGame) {
      this.resultSeenFor = null;
      this.awaySince = [null, null];
    }
    let animate: HistoryEntry | null = null;
    if (action && Array.isArray(action.draw) && next.history.length) animate = next.history[next.history.length - 1];
    this.clockDeadline = next.clock_remaining_ms !== null && next.clock > 0 && !next.over ? now + next.clock_remaining_ms : null;
    const o = next.online;
    this.moveDeadline = o && o.move_remaining_ms !== null && !next.over ? now + o.move_remaining_ms : null;
    this.awaySince = [0, 1].map((i) => (o && !next.over && !o.connected[i] ? (this.awaySince[i] ?? now) : null)) as [number | null, number | null];
    const awayMs = o ? o.away_remaining_ms[this.opp - 1] : null;
    this.awayDeadline = awayMs !== null && awayMs !== undefined ? now + awayMs : null;
    const newlyOver = next.over && this.resultSeenFor !== next.game;
    if (newlyOver) this.resultSeenFor = next.game;
    return { game: next, animate, newGame, newlyOver };
  }

  /** Pauses or resumes practice; resuming applies the frames held meanwhile (only the last one
   * is shown, animated when it was the only one). */
  setPaused(paused: boolean): Applied | null {
    if (this.paused === paused) return null;
    this.paused = paused;
    if (paused) return null;
    const items = this.queued;
    this.queued = [];
    if (!items.length) return null;
    const last = items[items.length - 1];
    return this.apply(last.game, items.length === 1 ? last.action : undefined);
  }

  /** Forgets held frames (a restart asks for a new game). */
  clearQueue(): void {
    this.paused = false;
    this.queued = [];
  }

  /** The game when the viewer may send an action now, else null. */
  ready(connected: boolean): GameState | null {
    const g = this.game;
    if (!g || g.over || this.paused || !connected || !this.myTurn(g)) return null;
    if (this.pendingSeq === g.seq) return null;
    return g;
  }

  /** Milliseconds left on the move clock, or null when the clock is not running. */
  clockLeft(): number | null {
    return this.clockDeadline === null ? null : this.clockDeadline - this.now();
  }

  /** Milliseconds left for an online move, or null without a limit. */
  moveLeft(): number | null {
    return this.moveDeadline === null ? null : this.moveDeadline - this.now();
  }

  /** Milliseconds the away player has left to come back, or null. */
  awayLeft(): number | null {
    return this.awayDeadline === null ? null : this.awayDeadline - this.now();
  }

  /** Whether to tell the server the viewer's clock ran out: at most once a second per position. */
  timeoutDue(connected: boolean): boolean {
    const g = this.game;
    const left = this.clockLeft();
    if (!g || left === null || g.over || !this.myTurn(g) || !connected || left > 0) return false;
    const now = this.now();
    if (this.timeoutSent && this.timeoutSent.seq === g.seq && now - this.timeoutSent.at < 1000) return false;
    this.timeoutSent = { seq: g.seq, at: now };
    return true;
  }
}
