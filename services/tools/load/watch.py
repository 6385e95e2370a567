"""`boxedin load --watchers N`: what watching costs (docs/protocol.md, Watching). Two players
meet through Find Match and play; N watchers open the game's watch link on the same gateway. Each
run plays the same number of actions first without watchers (the baseline), then with them, and
measures the players' own round trip (action sent to its update) in both, and each update's
delivery to every watcher (the action sent to the watcher's receiving its update). Another game,
which nobody watches, is played on the same gateway at the same time: its players' round trip
says what the crowd costs the gateway's other players. The watchers
are a process of their own, apart from the players'. Three runs, each with a game of its own,
give the spread."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import re
import sys
import time
from multiprocessing.connection import Connection
from typing import Any

import websockets

from boxedin.common import event_loop

from .loadtest import percentile, ws_url
from .online import OnlineBroken, OnlinePlayer

# An update frame begins so (the engine's JSON, passed on as it is): the seq is read from the
# head without parsing a thousand copies of the frame in this one client.
UPDATE_HEAD = re.compile(rb'^\{"type":"update","seq":(\d+)')
WAIT_SECONDS = 30.0
# Between one action's update reaching both players and the next action: a quick player's click.
# Back to back (--think 0) each update's fan-out overlaps the next action's; and 1,000 websockets
# read in one Python process take in fewer updates a second than the gateway sends them.
PACE_SECONDS = 0.2


class Watchers:
    """N websockets watching one game, each noting when every update reached it. They run in a
    process of their own (Crowd): reading 1,000 sockets' frames takes a Python process much of
    the time an update takes to reach them, and the players' process, timing its own round trip,
    is not to wait for that."""

    def __init__(self, url: str, count: int) -> None:
        self.url = url
        self.count = count
        self.arrivals: dict[int, list[float]] = {}  # seq -> when it reached each watcher
        self.update_bytes: list[int] = []  # the updates' sizes, as one watcher got them
        self._sockets: list[Any] = []
        self._readers: list[asyncio.Task[None]] = []

    async def open(self, watch_id: str, at_once: int = 50) -> None:
        slots = asyncio.Semaphore(at_once)

        async def one() -> None:
            async with slots:
                ws = await websockets.connect(self.url, max_size=2**24, ping_interval=None, close_timeout=2)
                self._sockets.append(ws)
                await ws.send(json.dumps({"type": "hello", "id": 1}))
                await ws.send(json.dumps({"type": "watch", "watch": watch_id, "id": 2}))
                while True:  # the state comes after `watched`: from then on, every update
                    frame = json.loads(await asyncio.wait_for(ws.recv(), WAIT_SECONDS))
                    if frame["type"] == "error":
                        raise OnlineBroken(f"watch refused: {frame['code']}: {frame['message']}")
                    if frame["type"] == "state":
                        break
                self._readers.append(asyncio.create_task(self._read(ws, first=not self._readers)))

        await asyncio.gather(*(one() for _ in range(self.count)))

    async def _read(self, ws: Any, first: bool) -> None:
        with contextlib.suppress(websockets.WebSocketException):
            async for message in ws:
                data = message if isinstance(message, bytes) else message.encode()
                found = UPDATE_HEAD.match(data)
                if found:
                    # CLOCK_MONOTONIC, the one the players' process times its actions by.
                    self.arrivals.setdefault(int(found.group(1)), []).append(time.perf_counter())
                    if first:
                        self.update_bytes.append(len(data))

    async def until_all_have(self, seq: int) -> None:
        deadline = time.monotonic() + WAIT_SECONDS
        while len(self.arrivals.get(seq, ())) < self.count and time.monotonic() < deadline:
            await asyncio.sleep(0.005)

    async def close(self) -> None:
        for reader in self._readers:
            reader.cancel()
        for ws in self._sockets:
            with contextlib.suppress(OSError, websockets.WebSocketException):
                await ws.close()


def _crowd_process(pipe: Connection, url: str, count: int) -> None:
    """The watchers' process: does what the players' process asks over ``pipe`` (Crowd)."""
    event_loop.run(_serve_crowd(pipe, Watchers(url, count)))


async def _serve_crowd(pipe: Connection, crowd: Watchers) -> None:
    try:
        while True:
            command, argument = await asyncio.to_thread(pipe.recv)
            if command == "open":
                opened = time.perf_counter()
                await crowd.open(argument)
                pipe.send(("opened", time.perf_counter() - opened))
            elif command == "collect":
                for seq in argument:
                    await crowd.until_all_have(seq)
                arrivals = {seq: crowd.arrivals.get(seq, []) for seq in argument}
                pipe.send(("arrivals", (arrivals, crowd.update_bytes)))
            else:
                break
    except Exception as exc:
        pipe.send(("failed", f"{type(exc).__name__}: {exc}"))
    finally:
        await crowd.close()
        pipe.close()


class Crowd:
    """The players' side of the watchers' process."""

    def __init__(self, url: str, count: int) -> None:
        self.count = count
        context = multiprocessing.get_context("spawn")
        self._pipe, theirs = context.Pipe()
        self._process = context.Process(target=_crowd_process, args=(theirs, url, count), daemon=True)
        self._process.start()
        theirs.close()

    async def _ask(self, command: str, argument: Any = None) -> Any:
        self._pipe.send((command, argument))
        if not await asyncio.to_thread(self._pipe.poll, WAIT_SECONDS * 4):
            raise OnlineBroken(f"the watchers' process did not answer {command}")
        answer, result = self._pipe.recv()
        if answer == "failed":
            raise OnlineBroken(f"the watchers' process: {result}")
        return result

    async def open(self, watch_id: str) -> float:
        """Opens every watcher on the link; the seconds that took."""
        return float(await self._ask("open", watch_id))

    async def collect(self, seqs: list[int]) -> tuple[dict[int, list[float]], list[int]]:
        """When each of these updates reached each watcher (once all have it, or it waited
        too long), and the updates' sizes in bytes."""
        arrivals, sizes = await self._ask("collect", seqs)
        return arrivals, sizes

    async def close(self) -> None:
        with contextlib.suppress(OSError):
            self._pipe.send(("close", None))
        await asyncio.to_thread(self._process.join, 10)
        if self._process.is_alive():
            self._process.kill()
        self._pipe.close()


