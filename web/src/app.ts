// The application: settings, the connection, remembered menu choices and the screens.

import { Connection, isDeviceToken, socketUrl, type ConnStatus } from "./network/protocol";
import {
  effectiveDark, firstForServer, loadSettings, paletteVars, saveSettings, type KeyValueStore, type Settings,
} from "./state/settings";
import { isPractice } from "./state/catalog";
import { h, toast } from "./views/dom";
import type { GameState, Level, NewGameOptions, PresenceFrame, SavedSummary, StatsFrame } from "./network/types";
import { loadName, noteFinished, saveName } from "./state/online";
import { loadMenuChoices, saveMenuChoices, type MenuChoices, type PracticeChoices, loadPracticeChoices, savePracticeChoices } from "./state/choices";
import { GAME_SERVER, askPlace, type SameWifiPlace } from "./network/sameWifi";

export type ScreenName = "menu" | "game" | "settings" | "help" | "practice-setup" | "online" | "lan" | "watch" | StatsScreenName;

/** The watch id of a watch link's address (/watch/<id>, docs/protocol.md, Watching), or null. */
export function watchIdOf(path: string): string | null {
  const found = /^\/watch\/([A-Za-z0-9_-]{1,64})\/?$/.exec(path);
  return found ? found[1] : null;
}
export type StatsScreenName = "statistics" | "achievements" | "leaderboard";

export interface Screen {
  unmount(): void;
}

export type ScreenFactory = (app: App, root: HTMLElement) => Screen;

const DEVICE_KEY = "boxedin.device";
// A server that does not say within this time where the page is counts as a game server.
const PLACE_WAIT_MS = 3000;

function storage(): KeyValueStore | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

export class App {
  readonly store = storage();
  settings: Settings;
  menu: MenuChoices;
  practice: PracticeChoices;
  readonly conn: Connection;
  saved: SavedSummary | null = null;
  screenName: ScreenName = "menu";
  /** The last statistics the server sent (shown at once while fresh ones are asked for). */
  stats: StatsFrame | null = null;
  /** Where the back arrow of a statistics screen leads. */
  statsBack: Partial<Record<StatsScreenName, ScreenName>> = {};
  /** The player's name in online games (kept on the device), null before it is chosen. */
  onlineName: string | null;
  /** The last presence figures the server pushed (shown at once when the online menu opens). */
  presence: PresenceFrame | null = null;
  /** Where the page is (a game server's or a `boxedin lan`'s page), once its server said so. */
  place: SameWifiPlace | null = null;
  /** Ids of requests whose errors a screen shows itself (no toast). */
  readonly claimed = new Set<string>();
  private screen: Screen | null = null;
  private readonly root: HTMLElement;
  private readonly banner: HTMLElement;
  private readonly factories: Partial<Record<ScreenName, ScreenFactory>> = {};
  private media = window.matchMedia?.("(prefers-color-scheme: dark)");
  private everOpened = false;

  constructor(root: HTMLElement) {
    this.root = root;
    this.settings = loadSettings(this.store);
    this.menu = loadMenuChoices(this.store);
    this.practice = loadPracticeChoices(this.store);
    this.onlineName = loadName(this.store);
    this.applySettings();
    this.media?.addEventListener?.("change", () => this.applySettings());

    // The server issues the token on the first visit (welcome) and it is kept from then on.
    const stored = this.store?.getItem(DEVICE_KEY) ?? null;
    const device = isDeviceToken(stored) ? stored : null;
    this.banner = h("div", { class: "conn-banner", role: "status", "aria-live": "polite", hidden: true });
    document.body.prepend(this.banner);
    this.conn = new Connection({ url: socketUrl(location), device });
    this.conn.on({
      device: (token) => {
        try {
          this.store?.setItem(DEVICE_KEY, token);
        } catch {
          /* a device token for this visit only */
        }
      },
      saved: (saved) => {
        this.saved = saved;
      },
      status: (s) => this.showStatus(s),
      pending: () => this.showStatus(this.conn.status),
      stats: (frame) => {
        this.stats = frame;
      },
      error: (code, message, replyTo) => {
        if (code === "busy" || code === "stale") return;
        if (replyTo !== undefined && this.claimed.has(String(replyTo))) return;
        if (code === "no_watch" && this.screenName === "watch") return; // the watch screen says it
        toast(message || code);
        if (code === "no_game" && replyTo === undefined && this.conn.sync.gameId !== null) {
          // The game on screen is gone from the server (its data was lost): nothing to wait for.
          this.conn.leaveGame();
          if (this.screenName === "game") this.show("menu");
        }
      },
      online: (frame) => {
        if (frame.type === "presence") this.presence = frame;
        if (frame.type !== "matched") return;
        // An online game started (or the device has one running): it goes on screen at once.
        if (this.screenName === "game" && this.conn.game?.game === frame.game) return;
        this.pendingStart = null;
        this.show("game");
      },
      game: (g) => {
        // The device keeps count of the online games it finished, per mode (Your most played).
        if (g.opponent === "online" && g.over) noteFinished(this.store, g.game, g.mode);
      },
    });
  }

