// The websocket connection to the gateway (docs/protocol.md): hello, sequence numbers,
// reconnecting with backoff, and resuming from the last applied seq.

import type {
  EdgeRef, GameState, MatchVia, NewGameOptions, OnlineFrame, PlayerNo, ResetConfirmFrame, ResultFrame, ReviewFrame,
  RunningOnlineFrame, SavedFrame, SavedSummary, ServerFrame, StatsFrame, WatchFrame,
} from "./types";
import { applyChanges } from "./delta";
import type { ClientFrame, Draw, Play } from "../generated/client_frames";
import { DEVICE_TOKEN } from "../generated/facts";

// --- sequence numbers (pure, unit-tested) ---------------------------------------------------

export interface SyncState {
  gameId: string | null;
  seq: number;
}

export type Outcome =
  | { kind: "apply"; game: GameState; seq: number; action?: Record<string, unknown> }
  | { kind: "ignore" }
  | { kind: "resync" };

/**
 * What to do with a `state` or `update` frame. A state is the whole game and is always taken;
 * an update carries only what changed, so it is applied to `game` (the state at `sync.seq`) and
 * taken only when its seq follows the last applied one exactly. An older or repeated update is
 * ignored; a gap means frames were missed, so the client must resync.
 */
export function acceptGameFrame(sync: SyncState, frame: ServerFrame, game: GameState | null): Outcome {
  if (frame.type === "state") return { kind: "apply", game: frame.game, seq: frame.seq };
  if (frame.type !== "update") return { kind: "ignore" };
  // No game on screen, or not yet the state of the followed one: its state comes next.
  if (sync.gameId === null || game === null || game.game !== sync.gameId) return { kind: "ignore" };
  if (frame.seq <= sync.seq) return { kind: "ignore" };
  if (frame.seq === sync.seq + 1) {
    return { kind: "apply", game: applyChanges(game, frame.changes), seq: frame.seq, action: frame.action };
  }
  return { kind: "resync" };
}

/** Attempts, in a row, made QUICK_RETRY_MS apart: a gateway restarted after a crash is back within
 * about 2 s, and a player should not then wait out a long pause. */
const QUICK_RETRIES = 8;
const QUICK_RETRY_MS = 250;

/** Reconnect delay for the n-th attempt in a row (0-based): 0.25 s for the first 2 s, then 0.5 s
 * doubling to 8 s. */
export function backoffDelay(attempt: number): number {
  if (attempt < QUICK_RETRIES) return QUICK_RETRY_MS;
  return Math.min(8000, 500 * 2 ** (attempt - QUICK_RETRIES));
}

/** Whether a stored value looks like a device token (the server issues them; see `welcome`). */
export function isDeviceToken(s: unknown): s is string {
  return typeof s === "string" && DEVICE_TOKEN.test(s);
}

export function socketUrl(loc: { protocol: string; host: string }): string {
  return `${loc.protocol === "https:" ? "wss" : "ws"}://${loc.host}/ws`;
}

// --- the connection ------------------------------------------------------------------------

export interface SocketLike {
  readyState: number;
  send(data: string): void;
  close(): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  onerror: ((ev: unknown) => void) | null;
}

export type ConnStatus = "connecting" | "open" | "reconnecting";

/** Why a request got no reply: the server's error (its code and sentence), or the connection. */
export class RequestError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "RequestError";
  }
}

/** The server frames that answer a request, by the request's type. */
export interface Replies {
  running_online: RunningOnlineFrame;
  stats: StatsFrame;
  game_result: ResultFrame;
  review: ReviewFrame;
  reset_stats: StatsFrame | ResetConfirmFrame;
  discard: SavedFrame;
}

const REPLY_TYPES: Record<keyof Replies, readonly ServerFrame["type"][]> = {
  running_online: ["running_online"],
  stats: ["stats"],
  game_result: ["result"],
  review: ["review"],
  reset_stats: ["reset_confirm", "stats"],
  discard: ["saved"],
};

/** How long a request waits for its reply (game_result: the server itself waits up to 5 s). */
export const REQUEST_TIMEOUT_MS = 15000;

interface Pending {
  types: readonly ServerFrame["type"][];
  resolve(frame: ServerFrame): void;
  reject(err: RequestError): void;
  timer: unknown;
}

