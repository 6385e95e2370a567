import { describe, expect, it } from "vitest";
import {
  Connection, REQUEST_TIMEOUT_MS, RequestError, acceptGameFrame, backoffDelay, isDeviceToken, socketUrl, type SocketLike,
} from "../../src/network/protocol";
import type { ServerFrame } from "../../src/network/types";
import { emptyStats, makeGame, makeStats } from "../fixtures";

class FakeSocket implements SocketLike {
  readyState = 0;
  sent: Record<string, unknown>[] = [];
  closed = false;
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: unknown) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  constructor(readonly url: string) {}
  send(data: string) {
    this.sent.push(JSON.parse(data));
  }
  close() {
    this.closed = true;
    this.readyState = 3;
  }
  open() {
    this.readyState = 1;
    this.onopen?.({});
  }
  receive(frame: ServerFrame) {
    this.onmessage?.({ data: JSON.stringify(frame) });
  }
  drop() {
    this.readyState = 3;
    this.onclose?.({});
  }
}

function harness(device: string | null = "D".repeat(43)) {
  const sockets: FakeSocket[] = [];
  const timers: { fn: () => void; ms: number; id: number }[] = [];
  let nextTimer = 1;
  const conn = new Connection({
    url: "ws://example.test/ws",
    device,
    createSocket: (url) => {
      const s = new FakeSocket(url);
      sockets.push(s);
      return s;
    },
    setTimer: (fn, ms) => {
      const t = { fn, ms, id: nextTimer++ };
      timers.push(t);
      return t.id;
    },
    clearTimer: (id) => {
      const i = timers.findIndex((t) => t.id === id);
      if (i >= 0) timers.splice(i, 1);
    },
  });
  const events: string[] = [];
  conn.on({
    game: (g, action, kind) => events.push(`${kind}:${g.seq}${action ? ":" + JSON.stringify(action) : ""}`),
    saved: (s) => events.push(`saved:${s ? s.game : "null"}`),
    error: (code) => events.push(`error:${code}`),
    status: (s) => events.push(`status:${s}`),
    stats: (f) => events.push(`stats:${f.overview.games}`),
    device: (token) => events.push(`device:${token}`),
    pending: (shown) => events.push(`pending:${shown}`),
  });
  const last = () => sockets[sockets.length - 1];
  const welcome = (s = last(), token = conn.device ?? "I".repeat(43)) =>
    s.receive({ type: "welcome", device: token, saved: null, server_time: 1 });
  const runTimer = (ms?: number) => {
    const i = timers.findIndex((t) => ms === undefined || t.ms === ms);
    const [t] = timers.splice(i, 1);
    t.fn();
    return t.ms;
  };
  return { conn, sockets, timers, events, last, welcome, runTimer };
}

const update = (seq: number, action: Record<string, unknown> = { draw: ["h", 0, 0], by: 1 }): ServerFrame => ({
  type: "update",
  seq,
  action,
  changes: { set: { seq } },
});

describe("accepting game frames", () => {
  const sync = { gameId: "g_test", seq: 4 };
  const game = makeGame({ seq: 4 });

  it("takes a whole state whatever its seq", () => {
    expect(acceptGameFrame(sync, { type: "state", seq: 1, game: makeGame({ seq: 1 }) }, game).kind).toBe("apply");
    expect(
      acceptGameFrame({ gameId: null, seq: 0 }, { type: "state", seq: 9, game: makeGame({ seq: 9 }) }, null).kind,
    ).toBe("apply");
  });

  it("applies the next update only, to the state before it", () => {
    const out = acceptGameFrame(sync, update(5), game);
    expect(out).toMatchObject({ kind: "apply", seq: 5 });
    expect(out.kind === "apply" && out.game).toEqual({ ...game, seq: 5 });
    expect(game.seq).toBe(4);
    expect(acceptGameFrame(sync, update(4), game).kind).toBe("ignore");
    expect(acceptGameFrame(sync, update(2), game).kind).toBe("ignore");
  });

  it("asks for a resync when updates are missing", () => {
    expect(acceptGameFrame(sync, update(6), game).kind).toBe("resync");
    expect(acceptGameFrame(sync, update(40), game).kind).toBe("resync");
  });

  it("ignores updates before the followed game's state came or with no game on screen", () => {
    expect(acceptGameFrame(sync, update(5), makeGame({ game: "g_other", seq: 4 })).kind).toBe("ignore");
    expect(acceptGameFrame(sync, update(5), null).kind).toBe("ignore");
    expect(acceptGameFrame({ gameId: null, seq: 0 }, update(1), null).kind).toBe("ignore");
  });
});