async def _answer(mover: OnlinePlayer, seq: int, frame_id: int) -> dict[str, Any] | None:
    """Receives until the action sent at ``seq`` made its update (None) or was refused (the error)."""
    deadline = time.monotonic() + WAIT_SECONDS
    while mover.seq <= seq:
        frame = await mover.receive(deadline - time.monotonic())
        if frame["type"] == "error" and frame.get("reply_to") == frame_id:
            return frame
    return None


async def _catch_up(player: OnlinePlayer, seq: int) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while player.seq < seq:
        await player.receive(deadline - time.monotonic())


async def play_actions(players: list[OnlinePlayer], actions: int, pace: float = 0.0) -> list[tuple[int, float, float]]:
    """Plays ``actions`` actions (the player to move acts, the other follows), ``pace`` seconds
    apart; returns each one's (seq it made, when it was sent, its round trip)."""
    made: list[tuple[int, float, float]] = []
    while len(made) < actions:
        if made and pace:
            await asyncio.sleep(pace)
        state = players[0].state
        assert state is not None
        if state["over"]:
            break
        mover = next(player for player in players if player.to_move())
        seq = state["seq"]
        action = mover.choose_action()
        sent = time.perf_counter()
        frame_id = await mover.send({**action, "game": state["game"], "seq": seq})
        refusal = await _answer(mover, seq, frame_id)
        if refusal is not None:
            if refusal["code"] != "stale":
                raise OnlineBroken(f"{refusal['code']}: {refusal['message']}")
        else:
            made.append((seq + 1, sent, time.perf_counter() - sent))
        for player in players:
            await _catch_up(player, mover.seq)
    return made


async def _paired(url: str, mode: str, names: tuple[str, str], seeds: tuple[int, int]) -> list[OnlinePlayer]:
    """Two players who met through Find Match, both connected to their game."""
    players = [OnlinePlayer(url, name, seed=seed) for name, seed in zip(names, seeds, strict=True)]
    for player in players:
        await player.connect()
    await players[0].send_find_match(mode)
    await asyncio.sleep(0)  # the first asks first: the second finds it waiting
    await asyncio.gather(players[0].await_match(), players[1].find_match(mode))
    for player in players:
        deadline = time.monotonic() + WAIT_SECONDS
        while not player.both_connected():
            await player.receive(deadline - time.monotonic())
    return players


