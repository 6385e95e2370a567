import type { GameState } from "../src/types";

export function makeGame(over: Partial<GameState> = {}): GameState {
  return {
    game: "g_test",
    seq: 0,
    opponent: "ai",
    level: "hard",
    clock: 0,
    ai_speed: "fast",
    seed: null,
    players: [
      { name: "You", kind: "human" },
      { name: "AI (Hard)", kind: "ai" },
    ],
    ai_thinking: false,
    clock_remaining_ms: null,
    mode: "classic",
    overlap: null,
    boxes: 7,
    die: 6,
    sizes: [1],
    capturing_edge_free: false,
    capture_owes_line: false,
    first: 1,
    to_move: 1,
    phase: "roll",
    roll: null,
    edges_left: null,
    drawn_this_turn: 0,
    turn: 0,
    round: 1,
    scores: [0, 0],
    over: false,
    winner: null,
    resigned: null,
    ended_with_open_edges: false,
    can_undo: false,
    can_end_turn: false,
    open_edges: 112,
    edges: [],
    squares: [],
    dead_edges: [],
    history: [],
    previews: {},
    ...over,
  };
}

export class MemoryStore {
  data = new Map<string, string>();
  getItem(k: string): string | null {
    return this.data.has(k) ? this.data.get(k)! : null;
  }
  setItem(k: string, v: string): void {
    this.data.set(k, v);
  }
}
