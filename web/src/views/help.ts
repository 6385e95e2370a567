// Help & Rules, written for this client in its own words.

import type { App, Screen } from "../app";
import { LEVELS, MODES, OVERLAPS, dieLabel, sizesLabel } from "../state/catalog";
import { h } from "./dom";
import { overlapFigure } from "./helpDiagrams";
import { OVERLAP_DETAILS, STRATEGY } from "../state/helpTexts";
import { colourById } from "../state/settings";

type Block = string | string[];

function section(id: string, title: string, blocks: Block[]): HTMLElement {
  return h(
    "section",
    { class: "help-section", id: `help-${id}`, "aria-labelledby": `help-${id}-h` },
    h("h2", { id: `help-${id}-h` }, title),
    blocks.map((b) => (typeof b === "string" ? h("p", {}, b) : h("ul", {}, b.map((li) => h("li", {}, li))))),
  );
}

export function mountHelp(app: App, root: HTMLElement): Screen {
  const c1 = colourById(app.settings.p1Colour).name.toLowerCase();
  const c2 = colourById(app.settings.p2Colour).name.toLowerCase();
  const toc = [
    ["play", "Play"],
    ["rules", "Rules"],
    ["modes", "Modes"],
    ["overlap", "Overlap"],
    ["strategy", "Strategy"],
    ["online", "Online"],
    ["options", "Options"],
    ["settings", "Settings"],
    ["ai", "AI"],
  ];
  const screen = h(
    "div",
    { class: "screen help-screen" },
    h("header", { class: "topbar" }, h("button", { type: "button", class: "icon-btn", "aria-label": "Back to menu", onclick: () => app.show("menu") }, "←"), h("h1", { class: "game-title" }, "Help & Rules")),
    h(
      "div",
      { class: "help-body" },
      h("nav", { class: "help-toc", "aria-label": "Sections" }, toc.map(([id, name]) => h("a", { href: `#help-${id}` }, name))),
      section("play", "Play", [
        "Pick an opponent (vs AI or Local) and a game on the menu, then press Play (Start for a local game). In a dice game press Roll Dice first: the number rolled is how many edges you may draw this turn. Click or tap between two neighbouring dots to draw an edge; closing the last side of a square captures it.",
        [
          `Your edges and squares are ${c1} with a diamond; the AI's (or Player 2's) are ${c2} with a ring. Settings can change both colours.`,
          "A captured square is tinted in its owner's colour and each of its boxes carries the owner's mark. A box covered by squares of both players shows both marks; under the Territory rule a box shows only whoever holds it now. Each 2×2 and 3×3 square held is outlined in its owner's colour (dashed for the ring player), a 3×3's line further inside its boxes than a 2×2's.",
          "Tap, click or point at the middle of a box to list the squares covering it, with their owners and points, under the board; with the keyboard the list follows the boxes beside the chosen edge.",
          "Faint lines show where you can draw while it is your turn. The other side's latest edges pulse in orange until you draw. When a player's colour is Gold, which orange would be mistaken for, they pulse in another colour picked to stand out from the board and from both players' colours.",
          "Dashed lines are open edges that can never score again. They only occur under the Exclusive rule, and a note says so beside the status line.",
          "The square you capture grows into place and the score change rises from it, such as +4 or −1.",
        ],
        "End Turn hands the turn over once you have drawn at least one edge; edges you do not use are simply lost. Undo takes back your edges of this turn one by one, with whatever they captured, but never a roll, the AI's moves, an earlier turn, or the edge that finished your roll or the game. There is no Undo with a move clock, nor right after resuming a saved game.",
        "In Standard there is no die: draw one line, and draw again whenever your line closes a box. Undo is only possible after such a capture, while you still owe a line.",
        "With a move clock, the seconds left for your next roll or edge count down in the top bar; at zero your turn ends as it is. The clock pauses while the game is not on screen, and the AI is never timed.",
        "Zoom with a pinch or the mouse wheel (up to three times) and drag to move around; while zoomed, a small overview in the board's corner shows where you are and Whole board shows everything again. Dragging never draws an edge.",
        "Where the dots sit close together on a small screen (the larger boards on a phone), a tap selects the nearest edge and shows it dashed; tap it again, or press Draw, to draw it. A tap in the middle of a box selects nothing. Settings can turn this off.",
        "With the keyboard: focus the board, use the arrow keys to step through open edges and Enter or Space to draw; R rolls, E ends the turn, U undoes, and + and − zoom.",
        "The cards show each side's points; the one whose turn it is is outlined and marked TURN. The bar below splits by points. A round is one turn for each player. When the game ends a window shows the result and final scores: Play again, View board to study the final position, or Exit. The back arrow leaves a game at any time; it is kept and offered as Continue game.",
      ]),
      section("rules", "Rules", [
        "The two players alternate, each adding lines that join two adjacent dots. Whoever draws the last missing edge around a square captures it and scores its side length squared: 1 for a 1×1, 4 for a 2×2, 9 for a 3×3. Only the outline matters, not the edges inside it or who drew the others.",
        [
          "Dice games: roll, then draw at least one and at most the rolled number of edges. A capture earns no extra edge, except in Chain Reaction, where a capturing edge does not count against the roll. A roll never exceeds the number of open edges.",
          "Standard: no die. One line per turn, plus another after every line that closes a box.",
          "One edge can finish several squares; they are settled one after the other, which matters for some overlap rules.",
          "The game ends as soon as no open edge can lead to a capture, even in the middle of a turn. More points wins; equal points is a tie.",
        ],
      ]),
      section("modes", "Modes", [
        MODES.map((m) => `${m.name}: ${m.dots}×${m.dots} dots (${m.boxes} boxes, ${m.edges} edges), ${m.die ? dieLabel(m.die) + " die" : "no dice"}, squares ${sizesLabel(m.sizes)}. ${m.blurb}`),
      ]),
      section("overlap", "Overlap", [
        "In Strategic, Big Squares and Expert, squares of different sizes can sit on top of the same boxes; the overlap rule (picked in the card of the highlighted game on the menu) decides how they interact. Under some rules a score can fall, because squares can be removed or change hands.",
        "Each rule below comes with a small example on a box and the 2×2 square around it (a 3×3 treats what lies inside it the same way). Your squares are drawn with the diamond, the other player's with the ring; a crossed-out box has been removed, and a grey dashed square can no longer be captured.",
      ]),
      h(
        "div",
        { class: "overlap-rules" },
        OVERLAPS.map((o) =>
          h(
            "article",
            { class: "overlap-rule", id: `help-overlap-${o.id}`, "aria-labelledby": `help-overlap-${o.id}-h` },
            h("h3", { id: `help-overlap-${o.id}-h` }, o.name),
            h("p", { class: "overlap-summary" }, o.line),
            h("p", {}, OVERLAP_DETAILS[o.id]?.what ?? ""),
            h("p", { class: "overlap-tip" }, h("strong", {}, "Tip: "), OVERLAP_DETAILS[o.id]?.tip ?? ""),
            overlapFigure(o.id),
          ),
        ),
      ),
      h(
        "section",
        { class: "help-section", id: "help-strategy", "aria-labelledby": "help-strategy-h" },
        h("h2", { id: "help-strategy-h" }, "Strategy"),
        STRATEGY.map((part) => h("div", { class: "strategy-part" }, h("h3", {}, part.title), part.text.map((t) => h("p", {}, t)))),
      ),
      section("online", "Online", [
        "Online on the menu plays somebody on another device through the game server. The first time, you choose the name the other player sees; you can change it on the online menu.",
        [
          "Play with Friends: Create Room, pick the game (and the overlap rule where the game has a choice) and pass the six-character code on. Your friend types it under Join Room and the game starts for you both.",
          "Find Match pairs you with the next player looking for a game in the same mode, under the mode's usual overlap rule. Each move then has a two-minute limit, shown under the board; a player whose time runs out loses.",
          "The online menu shows how many players are online and marks the modes: Opponent waiting (Find Match starts a game at once), Games now (games being played in it), Popular (among the most played this week) and Your most played (counted on this device). The server sends only numbers, never who is playing.",
          "The server rolls the dice and checks every edge, so both devices always show the same board. There is no Undo and no move clock.",
          "If your connection drops, the game reconnects by itself. A player who is away has a minute and a half to come back, or the other player wins. Closing the page does not end the game: choose Online again in time to go back in.",
          "Leaving a running game gives it to the other player. After the game, Rematch starts the next one once both have asked for it, and whoever went second goes first. There is no rematch with a player who left or did not come back in time.",
          "Online games are not saved on the device and do not count in your statistics or on the leaderboard; finishing and winning them counts towards the achievements under Other players. A game won because the other player left, ran out of time or did not come back is a win there too, whatever the score.",
        ],
      ]),
      section("options", "Options", [
        [
          "Opponent: vs AI, Local for two people taking turns on one device, or Online for somebody on another device.",
          "AI difficulty: shown only against the AI; each level is described in the list.",
          "Move clock: none, or 10, 20, 30 or 60 seconds for each roll or edge.",
          "Game: one of the nine modes; the selected multi-size game also holds its overlap rule. Choosing another game resets the rule to that game's usual one.",
          "The game in progress is saved after every move. The menu then offers Continue game with Resume and Discard. Starting a new game replaces the saved one, after you confirm.",
          "The menu remembers your last choices.",
        ],
      ]),
      section("settings", "Settings", [
        [
          "Theme: follow the system, or always light or dark.",
          "Colours: Indigo, Forest, Ocean, Sunset, Berry, Graphite, or Custom with a hue slider.",
          "Player colours: eight to choose from; the two players never share one, so choosing the other player's colour swaps them.",
          "Who moves first: you, the AI / Player 2, or random for every game.",
          "AI speed: how quickly the AI's moves are shown; it plays equally well either way.",
          "Vibration: a short buzz per edge you draw, a longer one when it captures, where the device supports it.",
          "Controls position: put the main controls on the left or the right.",
        ],
      ]),
      section("ai", "AI", [
        "The AI is always Player 2. Its four levels play in different ways:",
        LEVELS.map((l) => `${l.name}: ${l.line}`),
      ]),
    ),
  );
  root.append(screen);
  return { unmount() {} };
}
