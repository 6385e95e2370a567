// The Statistics (Overview and Details), Achievements and Leaderboard screens. Everything shown
// comes from the server's `stats` frame; the charts are drawn here as inline SVG.

import type { App, Screen, ScreenName, StatsScreenName } from "../app";
import { h, modal, popupMenu, tabs, toast } from "./dom";
import { RequestError } from "../network/protocol";
import {
  diceBars, entryFacts, formatCount, pointsText, formatDate, groupAchievements, isEmptyStats, leaderboardTabs, overviewGroups,
  progressText, winsGamesRows, type WinsGamesRow,
} from "../state/stats";
import type { AchievementState, LeaderboardEntry, StatsFrame } from "../network/types";

const SVG_NS = "http://www.w3.org/2000/svg";

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number> = {}, ...children: (Node | string)[]): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  for (const c of children) node.append(typeof c === "string" ? document.createTextNode(c) : c);
  return node;
}

// The tab each screen was last on, so that coming back from Achievements finds it again.
let statsTab = "overview";
let boardTab = "all";

const BACK_LABELS: Partial<Record<ScreenName, string>> = {
  menu: "Back to menu",
  statistics: "Back to statistics",
  game: "Back to the game",
};

function topbar(app: App, name: StatsScreenName, title: string, end?: HTMLElement): HTMLElement {
  const back = app.statsBack[name] ?? "menu";
  return h(
    "header",
    { class: "topbar" },
    h("button", { type: "button", class: "icon-btn", "aria-label": BACK_LABELS[back] ?? "Back", "data-focus-id": "back", onclick: () => app.show(back) }, "←"),
    h("h1", { class: "game-title" }, title),
    end ? h("div", { class: "topbar-end" }, end) : null,
  );
}

/**
 * Keeps a screen fed with statistics: the last ones at once, then fresh ones from the server
 * (again whenever the connection comes back). `show` gets the statistics, or null with a note.
 */
function feedStats(app: App, show: (stats: StatsFrame | null, note: string | null) => void): () => void {
  let alive = true;
  const load = () => {
    if (!app.conn.isOpen) {
      if (!app.stats) show(null, "Connecting to the server…");
      return;
    }
    app.conn.stats().catch((err: unknown) => {
      if (!alive || app.stats) return;
      show(null, err instanceof RequestError && err.message ? err.message : "The statistics could not be loaded.");
    });
  };
  show(app.stats, app.stats ? null : "Loading…");
  load();
  const off = app.conn.on({
    stats: (frame) => alive && show(frame, null),
    status: (s) => s === "open" && load(),
  });
  return () => {
    alive = false;
    off();
  };
}

/** Re-renders `body` and puts the focus back on the element that had it (by id or focus id). */
function rerender(body: HTMLElement, fill: () => void): void {
  const active = document.activeElement as HTMLElement | null;
  const key = active && body.contains(active) ? (active.id ? `#${CSS.escape(active.id)}` : active.dataset.focusId ? `[data-focus-id="${active.dataset.focusId}"]` : null) : null;
  body.replaceChildren();
  fill();
  if (key) (body.querySelector(key) as HTMLElement | null)?.focus({ preventScroll: true });
}

function notice(text: string, onRetry?: () => void): HTMLElement {
  return h(
    "div",
    { class: "stats-notice", role: "status" },
    h("p", {}, text),
    onRetry ? h("button", { type: "button", class: "btn small", onclick: onRetry }, "Try again") : null,
  );
}

// --- Statistics -------------------------------------------------------------------------------

