// The online menu: the player's name, Play with Friends (Create Room, Join Room), Find Match with
// the marks of where a game is easy to get, and the screens that wait for the other player. When
// the game starts (`matched`) the app shows it (app.ts).

import type { App, Screen } from "../app";
import { modeInfo, modeName, overlapName } from "../state/catalog";
import { h, tabs, toast } from "./dom";
import { modeCards, type ModeChoice } from "./modePicker";
import {
  CODE_LENGTH, ONLINE_MODES, checkName, codeProblem, loadFinished, modeMarks, mostPlayed, normaliseCode,
  playersOnlineText,
} from "../state/online";
import { onlineErrorText } from "../state/texts";
import { sameWifiLink } from "../state/sameWifi";
import { sameWifiNeeds } from "./lanView";
import type { OnlineFrame, OpenRoom } from "../network/types";

type View = "name" | "home" | "create" | "room" | "waiting" | "resuming";

const NOT_CONNECTED = "Not connected — reconnecting…";

export function mountOnline(app: App, root: HTMLElement): Screen {
  let view: View = app.onlineName ? "home" : "name";
  let nameBack: View = "home";
  let nameError: string | null = null;
  let room: OpenRoom | null = null;
  let waitingMode: string | null = null;
  let createChoice: ModeChoice = defaultChoice(app.menu.mode, app.menu.overlap);
  let joinCode = "";
  // Errors shown where they belong, until the next try.
  let joinError: string | null = null;
  let findError: string | null = null;
  let createError: string | null = null;
  let notice: string | null = null;
  let menuOpen = false;
  // Play with Friends: the room tab (Create Room, Join Room) or the Same Wi-Fi tab.
  let friendsTab: "room" | "wifi" = "room";
  let alive = true;
  const mine = new Map<string, "find" | "join" | "create" | "cancel" | "close" | "menu">();
  const offs: (() => void)[] = [];

  const screen = h("div", { class: "screen online-screen" });
  root.append(screen);
  // Filled by the home view; the presence figures update them in place (typing is not disturbed).
  let playersLine: HTMLElement | null = null;
  let matchList: HTMLElement | null = null;

  /** Sends a request whose errors this screen shows itself. */
  function track(id: string | null, what: "find" | "join" | "create" | "cancel" | "close" | "menu"): boolean {
    if (id === null) {
      toast(NOT_CONNECTED);
      return false;
    }
    mine.set(id, what);
    app.claimed.add(id);
    return true;
  }

  function openMenu(): void {
    if (menuOpen || !app.conn.isOpen) return;
    menuOpen = track(app.conn.onlineMenu(true), "menu");
  }

  function show(next: View): void {
    view = next;
    render();
  }

  // --- the views ------------------------------------------------------------------------------
  function topbar(title: string, back: { label: string; onClick(): void }, end?: HTMLElement | null): HTMLElement {
    return h(
      "header",
      { class: "topbar" },
      h("button", { type: "button", class: "icon-btn online-back", "aria-label": back.label, onclick: back.onClick }, "←"),
      h("h1", { class: "game-title" }, title),
      end ? h("div", { class: "topbar-end" }, end) : null,
    );
  }

  function render(): void {
    if (!alive) return;
    playersLine = null;
    matchList = null;
    screen.replaceChildren();
    screen.dataset.view = view;
    switch (view) {
      case "name":
        renderName();
        break;
      case "home":
        renderHome();
        break;
      case "create":
        renderCreate();
        break;
      case "room":
        renderRoom();
        break;
      case "waiting":
        renderWaiting();
        break;
      case "resuming":
        screen.append(
          topbar("Online", { label: "Back to menu", onClick: () => app.show("menu") }),
          h("div", { class: "online-body" }, h("p", { class: "online-wait", role: "status" }, "Taking you back to your game…")),
        );
        break;
    }
  }

  function renderName(): void {
    const first = !app.onlineName;
    const input = h("input", {
      id: "online-name",
      type: "text",
      value: app.onlineName ?? "",
      maxlength: "40",
      autocomplete: "nickname",
      spellcheck: "false",
      "aria-describedby": "online-name-help",
      "aria-invalid": nameError ? "true" : "false",
    });
    const error = h("p", { class: "form-error", id: "online-name-error", role: "alert" }, nameError ?? "");
    error.hidden = !nameError;
    const save = () => {
      const check = checkName(input.value);
      if (!check.ok) {
        nameError = check.error;
        render();
        (screen.querySelector("#online-name") as HTMLInputElement | null)?.focus();
        return;
      }
      nameError = null;
      app.setOnlineName(check.name);
      show(nameBack);
    };
    const back = () => {
      nameError = null;
      if (first) app.show("menu");
      else show(nameBack);
    };
    const form = h(
      "form",
      { class: "online-name-form", novalidate: true },
      h("label", { for: "online-name", class: "field-label" }, "Your name"),
      input,
      h("p", { id: "online-name-help", class: "muted" }, "1 to 20 characters: letters, digits, spaces, _ and -. The other player sees it."),
      error,
      h(
        "div",
        { class: "form-buttons" },
        first ? null : h("button", { type: "button", class: "btn", onclick: back }, "Cancel"),
        h("button", { type: "submit", class: "btn primary" }, first ? "Continue" : "Save name"),
      ),
    );
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      save();
    });
    screen.append(
      topbar(first ? "Online" : "Change name", { label: first ? "Back to menu" : "Back", onClick: back }),
      h(
        "div",
        { class: "online-body" },
        first ? h("p", { class: "intro" }, "Play somebody on another device. First, pick the name the other player will see.") : null,
        form,
      ),
    );
    setTimeout(() => input.focus(), 0);
  }

  function renderHome(): void {
    const nameBtn = h(
      "button",
      {
        type: "button",
        class: "chip name-chip",
        "aria-label": `Your name: ${app.onlineName ?? ""}. Change it`,
        onclick: () => {
          nameBack = "home";
          show("name");
        },
      },
      h("span", { class: "name-chip-label" }, "Name: "),
      h("span", { class: "name-chip-value" }, app.onlineName ?? ""),
    );
    playersLine = h("p", { class: "players-online" });

    const friends = renderFriends();

    const list = h("ul", { class: "match-list", "aria-label": "Find Match: game modes" });
    for (const info of ONLINE_MODES) {
      list.append(
        h(
          "li",
          {},
          h(
            "button",
            { type: "button", class: "match-mode", "data-mode": info.id, onclick: () => findMatch(info.id) },
            h("span", { class: "match-name" }, info.name),
            h("span", { class: "match-line" }, info.tagline),
            h("span", { class: "match-marks" }),
          ),
        ),
      );
    }
    matchList = list;
    const findErr = h("p", { class: "form-error find-error", role: "alert" }, findError ?? "");
    findErr.hidden = !findError;

    screen.append(
      topbar("Online", { label: "Back to menu", onClick: () => app.show("menu") }, nameBtn),
      h(
        "div",
        { class: "online-body" },
        playersLine,
        notice ? h("p", { class: "online-notice", role: "status" }, notice) : null,
        h("section", { class: "online-section", "aria-labelledby": "friends-h" }, h("h2", { id: "friends-h", class: "section-title" }, "Play with Friends"), friends),
        h(
          "section",
          { class: "online-section", "aria-labelledby": "match-h" },
          h("h2", { id: "match-h", class: "section-title" }, "Find Match"),
          h("p", { class: "muted" }, "Play the next player who looks for a game in the same mode, under its usual overlap rule. Every move has a two-minute limit."),
          findErr,
          list,
        ),
      ),
    );
    renderPresence();
  }

  function renderFriends(): HTMLElement {
    const input = h("input", {
      id: "room-code",
      type: "text",
      value: joinCode,
      maxlength: "16",
      autocomplete: "off",
      autocapitalize: "characters",
      spellcheck: "false",
      inputmode: "text",
      "aria-describedby": "room-code-error",
      "aria-invalid": joinError ? "true" : "false",
    });
    input.addEventListener("input", () => {
      joinCode = input.value;
    });
    const error = h("p", { class: "form-error", id: "room-code-error", role: "alert" }, joinError ?? "");
    error.hidden = !joinError;
    const form = h(
      "form",
      { class: "join-form", novalidate: true },
      h("label", { for: "room-code", class: "field-label" }, "Join Room"),
      h("div", { class: "join-row" }, input, h("button", { type: "submit", class: "btn primary" }, "Join")),
      error,
    );
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      joinRoom(input.value);
    });
    const roomPanel = h(
      "div",
      { class: "friends-panel" },
      h(
        "div",
        { class: "create-room" },
        h("p", { class: "muted" }, "Create a room, pick the game and pass its six-character code on: the game starts when your friend joins."),
        h(
          "button",
          {
            type: "button",
            class: "btn",
            onclick: () => {
              createError = null;
              show("create");
            },
          },
          "Create Room",
        ),
      ),
      form,
    );
    const place = app.place;
    const wifiPanel = h("div", { class: "friends-panel same-wifi" }, ...sameWifiNeeds(place ? sameWifiLink(place, location.hostname, app.onlineName) : null));
    return tabs({
      label: "Play with Friends",
      tabs: [
        { id: "room", label: "Room" },
        { id: "wifi", label: "Same Wi-Fi" },
      ],
      current: friendsTab,
      idPrefix: "friends",
      render: (id, panel) => panel.append(id === "wifi" ? wifiPanel : roomPanel),
      onChange: (id) => {
        friendsTab = id === "wifi" ? "wifi" : "room";
      },
    });
  }

  /** The players online and the marks of the modes, in place. */
  function renderPresence(): void {
    if (playersLine) {
      const p = app.presence;
      playersLine.textContent = !app.conn.isOpen ? NOT_CONNECTED : p ? playersOnlineText(p.players_online) : "Counting the players online…";
    }
    if (!matchList) return;
    const most = mostPlayed(loadFinished(app.store).counts);
    matchList.querySelectorAll<HTMLElement>(".match-mode").forEach((btn) => {
      const marks = modeMarks(btn.dataset.mode ?? "", app.conn.isOpen ? app.presence : null, most);
      const box = btn.querySelector(".match-marks")!;
      box.replaceChildren(...marks.map((m) => h("span", { class: `mark-badge ${markClass(m)}` }, m)));
    });
  }

  function renderCreate(): void {
    const list = modeCards({
      current: createChoice,
      modes: ONLINE_MODES,
      label: "Game for the room",
      onMode: (id) => {
        if (createChoice.mode === id) return;
        createChoice = defaultChoice(id, null);
        render();
        (screen.querySelector(`[data-focus-id="mode-${id}"]`) as HTMLElement | null)?.focus();
      },
      onOverlap: (v) => {
        if (v) createChoice = { ...createChoice, overlap: v };
        render();
        (screen.querySelector('[data-focus-id="overlap"]') as HTMLElement | null)?.focus();
      },
    });
    const err = h("p", { class: "form-error", role: "alert" }, createError ?? "");
    err.hidden = !createError;
    screen.append(
      topbar("Create Room", { label: "Back to the online menu", onClick: () => show("home") }),
      h(
        "div",
        { class: "online-body create-body" },
        h("p", { class: "intro" }, "Pick the game for your room; your friend plays it with you."),
        list,
        err,
        h(
          "div",
          { class: "play-bar" },
          h("div", { class: "play-summary", id: "room-summary" }, h("strong", {}, choiceLabel(createChoice)), h("span", {}, "Room for you and a friend")),
          h("button", { type: "button", class: "btn primary play-btn", "aria-describedby": "room-summary", onclick: createRoom }, "Create Room"),
        ),
      ),
    );
  }

  function renderRoom(): void {
    if (!room) {
      show("home");
      return;
    }
    const r = room;
    // Read out letter by letter; shown as one word.
    const chars = h("span", { class: "room-code-chars", "aria-hidden": "true" }, r.code);
    const code = h("p", { class: "room-code" }, chars, h("span", { class: "sr-only" }, `Room code: ${[...r.code].join(" ")}`));
    screen.append(
      topbar("Your room", { label: "Close the room and go back", onClick: closeRoom }),
      h(
        "div",
        { class: "online-body room-body" },
        h("p", {}, "Pass this code on to your friend. They enter it under Join Room, and the game starts."),
        h("div", { class: "room-code-box" }, code, h("button", { type: "button", class: "btn copy-btn", onclick: () => copyCode(r.code, chars) }, "Copy")),
        h("p", { class: "room-game" }, choiceLabel({ mode: r.mode, overlap: r.overlap })),
        h("p", { class: "online-wait", role: "status" }, "Waiting for your friend to join…"),
        h("p", { class: "muted" }, "The room stays open for 30 minutes, even if you lose the connection for a while."),
        h("div", { class: "form-buttons" }, h("button", { type: "button", class: "btn", onclick: closeRoom }, "Close room")),
      ),
    );
  }

  function renderWaiting(): void {
    const name = modeName(waitingMode ?? "");
    screen.append(
      topbar("Find Match", { label: "Stop looking and go back", onClick: cancelMatch }),
      h(
        "div",
        { class: "online-body waiting-body" },
        h("div", { class: "waiting-dots", "aria-hidden": "true" }, h("span", {}), h("span", {}), h("span", {})),
        h("p", { class: "online-wait", role: "status" }, `Looking for a player in ${name}…`),
        h("p", { class: "muted" }, `The game starts as soon as somebody else looks for a game in ${name}. Every move has a two-minute limit.`),
        h("div", { class: "form-buttons" }, h("button", { type: "button", class: "btn", onclick: cancelMatch }, "Cancel")),
      ),
    );
  }

  // --- actions --------------------------------------------------------------------------------
  function needName(): string | null {
    if (app.onlineName) return app.onlineName;
    nameBack = view;
    show("name");
    return null;
  }

  function findMatch(mode: string): void {
    const name = needName();
    if (!name) return;
    findError = null;
    notice = null;
    if (!track(app.conn.findMatch(mode, name), "find")) return;
    waitingMode = mode;
    show("waiting");
  }

  function cancelMatch(): void {
    if (!app.conn.isOpen) {
      // A dropped connection gave the place up already.
      waitingMode = null;
      show("home");
      return;
    }
    track(app.conn.cancelMatch(), "cancel");
  }

  function createRoom(): void {
    const name = needName();
    if (!name) return;
    createError = null;
    const info = modeInfo(createChoice.mode);
    track(app.conn.createRoom(createChoice.mode, info?.defaultOverlap ? createChoice.overlap : null, name), "create");
  }

  function closeRoom(): void {
    if (!app.conn.isOpen) {
      toast(NOT_CONNECTED);
      return;
    }
    track(app.conn.closeRoom(), "close");
  }

  function joinRoom(raw: string): void {
    const name = needName();
    if (!name) return;
    const problem = codeProblem(raw);
    const code = normaliseCode(raw);
    joinCode = code.length <= CODE_LENGTH ? code : raw;
    if (problem) {
      joinError = problem;
    } else if (track(app.conn.joinRoom(code, name), "join")) {
      joinError = null;
    }
    render();
    (screen.querySelector("#room-code") as HTMLInputElement | null)?.focus();
  }

  // --- the server's frames --------------------------------------------------------------------
  function onFrame(frame: OnlineFrame): void {
    switch (frame.type) {
      case "presence":
        renderPresence();
        return;
      case "online_status":
        if (frame.game) {
          show("resuming"); // `matched` and the game's state follow
        } else if (frame.room) {
          room = frame.room;
          if (view !== "create") show("room");
        } else if (frame.waiting) {
          waitingMode = frame.waiting;
          show("waiting");
        } else if (view === "room") {
          room = null;
          notice = "Your room has closed.";
          show("home");
        }
        return;
      case "room":
        room = { code: frame.code, mode: frame.mode, overlap: frame.overlap, expires_in: frame.expires_in };
        show("room");
        return;
      case "room_closed":
        room = null;
        if (view === "room") show("home");
        return;
      case "match_waiting":
        waitingMode = frame.mode;
        if (view !== "waiting") show("waiting");
        return;
      case "match_cancelled":
        if (frame.cancelled) {
          waitingMode = null;
          show("home");
        }
        // Not cancelled: too late, the game has started and `matched` comes.
        return;
      default:
        return;
    }
  }

  function onError(code: string, message: string, replyTo: string | number | undefined): void {
    const what = replyTo === undefined ? undefined : mine.get(String(replyTo));
    if (!what) return;
    const text = onlineErrorText(code, message);
    if (code === "bad_name") {
      nameError = text;
      nameBack = view === "waiting" ? "home" : view;
      show("name");
      return;
    }
    switch (what) {
      case "join":
        joinError = text;
        if (view === "home") {
          render();
          (screen.querySelector("#room-code") as HTMLInputElement | null)?.focus();
        }
        return;
      case "find":
        findError = text;
        waitingMode = null;
        show("home");
        return;
      case "create":
        createError = text;
        render();
        return;
      default:
        toast(text);
    }
  }

  offs.push(
    app.conn.on({
      online: onFrame,
      error: onError,
      status: (s) => {
        if (s !== "open") {
          // The server forgets the menu (and a place in a queue) with the connection.
          menuOpen = false;
          renderPresence();
          return;
        }
        openMenu();
        renderPresence();
        // A dropped connection gave the place in the queue up: look again.
        if (view === "waiting" && waitingMode && app.onlineName) track(app.conn.findMatch(waitingMode, app.onlineName), "find");
      },
    }),
  );

  render();
  openMenu();

  return {
    unmount() {
      alive = false;
      offs.forEach((f) => f());
      if (menuOpen && app.conn.isOpen) app.conn.onlineMenu(false);
      menuOpen = false;
    },
  };
}

