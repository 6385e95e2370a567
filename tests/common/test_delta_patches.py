"""The generic patches updates carry (boxedin.common.delta): whatever two JSON states are, the
patch from one to the other rebuilds the second, and a list that only grew at one end or at
one place is one splice."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from boxedin.common import delta

items = st.one_of(st.integers(0, 5), st.lists(st.integers(0, 3), max_size=2))
lists = st.lists(items, max_size=14)
states = st.dictionaries(st.sampled_from("abcdef"), st.one_of(st.integers(0, 3), lists), max_size=6)


@given(lists, lists)
def test_the_splices_of_two_lists_turn_the_first_into_the_second(old: list[Any], new: list[Any]) -> None:
    items = list(old)
    for at, removed, put in delta.list_splices(old, new):
        items[at : at + removed] = put
    assert items == new


@given(states, states)
def test_the_patch_of_two_states_rebuilds_the_second(before: dict[str, Any], after: dict[str, Any]) -> None:
    assert delta.apply(before, delta.changes(before, after)) == after


@given(lists, lists, lists)
def test_a_list_that_grew_at_one_place_is_one_splice(head: list[Any], middle: list[Any], tail: list[Any]) -> None:
    splices = delta.list_splices(head + tail, head + middle + tail)
    # Where it goes may be told otherwise when items repeat, but it is one splice putting them.
    assert len(splices) == (1 if middle else 0)
    assert all(removed == 0 and len(put) == len(middle) for _, removed, put in splices)


def test_a_history_that_grew_by_a_move_is_one_splice_of_that_move() -> None:
    history = [{"edge": [i]} for i in range(40)]
    assert delta.list_splices(history, [*history, {"edge": [40]}]) == [[40, 0, [{"edge": [40]}]]]
    assert delta.list_splices(history, history[:-1]) == [[39, 1, []]]
