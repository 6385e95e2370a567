import { describe, expect, it } from "vitest";
import { GAME_SERVER, askPlace, readPlace } from "../../src/network/sameWifi";
import { readSameWifiHash, sameWifiLink } from "../../src/state/sameWifi";

const NAMED = { here: false, url: "http://127.0.0.1:8090/#same-wifi" };

describe("where the Same Wi-Fi app is", () => {
  it("reads a boxedin lan's answer, a game server's, and anything else as a plain game server", () => {
    expect(readPlace({ here: true, url: null })).toEqual({ here: true, url: null });
    expect(readPlace({ url: NAMED.url })).toEqual(NAMED);
    expect(readPlace({ url: null })).toEqual(GAME_SERVER);
    expect(readPlace({ here: "yes", url: 8090 })).toEqual(GAME_SERVER);
    expect(readPlace(null)).toEqual(GAME_SERVER);
  });

  it("counts a server that cannot be asked as a game server", async () => {
    expect(await askPlace(() => Promise.reject(new Error("down")))).toEqual(GAME_SERVER);
    expect(await askPlace(() => Promise.resolve(new Response("no", { status: 404 })))).toEqual(GAME_SERVER);
    expect(await askPlace(() => Promise.resolve(Response.json({ here: true, url: null })))).toEqual({ here: true, url: null });
  });

  it("links to this machine's app only from a page opened on the same machine, with the player's name", () => {
    expect(sameWifiLink(NAMED, "127.0.0.1", "Ann Lee")).toBe("http://127.0.0.1:8090/#same-wifi?name=Ann%20Lee");
    expect(sameWifiLink(NAMED, "localhost", null)).toBe("http://127.0.0.1:8090/#same-wifi");
    // A phone that reached the game server from elsewhere: 127.0.0.1 would be the phone itself.
    expect(sameWifiLink(NAMED, "192.168.1.20", "Ann")).toBeNull();
    expect(sameWifiLink(NAMED, "boxedin.example", "Ann")).toBeNull();
    // Nothing named, the page is the app itself, or the name is no loopback address.
    expect(sameWifiLink(GAME_SERVER, "127.0.0.1", "Ann")).toBeNull();
    expect(sameWifiLink({ here: true, url: null }, "127.0.0.1", "Ann")).toBeNull();
    expect(sameWifiLink({ here: false, url: "http://10.0.0.5:8090/" }, "127.0.0.1", "Ann")).toBeNull();
    expect(sameWifiLink({ here: false, url: "not a url" }, "127.0.0.1", "Ann")).toBeNull();
  });

  it("opens the Same Wi-Fi screen from the link and takes the name only when it is one", () => {
    expect(readSameWifiHash("#same-wifi?name=Ann%20Lee")).toEqual({ open: true, name: "Ann Lee" });
    expect(readSameWifiHash("#same-wifi")).toEqual({ open: true, name: null });
    expect(readSameWifiHash("#same-wifi?name=%3Cb%3E")).toEqual({ open: true, name: null });
    expect(readSameWifiHash("#same-wifi?name=" + "x".repeat(21))).toEqual({ open: true, name: null });
    expect(readSameWifiHash("#help")).toEqual({ open: false, name: null });
    expect(readSameWifiHash("")).toEqual({ open: false, name: null });
  });
});