describe("device token and address", () => {
  it("knows a stored token from something else", () => {
    expect(isDeviceToken("Ab-_".repeat(10) + "xyz")).toBe(true);
    expect(isDeviceToken(null)).toBe(false);
    expect(isDeviceToken("short")).toBe(false);
    expect(isDeviceToken("x".repeat(65))).toBe(false);
    expect(isDeviceToken("bad token with spaces!!")).toBe(false);
  });

  it("uses the page's host and a secure socket on https", () => {
    expect(socketUrl({ protocol: "http:", host: "127.0.0.1:8000" })).toBe("ws://127.0.0.1:8000/ws");
    expect(socketUrl({ protocol: "https:", host: "boxed.example" })).toBe("wss://boxed.example/ws");
  });
});

describe("the connection", () => {
  it("says hello first with the device token", () => {
    const h = harness();
    h.conn.connect();
    h.last().open();
    expect(h.last().sent).toEqual([{ type: "hello", device: "D".repeat(43) }]);
    expect(h.conn.isOpen).toBe(false);
    h.welcome();
    expect(h.conn.isOpen).toBe(true);
    expect(h.events).toContain("status:open");
    expect(h.events.some((e) => e.startsWith("device:"))).toBe(false);
  });

  it("on a first visit says hello with no token, and keeps the one the server issues", () => {
    const h = harness(null);
    h.conn.connect();
    h.last().open();
    expect(h.last().sent).toEqual([{ type: "hello" }]);
    h.welcome(h.last(), "T".repeat(43));
    expect(h.events).toContain(`device:${"T".repeat(43)}`);
    h.last().drop();
    h.runTimer();
    h.last().open();
    expect(h.last().sent).toEqual([{ type: "hello", device: "T".repeat(43) }]);
  });

  it("drops the game it followed when the server replaces a token it did not issue", () => {
    const h = harness("M".repeat(32));
    h.conn.sync = { gameId: "g_old", seq: 4 };
    h.conn.connect();
    h.last().open();
    expect(h.last().sent).toEqual([{ type: "hello", device: "M".repeat(32), game: "g_old", seq: 4 }]);
    h.welcome(h.last(), "N".repeat(43));
    expect(h.conn.device).toBe("N".repeat(43));
    expect(h.conn.sync.gameId).toBeNull();
    expect(h.events).toContain(`device:${"N".repeat(43)}`);
  });

  it("sends nothing before the welcome and nothing while closed", () => {
    const h = harness();
    h.conn.connect();
    expect(h.conn.newGame({ mode: "classic" })).toBeNull();
    h.last().open();
    expect(h.conn.newGame({ mode: "classic" })).toBeNull();
    h.welcome();
    const id = h.conn.newGame({ mode: "mini", level: "easy" });
    expect(id).not.toBeNull();
    expect(h.last().sent.at(-1)).toEqual({ type: "new_game", mode: "mini", level: "easy", id });
  });

  it("applies updates in order and names the last seq in actions", () => {
    const h = harness();
    h.conn.connect();
    h.last().open();
    h.welcome();
    h.last().receive({ type: "state", seq: 3, game: makeGame({ seq: 3 }) });
    h.last().receive(update(4));
    h.last().receive(update(4)); // a repeat is ignored
    expect(h.events.filter((e) => e.startsWith("state") || e.startsWith("update"))).toEqual([
      "state:3",
      'update:4:{"draw":["h",0,0],"by":1}',
    ]);
    h.conn.act("draw", ["v", 1, 2]);
    expect(h.last().sent.at(-1)).toMatchObject({ type: "draw", game: "g_test", seq: 4, edge: ["v", 1, 2] });
    h.conn.act("roll");
    expect(h.last().sent.at(-1)).toMatchObject({ type: "roll", game: "g_test", seq: 4 });
  });

  it("reconnects on a gap and resumes from the last applied seq", () => {
    const h = harness();
    h.conn.connect();
    h.last().open();
    h.welcome();
    h.last().receive({ type: "state", seq: 3, game: makeGame({ seq: 3 }) });
    const first = h.last();
    first.receive(update(6)); // 4 and 5 are missing
    expect(first.closed).toBe(true);
    expect(h.sockets).toHaveLength(2);
    h.last().open();
    expect(h.last().sent[0]).toEqual({ type: "hello", device: "D".repeat(43), game: "g_test", seq: 3 });
    h.welcome();
    h.last().receive(update(4));
    h.last().receive(update(5));
    h.last().receive(update(6));
    expect(h.conn.sync).toEqual({ gameId: "g_test", seq: 6 });
    // Frames from the dropped socket no longer count.
    first.receive(update(7));
    expect(h.conn.sync.seq).toBe(6);
  });

  it("reconnects after a drop with a growing delay, and resets it once welcomed", () => {
    const h = harness();
    h.conn.connect();
    h.last().open();
    h.welcome();
    h.last().receive({ type: "state", seq: 8, game: makeGame({ seq: 8 }) });
    const pings = () => h.timers.filter((t) => t.ms === 10000).length;
    expect(pings()).toBe(1);
    h.last().drop();
    expect(h.conn.status).toBe("reconnecting");
    expect(pings()).toBe(0);
    const delays: number[] = [];
    for (let i = 0; i < 14; i++) {
      delays.push(h.runTimer());
      h.last().drop(); // the server is still away
    }
    expect(delays).toEqual([...Array(8).fill(250), 500, 1000, 2000, 4000, 8000, 8000]);
    h.runTimer();
    h.last().open();
    expect(h.last().sent[0]).toMatchObject({ type: "hello", game: "g_test", seq: 8 });
    h.welcome();
    expect(h.conn.status).toBe("open");
    h.last().drop();
    expect(h.runTimer()).toBe(250);
  });

  it("moves once to another gateway after the delay a stopping gateway gives, with no backoff", () => {
    const h = harness();
    h.conn.connect();
    h.last().open();
    h.welcome();
    h.last().receive({ type: "state", seq: 8, game: makeGame({ seq: 8 }) });
    const old = h.last();
    old.receive({ type: "reconnect", after: 2.5 });
    old.receive({ type: "reconnect", after: 0.1 }); // said again: still one move, at the first time
    expect(h.sockets).toHaveLength(1);
    expect(h.timers.filter((t) => t.ms === 100)).toHaveLength(0);
    old.receive(update(9)); // until then the connection works as ever
    expect(h.conn.sync.seq).toBe(9);
    expect(h.runTimer(2500)).toBe(2500);
    expect(old.closed).toBe(true);
    expect(h.sockets).toHaveLength(2);
    h.last().open();
    expect(h.last().sent[0]).toEqual({ type: "hello", device: "D".repeat(43), game: "g_test", seq: 9 });
    h.welcome();
    expect(h.conn.status).toBe("open");
    // The move was no failure: a drop now waits the first quick retry, as any first drop does.
    h.last().drop();
    expect(h.runTimer()).toBe(250);
  });

  it("moves at once when the stopping gateway closes before the delay is up", () => {
    const h = harness();
    h.conn.connect();
    h.last().open();
    h.welcome();
    h.last().receive({ type: "reconnect", after: 9 });
    h.last().drop();
    expect(h.sockets).toHaveLength(2);
    expect(h.timers.filter((t) => t.ms === 9000)).toHaveLength(0);
    h.last().open();
    h.welcome();
    expect(h.conn.status).toBe("open");
  });

  it("resyncs when an action was stale or the server is ahead", () => {
    const h = harness();
    h.conn.connect();
    h.last().open();
    h.welcome();
    h.last().receive({ type: "state", seq: 2, game: makeGame({ seq: 2 }) });
    h.last().receive({ type: "error", code: "stale", message: "moved on", seq: 3 });
    expect(h.sockets).toHaveLength(2);
    expect(h.events).toContain("error:stale");
    h.last().open();
    h.welcome();
    h.last().receive({ type: "error", code: "edge_taken", message: "taken", seq: 2 });
    expect(h.sockets).toHaveLength(2); // same seq: nothing missed
  });

  it("reports the saved game and forgets a game that left the screen", () => {
    const h = harness();
    h.conn.connect();
    h.last().open();
    h.last().receive({ type: "welcome", device: "D".repeat(43), saved: { game: "g_s", mode: "classic", overlap: null, opponent: "ai", level: "normal", scores: [3, 5], round: 4, updated: 1 }, server_time: 1 });
    expect(h.conn.saved?.game).toBe("g_s");
    expect(h.events).toContain("saved:g_s");
    h.last().receive({ type: "state", seq: 1, game: makeGame({ seq: 1 }) });
    h.conn.leaveGame();
    h.last().receive(update(2));
    expect(h.conn.game).toBeNull();
    h.last().drop();
    h.runTimer();
    h.last().open();
    expect(h.last().sent[0]).toEqual({ type: "hello", device: "D".repeat(43) });
    h.last().receive({ type: "saved", saved: null });
    expect(h.conn.saved).toBeNull();
  });

  it("sends visibility only for a running game", () => {
    const h = harness();
    h.conn.connect();
    h.last().open();
    h.welcome();
    h.conn.visibility(false);
    expect(h.last().sent.some((f) => f.type === "visibility")).toBe(false);
    h.last().receive({ type: "state", seq: 1, game: makeGame({ seq: 1, clock: 20 }) });
    h.conn.visibility(false);
    expect(h.last().sent.at(-1)).toMatchObject({ type: "visibility", game: "g_test", visible: false });
  });

  it("tries again every quarter second for two seconds, then backs off from half a second to eight", () => {
    expect([0, 1, 7].map(backoffDelay)).toEqual([250, 250, 250]);
    expect([8, 9, 10, 11, 12, 13, 20].map(backoffDelay)).toEqual([500, 1000, 2000, 4000, 8000, 8000, 8000]);
  });
});