export interface ConnectionEvents {
  game?(game: GameState, action: Record<string, unknown> | undefined, frame: "state" | "update"): void;
  saved?(saved: SavedSummary | null): void;
  /** An error frame; errors that answer a request() go to its promise instead. */
  error?(code: string, message: string, replyTo: string | number | undefined): void;
  status?(status: ConnStatus): void;
  /** Every stats frame (a reply to stats or reset_stats), e.g. to keep a copy. */
  stats?(frame: StatsFrame): void;
  /** Every review frame: the reply to `review`, then one each time more turns are analysed. */
  review?(frame: ReviewFrame): void;
  /** A frame of online play (online_status, presence, match_waiting, match_cancelled, room,
   * room_closed, matched); after `matched` the connection follows the new game. */
  online?(frame: OnlineFrame): void;
  /** A frame of watching (docs/protocol.md, Watching): watch_link (a player's link), watched
   * (this connection now watches the game; its state follows), watching (how many watch). */
  watch?(frame: WatchFrame): void;
  /** The server issued this device a token (its first hello, or one the server did not issue
   * was replaced): keep it for the next visit. */
  device?(token: string): void;
  /** An action went unanswered for a moment (true), or every action has its answer (false). */
  pending?(shown: boolean): void;
}

/** The online game this device plays, as `matched` said: its id, the device's seat and how the
 * players met. */
export interface OnlineSeat {
  game: string;
  seat: PlayerNo;
  via: MatchVia;
}

const ONLINE_FRAMES: ReadonlySet<string> = new Set([
  "online_status", "presence", "match_waiting", "match_cancelled", "room", "room_closed", "matched",
]);

export interface ConnectionOptions {
  url: string;
  /** The token the server issued this device before; null on its first visit. */
  device: string | null;
  createSocket?: (url: string) => SocketLike;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (t: unknown) => void;
  /** How often the client pings; two pings in a row unanswered (20 s by default) mean the
   * connection died without a word, and it connects again. */
  pingMs?: number;
  /** An action unanswered this long shows as pending; one unanswered for answerMs makes the
   * client connect again and send it again with the same id (docs/protocol.md). */
  pendingMs?: number;
  answerMs?: number;
}

/** An action sent and not yet answered (by its update, an error or an ack). */
interface Unanswered {
  frame: Record<string, unknown>;
  game: string;
  seq: number;
}

const OPEN = 1;

export class Connection {
  device: string | null;
  status: ConnStatus = "connecting";
  sync: SyncState = { gameId: null, seq: 0 };
  game: GameState | null = null;
  saved: SavedSummary | null = null;
  /** The online game followed (set by `matched`), or null. */
  online: OnlineSeat | null = null;
  /** The watch id of the game this connection watches (it then acts in nothing), or null. */
  watching: string | null = null;
  /** How many watch the online game followed, as the server last said. */
  watchers = 0;
  welcomed = false;
  private ws: SocketLike | null = null;
  private attempt = 0;
  private retryTimer: unknown = null;
  private pingTimer: unknown = null;
  private helloTimer: unknown = null;
  private answerTimer: unknown = null;
  /** The gateway said it is going away (a `reconnect` frame): the socket it was said on, and
   * when this client moves to another replica. */
  private leaving: { ws: SocketLike; timer: unknown } | null = null;
  /** Pings sent since the server was last heard from. */
  private unansweredPings = 0;
  private readonly unanswered = new Map<string, Unanswered>();
  /** Whether the page shows an action as pending. */
  pendingShown = false;
  private nextId = 1;
  /** Ids unique to this page, so that an action sent again (docs/protocol.md, Actions sent again)
   * is never taken for another tab's. */
  private readonly idPrefix = `c${Math.random().toString(36).slice(2, 8)}-`;
  private readonly pending = new Map<string, Pending>();
  private readonly listeners = new Set<ConnectionEvents>();
  private readonly opts: Required<Omit<ConnectionOptions, "createSocket">> & { createSocket: (url: string) => SocketLike };

  constructor(opts: ConnectionOptions) {
    this.device = opts.device;
    this.opts = {
      url: opts.url,
      device: opts.device,
      createSocket: opts.createSocket ?? ((url) => new WebSocket(url) as unknown as SocketLike),
      setTimer: opts.setTimer ?? ((fn, ms) => setTimeout(fn, ms)),
      clearTimer: opts.clearTimer ?? ((t) => clearTimeout(t as ReturnType<typeof setTimeout>)),
      pingMs: opts.pingMs ?? 10000,
      pendingMs: opts.pendingMs ?? 1000,
      answerMs: opts.answerMs ?? 5000,
    };
  }

