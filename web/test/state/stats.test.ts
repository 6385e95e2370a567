import { describe, expect, it } from "vitest";
import {
  barLengths, diceBars, entryFacts, formatDuration, formatPercent, groupAchievements, isEmptyStats, leaderboardTabs,
  niceCeiling, overviewGroups, progressText, resultExtras, scoreText, unlockedLine, winsGamesRows,
} from "../../src/state/stats";
import { emptyStats, makeStats } from "../fixtures";

describe("durations", () => {
  it("shows seconds, minutes and seconds, or hours and minutes", () => {
    expect(formatDuration(0)).toBe("0 s");
    expect(formatDuration(45)).toBe("45 s");
    expect(formatDuration(59.4)).toBe("59 s");
    expect(formatDuration(60)).toBe("1 min 00 s");
    expect(formatDuration(192)).toBe("3 min 12 s");
    expect(formatDuration(605)).toBe("10 min 05 s");
    expect(formatDuration(3599)).toBe("59 min 59 s");
    expect(formatDuration(3600)).toBe("1 h 00 min");
    expect(formatDuration(3900)).toBe("1 h 05 min");
    expect(formatDuration(3 * 3600 + 59 * 60 + 40)).toBe("4 h 00 min");
    expect(formatDuration(125 * 3600 + 7 * 60)).toBe("125 h 07 min");
  });

  it("shows a dash for nothing yet", () => {
    expect(formatDuration(null)).toBe("—");
    expect(formatDuration(undefined)).toBe("—");
    expect(formatDuration(Number.NaN)).toBe("—");
    expect(formatDuration(-5)).toBe("0 s");
  });
});

describe("numbers", () => {
  it("rounds shares to whole percentages", () => {
    expect(formatPercent(7 / 12)).toBe("58%");
    expect(formatPercent(0)).toBe("0%");
    expect(formatPercent(1)).toBe("100%");
    expect(formatPercent(1.4)).toBe("100%");
  });

  it("writes a score yours first", () => {
    expect(scoreText([31, 18])).toBe("31 : 18");
  });
});

describe("the overview", () => {
  it("has the four groups with every figure", () => {
    const groups = overviewGroups(makeStats().overview);
    expect(groups.map((g) => g.title)).toEqual(["Performance", "Streaks", "Scoring", "Time Played"]);
    const flat = Object.fromEntries(groups.flatMap((g) => g.items.map((i) => [i.label, i.value])));
    expect(flat).toEqual({
      Games: "12", Wins: "7", Losses: "4", Ties: "1", "Win rate": "58%",
      Current: "2 wins", Best: "4 wins",
      "Total Squares Captured": "240", "Total Points Scored": "260", "Highest Game Score": "33", "Biggest Win Margin": "17 points",
      "Total Play Time": "1 h 05 min", "Longest Game": "12 min 34 s", "Fastest Win": "3 min 12 s",
    });
  });

  it("shows dashes, not zeros, for what cannot be known yet", () => {
    const s = emptyStats();
    expect(isEmptyStats(s)).toBe(true);
    expect(isEmptyStats(makeStats())).toBe(false);
    const flat = Object.fromEntries(overviewGroups(s.overview).flatMap((g) => g.items.map((i) => [i.label, i.value])));
    expect(flat["Games"]).toBe("0");
    expect(flat["Win rate"]).toBe("—");
    expect(flat["Current"]).toBe("0 wins");
    expect(flat["Biggest Win Margin"]).toBe("—");
    expect(flat["Fastest Win"]).toBe("—");
    expect(flat["Total Play Time"]).toBe("—");
  });
});