describe("statistics requests", () => {
  const settled = () => new Promise((resolve) => setTimeout(resolve, 0));
  const open = () => {
    const h = harness();
    h.conn.connect();
    h.last().open();
    h.welcome();
    return h;
  };

  it("asks for the statistics and takes the stats frame that answers", async () => {
    const h = open();
    const got = h.conn.stats();
    const sent = h.last().sent.at(-1)!;
    expect(sent).toEqual({ type: "stats", id: expect.any(String) });
    expect(h.conn.pendingCount).toBe(1);
    h.last().receive({ ...makeStats(), reply_to: sent.id as string });
    const frame = await got;
    expect(frame.overview.games).toBe(12);
    expect(frame.leaderboards.all[0].scores).toEqual([31, 18]);
    expect(frame.achievements[2].unlocked_at).toBeNull();
    expect(h.conn.pendingCount).toBe(0);
    expect(h.events).toContain("stats:12"); // and the listeners hear it (the app keeps a copy)
    expect(h.timers.some((t) => t.ms === REQUEST_TIMEOUT_MS)).toBe(false); // its timer is gone
  });

  it("hands a stats frame answering nobody to the listeners only", () => {
    const h = open();
    const pending = h.conn.stats();
    h.last().receive(makeStats({ reply_to: "someone-else" }));
    h.last().receive(makeStats());
    expect(h.events.filter((e) => e.startsWith("stats:"))).toEqual(["stats:12", "stats:12"]);
    expect(h.conn.pendingCount).toBe(1);
    void pending.catch(() => undefined);
  });

  it("asks what a game meant and ignores replies of the wrong type", async () => {
    const h = open();
    const got = h.conn.gameResult("g_42");
    const sent = h.last().sent.at(-1)!;
    expect(sent).toMatchObject({ type: "game_result", game: "g_42" });
    h.last().receive({ type: "ack", reply_to: sent.id as string }); // not what was asked for
    expect(h.conn.pendingCount).toBe(1);
    h.last().receive({
      type: "result",
      game: "g_42",
      leaderboard: { points: 189, mode: "classic", place: 2, all_place: 5, sentence: "189 points: place 2 on your Classic leaderboard." },
      achievements: [],
      reply_to: sent.id as string,
    });
    const frame = await got;
    expect(frame.leaderboard?.sentence).toBe("189 points: place 2 on your Classic leaderboard.");
  });

  it("discards the saved game and settles only when the server's saved reply comes", async () => {
    const h = open();
    let done = false;
    const got = h.conn.discard().then((f) => {
      done = true;
      return f;
    });
    const sent = h.last().sent.at(-1)!;
    expect(sent).toEqual({ type: "discard", id: expect.any(String) });
    await settled();
    expect(done).toBe(false); // a reload now could still find the game: the menu keeps its card
    h.last().receive({ type: "saved", saved: null, reply_to: sent.id as string });
    expect((await got).saved).toBeNull();
    expect(h.conn.pendingCount).toBe(0);
  });

  it("rejects on the server's error without telling the error listeners", async () => {
    const h = open();
    const got = h.conn.gameResult("g_gone");
    const id = h.last().sent.at(-1)!.id as string;
    h.last().receive({ type: "error", code: "no_game", message: "That game was not counted.", reply_to: id });
    await expect(got).rejects.toMatchObject({ code: "no_game", message: "That game was not counted." });
    expect(h.events).not.toContain("error:no_game");
    // An error answering no request still reaches them.
    h.last().receive({ type: "error", code: "bad_message", message: "?", reply_to: "c999" });
    expect(h.events).toContain("error:bad_message");
  });

  it("rejects at once when not connected, and when the connection drops or times out", async () => {
    const h = harness();
    h.conn.connect();
    await expect(h.conn.stats()).rejects.toBeInstanceOf(RequestError);
    await expect(h.conn.stats()).rejects.toMatchObject({ code: "offline" });
    h.last().open();
    h.welcome();
    const dropped = h.conn.stats();
    h.last().drop();
    await expect(dropped).rejects.toMatchObject({ code: "disconnected" });
    expect(h.conn.pendingCount).toBe(0);
    h.runTimer(500);
    h.last().open();
    h.welcome();
    const slow = h.conn.gameResult("g_1");
    h.runTimer(REQUEST_TIMEOUT_MS);
    await expect(slow).rejects.toMatchObject({ code: "timeout" });
    expect(h.conn.pendingCount).toBe(0);
  });

  it("resets in two steps: a token, then the reset with it, ending with the empty statistics", async () => {
    const h = open();
    const done = h.conn.resetStats();
    const first = h.last().sent.at(-1)!;
    expect(first).toEqual({ type: "reset_stats", id: expect.any(String) });
    h.last().receive({ type: "reset_confirm", token: "tok-123", expires_in: 60, reply_to: first.id as string });
    await settled(); // the second step goes out once the token is in
    const second = h.last().sent.at(-1)!;
    expect(second).toEqual({ type: "reset_stats", token: "tok-123", id: expect.any(String) });
    expect(second.id).not.toBe(first.id);
    h.last().receive({ ...emptyStats(), reply_to: second.id as string });
    const stats = await done;
    expect(stats.overview.games).toBe(0);
    expect(stats.overview.biggest_margin).toBeNull();
    expect(h.events).toContain("stats:0");
  });

  it("stops a reset whose token is refused", async () => {
    const h = open();
    const done = h.conn.resetStats();
    h.last().receive({ type: "reset_confirm", token: "old", expires_in: 60, reply_to: h.last().sent.at(-1)!.id as string });
    await settled();
    const second = h.last().sent.at(-1)!;
    expect(second.token).toBe("old");
    h.last().receive({ type: "error", code: "bad_token", message: "The confirmation has expired.", reply_to: second.id as string });
    await expect(done).rejects.toMatchObject({ code: "bad_token" });
    expect(h.events).not.toContain("stats:0");
  });
});

