// The way from a game server's page to this machine's Same Wi-Fi app (`boxedin lan`), which is
// another origin: the link, where it can lead to the player's own app, and what the app's page
// reads from it (the Same Wi-Fi screen, the player's name).

import type { SameWifiPlace } from "../network/sameWifi";
import { checkName } from "./online";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

export function isLoopback(hostname: string): boolean {
  return LOOPBACK.has(hostname.toLowerCase());
}

/**
 * The link from a game server's page to the Same Wi-Fi app it names, or null where the link
 * would not lead to the player's own `boxedin lan`. The app listens on the loopback of the machine
 * the game server runs on, so the link works only for a page opened on that same machine (its
 * address is a loopback one too); on a phone that reached the server from elsewhere it would point
 * at the phone itself. The link carries the player's name, which the other origin cannot read.
 */
export function sameWifiLink(place: SameWifiPlace, pageHostname: string, name: string | null): string | null {
  if (place.here || !place.url || !isLoopback(pageHostname)) return null;
  let target: URL;
  try {
    target = new URL(place.url);
  } catch {
    return null;
  }
  if (!isLoopback(target.hostname)) return null;
  target.hash = name ? `same-wifi?name=${encodeURIComponent(name)}` : "same-wifi";
  return target.toString();
}

/** What the page's address asks when another page's Same Wi-Fi tab opened it: the Same Wi-Fi
 * screen, and the name the player already chose there (null if none, or not a name). */
export function readSameWifiHash(hash: string): { open: boolean; name: string | null } {
  const [head, query = ""] = hash.replace(/^#/, "").split("?", 2);
  if (head !== "same-wifi") return { open: false, name: null };
  const raw = new URLSearchParams(query).get("name");
  const check = raw === null ? null : checkName(raw);
  return { open: true, name: check && check.ok ? check.name : null };
}
