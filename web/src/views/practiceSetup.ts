// The practice setup of the second seed: board size, opponent and replay seed.

import type { App, Screen } from "../app";
import { cleanSeed, randomSeed } from "../state/choices";
import { h } from "./dom";

export function mountPracticeSetup(app: App, root: HTMLElement): Screen {
  const p = app.practice;
  const back = h("button", { type: "button", class: "icon-btn", "aria-label": "Back to menu", onclick: () => app.show("menu") }, "←");

  const sizeGroup = h(
    "div",
    { class: "segmented", role: "radiogroup", "aria-labelledby": "size-label" },
    [2, 3, 4].map((n) =>
      h(
        "button",
        {
          type: "button",
          role: "radio",
          "aria-checked": String(p.boxes === n),
          class: p.boxes === n ? "selected" : "",
          "data-boxes": String(n),
          onclick: () => {
            app.practice = { ...app.practice, boxes: n };
            app.savePractice();
            refresh();
          },
        },
        `${n} × ${n}`,
      ),
    ),
  );
  const oppGroup = h(
    "div",
    { class: "segmented", role: "radiogroup", "aria-labelledby": "opp-label" },
    (["practice", "local"] as const).map((o) =>
      h(
        "button",
        {
          type: "button",
          role: "radio",
          "aria-checked": String(p.opponent === o),
          class: p.opponent === o ? "selected" : "",
          "data-opponent": o,
          onclick: () => {
            app.practice = { ...app.practice, opponent: o };
            app.savePractice();
            refresh();
          },
        },
        o === "practice" ? "Computer · seeded practice" : "Two local players",
      ),
    ),
  );
  const seedInput = h("input", {
    id: "seed-input",
    type: "text",
    value: p.seed,
    maxlength: "120",
    autocomplete: "off",
    spellcheck: "false",
    "aria-describedby": "seed-help",
  });
  const seedHelp = h("p", { id: "seed-help", class: "muted" }, "1 to 96 characters; spaces at either end are dropped. The same seed replays the same computer moves.");
  const startBtn = h("button", { type: "button", class: "btn primary" }, "Start match");
  const shuffle = h("button", { type: "button", class: "btn small", title: "Pick another seed" }, "New seed");

  const refresh = () => {
    const cur = app.practice;
    sizeGroup.querySelectorAll("button").forEach((b) => {
      const on = Number(b.dataset.boxes) === cur.boxes;
      b.classList.toggle("selected", on);
      b.setAttribute("aria-checked", String(on));
    });
    oppGroup.querySelectorAll("button").forEach((b) => {
      const on = b.dataset.opponent === cur.opponent;
      b.classList.toggle("selected", on);
      b.setAttribute("aria-checked", String(on));
    });
    const seed = cleanSeed(seedInput.value);
    startBtn.disabled = seed === null;
    seedHelp.textContent =
      seedInput.value.trim().length > 96
        ? "That seed is too long: 96 characters at most."
        : seed === null
          ? "Enter a replay seed to start (1 to 96 characters)."
          : "1 to 96 characters; spaces at either end are dropped. The same seed replays the same computer moves.";
  };
  seedInput.addEventListener("input", () => {
    app.practice = { ...app.practice, seed: seedInput.value };
    refresh();
  });
  shuffle.addEventListener("click", () => {
    seedInput.value = randomSeed();
    app.practice = { ...app.practice, seed: seedInput.value };
    refresh();
  });
  startBtn.addEventListener("click", () => {
    const seed = cleanSeed(seedInput.value);
    if (!seed) return;
    const cur = app.practice;
    app.startGame({ mode: `practice_${cur.boxes}x${cur.boxes}`, opponent: cur.opponent, seed });
  });
  seedInput.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && !startBtn.disabled) startBtn.click();
  });

  const screen = h(
    "div",
    { class: "screen practice-setup" },
    h("header", { class: "topbar" }, back, h("h1", { class: "game-title" }, "Practice")),
    h(
      "div",
      { class: "setup-body" },
      h(
        "p",
        { class: "intro" },
        "A short game on a small board with classic rules: one line a turn, and another each time you close a box. The computer answers from your seed, so a seed replays the same game. Preview an edge before you draw it.",
      ),
      h("h2", { id: "size-label", class: "field-label" }, "Board size (boxes)"),
      sizeGroup,
      h("h2", { id: "opp-label", class: "field-label" }, "Opponent"),
      oppGroup,
      h("label", { for: "seed-input", class: "field-label" }, "Replay seed"),
      h("div", { class: "seed-row" }, seedInput, shuffle),
      seedHelp,
      h("div", { class: "setup-actions" }, startBtn),
      h(
        "details",
        { class: "practice-help" },
        h("summary", {}, "How practice works"),
        h("ul", {}, [
          "You are the first player and always move first against the computer.",
          "Point at an open edge, or focus the board and use the arrow keys, to see its preview: the boxes it would close now (highlighted), how many more could be taken one after another afterwards, and how many boxes would be left with three sides.",
          "Click or tap an edge, or press Enter or Space, to draw it. There is no undo.",
          "Pause (or P on the board) holds the game; switching tabs pauses too. Restart begins again with the same seed.",
          "The computer takes a box whenever it can, otherwise avoids giving one away, and lets the seed pick among equal choices.",
        ].map((t) => h("li", {}, t))),
      ),
    ),
  );
  root.append(screen);
  refresh();
  return { unmount() {} };
}
