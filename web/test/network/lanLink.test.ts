import { describe, expect, it } from "vitest";
import { LanLink, addressProblem, codeText, lanSocketUrl } from "../../src/network/lanLink";
import type { LanStatusFrame } from "../../src/network/types";

class FakeSocket {
  readyState = 0;
  sent: unknown[] = [];
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: unknown) => void) | null = null;
  send(data: string): void {
    this.sent.push(JSON.parse(data));
  }
  close(): void {
    this.readyState = 3;
    this.onclose?.({});
  }
  open(): void {
    this.readyState = 1;
    this.onopen?.({});
  }
  receive(frame: unknown): void {
    this.onmessage?.({ data: JSON.stringify(frame) });
  }
}

const STATUS: LanStatusFrame = {
  type: "lan_status",
  hosting: null,
  link: { role: "join", state: "code", code: "207114", name: "Ann" },
  games: [{ id: "h1", name: "Ann", mode: "mini", overlap: null, address: "10.0.0.2:47000" }],
};

describe("Same Wi-Fi link", () => {
  it("reads addresses and codes as the process does", () => {
    expect(addressProblem("192.168.1.20:47000")).toBeNull();
    expect(addressProblem("[fe80::1]:47000")).toBeNull();
    expect(addressProblem("")).toMatch(/Type the address/);
    expect(addressProblem("192.168.1.20")).toMatch(/address and port/);
    expect(addressProblem("host:70000")).toMatch(/address and port/);
    expect(codeText("207114")).toBe("207 114");
    expect(lanSocketUrl({ protocol: "http:", host: "127.0.0.1:8090" })).toBe("ws://127.0.0.1:8090/lan");
  });

  it("opens with lan_open, keeps the status and sends the player's choices", () => {
    const sockets: FakeSocket[] = [];
    const timers: (() => void)[] = [];
    const link = new LanLink("ws://x/lan", () => {
      const s = new FakeSocket();
      sockets.push(s);
      return s;
    }, (fn) => timers.push(fn));
    const seen: LanStatusFrame[] = [];
    link.on({ status: (f) => seen.push(f) });
    expect(link.host("mini", null, "Ann")).toBe(false); // not connected yet
    link.connect();
    sockets[0].open();
    expect(sockets[0].sent).toEqual([{ type: "lan_open" }]);
    sockets[0].receive(STATUS);
    expect(link.available).toBe(true);
    expect(seen).toEqual([STATUS]);
    sockets[0].receive({ type: "lan_closed", reason: "cancelled", message: "The host did not let you in." });
    expect(link.lastClosed?.reason).toBe("cancelled");
    expect(link.joinGame("h1", "Bob")).toBe(true);
    expect(link.lastClosed).toBeNull(); // acting again clears what ended the last link
    link.joinAddress(" 10.0.0.2:47000 ", "Bob");
    link.letIn();
    link.cancel();
    link.stop();
    expect(sockets[0].sent.slice(1)).toEqual([
      { type: "lan_join", game: "h1", name: "Bob" },
      { type: "lan_join", address: "10.0.0.2:47000", name: "Bob" },
      { type: "lan_let_in" },
      { type: "lan_cancel" },
      { type: "lan_stop" },
    ]);
    // The process restarting: the link connects again by itself.
    sockets[0].close();
    expect(timers).toHaveLength(1);
    timers[0]();
    expect(sockets).toHaveLength(2);
  });

  it("says when no Same Wi-Fi app serves the page", () => {
    const link = new LanLink("ws://x/lan", () => new FakeSocket());
    const said: boolean[] = [];
    link.on({ available: (yes) => said.push(yes) });
    link.markUnavailable();
    link.markUnavailable();
    expect(said).toEqual([false]);
  });
});
