"""`boxedin load --online --pairs N`: pairs 2N simulated devices through Find Match, plays every
game to its end (only the player to move acts) and prints the pairing time (find_match sent to
matched received), the action round trip, the games finished and the errors."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import websockets
from websockets.asyncio.client import ClientConnection

from boxedin.common import delta, event_loop

from .loadtest import open_edges, percentile, ws_url

# The longest wait for a frame: the other player's move may take up to the move limit of Find
# Match games (120 s), then the engine ends the game; nothing for longer means it is stuck.
FRAME_TIMEOUT_SECONDS = 150.0
# How long a player's first action waits for both players to be shown connected.
CONNECTED_WAIT_SECONDS = 10.0


class OnlineBroken(Exception):
    """The server broke the online protocol: a refused request, or a frame that never came."""


class OnlinePlayer:
    """One simulated device playing online over a websocket of its own: hello, Find Match, then
    its side of the game, only when it is to move. Its first action waits (ten seconds at
    most) until both players are shown connected, so that it does not race the `connected`
    updates every online game starts with."""

    def __init__(self, url: str, name: str, device: str | None = None, seed: int = 0) -> None:
        self.url = ws_url(url)
        self.name = name
        # The token the server issued (the welcome carries it); none before the first hello.
        self.device = device
        self.rng = random.Random(seed)
        self.ws: ClientConnection | None = None
        self.matched: dict[str, Any] | None = None
        self.matched_frames = 0  # more than one for one find_match is a server bug
        self.state: dict[str, Any] | None = None
        self.seq = -1
        self.frames: list[dict[str, Any]] = []  # every frame but state and update, in order
        self.errors: list[dict[str, Any]] = []
        self.update_gaps = 0
        # Both players were still not shown connected when this player's first action had
        # waited CONNECTED_WAIT_SECONDS: a gateway's word that a player is here was lost.
        self.shown_away = False
        self.pairing_seconds: float | None = None
        self.round_trips: list[float] = []
        self._ids = itertools.count(1)
        self._find_sent = 0.0
        self._find_id = -1

    async def connect(self, timeout: float = 30) -> dict[str, Any]:
        """Opens the websocket and says hello; returns the welcome."""
        # No keepalive pings: a busy load client must not drop its own connections.
        self.ws = await websockets.connect(
            self.url, max_size=2**24, open_timeout=timeout, ping_interval=None, close_timeout=2
        )
        hello: dict[str, Any] = {"type": "hello"}
        if self.device is not None:
            hello["device"] = self.device
        welcome = await self.request(hello, timeout)
        self.device = welcome.get("device", self.device)
        return welcome

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()

    async def send(self, frame: dict[str, Any]) -> int:
        assert self.ws is not None, "connect first"
        frame_id = next(self._ids)
        await self.ws.send(json.dumps({**frame, "id": frame_id}))
        return frame_id

    async def next_frame(self, timeout: float) -> dict[str, Any] | None:
        """The next frame, or None when none came within ``timeout``; a game's state and
        updates are applied as they come."""
        assert self.ws is not None, "connect first"
        try:
            text = await asyncio.wait_for(self.ws.recv(), max(0.001, timeout))
        except TimeoutError:
            return None
        frame: dict[str, Any] = json.loads(text)
        kind = frame["type"]
        if kind == "state":
            self._take(frame["game"], frame["seq"])
        elif kind == "update":
            # An update carries what changed since the one before: it applies to the state at
            # the seq before it only, so a gap leaves the game unplayable (a server bug).
            if self.state is not None and frame["seq"] > self.seq:
                if frame["seq"] != self.seq + 1:
                    self.update_gaps += 1
                    raise OnlineBroken(f"update {frame['seq']} after {self.seq}: the updates between are missing")
                self._take(delta.apply(self.state, frame["changes"]), frame["seq"])
        else:
            self.frames.append(frame)
            if kind == "error":
                self.errors.append(frame)
            elif kind == "matched":
                self.matched_frames += 1
        return frame

    def _take(self, state: dict[str, Any], seq: int) -> None:
        self.state, self.seq = state, seq

    async def receive(self, timeout: float = FRAME_TIMEOUT_SECONDS) -> dict[str, Any]:
        frame = await self.next_frame(timeout)
        if frame is None:
            raise OnlineBroken(f"no frame for {timeout:.0f} s (last seq {self.seq})")
        return frame

    async def request(self, frame: dict[str, Any], timeout: float = FRAME_TIMEOUT_SECONDS) -> dict[str, Any]:
        """Sends a frame and returns the reply to it (frames meanwhile are applied)."""
        frame_id = await self.send(frame)
        deadline = time.monotonic() + timeout
        while True:
            reply = await self.receive(deadline - time.monotonic())
            if reply.get("reply_to") == frame_id:
                return reply

    async def send_find_match(self, mode: str) -> int:
        """Sends find_match; the pairing time runs from here to `matched`."""
        self._find_sent = time.perf_counter()
        self._find_id = await self.send({"type": "find_match", "mode": mode, "name": self.name})
        return self._find_id

    async def await_match(self, timeout: float = FRAME_TIMEOUT_SECONDS) -> dict[str, Any]:
        """Waits for `matched` (after find_match) and the state of its game; returns `matched`."""
        deadline = time.monotonic() + timeout
        while self.matched is None or self.state is None or self.state["game"] != self.matched["game"]:
            frame = await self.receive(deadline - time.monotonic())
            if frame["type"] == "matched" and self.matched is None:
                self.pairing_seconds = time.perf_counter() - self._find_sent
                self.matched = frame
            # A refusal after `matched` is of what followed it (the game goes on).
            elif frame["type"] == "error" and frame.get("reply_to") == self._find_id and self.matched is None:
                raise OnlineBroken(f"find_match refused: {frame['code']}: {frame['message']}")
        return self.matched

    async def find_match(self, mode: str, timeout: float = FRAME_TIMEOUT_SECONDS) -> dict[str, Any]:
        await self.send_find_match(mode)
        return await self.await_match(timeout)

    def to_move(self) -> bool:
        state = self.state
        return not (state is None or self.matched is None or state["over"] or state["to_move"] != self.matched["seat"])

    def both_connected(self) -> bool:
        online = (self.state or {}).get("online") or {}
        return all(online.get("connected", [True, True]))

    def choose_action(self) -> dict[str, Any]:
        state = self.state
        assert state is not None
        if state["phase"] == "roll":
            return {"type": "roll"}
        if state["can_end_turn"] and self.rng.random() < 0.1:
            return {"type": "end_turn"}
        return {"type": "draw", "edge": self.rng.choice(open_edges(state))}

    async def play(self, timeout: float = FRAME_TIMEOUT_SECONDS, think: float = 0.0) -> dict[str, Any]:
        """Plays the game to its end; returns the last state. Each action's round trip (frame
        sent to the update with the next seq) goes to ``round_trips``. With ``think``, the player
        thinks before each action, as a person: 0.5 to 1.5 times ``think`` seconds."""
        sent_at = -1  # the seq the last action was sent at
        sent: tuple[int, float] | None = None  # (frame id, when) of the action awaiting its update
        connected_by: float | None = None  # until when the first action waits for both connected
        act_at: float | None = None  # when the player, thinking, is to act
        waited = False
        while self.state is not None and not self.state["over"]:
            state = self.state
            wait = timeout
            if sent is None and sent_at < state["seq"] and self.to_move():
                if not waited and not self.both_connected():
                    if connected_by is None:
                        connected_by = time.monotonic() + CONNECTED_WAIT_SECONDS
                    wait = connected_by - time.monotonic()
                if waited or wait <= 0 or self.both_connected():
                    self.shown_away |= not waited and not self.both_connected()
                    waited, wait = True, timeout
                    if think > 0 and act_at is None:
                        act_at = time.monotonic() + think * self.rng.uniform(0.5, 1.5)
                    if act_at is not None and time.monotonic() < act_at:
                        wait = act_at - time.monotonic()  # still thinking
                    else:
                        act_at = None
                        action = self.choose_action()
                        started = time.perf_counter()
                        frame_id = await self.send({**action, "game": state["game"], "seq": state["seq"]})
                        sent, sent_at = (frame_id, started), state["seq"]
            frame = await self.next_frame(wait)
            if frame is None:
                if wait >= timeout:
                    raise OnlineBroken(f"no frame for {timeout:.0f} s (last seq {self.seq})")
                continue
            if sent is None:
                continue
            if frame["type"] == "update" and frame["seq"] == sent_at + 1:
                if "connected" in frame["action"]:
                    continue  # came first: the action will be refused as stale
                self.round_trips.append(time.perf_counter() - sent[1])
                sent = None
            elif frame["type"] == "error" and frame.get("reply_to") == sent[0]:
                sent = None
                if frame["code"] != "stale":  # stale: the game moved on; act again on its state
                    raise OnlineBroken(f"{frame['code']}: {frame['message']}")
        assert self.state is not None
        return self.state


@dataclass
class OnlineTally:
    connect: list[float] = field(default_factory=list)
    pairing: list[float] = field(default_factory=list)
    round_trips: list[float] = field(default_factory=list)
    matched: list[tuple[str, str, int]] = field(default_factory=list)  # (device, game, seat)
    finished: set[str] = field(default_factory=set)
    forfeits: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    exceptions: Counter[str] = field(default_factory=Counter)
    players_done: int = 0
    players_failed: int = 0
    update_gaps: int = 0
    duplicate_matched: int = 0  # `matched` frames beyond the first for one find_match
    shown_away: int = 0  # players who waited in vain for both players to be shown connected


def pairing_problems(matched: list[tuple[str, str, int]]) -> list[str]:
    """What is wrong with the pairs: a game not of exactly two distinct devices in seats 1 and
    2, or a device matched more than once."""
    problems = []
    games: dict[str, list[tuple[str, int]]] = {}
    for device, game, seat in matched:
        games.setdefault(game, []).append((device, seat))
    for game, seats in games.items():
        if len(seats) != 2 or len({d for d, _ in seats}) != 2 or sorted(s for _, s in seats) != [1, 2]:
            problems.append(f"game {game}: {len(seats)} players, seats {sorted(s for _, s in seats)}")
    for count in Counter(device for device, _, _ in matched).values():
        if count > 1:
            problems.append(f"a device was matched {count} times")
    return problems


def _ms(values: list[float], *quantiles: float) -> dict[str, float]:
    return {f"p{round(q * 100)}": round(percentile(values, q) * 1000, 1) for q in quantiles}


async def run_online_load(
    url: str, pairs: int, mode: str, concurrency: int | None = None, think: float = 0.0
) -> dict[str, Any]:
    """2 x ``pairs`` devices look for a game in ``mode`` (at most 2 x ``concurrency`` at once)
    and play it to its end, each thinking ``think`` seconds on average before an action."""
    players = 2 * pairs
    slots = asyncio.Semaphore(2 * (concurrency or pairs))
    tally = OnlineTally()
    started = time.perf_counter()

    async def one(index: int) -> None:
        async with slots:
            player = OnlinePlayer(url, f"Load {index}", seed=index)
            try:
                before = time.perf_counter()
                await player.connect()
                tally.connect.append(time.perf_counter() - before)
                matched = await player.find_match(mode)
                assert player.pairing_seconds is not None
                tally.pairing.append(player.pairing_seconds)
                assert player.device is not None, "the welcome carries the device's token"
                tally.matched.append((player.device, matched["game"], matched["seat"]))
                final = await player.play(think=think)
                tally.finished.add(final["game"])
                forfeit = (final.get("online") or {}).get("forfeit")
                if forfeit and forfeit["player"] == matched["seat"]:
                    tally.forfeits[forfeit["reason"]] += 1
                tally.players_done += 1
            except Exception as exc:  # counted by kind: one player's failure does not stop the load
                tally.players_failed += 1
                tally.exceptions[type(exc).__name__] += 1
            finally:
                tally.round_trips.extend(player.round_trips)
                tally.errors.update(frame["code"] for frame in player.errors)
                tally.update_gaps += player.update_gaps
                tally.duplicate_matched += max(0, player.matched_frames - 1)
                tally.shown_away += player.shown_away
                with contextlib.suppress(OSError, websockets.WebSocketException):
                    await player.close()

    async def progress() -> None:
        while True:
            print(
                f"\r{len(tally.pairing)}/{players} paired, {len(tally.finished)}/{pairs} games over, "
                f"{len(tally.round_trips)} actions",
                end="",
                file=sys.stderr,
                flush=True,
            )
            await asyncio.sleep(0.5)

    reporter = asyncio.create_task(progress())
    await asyncio.gather(*(one(i) for i in range(players)))
    reporter.cancel()
    elapsed = time.perf_counter() - started
    print(file=sys.stderr)
    trips = tally.round_trips
    return {
        "online": True,
        "mode": mode,
        "pairs": pairs,
        "players": players,
        "concurrency": concurrency or pairs,
        "think_seconds": think,
        "seconds": round(elapsed, 2),
        "games_started": len({game for _, game, _ in tally.matched}),
        "games_finished": len(tally.finished),
        "forfeits": dict(tally.forfeits),
        "players_failed": tally.players_failed,
        "pairing_problems": pairing_problems(tally.matched),
        "connect_ms": _ms(tally.connect, 0.50, 0.99),
        "pairing_ms": _ms(tally.pairing, 0.50, 0.99),
        "actions": len(trips),
        "actions_per_second": round(len(trips) / elapsed, 1) if elapsed else 0.0,
        "round_trip_ms": _ms(trips, 0.50, 0.95, 0.99),
        "errors": dict(tally.errors),
        "exceptions": dict(tally.exceptions),
        "update_gaps": tally.update_gaps,
        "duplicate_matched": tally.duplicate_matched,
        "shown_away": tally.shown_away,
    }


def online_ok(result: dict[str, Any]) -> bool:
    return (
        result["games_finished"] == result["pairs"]
        and not result["players_failed"]
        and not result["pairing_problems"]
        and not result["update_gaps"]
        and not result["duplicate_matched"]
        and not result["shown_away"]
        and not set(result["errors"]) - {"stale"}
    )


def print_online_table(result: dict[str, Any], url: str) -> None:
    def counts(found: dict[str, int]) -> str:
        return ", ".join(f"{key} {n}" for key, n in sorted(found.items())) or "none"

    def quantiles(figures: dict[str, float]) -> str:
        return "   ".join(f"{key} {value:8.1f} ms" for key, value in figures.items())

    print(
        f"Find Match load against {url}: {result['pairs']} pairs ({result['players']} players) in "
        f"{result['mode']}, {2 * result['concurrency']} players at once, {result['seconds']:.1f} s"
    )
    print(f"  games started        {result['games_started']:>8}")
    print(f"  games finished       {result['games_finished']:>8}   forfeited: {counts(result['forfeits'])}")
    print(f"  connect + hello      {quantiles(result['connect_ms'])}")
    print(f"  pairing time         {quantiles(result['pairing_ms'])}   (find_match sent -> matched)")
    print(f"  action round trip    {quantiles(result['round_trip_ms'])}   (action sent -> its update)")
    print(f"  actions              {result['actions']:>8}   {result['actions_per_second']:.1f} a second")
    print(f"  error frames         {counts(result['errors'])}")
    print(f"  exceptions           {counts(result['exceptions'])}   (players failed: {result['players_failed']})")
    for problem in result["pairing_problems"]:
        print(f"  pairing problem      {problem}")
    if result["update_gaps"]:
        print(f"  updates out of order {result['update_gaps']}")
    if result["duplicate_matched"]:
        print(f"  matched twice        {result['duplicate_matched']}   (extra `matched` frames for one find_match)")
    if result["shown_away"]:
        print(
            f"  shown away           {result['shown_away']}   (first moves made after waiting "
            f"{CONNECTED_WAIT_SECONDS:.0f} s in vain for both players to be shown connected)"
        )


def run_online(args: argparse.Namespace) -> int:
    # args.think is a number here: loadtest.run made a missing one 0.
    if args.pairs < 1 or (args.concurrency is not None and args.concurrency < 1) or args.think < 0:
        print("boxedin load: --pairs and --concurrency are at least 1, --think at least 0", file=sys.stderr)
        return 2
    stack = None
    if args.own_stack:
        from boxedin.supervisor.launcher import Stack

        from .own_stack import one_address_budgets

        stack = Stack.on_free_ports("load-online:", worker=False, extra_env=one_address_budgets(2 * args.pairs))
        stack.start()
        args.url = stack.url()
    try:
        result = event_loop.run(run_online_load(args.url, args.pairs, args.mode, args.concurrency, args.think))
    except OSError as exc:
        print(f"boxedin load: cannot reach {args.url}: {exc}", file=sys.stderr)
        return 1
    finally:
        if stack is not None:
            stack.stop()
    if args.json:
        print(json.dumps(result))
    else:
        print_online_table(result, args.url)
    return 0 if online_ok(result) else 1