export function mountStatistics(app: App, root: HTMLElement): Screen {
  const body = h("div", { class: "stats-body" });
  const more = popupMenu({
    focusId: "stats-more",
    items: [{ label: "Reset statistics", danger: true, onSelect: () => void confirmReset(app) }],
  });
  root.append(h("div", { class: "screen stats-screen" }, topbar(app, "statistics", "Statistics", more), body));

  const off = feedStats(app, (stats, note) =>
    rerender(body, () => {
      if (!stats) {
        body.append(notice(note ?? ""));
        return;
      }
      body.append(
        tabs({
          label: "Statistics",
          idPrefix: "stats",
          tabs: [
            { id: "overview", label: "Overview" },
            { id: "details", label: "Details" },
          ],
          current: statsTab,
          onChange: (id) => (statsTab = id),
          render: (id, panel) => (id === "details" ? renderDetails(stats, panel) : renderOverview(app, stats, panel)),
        }),
      );
    }),
  );
  return { unmount: off };
}

async function confirmReset(app: App): Promise<void> {
  const ok = await modal({
    title: "Reset statistics?",
    body: [
      "Your recorded games, streaks and play time, your achievements and your leaderboard will be erased.",
      h("p", { class: "warning" }, "This cannot be undone."),
    ],
    buttons: [
      { label: "Cancel", value: false, primary: true },
      { label: "Reset", value: true, danger: true },
    ],
    className: "reset-dialog",
  });
  if (!ok) return;
  try {
    await app.conn.resetStats(); // the stats frame it ends with re-renders the screen
    toast("Statistics reset");
  } catch (err) {
    toast(err instanceof RequestError && err.message ? err.message : "The statistics could not be reset.");
  }
}

function emptyLine(): HTMLElement {
  return h(
    "div",
    { class: "stats-empty" },
    h("p", { class: "stats-empty-title" }, "No games counted yet"),
    h("p", {}, "Finish a game against the AI and your statistics start here. Games against other people are not counted."),
  );
}

function renderOverview(app: App, stats: StatsFrame, panel: HTMLElement): void {
  const o = stats.overview;
  if (isEmptyStats(stats)) panel.append(emptyLine());
  const groups = overviewGroups(o).map((g) =>
    h(
      "section",
      { class: `stat-group stat-${g.title.toLowerCase().replace(/\s+/g, "-")}`, "aria-labelledby": `sg-${g.title.replace(/\s+/g, "-")}` },
      h("h2", { id: `sg-${g.title.replace(/\s+/g, "-")}` }, g.title),
      g.title === "Performance" && o.games > 0 ? resultsBar(o.wins, o.losses, o.ties) : null,
      h("dl", { class: "stat-list" }, g.items.map((it) => h("div", { class: "stat-item" }, h("dt", {}, it.label), h("dd", {}, it.value)))),
    ),
  );
  const unlocked = stats.achievements.filter((a) => a.unlocked_at !== null).length;
  const best = stats.leaderboards.all?.[0];
  panel.append(
    h("div", { class: "stat-groups" }, groups),
    h(
      "nav",
      { class: "stat-links", "aria-label": "More statistics" },
      h(
        "button",
        { type: "button", class: "link-card", "data-focus-id": "to-achievements", onclick: () => app.showStats("achievements", "statistics") },
        h("span", { class: "link-title" }, "Achievements"),
        h("span", { class: "link-line" }, `${unlocked} of ${stats.achievements.length} unlocked`),
      ),
      h(
        "button",
        { type: "button", class: "link-card", "data-focus-id": "to-leaderboard", onclick: () => app.showStats("leaderboard", "statistics") },
        h("span", { class: "link-title" }, "Leaderboard"),
        h("span", { class: "link-line" }, best ? `Best: ${pointsText(best.points)}` : "No wins on it yet"),
      ),
    ),
  );
}

