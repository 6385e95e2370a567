"""The gateway behind a real nginx configured as the chart's Ingress (tests/support/nginx.py):
per-address limits count real clients (the address nginx appends to X-Forwarded-For, which the
gateways trust from it alone), a forged header from anywhere else is ignored, and a gateway
SIGTERMed in a rollout drains its players onto the other one, each once, losing no action
(docs/protocol.md, Limits and Reconnecting).

Every client here connects from a loopback address of its own (all of 127.0.0.0/8 is this
machine): nginx and the gateways see them as the different clients they are."""

from __future__ import annotations

import asyncio
import json
import os
import re
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import websockets
from nginx import nginx_in_front, start_gateways
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed, InvalidStatus

from boxedin.supervisor.launcher import Stack
from boxedin.tools.load.drain import rollout, rollout_ok
from boxedin.tools.nginx import Nginx

PER_ADDRESS = 2
SPREAD_SECONDS = 2.0
# The rollout's players: 30 in CI; BOXEDIN_TEST_DRAIN_CLIENTS=300 for the figure (or run
# `boxedin load --drain --clients 300`, which prints the same figures).
DRAIN_CLIENTS = int(os.environ.get("BOXEDIN_TEST_DRAIN_CLIENTS", "30"))
BEHIND_NGINX = {
    "BOXEDIN_TRUSTED_PROXIES": "127.0.0.1/32",  # nginx, which connects from 127.0.0.1
    "BOXEDIN_CONNECTIONS_PER_ADDRESS": str(PER_ADDRESS),
    "BOXEDIN_DRAIN_SPREAD_SECONDS": str(SPREAD_SECONDS),
}
ANN, BOB, EVE = "127.0.2.1", "127.0.2.2", "127.0.2.9"


@dataclass
class Front:
    stack: Stack
    gateways: list[str]
    nginx: Nginx

    def refusals(self, reason: str) -> float:
        total = 0.0
        for name in self.gateways:
            with urllib.request.urlopen(self.stack.metrics_url(name), timeout=5) as reply:
                text = reply.read().decode()
            found = re.search(rf'^boxedin_gateway_refusals_total\{{reason="{reason}"\}} (\S+)$', text, re.M)
            assert found is not None, f"{reason} is not exported"
            total += float(found.group(1))
        return total


@pytest.fixture(scope="module")
def front(live_stack: Stack) -> Iterator[Front]:
    gateways = start_gateways(live_stack, BEHIND_NGINX)
    try:
        with nginx_in_front(live_stack, gateways) as nginx:
            yield Front(live_stack, gateways, nginx)
    finally:
        for name in gateways:
            live_stack.stop_process(name)


async def said_hello(url: str, source: str, headers: dict[str, str] | None = None) -> ClientConnection:
    """A connection from ``source`` that said hello; ConnectionClosed when it was refused."""
    ws = await websockets.connect(url, local_addr=(source, 0), additional_headers=headers, open_timeout=10)
    await ws.send(json.dumps({"type": "hello", "id": 1}))
    while json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] != "welcome":
        pass
    return ws


async def refused(url: str, source: str, headers: dict[str, str] | None = None) -> int:
    """The close code a connection from ``source`` was refused with, or the HTTP status its
    handshake was answered with (a peer that is no trusted proxy is refused before its request
    is read)."""
    try:
        ws = await said_hello(url, source, headers)
    except ConnectionClosed as closed:
        assert closed.rcvd is not None
        return closed.rcvd.code
    except InvalidStatus as status:
        return status.response.status_code
    await ws.close()
    raise AssertionError(f"a connection from {source} was let in")


async def fill_and_overflow(front: Front) -> None:
    url = front.nginx.url.replace("http://", "ws://") + "/ws"
    direct = [f"ws://127.0.0.1:{front.stack.gateways[name]}/ws" for name in front.gateways]
    # Ann takes her PER_ADDRESS on each gateway (nginx takes turns), and no more.
    ann = [await said_hello(url, ANN) for _ in range(PER_ADDRESS * len(front.gateways))]
    assert await refused(url, ANN) == 1013
    # What Ann writes in X-Forwarded-For herself comes before what nginx appends: still Ann.
    assert await refused(url, ANN, {"X-Forwarded-For": BOB}) == 1013
    # Bob, behind the same nginx, has limits of his own.
    bob = [await said_hello(url, BOB) for _ in range(PER_ADDRESS * len(front.gateways))]
    assert await refused(url, BOB) == 1013
    # Eve goes round nginx, straight to a gateway, claiming to be a client with room: a peer
    # outside the trusted networks is believed about nothing, so she counts as herself, and is
    # refused at once, before her request (and its headers) is read.
    eve = [await said_hello(direct[0], EVE, {"X-Forwarded-For": f"127.0.2.{70 + n}"}) for n in range(PER_ADDRESS)]
    assert await refused(direct[0], EVE, {"X-Forwarded-For": "127.0.2.78", "Forwarded": "for=127.0.2.79"}) == 503
    for ws in ann + bob + eve:
        await ws.close()