  setOnlineName(name: string): void {
    this.onlineName = name;
    saveName(this.store, name);
  }

  register(name: ScreenName, factory: ScreenFactory): void {
    this.factories[name] = factory;
  }

  /** Connects, and shows the first screen once the page's server said where the page is: a
   * `boxedin lan`'s page has a menu of its own, which must not flash the game server's first. */
  start(first: ScreenName = "menu"): void {
    this.conn.connect();
    this.showStatus("connecting");
    const watchId = watchIdOf(location.pathname);
    if (watchId !== null) {
      // Sent once the server welcomes the connection (and again after every reconnect); a watch
      // page is a game server's, and need not wait to learn where it is.
      this.conn.watch(watchId);
      this.show("watch");
    }
    const slow = new Promise<SameWifiPlace>((resolve) => setTimeout(() => resolve(GAME_SERVER), PLACE_WAIT_MS));
    void Promise.race([askPlace(), slow]).then((place) => {
      this.place = place;
      // (An online game that came on screen meanwhile stays there.)
      if (!this.screen) this.show(first);
      this.placeListeners.forEach((f) => f(place));
      this.placeListeners.clear();
    });
  }

  private readonly placeListeners = new Set<(place: SameWifiPlace) => void>();

  /** Calls `f` with the page's place: at once if known, else once its server said it. */
  whenPlaced(f: (place: SameWifiPlace) => void): void {
    if (this.place) f(this.place);
    else this.placeListeners.add(f);
  }

  /** The page is a `boxedin lan`'s: Same Wi-Fi only, no game server behind it. */
  get onLanApp(): boolean {
    return this.place?.here === true;
  }

  /** Where an online game is left for: the online menu, or on a `boxedin lan`'s page its Same
   * Wi-Fi screen. */
  get onlineHome(): "online" | "lan" {
    return this.onLanApp ? "lan" : "online";
  }

  show(name: ScreenName): void {
    this.screen?.unmount();
    this.screen = null;
    this.root.replaceChildren();
    this.screenName = name;
    const factory = this.factories[name];
    if (!factory) return;
    this.screen = factory(this, this.root);
    window.scrollTo(0, 0);
    if (!this.banner.hidden) this.showBanner(this.banner.textContent);
  }

  /** Shows Statistics, Achievements or the Leaderboard; its back arrow returns to `from`. */
  showStats(name: StatsScreenName, from: ScreenName): void {
    this.statsBack[name] = from;
    this.show(name);
  }

  private showStatus(s: ConnStatus): void {
    if (s === "open") {
      this.everOpened = true;
      document.body.classList.remove("offline");
      this.showBanner(this.conn.pendingShown ? "Sending your move…" : null);
      return;
    }
    this.showBanner(this.everOpened || s === "reconnecting" ? "Connection lost — reconnecting…" : "Connecting…");
    document.body.classList.add("offline");
  }