/** Wins, losses and ties as one bar split in proportion. */
function resultsBar(wins: number, losses: number, ties: number): HTMLElement {
  const total = wins + losses + ties;
  const parts: [string, number][] = [
    ["wins", wins],
    ["ties", ties],
    ["losses", losses],
  ];
  let x = 0;
  const rects = parts
    .filter(([, n]) => n > 0)
    .map(([cls, n]) => {
      const w = (n / total) * 100;
      const r = svg("rect", { x: x.toFixed(2), y: 0, width: w.toFixed(2), height: 8, class: `seg-${cls}` });
      x += w;
      return r;
    });
  return h(
    "div",
    { class: "results-bar", role: "img", "aria-label": `${wins} won, ${losses} lost, ${ties} tied` },
    svg("svg", { viewBox: "0 0 100 8", preserveAspectRatio: "none", "aria-hidden": "true" }, ...rects),
    h(
      "div",
      { class: "results-legend", "aria-hidden": "true" },
      h("span", { class: "key-wins" }, "Won"),
      h("span", { class: "key-ties" }, "Tied"),
      h("span", { class: "key-losses" }, "Lost"),
    ),
  );
}

function renderDetails(stats: StatsFrame, panel: HTMLElement): void {
  if (isEmptyStats(stats)) {
    panel.append(emptyLine());
    return;
  }
  const d = stats.details;
  panel.append(
    h(
      "div",
      { class: "chart-legend", "aria-hidden": "true" },
      h("span", { class: "key-wins" }, "Wins"),
      h("span", { class: "key-games" }, "Games"),
    ),
    chartSection("By Mode", "mode", winsGamesRows(d.by_mode, "mode"), "No games yet."),
    chartSection("By Difficulty", "level", winsGamesRows(d.by_level, "level"), "No games yet."),
    chartSection("By Overlap Mode", "overlap", winsGamesRows(d.by_overlap, "overlap"), "No games with an overlap rule yet: modes with 1×1 boxes only have none."),
    diceSection(d.dice),
  );
}

function chartSection(title: string, kind: string, rows: WinsGamesRow[], empty: string): HTMLElement {
  const headId = `chart-${kind}`;
  return h(
    "section",
    { class: `chart-section chart-${kind}`, "aria-labelledby": headId },
    h("h2", { id: headId }, title),
    rows.length ? winsGamesChart(title, rows) : h("p", { class: "muted" }, empty),
  );
}

/** Horizontal bars: games (pale) with the wins (solid) over them, per row; a table for screen readers. */
function winsGamesChart(title: string, rows: WinsGamesRow[]): HTMLElement {
  const visual = h(
    "div",
    { class: "wg-chart", "aria-hidden": "true" },
    rows.map((r) =>
      h(
        "div",
        { class: "wg-row", "data-key": r.key },
        h("span", { class: "wg-label" }, r.label),
        svg(
          "svg",
          { class: "wg-bar", viewBox: "0 0 100 10", preserveAspectRatio: "none" },
          svg("rect", { class: "bar-track", x: 0, y: 0, width: 100, height: 10 }),
          svg("rect", { class: "bar-games", x: 0, y: 0, width: r.gamesPct, height: 10 }),
          svg("rect", { class: "bar-wins", x: 0, y: 0, width: r.winsPct, height: 10 }),
        ),
        h("span", { class: "wg-nums" }, h("strong", {}, String(r.wins)), ` / ${r.games}`, h("span", { class: "wg-rate" }, r.rate)),
      ),
    ),
  );
  const table = h(
    "table",
    { class: "sr-only" },
    h("caption", {}, `Wins and games ${title.toLowerCase()}`),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, title.replace(/^By /, "")), h("th", { scope: "col" }, "Wins"), h("th", { scope: "col" }, "Games"), h("th", { scope: "col" }, "Win rate"))),
    h("tbody", {}, rows.map((r) => h("tr", {}, h("th", { scope: "row" }, r.label), h("td", {}, String(r.wins)), h("td", {}, String(r.games)), h("td", {}, r.rate)))),
  );
  return h("figure", { class: "chart" }, visual, table);
}