  on(events: ConnectionEvents): () => void {
    this.listeners.add(events);
    return () => this.listeners.delete(events);
  }

  private emit<K extends keyof ConnectionEvents>(key: K, ...args: Parameters<NonNullable<ConnectionEvents[K]>>): void {
    for (const l of [...this.listeners]) {
      const fn = l[key] as ((...a: unknown[]) => void) | undefined;
      fn?.(...args);
    }
  }

  private setStatus(s: ConnStatus): void {
    if (this.status === s) return;
    this.status = s;
    this.emit("status", s);
  }

  connect(): void {
    this.opts.clearTimer(this.retryTimer);
    this.retryTimer = null;
    const ws = this.opts.createSocket(this.opts.url);
    this.ws = ws;
    this.welcomed = false;
    // No welcome as long as two pings would take: the socket is as good as dead.
    this.opts.clearTimer(this.helloTimer);
    this.helloTimer = this.opts.setTimer(() => {
      this.helloTimer = null;
      if (this.ws === ws && !this.welcomed) this.resync();
    }, 2 * this.opts.pingMs);
    ws.onopen = () => {
      if (this.ws !== ws) return;
      const hello: Record<string, unknown> = { type: "hello" };
      if (this.device !== null) hello.device = this.device;
      // A watcher says hello without the game (it is no player of it) and watches again after.
      if (this.sync.gameId && this.watching === null) {
        hello.game = this.sync.gameId;
        // seq -1: a game matched whose first state has not come yet (the server sends it).
        if (this.sync.seq >= 0) hello.seq = this.sync.seq;
      }
      ws.send(JSON.stringify(hello));
    };
    ws.onmessage = (ev) => {
      if (this.ws !== ws) return;
      this.unansweredPings = 0;
      let frame: ServerFrame;
      try {
        frame = JSON.parse(String(ev.data));
      } catch {
        return;
      }
      this.handle(frame);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.stopPing();
      this.opts.clearTimer(this.helloTimer);
      this.helloTimer = null;
      this.failPending("disconnected", "The connection was lost.");
      if (this.leaving?.ws === ws) {
        // Closed by the stopping gateway before our own time to move: move now, no failure.
        this.moveNow();
        return;
      }
      this.scheduleReconnect();
    };
    ws.onerror = () => {
      /* onclose follows */
    };
  }

  /** A `reconnect` frame: this socket's gateway is stopping. Once, after the delay it gives, the
   * client connects again through the same address (another replica answers) and goes on from
   * the last applied seq; a move planned is no connection failure, so the backoff does not grow. */
  private moveLater(seconds: number): void {
    const ws = this.ws;
    if (ws === null || this.leaving?.ws === ws) return;
    const timer = this.opts.setTimer(() => {
      if (this.leaving?.ws === ws) this.moveNow();
    }, Math.max(0, seconds * 1000));
    this.leaving = { ws, timer };
  }

  private moveNow(): void {
    if (this.leaving) this.opts.clearTimer(this.leaving.timer);
    const ws = this.leaving?.ws;
    this.leaving = null;
    if (ws !== undefined && this.ws === ws) {
      this.resync();
    } else if (this.ws === null) {
      this.setStatus("reconnecting");
      this.connect();
    }
  }

  private scheduleReconnect(): void {
    this.setStatus("reconnecting");
    const delay = backoffDelay(this.attempt);
    this.attempt += 1;
    this.opts.clearTimer(this.retryTimer);
    this.retryTimer = this.opts.setTimer(() => this.connect(), delay);
  }

  /** Drops the socket and connects again at once, naming the game and the last applied seq. */
  resync(): void {
    const old = this.ws;
    this.ws = null;
    this.stopPing();
    this.opts.clearTimer(this.helloTimer);
    this.helloTimer = null;
    this.failPending("disconnected", "The connection was lost.");
    if (old) {
      old.onclose = null;
      old.onmessage = null;
      try {
        old.close();
      } catch {
        /* already closed */
      }
    }
    this.setStatus("reconnecting");
    this.connect();
  }

  private startPing(): void {
    this.stopPing();
    this.unansweredPings = 0;
    const tick = () => {
      this.pingTimer = null;
      if (this.unansweredPings >= 2) {
        // Nothing heard for two pings (a connection that died without a word): connect again.
        this.resync();
        return;
      }
      this.unansweredPings += 1;
      this.send({ type: "ping" });
      this.pingTimer = this.opts.setTimer(tick, this.opts.pingMs);
    };
    this.pingTimer = this.opts.setTimer(tick, this.opts.pingMs);
  }

