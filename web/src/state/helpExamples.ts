// The examples of Help & Rules: each overlap rule shown on a box and the square around it, step
// by step, with the score after each step (views/helpDiagrams.ts draws them;
// tests/web/test_help_examples.py plays each in the engine and checks its scores).

export type Who = 1 | 2; // 1: you, 2: the other player

/** A square in a diagram: size and top-left box, who holds it; `gone`: removed or never captured. */
export interface Piece {
  size: number;
  row: number;
  col: number;
  who: Who;
  gone?: "removed" | "blocked";
}

export interface Step {
  caption: string;
  pieces: Piece[];
  score: [number, number];
}

export interface OverlapExample {
  /** What the steps show, in a sentence. */
  title: string;
  boxes: number; // the diagram's board, boxes per side
  steps: Step[];
}

const box = (who: Who, row = 0, col = 0, gone?: Piece["gone"]): Piece => ({ size: 1, row, col, who, gone });
const sq = (size: number, who: Who, gone?: Piece["gone"], row = 0, col = 0): Piece => ({ size, row, col, who, gone });

// The examples. "You" are the diamond (Player 1's colour), "they" the ring.
export const OVERLAP_EXAMPLES: Record<string, OverlapExample> = {
  independent: {
    title: "Their box, then your 2×2 around it",
    boxes: 2,
    steps: [
      { caption: "They close a box: 1 point.", pieces: [box(2)], score: [0, 1] },
      { caption: "You close the 2×2 around it: 4 points. Both squares stay.", pieces: [box(2), sq(2, 1)], score: [4, 1] },
    ],
  },
  consume: {
    title: "Their box, then your 2×2 around it",
    boxes: 2,
    steps: [
      { caption: "They close a box: 1 point.", pieces: [box(2)], score: [0, 1] },
      { caption: "Your 2×2 swallows the box: they lose its point. Yours would go the same way.", pieces: [box(2, 0, 0, "removed"), sq(2, 1)], score: [4, 0] },
    ],
  },
  exclusive: {
    title: "Their box, then the 2×2 around it",
    boxes: 2,
    steps: [
      { caption: "They close a box: 1 point.", pieces: [box(2)], score: [0, 1] },
      { caption: "The 2×2 shares that box, so it can never be captured; its last edges score nothing.", pieces: [box(2), sq(2, 1, "blocked")], score: [0, 1] },
    ],
  },
  takeover: {
    title: "Their box, then your 2×2 around it",
    boxes: 2,
    steps: [
      { caption: "They close a box: 1 point.", pieces: [box(2)], score: [0, 1] },
      { caption: "Your 2×2 takes the box over, point and all: 4 + 1 for you.", pieces: [box(1), sq(2, 1)], score: [5, 0] },
    ],
  },
  protected: {
    title: "A box first, then the 2×2 around it",
    boxes: 2,
    steps: [
      { caption: "They close a box: 1 point.", pieces: [box(2)], score: [0, 1] },
      { caption: "A captured box inside shields the 2×2: nobody can capture it now.", pieces: [box(2), sq(2, 1, "blocked")], score: [0, 1] },
    ],
  },
  layered: {
    title: "Your box, then your 2×2 around it",
    boxes: 2,
    steps: [
      { caption: "You close a box: 1 point.", pieces: [box(1)], score: [1, 0] },
      { caption: "Your 2×2 sits on one of your boxes: 4 + 1 bonus. Over their boxes there is no bonus.", pieces: [box(1), sq(2, 1)], score: [6, 0] },
    ],
  },
  volatile: {
    title: "Their box, then your 2×2 around it",
    boxes: 2,
    steps: [
      { caption: "They close a box: 1 point.", pieces: [box(2)], score: [0, 1] },
      { caption: "Your 2×2 wipes out their box and its point. Your own boxes inside would stay.", pieces: [box(2, 0, 0, "removed"), sq(2, 1)], score: [4, 0] },
    ],
  },
  builder: {
    title: "Your box, then your 2×2 around it",
    boxes: 2,
    steps: [
      { caption: "You close a box: 1 point.", pieces: [box(1)], score: [1, 0] },
      { caption: "Your 2×2 pays its 4 and your box's 1 again. Built the other way round, no bonus.", pieces: [box(1), sq(2, 1)], score: [6, 0] },
    ],
  },
  territory: {
    title: "Their box, then your 2×2 around it",
    boxes: 2,
    steps: [
      { caption: "They hold one box: 1 point.", pieces: [box(2)], score: [0, 1] },
      { caption: "Your 2×2 repaints all four boxes: you hold 4, they hold none.", pieces: [box(1), box(1, 0, 1), box(1, 1, 0), box(1, 1, 1), sq(2, 1)], score: [4, 0] },
    ],
  },
  majority: {
    title: "Their box, then you close the 2×2 around it",
    boxes: 2,
    steps: [
      { caption: "They close a box: 1 point.", pieces: [box(2)], score: [0, 1] },
      { caption: "They hold more boxes inside, so the 2×2 you closed goes to them.", pieces: [box(2), sq(2, 2)], score: [0, 5] },
    ],
  },
  fortress: {
    title: "Their box, then you close the 2×2 around it",
    boxes: 2,
    steps: [
      { caption: "They close a box: 1 point.", pieces: [box(2)], score: [0, 1] },
      { caption: "Only they could have taken this 2×2; closed by you it is lost to both.", pieces: [box(2), sq(2, 1, "blocked")], score: [0, 1] },
    ],
  },
  home_turf: {
    title: "Your 2×2, then your box inside it",
    boxes: 2,
    steps: [
      { caption: "You close a 2×2: 4 points.", pieces: [sq(2, 1)], score: [4, 0] },
      { caption: "A box inside your own 2×2 counts double. Inside theirs it would count nothing.", pieces: [sq(2, 1), box(1)], score: [6, 0] },
    ],
  },
  capped_layered: {
    title: "Your box, your 2×2 over it, your 3×3 over both",
    boxes: 3,
    steps: [
      { caption: "Box and 2×2: 1 + 4 + 1 bonus.", pieces: [box(1), sq(2, 1)], score: [6, 0] },
      { caption: "The 3×3: 9, plus 1 for each of the four boxes you already cover (13); Layered pays the corner box twice (14).", pieces: [box(1), sq(2, 1), sq(3, 1)], score: [19, 0] },
    ],
  },
};