  /** The banner, just below the screen's top bar: it never covers the back arrow, the title,
   * the round or the clock. Null hides it. */
  private showBanner(text: string | null): void {
    this.banner.hidden = text === null;
    if (text === null) return;
    this.banner.textContent = text;
    const bar = this.root.querySelector(".topbar");
    const below = bar ? Math.max(0, bar.getBoundingClientRect().bottom) : 0;
    this.banner.style.top = `${Math.round(below)}px`;
  }

  updateSettings(next: Settings): void {
    this.settings = next;
    saveSettings(this.store, next);
    this.applySettings();
  }

  applySettings(): void {
    const s = this.settings;
    const dark = effectiveDark(s.theme, !!this.media?.matches);
    const root = document.documentElement;
    root.dataset.theme = dark ? "dark" : "light";
    root.style.colorScheme = dark ? "dark" : "light";
    for (const [k, v] of Object.entries(paletteVars(s, dark))) root.style.setProperty(k, v);
    document.body.classList.toggle("controls-right", s.controls === "right");
    document.body.classList.toggle("controls-left", s.controls !== "right");
    const meta = document.querySelector('meta[name="theme-color"]');
    meta?.setAttribute("content", getComputedStyle(root).getPropertyValue("--bg").trim() || (dark ? "#111" : "#fff"));
  }

  saveMenu(): void {
    saveMenuChoices(this.store, this.menu);
  }

  savePractice(): void {
    savePracticeChoices(this.store, this.practice);
  }

  /** The options of a new game from the menu's choices and the settings. */
  menuGameOptions(): NewGameOptions {
    const m = this.menu;
    const opts: NewGameOptions = {
      mode: m.mode,
      opponent: m.opponent,
      first: this.firstChoice(),
      clock: m.clock,
      ai_speed: this.settings.aiSpeed,
    };
    if (m.overlap) opts.overlap = m.overlap;
    if (m.opponent === "ai") opts.level = m.level as Level;
    return opts;
  }

  /** The same choices as a finished or running game (Play again). */
  againOptions(g: GameState): NewGameOptions {
    if (g.opponent === "practice" || isPractice(g.mode)) {
      return { mode: g.mode, opponent: g.opponent, seed: g.seed ?? undefined };
    }
    const opts: NewGameOptions = {
      mode: g.mode,
      opponent: g.opponent,
      first: this.firstChoice(),
      clock: g.clock,
      ai_speed: this.settings.aiSpeed,
    };
    if (g.overlap) opts.overlap = g.overlap;
    if (g.opponent === "ai" && g.level) opts.level = g.level;
    return opts;
  }

  firstChoice(): 1 | 2 | "random" {
    return firstForServer(this.settings.first);
  }

  /** Starts a game and shows the game screen, which waits for the server's state. */
  startGame(options: NewGameOptions): void {
    if (!this.conn.isOpen) {
      toast("Not connected — reconnecting…");
      return;
    }
    this.conn.leaveGame();
    const id = this.conn.newGame(options);
    if (!id) {
      toast("Not connected — reconnecting…");
      return;
    }
    this.pendingStart = id;
    this.show("game");
  }

  pendingStart: string | null = null;

  resumeSaved(): void {
    if (!this.conn.isOpen) {
      toast("Not connected — reconnecting…");
      return;
    }
    this.conn.leaveGame();
    const id = this.conn.resume(this.settings.aiSpeed);
    if (!id) return;
    this.pendingStart = id;
    this.show("game");
  }

  /** The saved-game summary of a game on screen that is not over (the server saves every move). */
  noteSavedFrom(g: GameState | null): void {
    // A practice game is kept apart on the server, and an online game is never saved on the
    // device: neither becomes the saved game.
    if (!g || isPractice(g.mode) || g.opponent === "online") return;
    if (g.over) {
      if (this.saved?.game === g.game) this.saved = null;
      return;
    }
    this.saved = {
      game: g.game,
      mode: g.mode,
      overlap: g.overlap,
      opponent: g.opponent,
      level: g.level,
      scores: g.scores,
      round: g.round,
      updated: Date.now() / 1000,
    };
  }
}