  private stopPing(): void {
    if (this.pingTimer !== null) this.opts.clearTimer(this.pingTimer);
    this.pingTimer = null;
  }

  /** Handles one server frame (public for tests). */
  handle(frame: ServerFrame): void {
    if (this.settle(frame)) return;
    switch (frame.type) {
      case "welcome":
        if (frame.device !== this.device) {
          // A new token: no game of the old one (if any) can be followed with it.
          if (this.device !== null) this.sync = { gameId: null, seq: 0 };
          this.device = frame.device;
          this.emit("device", frame.device);
        }
        this.welcomed = true;
        this.attempt = 0;
        this.opts.clearTimer(this.helloTimer);
        this.helloTimer = null;
        this.saved = frame.saved;
        this.setStatus("open");
        this.startPing();
        this.emit("saved", frame.saved);
        if (this.watching !== null) this.send({ type: "watch", watch: this.watching });
        this.sendAgain();
        return;
      case "state":
      case "update": {
        const out = acceptGameFrame(this.sync, frame, this.game);
        if (out.kind === "resync") {
          this.resync();
          return;
        }
        if (out.kind === "ignore") return;
        this.sync = { gameId: out.game.game, seq: out.seq };
        this.game = out.game;
        this.answeredBy(out.game.game, out.seq);
        this.emit("game", out.game, out.action, frame.type);
        return;
      }
      case "saved":
        this.saved = frame.saved;
        this.emit("saved", frame.saved);
        return;
      case "ack":
        if (frame.reply_to !== undefined) this.answered(String(frame.reply_to));
        return;
      case "error":
        if (frame.reply_to !== undefined) this.answered(String(frame.reply_to));
        // An error about a game that has moved on means we missed frames: fetch them.
        if (frame.code === "stale" || (typeof frame.seq === "number" && this.sync.gameId && frame.seq > this.sync.seq)) {
          this.resync();
        }
        this.emit("error", frame.code, frame.message, frame.reply_to);
        return;
      case "stats":
        this.emit("stats", frame);
        return;
      case "reconnect":
        this.moveLater(frame.after);
        return;
      case "review":
        this.emit("review", frame);
        return;
      case "matched":
        // The new game's state follows: updates of the game on screen before it are not for us.
        this.online = { game: frame.game, seat: frame.seat, via: frame.via };
        if (this.sync.gameId !== frame.game || !this.game) {
          this.sync = { gameId: frame.game, seq: -1 };
          this.game = null;
        }
        this.emit("online", frame);
        return;
      case "watched":
        // The game's state follows; whatever was on screen before is not this game.
        this.sync = { gameId: frame.game, seq: -1 };
        this.game = null;
        this.online = null;
        this.emit("watch", frame);
        return;
      case "watching":
        if (frame.game === this.sync.gameId) this.watchers = frame.count;
        this.emit("watch", frame);
        return;
      case "watch_link":
        this.emit("watch", frame);
        return;
      default:
        if (ONLINE_FRAMES.has(frame.type)) this.emit("online", frame as OnlineFrame);
        return;
    }
  }

  /**
   * Settles the request a frame answers (by its reply_to). A reply of the expected type resolves
   * it and is then handled as usual (a stats reply still reaches the stats listeners); an error
   * rejects it and goes no further, so the caller alone decides whether to show it.
   */
  private settle(frame: ServerFrame): boolean {
    const replyTo = "reply_to" in frame ? frame.reply_to : undefined;
    if (replyTo === undefined) return false;
    const p = this.pending.get(String(replyTo));
    if (!p) return false;
    if (frame.type === "error") {
      this.forget(String(replyTo));
      p.reject(new RequestError(frame.code, frame.message));
      return true;
    }
    if (!p.types.includes(frame.type)) return false;
    this.forget(String(replyTo));
    p.resolve(frame);
    return false;
  }