async def one_run(url: str, watchers: int, actions: int, mode: str, run: int, pace: float) -> dict[str, Any]:
    crowd = Crowd(ws_url(url), watchers)
    players: list[OnlinePlayer] = []
    try:
        # The watched game's players, and a game nobody watches on the same gateway, played at
        # the same time: its players' round trip says what the crowd costs everybody else there.
        players = await _paired(url, mode, (f"Player {run}-1", f"Player {run}-2"), (run * 4 + 1, run * 4 + 2))
        others = await _paired(url, mode, (f"Other {run}-1", f"Other {run}-2"), (run * 4 + 3, run * 4 + 4))
        players += others
        baseline, others_baseline = await asyncio.gather(
            play_actions(players[:2], actions, pace), play_actions(others, actions, pace)
        )
        game = players[0].state["game"] if players[0].state is not None else ""
        link = await players[0].request({"type": "watch_link", "game": game})
        if link["type"] != "watch_link":
            raise OnlineBroken(f"no watch link: {link}")
        opening = await crowd.open(link["watch"])
        watched, others_watched = await asyncio.gather(
            play_actions(players[:2], actions, pace), play_actions(others, actions, pace)
        )
        deliveries: list[float] = []
        missed = 0
        fan_outs: list[tuple[float, float]] = []  # from an action sent to its last watcher told
        arrived, sizes = await crowd.collect([seq for seq, _, _ in watched])
        for seq, sent, _ in watched:
            arrivals = arrived.get(seq, [])
            missed += watchers - len(arrivals)
            deliveries.extend(arrival - sent for arrival in arrivals)
            if arrivals:
                fan_outs.append((sent, max(arrivals)))
        during, between = _by_fan_out(others_watched, fan_outs)
        return {
            "baseline_round_trips": [trip for _, _, trip in baseline],
            "watched_round_trips": [trip for _, _, trip in watched],
            "others_baseline_round_trips": [trip for _, _, trip in others_baseline],
            "others_watched_round_trips": [trip for _, _, trip in others_watched],
            "others_during_fan_out": during,
            "others_between_fan_outs": between,
            "deliveries": deliveries,
            "missed": missed,
            "opening_seconds": opening,
            "update_bytes": sizes,
        }
    finally:
        await crowd.close()
        for player in players:
            with contextlib.suppress(OSError, websockets.WebSocketException):
                await player.close()


def _by_fan_out(
    actions: list[tuple[int, float, float]], fan_outs: list[tuple[float, float]]
) -> tuple[list[float], list[float]]:
    """The round trips of the other game's actions whose round trip overlapped a fan-out of the
    watched game's updates, and of the rest: what the crowd costs another game comes out of the
    first alone (with an action every 0.2 s and a fan-out of 40-60 ms, about half of them)."""
    during: list[float] = []
    between: list[float] = []
    for _, sent, trip in actions:
        overlaps = any(start < sent + trip and sent < end for start, end in fan_outs)
        (during if overlaps else between).append(trip)
    return during, between


def _ms(values: list[float], q: float) -> float:
    return round(percentile(values, q) * 1000, 1) if values else 0.0