describe("online play", () => {
  const open = () => {
    const h = harness();
    const online: string[] = [];
    h.conn.on({ online: (f) => online.push(f.type) });
    h.conn.connect();
    h.last().open();
    h.welcome();
    return { ...h, online };
  };
  const onlineGame = (seq: number, game = "g_online") =>
    makeGame({
      game,
      seq,
      opponent: "online",
      level: null,
      players: [{ name: "Ada", kind: "human" }, { name: "Bo", kind: "human" }],
      online: {
        move_limit: 0, move_remaining_ms: null, connected: [true, true], away_remaining_ms: [null, null], forfeit: null,
        rematch: [false, false], declined: null, next_game: null, via: "room",
      },
    });

  it("sends the online frames with ids", () => {
    const h = open();
    h.conn.onlineMenu(true);
    h.conn.findMatch("mini", "Ada");
    h.conn.cancelMatch();
    h.conn.createRoom("strategic", "consume", "Ada");
    h.conn.createRoom("mini", null, "Ada");
    h.conn.closeRoom();
    h.conn.joinRoom("ABCDEF", "Ada");
    h.conn.leaveOnline("g_1");
    h.conn.rematch("g_1", true);
    const sent = h.last().sent.slice(1).map(({ id, ...rest }) => (expect(id).toEqual(expect.any(String)), rest));
    expect(sent).toEqual([
      { type: "online_menu", open: true },
      { type: "find_match", mode: "mini", name: "Ada" },
      { type: "cancel_match" },
      { type: "create_room", mode: "strategic", overlap: "consume", name: "Ada" },
      { type: "create_room", mode: "mini", name: "Ada" },
      { type: "close_room" },
      { type: "join_room", code: "ABCDEF", name: "Ada" },
      { type: "leave", game: "g_1" },
      { type: "rematch", game: "g_1", want: true },
    ]);
  });

  it("passes the online frames on", () => {
    const h = open();
    h.last().receive({ type: "online_status", game: null, room: null, waiting: null });
    h.last().receive({ type: "presence", players_online: 3, modes: { mini: { waiting: true, games_now: 1, popular: false } } });
    h.last().receive({ type: "match_waiting", mode: "mini" });
    h.last().receive({ type: "match_cancelled", cancelled: true });
    h.last().receive({ type: "room", code: "ABCDEF", mode: "mini", overlap: null, expires_in: 1800 });
    h.last().receive({ type: "room_closed", code: "ABCDEF" });
    expect(h.online).toEqual(["online_status", "presence", "match_waiting", "match_cancelled", "room", "room_closed"]);
  });

  it("follows the matched game: its state is taken, the old game's updates are not", () => {
    const h = open();
    h.last().receive({ type: "state", seq: 7, game: onlineGame(7, "g_old") });
    h.last().receive({ type: "matched", game: "g_new", seat: 2, via: "rematch" });
    expect(h.conn.online).toEqual({ game: "g_new", seat: 2, via: "rematch" });
    expect(h.conn.game).toBeNull();
    h.last().receive({ type: "update", seq: 8, action: { rematch: true, by: 1 }, changes: { set: { seq: 8 } } });
    expect(h.events.filter((e) => e.startsWith("update"))).toEqual([]);
    h.last().receive({ type: "state", seq: 0, game: onlineGame(0, "g_new") });
    expect(h.conn.sync).toEqual({ gameId: "g_new", seq: 0 });
    h.last().receive({ type: "update", seq: 1, action: { connected: false, by: 1 }, changes: { set: { seq: 1 } } });
    expect(h.events.at(-1)).toBe('update:1:{"connected":false,"by":1}');
    expect(h.online).toEqual(["matched"]);
  });

  it("names the matched game without a seq until its state came, then with it", () => {
    const h = open();
    h.last().receive({ type: "matched", game: "g_new", seat: 1, via: "room" });
    h.last().drop();
    h.runTimer();
    h.last().open();
    expect(h.last().sent[0]).toEqual({ type: "hello", device: h.conn.device, game: "g_new" });
    h.welcome();
    h.last().receive({ type: "state", seq: 4, game: onlineGame(4, "g_new") });
    h.last().drop();
    h.runTimer();
    h.last().open();
    expect(h.last().sent[0]).toEqual({ type: "hello", device: h.conn.device, game: "g_new", seq: 4 });
  });

  it("keeps the game when matched names the game already followed", () => {
    const h = open();
    h.last().receive({ type: "matched", game: "g_on", seat: 1, via: "find_match" });
    h.last().receive({ type: "state", seq: 3, game: onlineGame(3, "g_on") });
    h.last().receive({ type: "matched", game: "g_on", seat: 1, via: "find_match" });
    expect(h.conn.sync).toEqual({ gameId: "g_on", seq: 3 });
    expect(h.conn.game?.seq).toBe(3);
  });

  it("sends no visibility for an online game, and forgets the seat when leaving it", () => {
    const h = open();
    h.last().receive({ type: "matched", game: "g_on", seat: 2, via: "room" });
    h.last().receive({ type: "state", seq: 0, game: onlineGame(0, "g_on") });
    const before = h.last().sent.length;
    h.conn.visibility(false);
    expect(h.last().sent.length).toBe(before);
    h.conn.leaveGame();
    expect(h.conn.online).toBeNull();
  });
});