  private forget(id: string): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    this.opts.clearTimer(p.timer);
  }

  private failPending(code: string, message: string): void {
    for (const [id, p] of [...this.pending]) {
      this.forget(id);
      p.reject(new RequestError(code, message));
    }
  }

  /** Requests waiting for their reply (for tests). */
  get pendingCount(): number {
    return this.pending.size;
  }

  /**
   * Sends a frame and waits for the reply that names its id. Rejects with a RequestError: the
   * server's error, "offline" when not connected, "disconnected" when the connection drops
   * first, "timeout" after REQUEST_TIMEOUT_MS.
   */
  request<K extends keyof Replies>(type: K, fields: Record<string, unknown> = {}, timeoutMs = REQUEST_TIMEOUT_MS): Promise<Replies[K]> {
    return new Promise<Replies[K]>((resolve, reject) => {
      const id = this.send({ type, ...fields });
      if (id === null) {
        reject(new RequestError("offline", "Not connected — reconnecting…"));
        return;
      }
      const timer = this.opts.setTimer(() => {
        if (!this.pending.has(id)) return;
        this.forget(id);
        reject(new RequestError("timeout", "The server did not answer in time."));
      }, timeoutMs);
      this.pending.set(id, { types: REPLY_TYPES[type], resolve: resolve as (f: ServerFrame) => void, reject, timer });
    });
  }

  /** The device's running online game, for the menu to offer it back (asking changes nothing). */
  runningOnline(): Promise<RunningOnlineFrame> {
    return this.request("running_online");
  }

  /** The device's statistics, achievements and leaderboard. */
  stats(): Promise<StatsFrame> {
    return this.request("stats");
  }

  /** What a finished game meant: its leaderboard line and the achievements it unlocked. */
  gameResult(game: string): Promise<ResultFrame> {
    return this.request("game_result", { game });
  }

  /** Asks for a finished game's review; more review frames follow while it is under way. */
  review(game: string): Promise<ReviewFrame> {
    return this.request("review", { game });
  }

  /** The first step of a reset: a confirmation token, valid for a minute. */
  async resetToken(): Promise<ResetConfirmFrame> {
    const frame = await this.request("reset_stats");
    if (frame.type !== "reset_confirm") throw new RequestError("unexpected", "The server did not ask to confirm the reset.");
    return frame;
  }

  /** The second step: erases the statistics; resolves with the empty statistics. */
  async confirmReset(token: string): Promise<StatsFrame> {
    const frame = await this.request("reset_stats", { token });
    if (frame.type !== "stats") throw new RequestError("unexpected", "The server did not send the statistics.");
    return frame;
  }

  /** Both steps of a reset, once the player has confirmed it. */
  async resetStats(): Promise<StatsFrame> {
    const { token } = await this.resetToken();
    return this.confirmReset(token);
  }

  get isOpen(): boolean {
    return this.welcomed && this.ws !== null && this.ws.readyState === OPEN;
  }

  /** Sends a frame (of a type the server takes) with a fresh id; returns the id, or null when not connected. */
  send(frame: Record<string, unknown> & { type: ClientFrame["type"] }): string | null {
    if (!this.ws || this.ws.readyState !== OPEN || (!this.welcomed && frame.type !== "hello")) return null;
    const id = `${this.idPrefix}${this.nextId++}`;
    const withId = frame.type === "ping" ? frame : { ...frame, id };
    this.ws.send(JSON.stringify(withId));
    return id;
  }

  /** A game action, naming the game and the last seq seen so a stale click is refused. */
  act(type: Play["type"]): string | null;
  act(type: Draw["type"], edge: EdgeRef): string | null;
  act(type: Play["type"] | Draw["type"], edge?: EdgeRef): string | null {
    if (!this.sync.gameId) return null;
    const frame: Record<string, unknown> & { type: ClientFrame["type"] } = { type, game: this.sync.gameId, seq: this.sync.seq };
    if (edge) frame.edge = edge;
    const id = this.send(frame);
    if (id !== null) {
      this.unanswered.set(id, { frame: { ...frame, id }, game: this.sync.gameId, seq: this.sync.seq });
      if (this.answerTimer === null) this.watchAnswers();
    }
    return id;
  }

  /** Actions sent and not yet answered (for tests). */
  get unansweredCount(): number {
    return this.unanswered.size;
  }

  /** Shows an action unanswered for pendingMs as pending; one unanswered for answerMs means the
   * connection is not working: connect again (the action is sent again after the welcome). */
  private watchAnswers(): void {
    this.answerTimer = this.opts.setTimer(() => {
      if (this.unanswered.size === 0) {
        this.answerTimer = null;
        return;
      }
      this.setPendingShown(true);
      this.answerTimer = this.opts.setTimer(() => {
        this.answerTimer = null;
        if (this.unanswered.size > 0) this.resync();
      }, Math.max(0, this.opts.answerMs - this.opts.pendingMs));
    }, this.opts.pendingMs);
  }

  /** After a welcome: each action of the game followed that got no answer goes again, with its
   * id, so the server answers it instead of applying it twice. Others are forgotten. */
  private sendAgain(): void {
    for (const [id, action] of [...this.unanswered]) {
      if (action.game !== this.sync.gameId || !this.ws) {
        this.unanswered.delete(id);
        continue;
      }
      this.ws.send(JSON.stringify(action.frame));
    }
    if (this.unanswered.size === 0) this.setPendingShown(false);
    else if (this.answerTimer === null) this.watchAnswers();
  }

  private answered(id: string): void {
    if (this.unanswered.delete(id) && this.unanswered.size === 0) this.settleAnswers();
  }

  /** An update or state of ``game`` at ``seq``: every action sent at an earlier seq has had its
   * answer (it made this change, or the game moved on and the server said so). */
  private answeredBy(game: string, seq: number): void {
    let changed = false;
    for (const [id, action] of [...this.unanswered]) {
      if (action.game === game && action.seq < seq) changed = this.unanswered.delete(id) || changed;
    }
    if (changed && this.unanswered.size === 0) this.settleAnswers();
  }

  private settleAnswers(): void {
    this.opts.clearTimer(this.answerTimer);
    this.answerTimer = null;
    this.setPendingShown(false);
  }

  private setPendingShown(shown: boolean): void {
    if (this.pendingShown === shown) return;
    this.pendingShown = shown;
    this.emit("pending", shown);
  }

  visibility(visible: boolean): void {
    // An online game has no move clock to stop: its move limit runs on while it is hidden.
    if (!this.sync.gameId || !this.game || this.game.over || this.game.opponent === "online") return;
    this.send({ type: "visibility", game: this.sync.gameId, visible });
  }

  newGame(options: NewGameOptions): string | null {
    return this.send({ type: "new_game", ...options });
  }

  resume(aiSpeed?: "normal" | "fast"): string | null {
    return this.send(aiSpeed ? { type: "resume", ai_speed: aiSpeed } : { type: "resume" });
  }

  /** Deletes the device's saved game; resolves once the server has (its `saved` reply, with null),
   * so a reload straight after cannot find the game still there. */
  discard(): Promise<SavedFrame> {
    return this.request("discard");
  }

  /** Forgets the game on screen (the menu shows none); its next hello names no game. A watched
   * game is left on the server too. */
  leaveGame(): void {
    if (this.watching !== null) {
      this.watching = null;
      this.send({ type: "unwatch" });
    }
    this.watchers = 0;
    this.sync = { gameId: null, seq: 0 };
    this.game = null;
    this.online = null;
    this.unanswered.clear();
    this.settleAnswers();
  }

  // --- online play (docs/protocol.md, "Online play") -----------------------------------------

  /** The online menu came on screen (the server then sends online_status and presence) or left it. */
  onlineMenu(open: boolean): string | null {
    return this.send({ type: "online_menu", open });
  }

  findMatch(mode: string, name: string): string | null {
    return this.send({ type: "find_match", mode, name });
  }

  cancelMatch(): string | null {
    return this.send({ type: "cancel_match" });
  }

  createRoom(mode: string, overlap: string | null, name: string): string | null {
    return this.send(overlap ? { type: "create_room", mode, overlap, name } : { type: "create_room", mode, name });
  }

  closeRoom(): string | null {
    return this.send({ type: "close_room" });
  }

  joinRoom(code: string, name: string): string | null {
    return this.send({ type: "join_room", code, name });
  }

  /** Leaves an online game: a running one is given to the other player, after one it declines a
   * rematch. */
  leaveOnline(game: string): string | null {
    return this.send({ type: "leave", game });
  }

  rematch(game: string, want: boolean): string | null {
    return this.send({ type: "rematch", game, want });
  }

  // --- watching (docs/protocol.md, "Watching") ---------------------------------------------------

  /** Asks for the watch link of an online game the device plays (answered by watch_link). */
  shareWatch(game: string): string | null {
    return this.send({ type: "watch_link", game });
  }

  /** Watches the game a watch link leads to, from now on and after every reconnect. */
  watch(watchId: string): string | null {
    this.leaveGame();
    this.watching = watchId;
    return this.send({ type: "watch", watch: watchId });
  }
}
