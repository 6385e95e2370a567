"""`boxedin load --drain`: a rollout, measured. A stack of its own with two gateways behind a real
nginx (boxedin.tools.nginx, the chart's Ingress configuration), ``clients`` players each playing
local games through nginx, and one gateway SIGTERMed: it drains (boxedin.gateway.drain). Each
player hops as the web client does on the ``reconnect`` frame (after the delay it names, once,
through the same address, saying hello with its game and last seq and sending again the action
left unanswered, with its id) and keeps on playing.

What it reports: when each player was on the other gateway (from the SIGTERM), the longest time
one was without a connection, how many hopped more than once or were cut off without being told,
and whether every action was applied exactly once: each player's updates follow on one from the
other across the hop, its game as the server keeps it afterwards is the one it built, and the
engine applied exactly as many actions as the players saw updates."""

from __future__ import annotations

import asyncio
import json
import random
import signal
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any

import websockets
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed, InvalidStatus

from boxedin.common import delta
from boxedin.supervisor.launcher import Stack

from ..nginx import Nginx
from .loadtest import open_edges, ws_url

# What a game the server keeps must share with the one a player built from its updates.
_COMPARED = ("game", "seq", "scores", "over", "to_move", "phase", "winner")


@dataclass
class Hopper:
    """One player: local games, one action at a time, ``think`` seconds apart on average."""

    url: str
    seed: int
    think: float
    # The loopback address this player connects from (127.0.0.0/8 is all this machine's), so that
    # players are clients of their own addresses; None: the system's choice.
    source: str | None = None
    rng: random.Random = field(init=False)
    device: str | None = None
    state: dict[str, Any] | None = None
    pending: dict[str, Any] | None = None  # the action (or new_game) sent and not yet answered
    # What happened: planned hops (told to reconnect), connections lost without being told.
    hops: list[float] = field(default_factory=list)  # when each hop's new connection was welcomed
    offline: list[float] = field(default_factory=list)  # seconds without a connection, each hop
    told: list[float] = field(default_factory=list)  # when each reconnect frame came
    cut_off: int = 0
    in_flight: int = 0  # hops with an action sent and not yet answered
    updates: int = 0
    acks: int = 0
    problems: list[str] = field(default_factory=list)
    _ws: ClientConnection | None = None
    _move_at: float | None = None
    _closing: list[asyncio.Task[None]] = field(default_factory=list)
    _resent: set[str] = field(default_factory=set)
    _ids: int = 0

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    # --- the connection -----------------------------------------------------------------------

    async def _open(self) -> None:
        """Connects, says hello (naming the game and its last seq) and waits for the welcome."""
        for attempt in range(40):
            try:
                self._ws = await self._connect()
                break
            except (OSError, InvalidStatus):
                await asyncio.sleep(min(0.05 * 2**attempt, 1.0))
        else:
            raise RuntimeError("no gateway took the connection")
        hello: dict[str, Any] = {"type": "hello"}
        if self.device is not None:
            hello["device"] = self.device
        if self.state is not None:
            hello["game"], hello["seq"] = self.state["game"], self.state["seq"]
        await self._ws.send(json.dumps(hello))
        while True:
            frame = json.loads(await asyncio.wait_for(self._ws.recv(), 20))
            if frame["type"] == "welcome":
                self.device = frame["device"]
                break
            self._take(frame)
        if self.pending is not None:
            # The web client's "actions sent again": same frame, same id.
            self._resent.add(self.pending["id"])
            await self._ws.send(json.dumps(self.pending))

    async def _connect(self) -> ClientConnection:
        local: dict[str, Any] = {"local_addr": (self.source, 0)} if self.source is not None else {}
        return await websockets.connect(self.url, max_size=2**24, ping_interval=None, open_timeout=20, **local)

    async def _hop(self, planned: bool) -> None:
        self._move_at = None
        left = time.monotonic()
        if self._ws is not None:
            # As the web client does: the old socket closes on its own while the new one opens.
            self._closing.append(asyncio.create_task(self._ws.close()))
        await self._open()
        back = time.monotonic()
        if planned:
            self.hops.append(back)
            self.offline.append(back - left)

    # --- frames ---------------------------------------------------------------------------------

    def _take(self, frame: dict[str, Any]) -> None:
        kind = frame["type"]
        pending = self.pending
        if kind == "reconnect":
            self.told.append(time.monotonic())
            if self._move_at is None:
                self._move_at = time.monotonic() + frame["after"]
        elif kind == "state":
            if pending is not None and pending["type"] == "new_game" and frame.get("reply_to") == pending["id"]:
                self.pending = None
            # The followed game's whole state (a catch-up), or a new game's (new_game's reply).
            if self.state is None or frame["game"]["game"] == self.state["game"] or "reply_to" in frame:
                self.state = frame["game"]
        elif kind == "update":
            if self.state is None or frame["seq"] != self.state["seq"] + 1:
                have = None if self.state is None else self.state["seq"]
                self.problems.append(f"update {frame['seq']} after {have}: one lost or applied twice")
                return
            self.state = delta.apply(self.state, frame["changes"])
            self.updates += 1
            if pending is not None and pending.get("seq") == frame["seq"] - 1:
                self.pending = None
        elif kind == "ack":
            if frame.get("reply_to") in self._resent:
                self.acks += 1  # applied the first time: its update is in the catch-up
            if pending is not None and frame.get("reply_to") == pending["id"]:
                self.pending = None
        elif kind == "error":
            self.problems.append(f"refused: {frame['code']} ({frame['message']})")
            if pending is not None and frame.get("reply_to") == pending["id"]:
                self.pending = None

    def _next_action(self) -> dict[str, Any]:
        self._ids += 1
        ident = f"h{self.seed}-{self._ids}"
        state = self.state
        if state is None or state["over"]:
            return {"type": "new_game", "mode": "classic", "opponent": "local", "id": ident}
        if state["phase"] == "roll":
            return {"type": "roll", "game": state["game"], "seq": state["seq"], "id": ident}
        edge = self.rng.choice(open_edges(state))
        return {"type": "draw", "game": state["game"], "edge": edge, "seq": state["seq"], "id": ident}

    # --- playing --------------------------------------------------------------------------------

    async def play(self, stop: asyncio.Event) -> None:
        """Plays until ``stop``, then until its last action is answered."""
        await self._open()
        act_at = time.monotonic()
        while True:
            now = time.monotonic()
            if self._move_at is not None and now >= self._move_at:
                if self.pending is None and not stop.is_set():
                    # A move made just as the socket goes: its answer is lost with the old
                    # connection, and it is sent again on the new one.
                    self.pending = self._next_action()
                    assert self._ws is not None
                    await self._ws.send(json.dumps(self.pending))
                self.in_flight += self.pending is not None
                await self._hop(planned=True)
                continue
            if self.pending is None and now >= act_at:
                if stop.is_set():
                    break
                self.pending = self._next_action()
                assert self._ws is not None
                await self._ws.send(json.dumps(self.pending))
            wake = [now + 5.0]
            if self._move_at is not None:
                wake.append(self._move_at)
            if self.pending is None:
                wake.append(act_at)
            try:
                assert self._ws is not None
                frame = json.loads(await asyncio.wait_for(self._ws.recv(), max(0.0, min(wake) - now)))
            except TimeoutError:
                continue
            except ConnectionClosed:
                if self._move_at is None:
                    self.cut_off += 1
                await self._hop(planned=self._move_at is not None)
                continue
            was = self.pending
            self._take(frame)
            if was is not None and self.pending is None:
                act_at = time.monotonic() + self.think * (0.5 + self.rng.random())

    async def check_with_server(self) -> None:
        """The game as the server keeps it, on a connection of its own, is the one built here."""
        if self.state is None:
            return
        async with await self._connect() as ws:
            await ws.send(json.dumps({"type": "hello", "device": self.device, "game": self.state["game"]}))
            while True:
                frame = json.loads(await asyncio.wait_for(ws.recv(), 20))
                if frame["type"] == "state":
                    break
        kept, built = frame["game"], self.state
        for name in _COMPARED:
            if kept.get(name) != built.get(name):
                server, player = kept.get(name), built.get(name)
                self.problems.append(f"the server's game has {name} {server!r}, the player's {player!r}")

    async def close(self) -> None:
        if self._ws is not None:
            await self._ws.close()
        await asyncio.gather(*self._closing)


