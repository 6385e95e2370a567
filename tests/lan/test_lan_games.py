"""Two `boxedin lan` processes on loopback, each with a scripted browser: a whole game joined at
a typed address, through a relay that forwards the bytes (whose capture shows no game content)
and through one that swaps in keys of its own (the codes differ, the host cancels); the host
checks every move; the joiner's link breaking and coming back, or not coming back within the
grace (it loses); only the process's own pages open its sockets; the host quitting."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio
import websockets

from boxedin.lan import secure

from lanplay import Browser, LanProcess, free_port, host_and_join, lan_processes, let_in, play_to_the_end

pytestmark = [pytest.mark.asyncio, pytest.mark.stack]


class Relay:
    """A machine in the middle: forwards the bytes both ways and keeps a copy of all of them."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.capture = bytearray()
        self.connections: list[asyncio.StreamWriter] = []

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._accepted, "127.0.0.1", 0)
        return int(self.server.sockets[0].getsockname()[1])

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                self.capture += data
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()

    async def _accepted(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        self.connections += [writer, up_writer]
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))

    def cut(self) -> None:
        """Drops every connection through it (a Wi-Fi blip); it still listens."""
        for writer in self.connections:
            writer.transport.abort()
        self.connections.clear()

    async def stop(self) -> None:
        self.cut()
        self.server.close()


class KeySwappingRelay(Relay):
    """A machine in the middle that runs a handshake of its own with each side and re-seals what
    passes, so that it reads everything: the codes on the two screens then differ."""

    async def _accepted(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        self.connections += [writer, up_writer]
        to_joiner = await secure.host(reader, writer)
        to_host = await secure.join(up_reader, up_writer)
        self.codes = (to_joiner.code, to_host.code)

        async def across(
            src: asyncio.StreamReader, opener: secure.Opener, dst: asyncio.StreamWriter, sealer: secure.Sealer
        ) -> None:
            try:
                while True:
                    plain = opener.open(await secure.read_record(src))
                    self.capture += plain
                    secure.write_record(dst, sealer.seal(plain))
                    await dst.drain()
            except (asyncio.IncompleteReadError, ConnectionError, OSError):
                dst.close()

        await asyncio.gather(
            across(reader, to_joiner.opener, up_writer, to_host.sealer),
            across(up_reader, to_host.opener, writer, to_joiner.sealer),
        )


@pytest.fixture(scope="module")
def processes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LanProcess, LanProcess]]:
    logs = tmp_path_factory.mktemp("lan")
    host = LanProcess(logs / "host.log", port=free_port(), peer_port=free_port())
    joiner = LanProcess(logs / "joiner.log", port=free_port())
    with lan_processes(host, joiner):
        yield host, joiner


@pytest_asyncio.fixture
async def pair(processes: tuple[LanProcess, LanProcess]) -> AsyncIterator[tuple[LanProcess, Browser, Browser]]:
    host_process, joiner_process = processes
    host_process.start()  # again, after a test that made the host quit
    host, joiner = await Browser(host_process).open(), await Browser(joiner_process).open()
    try:
        yield host_process, host, joiner
    finally:
        # Each test leaves both processes as it found them: not hosting, not joined.
        for browser in (joiner, host):
            if browser.process.answers():
                await browser.lobby_send(type="lan_stop")
                await browser.status(lambda f: f["hosting"] is None and f["link"] is None)
            await browser.close()


async def test_a_whole_game_joined_at_a_typed_address(pair: tuple[LanProcess, Browser, Browser]) -> None:
    host_process, host, joiner = pair
    host_code, joiner_code = await host_and_join(host, joiner, address=f"127.0.0.1:{host_process.peer_port}")
    assert host_code == joiner_code and len(host_code) == 6
    await let_in(host, joiner)
    state = host.state
    assert state is not None and [p["name"] for p in state["players"]] == ["Ann", "Bob"]
    assert state["online"]["move_limit"] == 0 and state["can_undo"] is False

    # The host checks every move as the engine service does: out of turn, undo, a stale seq.
    other = joiner if state["to_move"] == host.seat else host
    await other.game_send(type="roll", game=state["game"], seq=state["seq"], id="early")
    refused = await other.game_frames.wait(lambda f: f.get("reply_to") == "early")
    assert refused["type"] == "error" and refused["code"] == "not_your_turn" and refused["seq"] == state["seq"]
    mover = host if other is joiner else joiner
    await mover.game_send(type="undo", game=state["game"], id="undo")
    refused = await mover.game_frames.wait(lambda f: f.get("reply_to") == "undo")
    assert refused["code"] in ("undo_not_allowed", "nothing_to_undo", "roll_due", "nothing_to_undo")

    # The online menu names the game while it runs (the page goes back into it)...
    seen = len(joiner.game_frames.frames)
    await joiner.game_send(type="online_menu", open=True)
    status = await joiner.game_frames.wait(lambda f: f["type"] == "online_status", after=seen)
    assert status["game"] == state["game"]
    await joiner.game_frames.wait(lambda f: f["type"] == "state", after=seen)

    final = await play_to_the_end(host, joiner)
    assert final["over"] and final["winner"] in (0, 1, 2)
    # ...and not once it is over: the players left it for the menu, which must not pull them back.
    for browser in (host, joiner):
        seen = len(browser.game_frames.frames)
        await browser.game_send(type="online_menu", open=True)
        await browser.game_send(type="ping")
        await browser.game_frames.wait(lambda f: f["type"] == "pong", after=seen)
        answered = [f["type"] for f in browser.game_frames.frames[seen:]]
        assert answered == ["online_status", "pong"], answered
        assert browser.game_frames.frames[seen]["game"] is None
    assert final["seq"] == (joiner.state or {})["seq"]
    # Nothing refused changed the game: its seq counts exactly the moves applied.
    assert final["seq"] == len(final["history"]) + sum(
        1 for f in host.game_frames.frames if f.get("action", {}).get("roll")
    )


