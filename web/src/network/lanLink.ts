// Same Wi-Fi (the rule book, "On the same Wi-Fi"): the page's link to its own `boxedin lan`
// process, on /lan beside the game's /ws. The process does the work (finding games, the encrypted
// link, the host's game); the page only asks and shows. One link for the page: the game screen
// needs it too, to hear that the host closed the game.

import type { LanClosedFrame, LanStatusFrame } from "./types";

export function lanSocketUrl(loc: { protocol: string; host: string }): string {
  return `${loc.protocol === "https:" ? "wss" : "ws"}://${loc.host}/lan`;
}

/** Whether a typed address can be a host's: host:port, the port 1 to 65535. */
export function addressProblem(raw: string): string | null {
  const text = raw.trim();
  const at = text.lastIndexOf(":");
  if (!text) return "Type the address the host's screen shows, such as 192.168.1.20:47000.";
  const port = Number(text.slice(at + 1));
  if (at <= 0 || !/^\d+$/.test(text.slice(at + 1)) || port < 1 || port > 65535) {
    return "An address is the host's address and port, such as 192.168.1.20:47000.";
  }
  return null;
}

/** Six digits as they are read out: in two groups of three. */
export function codeText(code: string): string {
  return code.length === 6 ? `${code.slice(0, 3)} ${code.slice(3)}` : code;
}

export interface LanEvents {
  status?(frame: LanStatusFrame): void;
  closed?(frame: LanClosedFrame): void;
  error?(code: string, message: string): void;
  /** The process answered (true) or there is none to answer (false: not a `boxedin lan` page). */
  available?(available: boolean): void;
}

interface SocketLike {
  readyState: number;
  send(data: string): void;
  close(): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: unknown) => void) | null;
}

export class LanLink {
  status: LanStatusFrame | null = null;
  /** null until the process answered or the socket failed; false when no process serves /lan. */
  available: boolean | null = null;
  /** How the last link ended (the host quit, cancelled...), until the player acts again. */
  lastClosed: LanClosedFrame | null = null;
  private ws: SocketLike | null = null;
  private readonly listeners = new Set<LanEvents>();

  constructor(
    private readonly url: string,
    private readonly createSocket: (url: string) => SocketLike = (u) => new WebSocket(u) as unknown as SocketLike,
    private readonly setTimer: (fn: () => void, ms: number) => unknown = (fn, ms) => setTimeout(fn, ms),
  ) {}

  on(events: LanEvents): () => void {
    this.listeners.add(events);
    return () => this.listeners.delete(events);
  }

  private emit<K extends keyof LanEvents>(key: K, ...args: Parameters<NonNullable<LanEvents[K]>>): void {
    for (const l of [...this.listeners]) (l[key] as ((...a: unknown[]) => void) | undefined)?.(...args);
  }

  connect(): void {
    if (this.ws) return;
    const ws = this.createSocket(this.url);
    this.ws = ws;
    ws.onopen = () => {
      ws.send(JSON.stringify({ type: "lan_open" }));
    };
    ws.onmessage = (ev) => {
      let frame: { type?: string; [k: string]: unknown };
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
      // The page's own process restarting, say: it comes back on the same port.
      this.setTimer(() => this.connect(), 1000);
    };
  }

  /** No `boxedin lan` serves this page: the screen says how to get one. */
  markUnavailable(): void {
    if (this.available === false) return;
    this.available = false;
    this.emit("available", false);
  }

  /** Handles one frame of the process (public for tests). */
  handle(frame: { type?: string; [k: string]: unknown }): void {
    switch (frame.type) {
      case "lan_status":
        this.status = frame as unknown as LanStatusFrame;
        if (this.available !== true) {
          this.available = true;
          this.emit("available", true);
        }
        this.emit("status", this.status);
        return;
      case "lan_closed":
        this.lastClosed = frame as unknown as LanClosedFrame;
        this.emit("closed", this.lastClosed);
        return;
      case "error":
        this.emit("error", String(frame.code ?? ""), String(frame.message ?? ""));
        return;
      default:
        return;
    }
  }

  get isOpen(): boolean {
    return this.ws !== null && this.ws.readyState === 1;
  }

  private send(frame: Record<string, unknown>): boolean {
    if (!this.ws || this.ws.readyState !== 1) return false;
    this.lastClosed = null;
    this.ws.send(JSON.stringify(frame));
    return true;
  }

  host(mode: string, overlap: string | null, name: string): boolean {
    return this.send(overlap ? { type: "lan_host", mode, overlap, name } : { type: "lan_host", mode, name });
  }

  joinGame(game: string, name: string): boolean {
    return this.send({ type: "lan_join", game, name });
  }

  joinAddress(address: string, name: string): boolean {
    return this.send({ type: "lan_join", address: address.trim(), name });
  }

  letIn(): boolean {
    return this.send({ type: "lan_let_in" });
  }

  cancel(): boolean {
    return this.send({ type: "lan_cancel" });
  }

  /** Stops hosting (a running game is over for both) or leaves the host joined. */
  stop(): boolean {
    return this.send({ type: "lan_stop" });
  }
}