describe("bar charts", () => {
  it("scales counts so that the largest fills the bar", () => {
    expect(barLengths([10, 5, 0, 2.5], 100)).toEqual([100, 50, 0, 25]);
    expect(barLengths([3, 1], 140)).toEqual([140, 46.67]);
    expect(barLengths([], 100)).toEqual([]);
    expect(barLengths([0, 0], 100)).toEqual([0, 0]);
  });

  it("keeps small counts visible and can scale to another top", () => {
    expect(barLengths([1000, 1, 0], 100, { min: 2 })).toEqual([100, 2, 0]);
    expect(barLengths([2, 8], 100, { scaleTo: 10 })).toEqual([20, 80]);
    expect(barLengths([12], 100, { scaleTo: 10 })).toEqual([100]); // never past the end
  });

  it("makes wins-and-games rows in the catalog's order, wins against the most games", () => {
    const rows = winsGamesRows({ mini: { games: 4, wins: 2 }, classic: { games: 8, wins: 5 }, expert: { games: 0, wins: 0 } }, "mode");
    expect(rows.map((r) => r.label)).toEqual(["Mini", "Classic"]); // no games: no row
    expect(rows[0]).toMatchObject({ key: "mini", games: 4, wins: 2, gamesPct: 50, winsPct: 25, rate: "50%" });
    expect(rows[1]).toMatchObject({ key: "classic", games: 8, wins: 5, gamesPct: 100, winsPct: 62.5, rate: "63%" });
    const levels = winsGamesRows({ normal: { games: 9, wins: 6 }, easy: { games: 1, wins: 0 } }, "level");
    expect(levels.map((r) => r.label)).toEqual(["Easy", "Normal"]);
    expect(levels[0].winsPct).toBe(0);
    const rules = winsGamesRows({ territory: { games: 2, wins: 1 }, made_up: { games: 1, wins: 1 }, independent: { games: 3, wins: 0 } }, "overlap");
    expect(rules.map((r) => r.label)).toEqual(["Independent", "Territory", "made_up"]);
  });

  it("draws a dice bar for every face up to the highest rolled", () => {
    const bars = diceBars({ "1": 10, "2": 20, "4": 5 }, 140);
    expect(bars.map((b) => b.face)).toEqual([1, 2, 3, 4]);
    expect(bars.map((b) => b.count)).toEqual([10, 20, 0, 5]);
    expect(bars.map((b) => b.height)).toEqual([70, 140, 0, 35]);
    expect(bars.map((b) => b.share)).toEqual(["29%", "57%", "0%", "14%"]);
    expect(diceBars({ "12": 1, "3": 1 }, 100)).toHaveLength(12);
    expect(diceBars({}, 140)).toEqual([]);
    expect(diceBars({ "0": 4, x: 2 }, 140)).toEqual([]);
  });

  it("rounds an axis top up to 1, 2 or 5 times a power of ten", () => {
    expect([0, 1, 3, 7, 12, 20, 51, 999].map(niceCeiling)).toEqual([1, 1, 5, 10, 20, 20, 100, 1000]);
  });
});

describe("achievements", () => {
  it("groups them by category in the server's order and counts the unlocked ones", () => {
    const groups = groupAchievements(makeStats().achievements);
    expect(groups.map((g) => [g.category, g.items.length, g.unlocked])).toEqual([
      ["Getting Started", 2, 2],
      ["Other players", 1, 0],
    ]);
  });

  it("shows progress no further than the target", () => {
    const [, regular, company] = makeStats().achievements;
    expect(progressText(regular)).toBe("10 / 10");
    expect(progressText(company)).toBe("2 / 5");
  });
});

describe("the leaderboard", () => {
  it("has All games first, then the modes with entries in the catalog's order", () => {
    const e = makeStats().leaderboards.classic[0];
    const tabs = leaderboardTabs({ all: [e, e], expert: [{ ...e, mode: "expert" }], classic: [e], mini: [] });
    expect(tabs.map((t) => t.label)).toEqual(["All games", "Classic", "Expert"]);
    expect(tabs[0].entries).toHaveLength(2);
    expect(leaderboardTabs({}).map((t) => [t.label, t.entries.length])).toEqual([["All games", 0]]);
  });

  it("lists score, level, duration and date, and the mode under All games", () => {
    const e = makeStats().leaderboards.classic[0];
    const facts = entryFacts(e, true);
    expect(facts.map((f) => f.kind)).toEqual(["mode", "score", "level", "time", "date"]);
    expect(facts.slice(0, 4).map((f) => f.text)).toEqual(["Classic", "31 : 18", "Hard", "12 min 34 s"]);
    expect(facts[4].text).toMatch(/2026/);
    expect(entryFacts(e, false).map((f) => f.kind)).toEqual(["score", "level", "time", "date"]);
  });
});

describe("the result window's lines", () => {
  it("gives the leaderboard sentence and a line per achievement unlocked", () => {
    const extras = resultExtras({
      leaderboard: { points: 189, mode: "classic", place: 2, all_place: 3, sentence: "189 points: place 2 on your Classic leaderboard." },
      achievements: [
        { id: "first_win", category: "Getting Started", name: "First Win", description: "Win a game against the AI", target: 1, progress: 1, unlocked_at: 1 },
        { id: "hard", category: "Levels", name: "Hard Won", description: "Beat the Hard AI", target: 1, progress: 1, unlocked_at: 1 },
      ],
    });
    expect(extras.leaderboard).toBe("189 points: place 2 on your Classic leaderboard.");
    expect(extras.achievements).toEqual([
      "Achievement unlocked: First Win — Win a game against the AI",
      "Achievement unlocked: Hard Won — Beat the Hard AI",
    ]);
  });

  it("says nothing of the leaderboard without a win against the AI", () => {
    expect(resultExtras({ leaderboard: null, achievements: [] })).toEqual({ leaderboard: null, achievements: [] });
    const unplaced = resultExtras({ leaderboard: { points: 40, mode: "mini", place: null, all_place: null, sentence: "40 points: not in your top 10 for Mini." }, achievements: [] });
    expect(unplaced.leaderboard).toBe("40 points: not in your top 10 for Mini.");
    expect(unlockedLine({ name: "A", description: "B" })).toBe("Achievement unlocked: A — B");
  });
});
