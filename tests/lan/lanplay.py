"""Helpers of the Same Wi-Fi tests: `boxedin lan` processes (on loopback or inside a network
namespace), a scripted browser that speaks to one over its two websockets as the web client
does, and a whole game played between two of them."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import websockets

from boxedin.common import delta
from boxedin.gateway.server_frames import server_frame

from edge_policy import choose_edge

ROOT = Path(__file__).resolve().parents[2]
Frame = dict[str, Any]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class LanProcess:
    """One `boxedin lan`; its browser side on a port, or on a Unix socket (``uds``) when it runs in
    a namespace the tests' own process cannot reach by network."""

    log: Path
    port: int = 0
    uds: Path | None = None
    peer_port: int = 0
    netns: str | None = None
    discovery: bool = False
    grace: int | None = None
    proc: subprocess.Popen[bytes] | None = None

    def command(self) -> list[str]:
        cmd = [sys.executable, "-m", "boxedin.lan", "--web-dist", str(ROOT / "web" / "dist")]
        cmd += ["--uds", str(self.uds)] if self.uds else ["--port", str(self.port)]
        cmd += ["--peer-port", str(self.peer_port)]
        if self.grace is not None:
            cmd += ["--grace", str(self.grace)]
        if not self.discovery:
            cmd.append("--no-discovery")
        return (["ip", "netns", "exec", self.netns] if self.netns else []) + cmd

    def launch(self) -> None:
        self.proc = subprocess.Popen(
            self.command(), stdout=self.log.open("ab"), stderr=subprocess.STDOUT, start_new_session=True
        )

    def start(self, timeout: float = 30) -> LanProcess:
        if self.proc is None or self.proc.poll() is not None:
            self.launch()
        assert self.proc is not None
        deadline = time.monotonic() + timeout
        while not self.answers():
            if self.proc.poll() is not None:
                raise RuntimeError(f"boxedin lan exited with {self.proc.returncode}:\n{self.log.read_text()}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"boxedin lan did not answer within {timeout} s:\n{self.log.read_text()}")
            time.sleep(0.05)  # polling the condition: the process answers
        return self

    def answers(self) -> bool:
        try:
            if self.uds:
                if not self.uds.exists():
                    return False
                with socket.socket(socket.AF_UNIX) as s:
                    s.connect(str(self.uds))
                return True
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                return True
        except OSError:
            return False

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)

    def kill(self) -> None:
        """The host closes the app at once (nothing said to the other side beforehand)."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(5)


@contextlib.contextmanager
def lan_processes(*processes: LanProcess) -> Iterator[tuple[LanProcess, ...]]:
    try:
        for p in processes:
            p.launch()  # all at once: each takes seconds to load
        for p in processes:
            p.start()
        yield processes
    finally:
        for p in processes:
            p.stop()


class Watched:
    """Frames of one socket, kept in order, with a wait for the first that satisfies a check."""

    def __init__(self) -> None:
        self.frames: list[Frame] = []
        self._changed = asyncio.Condition()

    async def add(self, frame: Frame) -> None:
        async with self._changed:
            self.frames.append(frame)
            self._changed.notify_all()

    async def wait(self, check: Callable[[Frame], bool], timeout: float = 15, after: int = 0) -> Frame:
        async def found() -> Frame:
            async with self._changed:
                while True:
                    for frame in self.frames[after:]:
                        if check(frame):
                            return frame
                    await self._changed.wait()

        return await asyncio.wait_for(found(), timeout)


@dataclass
class Browser:
    """What the web client does with its own `boxedin lan`: the game on /ws, Same Wi-Fi on /lan."""

    process: LanProcess
    game_frames: Watched = field(default_factory=Watched)
    lobby_frames: Watched = field(default_factory=Watched)
    state: Frame | None = None
    seat: int | None = None
    _sockets: list[Any] = field(default_factory=list)
    _tasks: list[asyncio.Task[None]] = field(default_factory=list)

    async def _connect(self, path: str) -> Any:
        if self.process.uds:
            return await websockets.unix_connect(str(self.process.uds), f"ws://localhost{path}")
        return await websockets.connect(f"ws://127.0.0.1:{self.process.port}{path}")

    async def open(self) -> Browser:
        self.game = await self._connect("/ws")
        self.lobby = await self._connect("/lan")
        self._sockets += [self.game, self.lobby]
        self._tasks += [
            asyncio.create_task(self._read(self.game, self._on_game)),
            asyncio.create_task(self._read(self.lobby, self.lobby_frames.add)),
        ]
        await self.game.send(json.dumps({"type": "hello"}))
        await self.game_frames.wait(lambda f: f["type"] == "welcome")
        await self.lobby.send(json.dumps({"type": "lan_open"}))
        await self.lobby_frames.wait(lambda f: f["type"] == "lan_status")
        return self

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        for ws in self._sockets:
            with contextlib.suppress(Exception):
                await ws.close()

    async def _read(self, ws: Any, handle: Callable[[Frame], Any]) -> None:
        with contextlib.suppress(websockets.ConnectionClosed):
            async for text in ws:
                server_frame(text)  # every frame is one of docs/protocol.md's, as the gateway's are
                await handle(json.loads(text))

    async def _on_game(self, frame: Frame) -> None:
        if frame["type"] == "matched":
            self.seat = frame["seat"]
        elif frame["type"] == "state":
            self.state = frame["game"]
        elif frame["type"] == "update" and self.state is not None and frame["seq"] == self.state["seq"] + 1:
            self.state = delta.apply(self.state, frame["changes"])
        await self.game_frames.add(frame)

    async def lobby_send(self, **frame: Any) -> None:
        await self.lobby.send(json.dumps(frame))

    async def game_send(self, **frame: Any) -> None:
        await self.game.send(json.dumps(frame))

    async def status(self, check: Callable[[Frame], bool], timeout: float = 15) -> Frame:
        return await self.lobby_frames.wait(lambda f: f["type"] == "lan_status" and check(f), timeout)

    async def wait_seq(self, seq: int, timeout: float = 15) -> Frame:
        await self.game_frames.wait(
            lambda f: f["type"] in ("state", "update") and f["seq"] >= seq and self.state is not None
            and self.state["seq"] >= seq,
            timeout,
        )  # fmt: skip
        assert self.state is not None
        return self.state


def code_of(status: Frame) -> str | None:
    link = status.get("link")
    return link.get("code") if link else None


async def host_and_join(
    host: Browser,
    joiner: Browser,
    *,
    address: str | None = None,
    mode: str = "mini",
    names: tuple[str, str] = ("Ann", "Bob"),
) -> tuple[str, str]:
    """Host a game, join it (from the list, or at ``address``), and return the two codes shown."""
    await host.lobby_send(type="lan_host", mode=mode, name=names[0])
    hosting = await host.status(lambda f: f["hosting"] is not None)
    if address is None:
        listed = await joiner.status(lambda f: any(g["name"] == names[0] for g in f["games"]))
        game = next(g for g in listed["games"] if g["name"] == names[0])
        assert game["mode"] == mode and game["address"].endswith(":" + hosting["hosting"]["address"].split(":")[1])
        await joiner.lobby_send(type="lan_join", game=game["id"], name=names[1])
    else:
        await joiner.lobby_send(type="lan_join", address=address, name=names[1])
    joined = await joiner.status(lambda f: f["link"] is not None and f["link"]["state"] == "code")
    asked = await host.status(lambda f: f["link"] is not None and f["link"]["state"] == "code")
    assert joined["link"]["name"] == names[0] and asked["link"]["name"] == names[1]
    return str(code_of(asked)), str(code_of(joined))


async def let_in(host: Browser, joiner: Browser) -> None:
    await host.lobby_send(type="lan_let_in")
    for browser, seat in ((host, 1), (joiner, 2)):
        await browser.game_frames.wait(lambda f, seat=seat: f["type"] == "matched" and f["seat"] == seat)
        await browser.wait_seq(0)
        assert browser.state is not None and browser.state["opponent"] == "online"


async def play_to_the_end(host: Browser, joiner: Browser, *, stop_after: int | None = None) -> Frame:
    """Each player moves in turn from their own state until the game is over (or ``stop_after``
    moves); every move is checked to reach both sides."""
    moves = 0
    while True:
        state = host.state
        assert state is not None and joiner.state is not None
        if state["over"] or (stop_after is not None and moves >= stop_after):
            return state
        mover = host if state["to_move"] == host.seat else joiner
        current = mover.state
        assert current is not None
        if current["phase"] == "roll":
            await mover.game_send(type="roll", game=current["game"], seq=current["seq"], id=f"m{moves}")
        else:
            edge = choose_edge(current)
            await mover.game_send(type="draw", game=current["game"], edge=edge, seq=current["seq"], id=f"m{moves}")
        await host.wait_seq(current["seq"] + 1)
        await joiner.wait_seq(current["seq"] + 1)
        assert host.state == joiner.state, "both players see the same game"
        moves += 1