function diceSection(dice: Record<string, number>): HTMLElement {
  const FULL = 140;
  const SLOT = 40;
  const TOP = 20;
  const bars = diceBars(dice, FULL);
  const total = bars.reduce((n, b) => n + b.count, 0);
  const head = h("h2", { id: "chart-dice" }, "Dice Roll Distribution");
  if (!bars.length) {
    return h("section", { class: "chart-section chart-dice", "aria-labelledby": "chart-dice" }, head, h("p", { class: "muted" }, "No rolls of yours yet: Standard has no dice."));
  }
  const width = Math.max(bars.length, 4) * SLOT;
  const height = TOP + FULL + 24;
  const base = TOP + FULL;
  const chart = svg(
    "svg",
    { class: "dice-chart", viewBox: `0 0 ${width} ${height}`, "aria-hidden": "true", style: `max-width:${Math.max(bars.length, 4) * 56}px` },
    svg("line", { class: "axis", x1: 0, y1: base + 0.5, x2: width, y2: base + 0.5 }),
    ...bars.flatMap((b, i) => {
      const x = i * SLOT + 7;
      const cx = i * SLOT + SLOT / 2;
      return [
        svg("rect", { class: "dice-bar", x, y: base - b.height, width: SLOT - 14, height: b.height, rx: 3 }),
        svg("text", { class: "dice-count", x: cx, y: base - b.height - 5, "text-anchor": "middle" }, String(b.count)),
        svg("text", { class: "dice-face", x: cx, y: base + 17, "text-anchor": "middle" }, String(b.face)),
      ];
    }),
  );
  const table = h(
    "table",
    { class: "sr-only" },
    h("caption", {}, "Your own rolls by face"),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Face"), h("th", { scope: "col" }, "Rolls"), h("th", { scope: "col" }, "Share"))),
    h("tbody", {}, bars.map((b) => h("tr", {}, h("th", { scope: "row" }, String(b.face)), h("td", {}, String(b.count)), h("td", {}, b.share)))),
  );
  return h(
    "section",
    { class: "chart-section chart-dice", "aria-labelledby": "chart-dice" },
    head,
    h("p", { class: "muted chart-note" }, `Your own rolls: ${formatCount(total)} in all, by the face that came up.`),
    h("figure", { class: "chart" }, chart, table),
  );
}

// --- Achievements -----------------------------------------------------------------------------

export function mountAchievements(app: App, root: HTMLElement): Screen {
  const body = h("div", { class: "stats-body" });
  root.append(h("div", { class: "screen achievements-screen" }, topbar(app, "achievements", "Achievements"), body));
  const off = feedStats(app, (stats, note) =>
    rerender(body, () => {
      if (!stats) {
        body.append(notice(note ?? ""));
        return;
      }
      const list = stats.achievements;
      const unlocked = list.filter((a) => a.unlocked_at !== null).length;
      body.append(
        h(
          "div",
          { class: "ach-summary" },
          h("p", {}, h("strong", {}, `${unlocked} of ${list.length}`), " unlocked"),
          progressBar(unlocked, list.length, "Achievements unlocked", `${unlocked} of ${list.length}`),
        ),
        ...groupAchievements(list).map((g, i) =>
          h(
            "section",
            { class: "ach-group", "aria-labelledby": `ach-cat-${i}` },
            h("h2", { id: `ach-cat-${i}` }, g.category, h("span", { class: "ach-count" }, `${g.unlocked} / ${g.items.length}`)),
            h("ul", { class: "ach-list" }, g.items.map(achievementCard)),
          ),
        ),
      );
    }),
  );
  return { unmount: off };
}

function progressBar(value: number, max: number, label: string, text: string): HTMLElement {
  const now = Math.max(0, Math.min(value, max));
  const pct = max > 0 ? (now / max) * 100 : 0;
  return h(
    "div",
    {
      class: "progress",
      role: "progressbar",
      "aria-valuemin": "0",
      "aria-valuemax": String(max),
      "aria-valuenow": String(now),
      "aria-valuetext": text,
      "aria-label": label,
    },
    h("div", { class: "progress-fill", style: `width:${pct.toFixed(1)}%` }),
  );
}