def _until_unready(url: str, give_up_at: float) -> float | None:
    """Seconds from now until ``url`` (a draining gateway's /readyz) answers 503 "draining";
    None if it never did before ``give_up_at``."""
    started = time.monotonic()
    while time.monotonic() < give_up_at:
        try:
            with urllib.request.urlopen(url, timeout=2):
                pass
        except urllib.error.HTTPError as answer:
            if answer.code == 503 and json.loads(answer.read()).get("status") == "draining":
                return time.monotonic() - started
        except OSError:
            return None  # gone already: no answer says it was draining
        time.sleep(0.01)
    return None


def _figure(stack: Stack, name: str, metric: str, **labels: str) -> int:
    """A process's figure from its metrics: the sum of ``metric``'s samples with ``labels``."""
    from .own_stack import _scrape, _total

    return round(_total(_scrape(stack.metrics_url(name)), metric, **labels))


def _engine_actions(stack: Stack) -> int:
    """The players' actions the engine applied so far (a person's: not a computer turn's or a
    deadline's, which a shared stack's other games may make meanwhile)."""
    return _figure(stack, "engine", "boxedin_actions_total", actor="human")


def _websockets_on(stack: Stack, name: str) -> int:
    return _figure(stack, name, "boxedin_websocket_connections")


def _draining_refusals(stack: Stack, name: str, last: int) -> int:
    """The gateway's count of handshakes refused while draining, or ``last`` once it has gone."""
    try:
        return _figure(stack, name, "boxedin_gateway_refusals_total", reason="draining")
    except OSError:
        return last