async def run_watch_load(
    url: str, watchers: int, actions: int, mode: str, runs: int, pace: float = PACE_SECONDS
) -> dict[str, Any]:
    results = []
    for run in range(runs):
        results.append(await one_run(url, watchers, actions, mode, run, pace))
        print(f"run {run + 1}/{runs} done", file=sys.stderr)

    def spread(key: str, q: float) -> dict[str, Any]:
        """The percentile in each run, and over the samples of every run together (a p99 of one
        run's few dozen actions is nearly its slowest one)."""
        figures = [_ms(result[key], q) for result in results]
        pooled = _ms([value for result in results for value in result[key]], q)
        return {"runs": figures, "min": min(figures), "max": max(figures), "all_runs": pooled}

    return {
        "watchers": watchers,
        "actions_per_phase": actions,
        "seconds_between_actions": pace,
        "mode": mode,
        "runs": runs,
        "delivery_ms_p50": spread("deliveries", 0.50),
        "delivery_ms_p99": spread("deliveries", 0.99),
        "round_trip_ms_p50_without_watchers": spread("baseline_round_trips", 0.50),
        "round_trip_ms_p50_with_watchers": spread("watched_round_trips", 0.50),
        "round_trip_ms_p95_without_watchers": spread("baseline_round_trips", 0.95),
        "round_trip_ms_p95_with_watchers": spread("watched_round_trips", 0.95),
        "round_trip_ms_p99_without_watchers": spread("baseline_round_trips", 0.99),
        "round_trip_ms_p99_with_watchers": spread("watched_round_trips", 0.99),
        # The players of another game on the same gateway, nobody watching it.
        "other_game_round_trip_ms_p50_without_watchers": spread("others_baseline_round_trips", 0.50),
        "other_game_round_trip_ms_p50_with_watchers": spread("others_watched_round_trips", 0.50),
        "other_game_round_trip_ms_p99_without_watchers": spread("others_baseline_round_trips", 0.99),
        "other_game_round_trip_ms_p99_with_watchers": spread("others_watched_round_trips", 0.99),
        # Of those with watchers: the actions made while the watched game's update was fanned out.
        "other_game_actions_during_fan_out": sum(len(result["others_during_fan_out"]) for result in results),
        "other_game_round_trip_ms_p50_during_fan_out": spread("others_during_fan_out", 0.50),
        "other_game_round_trip_ms_p95_during_fan_out": spread("others_during_fan_out", 0.95),
        "other_game_round_trip_ms_p95_between_fan_outs": spread("others_between_fan_outs", 0.95),
        "deliveries": sum(len(result["deliveries"]) for result in results),
        "missed_deliveries": sum(result["missed"] for result in results),
        "seconds_to_open_all_watchers": [round(result["opening_seconds"], 2) for result in results],
        "update_bytes_p50": int(percentile([size for result in results for size in result["update_bytes"]], 0.5)),
    }


def run_on_own_stack(watchers: int, actions: int, mode: str, runs: int, pace: float) -> dict[str, Any]:
    from boxedin.supervisor.launcher import Stack

    stack = Stack.on_free_ports(
        "load-watch:",
        worker=False,
        # Every watcher comes from this machine's address, all opening the link at once, and
        # none says anything after `watch` (each is an idle connection of that address).
        extra_env={
            "BOXEDIN_CONNECTIONS_PER_ADDRESS": str(watchers + 100),
            "BOXEDIN_IDLE_CONNECTIONS_PER_ADDRESS": str(watchers + 100),
            "BOXEDIN_ADDRESS_CONNECTS_BURST": str(watchers + 100),
            "BOXEDIN_ADDRESS_CONNECTS_PER_SECOND": str(watchers + 100),
            "BOXEDIN_ADDRESS_FRAMES_BURST": str(10 * watchers + 1000),
            "BOXEDIN_ADDRESS_FRAMES_PER_SECOND": str(10 * watchers + 1000),
        },
    )
    try:
        stack.start_redis()
        stack.start_engine()
        stack.start_stats()
        stack.start_matchmaker()
        stack.start_gateway(stack.gateway_port)
        stack.wait_ready(stack.gateway_port)
        return event_loop.run(run_watch_load(stack.url(), watchers, actions, mode, runs, pace))
    finally:
        stack.stop()


def run_watch(args: argparse.Namespace) -> int:
    if args.watchers < 1 or args.actions < 1 or args.runs < 1 or args.think < 0:
        print("boxedin load: --watchers, --actions and --runs are at least 1, --think at least 0", file=sys.stderr)
        return 2
    try:
        if args.own_stack:
            result = run_on_own_stack(args.watchers, args.actions, args.mode, args.runs, args.think)
        else:
            result = event_loop.run(
                run_watch_load(args.url, args.watchers, args.actions, args.mode, args.runs, args.think)
            )
    except OSError as exc:
        print(f"boxedin load: cannot reach {args.url}: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(result))
    return 0 if result["missed_deliveries"] == 0 else 1