def test_clients_behind_nginx_get_limits_of_their_own_and_forged_headers_are_ignored(front: Front) -> None:
    before = front.refusals("too_many_connections")
    asyncio.run(fill_and_overflow(front))
    assert front.refusals("too_many_connections") == before + 4
    # The log lines name the real client too.
    assert front.stack.log_dir is not None
    logs = "".join((front.stack.log_dir / f"{name}.log").read_text() for name in front.gateways)
    named = {json.loads(line).get("client") for line in logs.splitlines() if '"reason": "too_many_connections"' in line}
    assert {ANN, BOB, EVE} <= named and "127.0.0.1" not in named


async def join_tries(url: str, source: str, tries: int) -> list[str]:
    """Tries to join a room that is not there ``tries`` times, from fresh devices (ten tries a
    minute each), from ``source``: the codes of the refusals."""
    codes = []
    ws: ClientConnection | None = None
    for attempt in range(tries):
        if attempt % 10 == 0:
            if ws is not None:
                await ws.close()
            ws = await said_hello(url, source)
        assert ws is not None
        await ws.send(json.dumps({"type": "join_room", "code": "ZZZZZZ", "name": "Tess", "id": f"j{attempt}"}))
        while (frame := json.loads(await asyncio.wait_for(ws.recv(), 10))).get("reply_to") != f"j{attempt}":
            pass
        codes.append(frame["code"])
    if ws is not None:
        await ws.close()
    return codes


def test_room_join_tries_are_counted_per_real_client(front: Front) -> None:
    url = front.nginx.url.replace("http://", "ws://") + "/ws"
    from boxedin.common.settings import Settings

    # The live stack's matchmaker keeps the default: wrong guesses a minute from one address.
    per_address = Settings.model_fields["join_tries_per_address"].default
    before = front.refusals("too_many_tries")
    first = asyncio.run(join_tries(url, "127.0.2.11", per_address + 1))
    assert first == ["no_room"] * per_address + ["too_many_tries"]
    assert asyncio.run(join_tries(url, "127.0.2.12", 1)) == ["no_room"]
    assert front.refusals("too_many_tries") == before + 1


def test_every_refusal_reason_is_exported_at_zero_from_the_start(front: Front) -> None:
    from boxedin.gateway.limits import REFUSAL_REASONS

    for reason in REFUSAL_REASONS:
        assert front.refusals(reason) >= 0  # found: exported before any refusal of its kind


def test_a_gateway_stopped_in_a_rollout_drains_its_players_onto_the_other_once(front: Front) -> None:
    sources = [f"127.0.3.{index + 1}" for index in range(DRAIN_CLIENTS)]
    players = rollout(
        front.stack, front.nginx, DRAIN_CLIENTS,
        spread=SPREAD_SECONDS, settle=0.5, gateways=front.gateways, sources=sources,
    )  # fmt: skip
    result: dict[str, Any] = asyncio.run(players)
    print(f"\nrollout: {json.dumps(result)}")
    print(f"the longest time a player was without a connection: {result['longest_without_connection_ms']} ms")
    # Out of the Service at once, and the handshakes it refused went to the other gateway.
    assert result["readiness_failed_after_ms"] is not None and result["readiness_failed_after_ms"] < 1000
    assert result["handshakes_passed_on_by_nginx"] > 0
    # Counted by the draining gateway as refusals (draining), as far as it was read before it exited.
    assert 0 < result["refusals_counted_draining"] <= result["handshakes_passed_on_by_nginx"]
    assert result["on_stopped_gateway"] > 0 and result["told_to_reconnect"] == result["on_stopped_gateway"]
    assert result["hopped"] == result["on_stopped_gateway"], "a player told to reconnect did not"
    assert result["hopped_more_than_once"] == 0
    assert result["cut_off_without_being_told"] == 0
    assert result["all_on_other_gateway_after_seconds"] <= SPREAD_SECONDS + 2
    assert result["connected_to_other_gateway_at_end"] >= DRAIN_CLIENTS
    assert result["actions_after_sigterm"] > 0
    # Each player made a move just as it hopped; sent again, none was applied twice.
    assert result["actions_in_flight_at_hop"] == result["hopped"]
    assert result["problems"] == []
    # The engine applied exactly the actions the players saw answered: none twice, none lost.
    assert result["engine_applied"] == result["actions_answered"]
    assert rollout_ok(result)