describe("a connection that died without a word", () => {
  it("connects again when two pings in a row go unanswered", () => {
    const h = harness();
    h.conn.connect();
    h.last().open();
    h.welcome();
    const first = h.last();
    h.runTimer(10000);
    expect(first.sent[first.sent.length - 1]).toEqual({ type: "ping" });
    first.receive({ type: "pong" });
    h.runTimer(10000); // answered: another ping
    h.runTimer(10000); // the last one unanswered: one more chance
    expect(h.sockets).toHaveLength(1);
    h.runTimer(10000); // two unanswered: the connection is dead
    expect(h.sockets).toHaveLength(2);
    expect(first.closed).toBe(true);
    expect(h.conn.status).toBe("reconnecting");
  });

  it("connects again when no welcome comes", () => {
    const h = harness();
    h.conn.connect();
    h.last().open();
    h.runTimer(20000);
    expect(h.sockets).toHaveLength(2);
  });

  it("shows an unanswered action as pending, then sends it again with its id after connecting again", () => {
    const h = harness();
    h.conn.connect();
    h.last().open();
    h.welcome();
    h.last().receive({ type: "state", seq: 8, game: makeGame({ seq: 8 }) });
    const id = h.conn.act("roll");
    expect(id).not.toBeNull();
    expect(h.conn.unansweredCount).toBe(1);
    h.runTimer(1000);
    expect(h.events).toContain("pending:true");
    h.runTimer(4000);
    expect(h.sockets).toHaveLength(2);
    h.last().open();
    expect(h.last().sent[0]).toMatchObject({ type: "hello", game: "g_test", seq: 8 });
    h.welcome();
    expect(h.last().sent).toContainEqual({ type: "roll", game: "g_test", seq: 8, id });
    h.last().receive(update(9, { roll: 3, by: 1 }));
    expect(h.conn.unansweredCount).toBe(0);
    expect(h.events.indexOf("pending:false")).toBeGreaterThan(h.events.indexOf("pending:true"));
  });

  it("takes an ack or an error naming the action as its answer", () => {
    const h = harness();
    h.conn.connect();
    h.last().open();
    h.welcome();
    h.last().receive({ type: "state", seq: 8, game: makeGame({ seq: 8 }) });
    const roll = h.conn.act("roll");
    const draw = h.conn.act("draw", ["h", 0, 0]);
    h.last().receive({ type: "ack", reply_to: roll ?? "", seq: 9 });
    expect(h.conn.unansweredCount).toBe(1);
    h.last().receive({ type: "error", code: "edge_taken", message: "taken", reply_to: draw ?? "" });
    expect(h.conn.unansweredCount).toBe(0);
    expect(h.events).not.toContain("pending:true");
  });
});

