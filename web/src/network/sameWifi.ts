// Where the page is and where its Same Wi-Fi app is (GET /same-wifi, docs/protocol.md): a
// `boxedin lan` serves the page itself (`here`), or a game server does and may name this
// machine's `boxedin lan`. The page of a `boxedin lan` shows only what works there: Same Wi-Fi
// and the screens that need no game server (state/sameWifi.ts: the link between the two).

export interface SameWifiPlace {
  /** The page is served by a `boxedin lan`: there is no game server behind it. */
  here: boolean;
  /** The Same Wi-Fi app the game server names (on the machine it runs on), or null. */
  url: string | null;
}

/** A game server that names no Same Wi-Fi app (or an answer that cannot be read). */
export const GAME_SERVER: SameWifiPlace = { here: false, url: null };

/** The answer of GET /same-wifi, read defensively: anything unexpected is a plain game server. */
export function readPlace(answer: unknown): SameWifiPlace {
  if (!answer || typeof answer !== "object") return GAME_SERVER;
  const a = answer as { here?: unknown; url?: unknown };
  return { here: a.here === true, url: typeof a.url === "string" && a.url ? a.url : null };
}

export async function askPlace(fetcher: (path: string) => Promise<Response> = (p) => fetch(p)): Promise<SameWifiPlace> {
  try {
    const reply = await fetcher("/same-wifi");
    return reply.ok ? readPlace(await reply.json()) : GAME_SERVER;
  } catch {
    return GAME_SERVER;
  }
}
