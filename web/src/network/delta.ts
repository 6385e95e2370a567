// An update's changes applied to the client's copy of the game state (docs/protocol.md, "The
// update frame"). A generic patch of what the server computed, the same as the server's
// boxedin.common.delta: no rule of the game is read or decided here.

import type { GameState, StateChanges } from "./types";

type Json = { [field: string]: unknown };

function patched(value: Json, changes: StateChanges): Json {
  // The changed parts are copied; what the changes leave is shared with the copy before.
  const out: Json = { ...value };
  for (const field of changes.drop ?? []) delete out[field];
  Object.assign(out, changes.set ?? {});
  for (const [field, splices] of Object.entries(changes.splice ?? {})) {
    const items = [...(out[field] as unknown[])];
    for (const [at, removed, put] of splices) items.splice(at, removed, ...put);
    out[field] = items;
  }
  for (const [field, inner] of Object.entries(changes.patch ?? {})) {
    out[field] = patched(out[field] as Json, inner);
  }
  return out;
}

/** The state an update's changes make of `game`; `game` is left as it was. */
export function applyChanges(game: GameState, changes: StateChanges): GameState {
  return patched(game as unknown as Json, changes) as unknown as GameState;
}