function badge(unlocked: boolean): SVGSVGElement {
  // A star when unlocked, a padlock while locked.
  return unlocked
    ? svg("svg", { class: "ach-icon", viewBox: "0 0 24 24", "aria-hidden": "true" }, svg("path", { d: "M12 2.5l2.9 6.1 6.6.8-4.9 4.6 1.3 6.6L12 17.3l-5.9 3.3 1.3-6.6-4.9-4.6 6.6-.8z" }))
    : svg(
        "svg",
        { class: "ach-icon", viewBox: "0 0 24 24", "aria-hidden": "true" },
        svg("rect", { x: 5, y: 10.5, width: 14, height: 10, rx: 2 }),
        svg("path", { d: "M8 10.5V8a4 4 0 0 1 8 0v2.5", fill: "none", "stroke-width": 2.2 }),
      );
}

function achievementCard(a: AchievementState): HTMLElement {
  const unlocked = a.unlocked_at !== null;
  return h(
    "li",
    { class: `ach-card ${unlocked ? "unlocked" : "locked"}`, "data-id": a.id },
    badge(unlocked),
    h(
      "div",
      { class: "ach-text" },
      h("h3", { class: "ach-name" }, a.name, h("span", { class: "sr-only" }, unlocked ? " (unlocked)" : " (locked)")),
      h("p", { class: "ach-desc" }, a.description),
      a.target > 1
        ? h("div", { class: "ach-progress" }, progressBar(a.progress, a.target, `${a.name} progress`, progressText(a)), h("span", { class: "progress-text", "aria-hidden": "true" }, progressText(a)))
        : null,
      unlocked ? h("p", { class: "ach-date" }, `Unlocked ${formatDate(a.unlocked_at!)}`) : null,
    ),
  );
}

// --- Leaderboard ------------------------------------------------------------------------------

export function mountLeaderboard(app: App, root: HTMLElement): Screen {
  const body = h("div", { class: "stats-body" });
  root.append(h("div", { class: "screen leaderboard-screen" }, topbar(app, "leaderboard", "Leaderboard"), body));
  const off = feedStats(app, (stats, note) =>
    rerender(body, () => {
      if (!stats) {
        body.append(notice(note ?? ""));
        return;
      }
      const all = leaderboardTabs(stats.leaderboards);
      body.append(
        h("p", { class: "muted lb-intro" }, "Your best wins against the AI: a win is worth your share of the points, in percent, times 1 (Easy) to 4 (Expert)."),
        tabs({
          label: "Leaderboards",
          idPrefix: "lb",
          tabs: all.map((t) => ({ id: t.key, label: t.label })),
          current: boardTab,
          onChange: (id) => (boardTab = id),
          render: (id, panel) => {
            const tab = all.find((t) => t.key === id) ?? all[0];
            panel.append(tab.entries.length ? leaderboardList(tab.entries, tab.key === "all") : leaderboardEmpty());
          },
        }),
      );
    }),
  );
  return { unmount: off };
}

function leaderboardEmpty(): HTMLElement {
  return h(
    "div",
    { class: "stats-empty lb-empty" },
    h("p", { class: "stats-empty-title" }, "No wins on the leaderboard yet"),
    h("p", {}, "Win a game against the AI to get on it: the bigger your share of the points and the stronger the AI, the higher it stands."),
  );
}

function leaderboardList(entries: LeaderboardEntry[], withMode: boolean): HTMLElement {
  return h(
    "ol",
    { class: `lb-list ${withMode ? "with-mode" : ""}` },
    entries.map((e, i) =>
      h(
        "li",
        { class: `lb-entry ${i < 3 ? `top top${i + 1}` : ""}`, "data-game": e.game },
        h("span", { class: "lb-rank" }, h("span", { class: "sr-only" }, "Place "), String(i + 1)),
        h("span", { class: "lb-points" }, h("strong", {}, formatCount(e.points)), e.points === 1 ? " point" : " points"),
        h("span", { class: "lb-facts" }, entryFacts(e, withMode).map((f) => h("span", { class: `lb-fact lb-${f.kind}` }, f.text))),
      ),
    ),
  );
}