async def rollout(
    stack: Stack,
    nginx: Nginx,
    clients: int,
    *,
    spread: float,
    think: float = 0.3,
    settle: float = 1.0,
    gateways: list[str] | None = None,
    sources: list[str] | None = None,
) -> dict[str, Any]:
    """``clients`` players through nginx (from the loopback addresses ``sources``, one each);
    once every one has played a few actions, the gateway (of ``gateways``, default the stack's)
    with more of them is SIGTERMed, and the players go on until every one that was on it has
    hopped and ``settle`` seconds more. The figures, as `boxedin load --drain` prints them."""
    url = ws_url(nginx.url)
    applied_before = _engine_actions(stack)
    players = [Hopper(url, seed, think, sources[seed] if sources else None) for seed in range(clients)]
    stop = asyncio.Event()
    tasks = [asyncio.create_task(player.play(stop)) for player in players]
    names = gateways or list(stack.gateways)
    deadline = time.monotonic() + 60 + clients * think
    while sum(_websockets_on(stack, name) for name in names) < clients or min(p.updates for p in players) < 2:
        if time.monotonic() > deadline or any(task.done() for task in tasks):
            stop.set()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise RuntimeError(f"the players did not all connect and play: {[p.problems for p in players][:3]}")
        await asyncio.sleep(0.1)
    counts = {name: _websockets_on(stack, name) for name in names}
    stopped = max(counts, key=lambda name: counts[name])
    survivor = next(name for name in names if name != stopped)
    before = {id(player): player.updates for player in players}
    process = stack.processes[stopped]
    ready_url = f"http://127.0.0.1:{stack.gateways[stopped]}/readyz"
    sigterm = time.monotonic()
    process.send_signal(signal.SIGTERM)
    unready_after = await asyncio.to_thread(_until_unready, ready_url, sigterm + spread)
    # Every player told has hopped; then they play a moment more on the other gateway. Meanwhile
    # the draining gateway's own count of the handshakes it refused, read while it is still there.
    refused_draining, scraped = 0, 0.0
    while not all(len(p.hops) >= len(p.told) for p in players) or time.monotonic() < sigterm + spread:
        if time.monotonic() > sigterm + spread + 60:
            break
        if time.monotonic() - scraped > 0.25:
            scraped = time.monotonic()
            refused_draining = await asyncio.to_thread(_draining_refusals, stack, stopped, refused_draining)
        await asyncio.sleep(0.05)
    await asyncio.sleep(settle)
    stop.set()
    await asyncio.gather(*tasks)
    exited = await asyncio.to_thread(process.wait, 60)
    on_survivor = _websockets_on(stack, survivor)
    for player in players:
        await player.close()
    await asyncio.gather(*(player.check_with_server() for player in players))
    await asyncio.to_thread(stack.stop_process, stopped)
    hopped = [p for p in players if p.hops]
    offline = [o for p in players for o in p.offline]
    moved = [p.hops[0] - sigterm for p in hopped]
    problems = [problem for p in players for problem in p.problems]
    passed_on = nginx.passed_on()
    return {
        "clients": clients,
        "spread_seconds": spread,
        "on_stopped_gateway": counts[stopped],
        "told_to_reconnect": sum(1 for p in players if p.told),
        "hopped": len(hopped),
        "hopped_more_than_once": sum(1 for p in players if len(p.hops) > 1),
        "cut_off_without_being_told": sum(p.cut_off for p in players),
        "all_on_other_gateway_after_seconds": round(max(moved, default=0.0), 3),
        "longest_without_connection_ms": round(1000 * max(offline, default=0.0), 1),
        "median_without_connection_ms": round(1000 * sorted(offline)[len(offline) // 2] if offline else 0.0, 1),
        "readiness_failed_after_ms": None if unready_after is None else round(1000 * unready_after, 1),
        "connected_to_other_gateway_at_end": on_survivor,
        # Handshakes the draining gateway answered 503 that nginx then gave the other one, and
        # the gateway's own count of them (boxedin_gateway_refusals_total{reason="draining"}, as
        # last read before it exited: it may miss the last few).
        "handshakes_passed_on_by_nginx": passed_on,
        "refusals_counted_draining": refused_draining,
        "stopped_gateway_exit": exited,
        "actions_answered": sum(p.updates for p in players),
        "actions_after_sigterm": sum(p.updates - before[id(p)] for p in players),
        "actions_in_flight_at_hop": sum(p.in_flight for p in players),
        "actions_answered_by_ack": sum(p.acks for p in players),
        "engine_applied": _engine_actions(stack) - applied_before,
        "problems": problems[:20],
        "problem_count": len(problems),
    }


def rollout_ok(result: dict[str, Any]) -> bool:
    """Every player on the stopped gateway was told, hopped once within the spread plus 2 s, and
    every action was applied once."""
    return bool(
        result["told_to_reconnect"] == result["on_stopped_gateway"] == result["hopped"]
        and result["hopped_more_than_once"] == 0
        and result["cut_off_without_being_told"] == 0
        and result["all_on_other_gateway_after_seconds"] <= result["spread_seconds"] + 2
        and result["engine_applied"] == result["actions_answered"]
        and result["problem_count"] == 0
    )


def drain_stack(clients: int, spread: float, name: str = "drain", **options: Any) -> Stack:
    """A stack for a rollout: two gateways that trust the local nginx in front of them, drain
    over ``spread`` seconds and take every player from this machine's one address."""

    from .own_stack import one_address_budgets

    # Every budget of the one address the players share (its actions a second among them: with
    # the connections alone raised, the players were refused too_fast before the rollout began).
    env = {
        **one_address_budgets(clients),
        "BOXEDIN_TRUSTED_PROXIES": "127.0.0.1/32",
        "BOXEDIN_DRAIN_SPREAD_SECONDS": str(spread),
        **options.pop("extra_env", {}),
    }
    return Stack.on_free_ports(
        f"{name}:",
        gateway_replicas=2,
        worker=False,
        extra_env=env,
        **options,
    )


def run_drain(clients: int, spread: float, think: float) -> dict[str, Any]:
    """`boxedin load --drain`: the rollout on a stack and an nginx of its own."""
    from boxedin.common import event_loop
    from boxedin.supervisor.launcher import free_port

    stack = drain_stack(clients, spread)
    nginx: Nginx | None = None
    try:
        stack.start()
        nginx = Nginx(free_port(), stack.gateway_ports)
        nginx.start()
        return event_loop.run(rollout(stack, nginx, clients, spread=spread, think=think))
    finally:
        if nginx is not None:
            nginx.stop()
        stack.stop()
