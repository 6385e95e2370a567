"""New websockets are let in a few at a time (boxedin.gateway.admission): a crowd arriving
together is set up over several turns of the event loop, in the order it came, and the games in
play go on between."""

from __future__ import annotations

import asyncio

from boxedin.gateway.admission import Admission


def test_a_crowd_is_let_in_a_tick_at_a_time_in_the_order_it_came() -> None:
    async def scenario() -> tuple[list[list[int]], int]:
        admission = Admission(per_tick=8, tick_seconds=0.001)
        let_in: list[int] = []
        ticks: list[list[int]] = []

        async def arrive(n: int) -> None:
            await admission.enter()
            let_in.append(n)

        crowd = [asyncio.create_task(arrive(n)) for n in range(50)]
        # Another task runs between the ticks: the loop is not held until the crowd is in.
        turns = 0
        while len(let_in) < 50:
            seen = len(let_in)
            await asyncio.sleep(0)
            turns += 1
            if len(let_in) != seen:
                ticks.append(let_in[seen:])
        await asyncio.gather(*crowd)
        return ticks, turns

    ticks, turns = asyncio.run(scenario())
    assert [n for tick in ticks for n in tick] == list(range(50))
    assert all(len(tick) <= 8 for tick in ticks)
    assert len(ticks) >= 7 and turns > len(ticks)


def test_one_who_leaves_while_waiting_gives_the_place_to_the_next() -> None:
    async def scenario() -> list[int]:
        admission = Admission(per_tick=1, tick_seconds=0.001)
        let_in: list[int] = []

        async def arrive(n: int) -> None:
            await admission.enter()
            let_in.append(n)

        first, second, third = (asyncio.create_task(arrive(n)) for n in range(3))
        await first
        assert admission.waiting == 2
        second.cancel()
        await third
        assert admission.waiting == 0
        return let_in

    assert asyncio.run(scenario()) == [0, 2]
