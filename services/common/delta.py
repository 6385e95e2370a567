"""What changed between two game states, and the state rebuilt from those changes
(docs/protocol.md, "The update frame"). Both are generic patches of JSON values the server
computed: no rule of the game is read or decided here, so a client that applies them still
decides nothing.

A patch of an object holds, each part left out when empty:
- ``drop``: its fields that are gone;
- ``set``: fields with their new value, whole;
- ``splice``: lists changed in place, as ``[at, removed, [items]]`` applied in order (``at`` is
  an index of the list as the splices before it left it), so appending a move to the history is
  one splice of one entry;
- ``patch``: objects changed in part, each a patch of its own (an edge's preview, say).

The web client's copy of this is web/src/network/delta.ts."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

Patch = dict[str, Any]
# A list this short is set whole: shorter than a splice of it (a pair of scores, say).
_SHORT_LIST = 4
Splice = list[Any]  # [at, removed, items]


def changes(before: dict[str, Any], after: dict[str, Any], always: Iterable[str] = ()) -> Patch:
    """The patch that turns ``before`` into ``after``. ``always``: fields sent whole even when
    they look unchanged (values that depend on the moment they were computed, such as the time
    left on a clock, which the receiver's copy may hold from another moment)."""
    patch: Patch = {}
    sets: dict[str, Any] = {}
    splices: dict[str, list[Splice]] = {}
    patches: dict[str, Patch] = {}
    for name in always:
        if name in after:
            sets[name] = after[name]
    for name, new in after.items():
        if name in sets:
            continue
        if name not in before:
            sets[name] = new
            continue
        old = before[name]
        if type(old) is list and type(new) is list and len(new) > _SHORT_LIST:
            spliced = list_splices(old, new)
            if not spliced:
                continue
            if spliced[0][0] == 0 and spliced[0][1] == len(old):
                sets[name] = new  # nothing kept: the list whole says it shorter
            else:
                splices[name] = spliced
        elif old == new:
            continue
        elif type(old) is dict and type(new) is dict:
            patches[name] = changes(old, new)
        else:
            sets[name] = new
    dropped = [name for name in before if name not in after]
    if dropped:
        patch["drop"] = dropped
    if sets:
        patch["set"] = sets
    if splices:
        patch["splice"] = splices
    if patches:
        patch["patch"] = patches
    return patch


def list_splices(old: list[Any], new: list[Any]) -> list[Splice]:
    """Splices that turn ``old`` into ``new``: the common head and tail are kept, and in between
    an item is kept where it stands in both, else removed or put in (a list that only grew at
    one place, such as the history or the drawn edges, is one splice); none when they are equal."""
    shortest = min(len(old), len(new))
    head = _common(old, new, shortest)
    if head == shortest:
        # One list is the other's head (the history grew or lost its last moves): no tail.
        return [] if len(old) == len(new) else [[head, len(old) - head, new[head:]]]
    tail = _common(old, new, shortest - head, from_end=True)
    old_middle = old[head : len(old) - tail]
    new_middle = new[head : len(new) - tail]
    if not old_middle or not new_middle:
        return [[head, len(old_middle), new_middle]]
    old_keys = [_key(item) for item in old_middle]
    new_keys = [_key(item) for item in new_middle]
    in_old, in_new = set(old_keys), set(new_keys)
    splices: list[Splice] = []

    def edit(at: int, removed: int, put: list[Any]) -> None:
        # Next to the splice before (where its put items end): one splice.
        if splices and splices[-1][0] + len(splices[-1][2]) == at:
            splices[-1][1] += removed
            splices[-1][2].extend(put)
        else:
            splices.append([at, removed, put])

    at, i, j = head, 0, 0
    while i < len(old_keys) or j < len(new_keys):
        if i < len(old_keys) and j < len(new_keys) and old_keys[i] == new_keys[j]:
            i, j, at = i + 1, j + 1, at + 1
        elif i < len(old_keys) and old_keys[i] not in in_new:
            edit(at, 1, [])
            i += 1
        elif j < len(new_keys) and new_keys[j] not in in_old:
            edit(at, 0, [new_middle[j]])
            j, at = j + 1, at + 1
        else:
            # Moved or repeated items: the one here is replaced by the one that stands here now.
            removed = 1 if i < len(old_keys) else 0
            put = [new_middle[j]] if j < len(new_keys) else []
            edit(at, removed, put)
            i, j, at = i + removed, j + len(put), at + len(put)
    return splices


def _common(old: list[Any], new: list[Any], most: int, *, from_end: bool = False) -> int:
    """How many items the two lists have alike from their start, or ``from_end`` (``most`` at
    most). Slices are compared, halving the part not known alike, so that the items are compared
    in C, without reversed copies: this runs on every action, over lists as long as the game's
    history."""
    o, n = len(old), len(new)

    def alike_between(a: int, b: int) -> bool:
        # Items a to b from the start (or the end) are alike in both lists.
        if from_end:
            return old[o - b : o - a] == new[n - b : n - a]
        return old[a:b] == new[a:b]

    if alike_between(0, most):
        return most
    alike, differ = 0, most  # the first (or last) ``alike`` items are alike, ``differ`` are not
    while differ - alike > 1:
        middle = (alike + differ) // 2
        if alike_between(alike, middle):
            alike = middle
        else:
            differ = middle
    return alike


def _key(item: Any) -> str:
    return json.dumps(item, separators=(",", ":"), sort_keys=True)


def apply(state: dict[str, Any], patch: Patch) -> dict[str, Any]:
    """The state ``patch`` turns ``state`` into; ``state`` is left as it was (what the patch
    changes is copied, what it leaves is shared)."""
    out = dict(state)
    for name in patch.get("drop", ()):
        out.pop(name, None)
    out.update(patch.get("set", {}))
    for name, splices in patch.get("splice", {}).items():
        items = list(out[name])
        for at, removed, put in splices:
            items[at : at + removed] = put
        out[name] = items
    for name, inner in patch.get("patch", {}).items():
        out[name] = apply(out[name], inner)
    return out