function defaultChoice(mode: string, overlap: string | null): ModeChoice {
  const info = ONLINE_MODES.find((m) => m.id === mode) ?? ONLINE_MODES.find((m) => m.id === "classic")!;
  return { mode: info.id, overlap: info.defaultOverlap ? (overlap ?? info.defaultOverlap) : null };
}

function choiceLabel(c: ModeChoice): string {
  return modeName(c.mode) + (c.overlap ? ` · ${overlapName(c.overlap)}` : "");
}

function markClass(mark: string): string {
  if (mark.startsWith("Opponent")) return "mark-waiting";
  if (mark.startsWith("Games now")) return "mark-games";
  if (mark === "Popular") return "mark-popular";
  return "mark-mine";
}

/** Copies the room code: the clipboard API, else the older copy command, else it is selected for
 * the player to copy by hand. */
async function copyCode(code: string, shown: HTMLElement): Promise<void> {
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(code);
      toast("Code copied");
      return;
    }
  } catch {
    /* not allowed here: try the older way */
  }
  const area = h("textarea", { class: "sr-only", readonly: true, "aria-hidden": "true" });
  area.value = code;
  document.body.append(area);
  area.select();
  let copied = false;
  try {
    copied = document.execCommand("copy");
  } catch {
    copied = false;
  }
  area.remove();
  if (copied) {
    toast("Code copied");
    return;
  }
  const range = document.createRange();
  range.selectNodeContents(shown);
  const sel = window.getSelection();
  sel?.removeAllRanges();
  sel?.addRange(range);
  toast(`Copy the code by hand: ${code}`);
}

