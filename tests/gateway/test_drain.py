"""A stopping gateway's drain (boxedin.gateway.drain; docs/protocol.md, Reconnecting): each
client is told to reconnect after a delay of its own, the delays covering the spread evenly.
A real gateway SIGTERMed behind nginx is tests/gateway/test_behind_nginx.py."""

from __future__ import annotations

import asyncio
import random
import time

from boxedin.gateway.drain import Drain
from boxedin.gateway.server_frames import Reconnect, server_frame


class Client:
    def __init__(self) -> None:
        self.told: list[float] = []

    def reconnect_after(self, seconds: float) -> None:
        self.told.append(seconds)


def test_each_client_is_told_once_with_delays_covering_the_spread_evenly() -> None:
    drain = Drain(10.0, random.Random(7))
    clients = [Client() for _ in range(100)]
    for client in clients:
        drain.join(client)
    drain.begin()
    drain.begin()  # a second signal tells nobody again
    assert all(len(client.told) == 1 for client in clients)
    delays = sorted(client.told[0] for client in clients)
    # One delay in each hundredth of the spread: the other gateways take ten clients a second.
    assert all(index / 10 <= delay < (index + 1) / 10 for index, delay in enumerate(delays))


def test_a_client_accepted_while_draining_is_told_within_what_is_left() -> None:
    drain = Drain(4.0)
    drain.begin()
    late = Client()
    drain.join(late)
    assert len(late.told) == 1 and 0 <= late.told[0] <= 4.0


def test_the_drain_is_over_when_every_client_has_gone() -> None:
    async def scenario() -> None:
        drain = Drain(60.0)
        clients = [Client() for _ in range(3)]
        for client in clients:
            drain.join(client)
        drain.begin()
        over = asyncio.create_task(drain.over())
        for client in clients[:2]:
            drain.leave(client)
        await asyncio.sleep(0)
        assert not over.done()
        drain.leave(clients[2])
        await asyncio.wait_for(over, 1)

    asyncio.run(scenario())


def test_the_drain_is_over_after_the_spread_and_its_margin_with_clients_left() -> None:
    async def scenario() -> float:
        drain = Drain(0.2, margin_seconds=0.3)
        drain.join(Client())
        drain.begin()
        started = time.monotonic()
        await asyncio.wait_for(drain.over(), 5)
        return time.monotonic() - started

    assert asyncio.run(scenario()) >= 0.5 - 0.05


def test_the_reconnect_frame_is_of_the_protocol() -> None:
    assert server_frame(Reconnect.build(1.23456).to_json()) == Reconnect(type="reconnect", after=1.235)