describe("watching a game by its link (docs/protocol.md, Watching)", () => {
  it("watches once welcomed, and again after a reconnect, saying hello without the game", () => {
    const { conn, last, welcome } = harness();
    conn.connect();
    conn.watch("W".repeat(24));
    last().open();
    welcome();
    expect(last().sent.map((f) => f.type)).toEqual(["hello", "watch"]);
    expect(last().sent[1].watch).toBe("W".repeat(24));
    last().receive({ type: "watched", game: "g1", watch: "W".repeat(24) });
    last().receive({ type: "state", seq: 3, game: makeGame({ game: "g1", seq: 3 }) });
    last().receive({ type: "watching", game: "g1", count: 2 });
    expect(conn.sync).toEqual({ gameId: "g1", seq: 3 });
    expect(conn.watchers).toBe(2);
    last().drop();
    conn.connect();
    last().open();
    expect(last().sent[0]).toEqual({ type: "hello", device: "D".repeat(43) }); // no game: no player of it
    welcome();
    expect(last().sent[1].type).toBe("watch");
  });

  it("leaving the watched game unwatches it on the server", () => {
    const { conn, last, welcome } = harness();
    conn.connect();
    last().open();
    welcome();
    conn.watch("W".repeat(24));
    conn.leaveGame();
    expect(last().sent.slice(-2).map((f) => f.type)).toEqual(["watch", "unwatch"]);
    expect(conn.watching).toBeNull();
  });
});