async def test_a_relay_sees_no_game_content_and_the_game_goes_on_across_a_blip(
    pair: tuple[LanProcess, Browser, Browser],
) -> None:
    host_process, host, joiner = pair
    relay = Relay(host_process.peer_port)
    port = await relay.start()
    try:
        host_code, joiner_code = await host_and_join(
            host, joiner, address=f"127.0.0.1:{port}", names=("Annika", "Bertram")
        )
        assert host_code == joiner_code
        await let_in(host, joiner)
        await play_to_the_end(host, joiner, stop_after=6)

        # The Wi-Fi drops: the host marks the joiner away (the 90 s grace runs), the joiner's
        # process connects again with the token it was let in with, and the game goes on.
        seen = len(host.game_frames.frames)
        relay.cut()
        away = await host.game_frames.wait(lambda f: f.get("action", {}).get("connected") is False, after=seen)
        assert away["changes"]["set"]["online"]["away_remaining_ms"][1] > 80_000
        await host.game_frames.wait(lambda f: f.get("action", {}).get("connected") is True, after=seen)
        await joiner.wait_seq((host.state or {})["seq"])
        final = await play_to_the_end(host, joiner)
        assert final["over"]
    finally:
        await relay.stop()
    capture = bytes(relay.capture)
    assert len(capture) > 5000
    for clear in (b"Annika", b"Bertram", b'["h"', b'["v"', b"edge", b"draw", b"roll", b"mini", b"players"):
        assert clear not in capture, f"{clear!r} crossed the network in clear text"


async def test_a_relay_with_keys_of_its_own_makes_the_codes_differ(pair: tuple[LanProcess, Browser, Browser]) -> None:
    host_process, host, joiner = pair
    relay = KeySwappingRelay(host_process.peer_port)
    port = await relay.start()
    try:
        host_code, joiner_code = await host_and_join(host, joiner, address=f"127.0.0.1:{port}")
        assert host_code != joiner_code
        assert (joiner_code, host_code) == relay.codes
        # The host sees the codes differ and cancels: the joiner is told, and nothing started.
        await host.lobby_send(type="lan_cancel")
        closed = await joiner.lobby_frames.wait(lambda f: f["type"] == "lan_closed")
        assert closed["reason"] == "cancelled"
        await host.status(lambda f: f["link"] is None and f["hosting"] is not None)
        assert not any(f["type"] == "matched" for f in host.game_frames.frames + joiner.game_frames.frames)
    finally:
        await relay.stop()


async def test_only_pages_of_the_process_itself_open_its_sockets(processes: tuple[LanProcess, LanProcess]) -> None:
    port = processes[1].port
    own = f"127.0.0.1:{port}"
    async with websockets.connect(f"ws://{own}/lan", origin=websockets.Origin(f"http://{own}")) as ws:
        await ws.send(json.dumps({"type": "lan_open"}))
        assert json.loads(await ws.recv())["type"] == "lan_status"
    # Another site's page, and one that points a name of its own at this machine (DNS rebinding).
    for origin, host in ((f"http://evil.example:{port}", own), (f"http://evil.example:{port}", f"evil.example:{port}")):
        with pytest.raises(websockets.InvalidStatus) as refused:
            async with websockets.connect(
                f"ws://{own}/lan", origin=websockets.Origin(origin), additional_headers={"Host": host}
            ):
                pass
        assert refused.value.response.status_code == 403


async def test_when_the_host_quits_the_joiner_sees_the_game_end(pair: tuple[LanProcess, Browser, Browser]) -> None:
    host_process, host, joiner = pair
    await host_and_join(host, joiner, address=f"127.0.0.1:{host_process.peer_port}")
    await let_in(host, joiner)
    await play_to_the_end(host, joiner, stop_after=3)
    host_process.kill()
    closed = await joiner.lobby_frames.wait(lambda f: f["type"] == "lan_closed")
    assert closed["reason"] == "host_left" and "game is over" in closed["message"]
    status = await joiner.status(lambda f: f["link"] is None)
    assert status["hosting"] is None


async def test_a_joiner_who_does_not_come_back_within_the_grace_loses(tmp_path: Path) -> None:
    host_process = LanProcess(tmp_path / "host.log", port=free_port(), peer_port=free_port(), grace=2)
    joiner_process = LanProcess(tmp_path / "joiner.log", port=free_port())
    with lan_processes(host_process, joiner_process):
        host, joiner = await Browser(host_process).open(), await Browser(joiner_process).open()
        relay = Relay(host_process.peer_port)
        port = await relay.start()
        try:
            await host_and_join(host, joiner, address=f"127.0.0.1:{port}")
            await let_in(host, joiner)
            await play_to_the_end(host, joiner, stop_after=2)
            await relay.stop()  # the joiner's network is gone, and stays gone
            lost = await host.game_frames.wait(lambda f: "forfeit" in f.get("action", {}), timeout=20)
            assert lost["action"] == {"forfeit": "away", "by": 2}
            assert host.state is not None and host.state["over"] and host.state["winner"] == 1
            assert host.state["online"]["forfeit"] == {"player": 2, "reason": "away"}
        finally:
            await host.close()
            await joiner.close()
