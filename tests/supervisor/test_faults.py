"""Crashes lose nothing: one supervised stack (as `boxedin up` runs it: each child restarted when it
dies, Redis with an append-only file) while 20 players play, 10 against the computer (Expert
among them) and 10 local games, each starting a new game when one ends. Each of the gateway,
the engine, the AI, the Celery worker and Redis in turn is killed with SIGKILL; the supervisor
brings it back; every game in play at the kill goes on, the server's record of it is what its
player last saw or ahead of it with the same history, and play resumes within 3 s of the process
being ready again. Prints the table of recovery times (also written to the test output folder).

The players reconnect by themselves as the web client does (docs/protocol.md, Reconnecting), but
at once rather than after a growing delay, so that the times measure the server, and they take
an `unavailable`, `internal`, `busy` or `stale` refusal as "reconnect and try again".

A computer turn whose AI process died, or that the AI gave up because the engine or Redis failed
under it, is taken over once it has been idle BOXEDIN_AI_CLAIM_IDLE_SECONDS (2 s by default):
that is what keeps it within the 3 s."""

from __future__ import annotations

import asyncio
import contextlib
import json
import statistics
import threading
import time
from collections import Counter, deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import websockets

from boxedin.supervisor.launcher import Stack
from boxedin.supervisor.process_groups import group_members

from aioplayer import PlayedGame
from edge_policy import choose_edge
from stacks import OUTPUT, make_stack

# Whole-stack: real processes on loopback (`pytest -m "not stack"` leaves them out).
# Alone: they hold the time play takes to resume to a limit (scripts/test runs them after the rest).
pytestmark = [pytest.mark.stack, pytest.mark.alone]

# Pause of a player between seeing its turn and acting (a quick person).
MOVE_PAUSE = 0.25
# Pause between reconnection attempts, and between retries of a refused action.
RETRY_PAUSE = 0.1
# Play resumes this soon after the killed process is ready again.
RESUME_LIMIT = 3.0
# A player that hears nothing this long while waiting for something reconnects (and says so).
STALL_SECONDS = 20.0
KILLED = ["gateway", "engine", "ai", "worker", "redis"]

SETUPS: list[dict[str, Any]] = [
    # Against the computer: every level, Expert twice, boards with and without dice.
    {"mode": "standard", "opponent": "ai", "level": "expert"},
    {"mode": "quick", "opponent": "ai", "level": "expert", "first": 2},
    {"mode": "standard", "opponent": "ai", "level": "hard"},
    {"mode": "classic", "opponent": "ai", "level": "hard", "first": 2},
    {"mode": "standard", "opponent": "ai", "level": "normal"},
    {"mode": "quick", "opponent": "ai", "level": "normal", "first": 2},
    {"mode": "classic", "opponent": "ai", "level": "normal"},
    {"mode": "standard", "opponent": "ai", "level": "easy", "first": 2},
    {"mode": "quick", "opponent": "ai", "level": "easy"},
    {"mode": "classic", "opponent": "ai", "level": "easy", "first": 2},
    # Local: both seats on one device.
    *({"mode": mode, "opponent": "local"} for mode in ["standard", "quick", "classic", "mini", "standard"] * 2),
]


def _ws_url(stack: Stack) -> str:
    return stack.url().replace("http://", "ws://") + "/ws"


@dataclass
class Player:
    """One of the 20: plays game after game, reconnecting whenever it must. Each game has a device
    of its own, so that a new game does not replace (and delete) the one before: the server's
    record of every game stays to be compared with what the player saw."""

    index: int
    setup: dict[str, Any]
    url: str
    device: str = ""
    games: list[PlayedGame] = field(default_factory=list)
    devices: dict[str, str] = field(default_factory=dict)  # game id -> its device
    # When each update or new game arrived (time.monotonic()): play going on.
    progress: list[float] = field(default_factory=list)
    refusals: Counter[str] = field(default_factory=Counter)
    reconnects: int = 0  # connections lost or given up (not those closed after a game ended)
    # Why each connection ended, and the last frames received: for the messages of failures.
    ends: Counter[str] = field(default_factory=Counter)
    last_frames: deque[str] = field(default_factory=lambda: deque(maxlen=4))
    # What must not happen: the server behind what the player saw, updates out of order, a
    # refusal other than "try again", a silence while waiting.
    incidents: list[str] = field(default_factory=list)

    def describe(self) -> str:
        return (
            f"player {self.index} {self.setup}: seq {self.seq}, incidents {self.incidents[-3:]}, "
            f"connections ended {dict(self.ends)}, the last frames {list(self.last_frames)}"
        )

    @property
    def game(self) -> PlayedGame | None:
        return self.games[-1] if self.games else None

    @property
    def seq(self) -> int:
        game = self.game
        return -1 if game is None else int(game.last["seq"])

    def my_turn(self) -> bool:
        game = self.game
        if game is None:
            return False
        state = game.last
        if state["over"] or state["ai_thinking"]:
            return False
        return state["opponent"] == "local" or state["to_move"] == 1

    def _record(self, frame: dict[str, Any]) -> str:
        """Applies an update or state of the current game; returns what happened."""
        game = self.game
        if game is None:
            return "other game"
        if frame["type"] == "update":
            # An update names no game: the connection follows one, the one in play.
            if frame["seq"] <= self.seq:
                return "again"
            if frame["seq"] != self.seq + 1:
                self.incidents.append(f"{game.first_state['game']}: update {frame['seq']} after {self.seq}")
                return "gap"
            game.take(frame, time.monotonic())
            self.progress.append(time.monotonic())
            return "moved"
        state = frame["game"]
        if state["game"] != game.first_state["game"]:
            return "other game"
        # A whole state for the game in play: after a reconnect when the updates missed are not
        # kept, or when the server is behind what this player saw.
        if frame["seq"] != self.seq:
            behind = "behind" if frame["seq"] < self.seq else "ahead, the updates between not kept"
            self.incidents.append(f"{state['game']}: a state at seq {frame['seq']} ({behind}) after {self.seq}")
            # Go on from the server's state, as the web client does (this game's history is broken).
            self.games.append(PlayedGame(self.setup, first_state=state, started=time.monotonic()))
            self.devices[state["game"]] = self.device
            self.progress.append(time.monotonic())
        return "state"

    async def play(self, stopping: asyncio.Event) -> None:
        while not stopping.is_set():
            game = self.game
            if game is None or game.last["over"]:
                self.device = None  # a new device (the server issues its token) for a new game
            try:
                async with websockets.connect(self.url, max_size=2**24, open_timeout=3, close_timeout=1) as ws:
                    end = await self._session(ws, stopping)
                    self.ends[end] += 1
                    if end == "over":
                        continue
            except (OSError, TimeoutError, websockets.WebSocketException) as exc:
                self.ends[type(exc).__name__] += 1
            if not stopping.is_set():
                self.reconnects += 1
                await asyncio.sleep(RETRY_PAUSE)

    async def _session(self, ws: websockets.ClientConnection, stopping: asyncio.Event) -> str:
        """Plays on one connection; "over" when it closes it because its game ended."""
        ids = iter(range(1, 10**9))

        async def send(**frame: Any) -> int:
            frame["id"] = next(ids)
            await ws.send(json.dumps(frame))
            return int(frame["id"])

        hello: dict[str, Any] = {"type": "hello"}
        if self.device is not None:
            hello["device"] = self.device
        game = self.game
        if game is not None and not game.last["over"]:
            hello |= {"game": game.first_state["game"], "seq": self.seq}
        # What this player waits for: the end of its hello, its new game, or its action's update.
        await send(**hello)
        # The gateway answers frames in order: the pong comes after the updates this player missed,
        # so it acts on the game as it stands, not on what it saw before the connection broke.
        waiting: tuple[str, int] | None = ("hello", await send(type="ping"))
        since = time.monotonic()  # when it last heard something it waited for, or asked
        act_at = since + MOVE_PAUSE
        while True:
            if stopping.is_set():
                return "stopped"
            now = time.monotonic()
            if waiting is None:
                game = self.game
                if game is None or self.devices[game.first_state["game"]] != self.device:
                    waiting, since = ("new_game", await send(type="new_game", **self.setup)), now
                elif game.last["over"]:
                    return "over"
                elif self.my_turn() and now >= act_at:
                    state = game.last
                    move: dict[str, Any] = {"type": "roll"} if state["phase"] == "roll" else {"type": "draw"}
                    if move["type"] == "draw":
                        move["edge"] = choose_edge(state)
                    waiting, since = ("action", await send(**move, game=state["game"], seq=state["seq"])), now
            try:
                text = await asyncio.wait_for(ws.recv(), 0.05)
            except TimeoutError:
                if now - since > STALL_SECONDS:
                    self.incidents.append(f"nothing for {STALL_SECONDS:.0f} s (waiting for {waiting})")
                    return "stalled"
                continue
            self.last_frames.append(str(text)[:300])
            frame = json.loads(text)
            kind = frame["type"]
            answered = waiting is not None and frame.get("reply_to") == waiting[1]
            if kind == "welcome":
                self.device = frame["device"]
            if kind == "error":
                self.refusals[frame["code"]] += 1
                if frame["code"] not in ("unavailable", "internal", "busy", "stale"):
                    self.incidents.append(f"refused: {frame}")
                # Try again on a new connection, which brings this player up to date.
                return "refused"
            if kind == "pong" and answered:
                waiting, since = None, time.monotonic()
            elif kind == "state" and answered and waiting is not None and waiting[0] == "new_game":
                self.games.append(PlayedGame(self.setup, first_state=frame["game"], started=time.monotonic()))
                self.devices[frame["game"]["game"]] = self.device
                self.progress.append(time.monotonic())
                waiting, since, act_at = None, time.monotonic(), time.monotonic() + MOVE_PAUSE
            elif kind in ("update", "state"):
                before = self.seq
                if self._record(frame) == "gap":
                    return "gap"
                if self.seq > before:
                    since, act_at = time.monotonic(), time.monotonic() + MOVE_PAUSE
                    if waiting is not None and waiting[0] == "action":
                        waiting = None  # its update (or one that made it stale) came


@dataclass
class Fleet:
    """The 20 players, playing in a thread of their own."""

    players: list[Player]
    _stopping: asyncio.Event | None = None
    _loop: asyncio.AbstractEventLoop | None = None
    _thread: threading.Thread | None = None
    failure: BaseException | None = None

    def start(self) -> None:
        ready = threading.Event()

        async def main() -> None:
            self._stopping = asyncio.Event()
            self._loop = asyncio.get_running_loop()
            ready.set()
            await asyncio.gather(*(player.play(self._stopping) for player in self.players))

        def run() -> None:
            try:
                asyncio.run(main())
            except BaseException as exc:
                self.failure = exc
                ready.set()

        self._thread = threading.Thread(target=run, name="fleet", daemon=True)
        self._thread.start()
        ready.wait(10)

    def stop(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            return
        if self._loop is not None and self._stopping is not None:
            self._loop.call_soon_threadsafe(self._stopping.set)
        self._thread.join(20)

    def wait_all_playing(self, timeout: float = 60) -> None:
        """Until every player has a game on and moved in the last 3 s."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.failure is None, self.failure
            now = time.monotonic()
            if all(p.progress and now - p.progress[-1] < 3 for p in self.players):
                return
            time.sleep(0.1)
        idle = [p.describe() for p in self.players if not p.progress or now - p.progress[-1] > 3]
        raise AssertionError(f"players not playing: {idle}")


@dataclass
class Row:
    name: str
    exit: str
    down: float  # kill -> ready again
    restart_to_ready: float  # started again -> ready
    resume_max: float  # ready -> play resumed, the slowest player
    resume_median: float
    outage_max: float  # the longest a player went without a move, from the kill until play resumed
    outage_median: float
    refusals: Counter[str]
    reconnects: int
    orphans: int
    slowest: str  # the game of the slowest player to resume


class Unavailable(Exception):
    """The server answered "try again" (a service behind the gateway is still coming back)."""


async def _server_history_once(url: str, device: str, game_id: str) -> tuple[dict[int, dict[str, Any]], int]:
    async with websockets.connect(url, max_size=2**24, open_timeout=5) as ws:
        await ws.send(json.dumps({"type": "hello", "device": device, "game": game_id, "seq": 0, "id": 1}))
        await ws.send(json.dumps({"type": "ping", "id": 2}))
        updates: dict[int, dict[str, Any]] = {}
        seq = -1
        while True:
            frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
            if frame["type"] == "update":  # of the game the hello named: the only one followed
                updates[frame["seq"]] = frame
                seq = max(seq, frame["seq"])
            elif frame["type"] == "state" and frame["game"]["game"] == game_id:
                seq = max(seq, frame["seq"])
            elif frame["type"] == "error":
                if frame["code"] in ("unavailable", "internal"):
                    raise Unavailable(frame)
                raise AssertionError(f"the server's record of {game_id}: {frame}")
            elif frame.get("reply_to") == 2:
                # Nothing after seq 0 and no state instead: the game is at seq 0.
                return updates, max(seq, 0)


async def server_history(url: str, device: str, game_id: str) -> tuple[dict[int, dict[str, Any]], int]:
    """The game's updates as the server keeps them (every one since seq 0), and its seq."""
    for _ in range(50):
        with contextlib.suppress(Unavailable):
            return await _server_history_once(url, device, game_id)
        await asyncio.sleep(0.2)
    raise AssertionError(f"the server's record of {game_id} stayed unavailable")


async def histories(url: str, games: list[tuple[str, str]]) -> list[tuple[dict[int, dict[str, Any]], int]]:
    """``server_history`` of every (device, game id), a few at a time."""
    room = asyncio.Semaphore(10)

    async def one(device: str, game_id: str) -> tuple[dict[int, dict[str, Any]], int]:
        async with room:
            return await server_history(url, device, game_id)

    return list(await asyncio.gather(*(one(device, game_id) for device, game_id in games)))


def same_history(client: PlayedGame, server: dict[int, dict[str, Any]], server_seq: int, seen: int) -> str | None:
    """None when the server is at the player's seq ``seen`` or ahead, with the same updates up to it."""
    if server_seq < seen:
        return f"the server is at seq {server_seq}, its player saw {seen}"
    for update in client.updates[:seen]:
        kept = server.get(update["seq"])
        if kept is None:
            return f"update {update['seq']} is not kept"
        if kept["action"] != update["action"] or kept["changes"] != update["changes"]:
            return f"update {update['seq']}: the player saw {update['action']}, the server has {kept['action']}"
    return None


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    own = make_stack("faults", supervise=True, redis_aof=True)
    try:
        own.start()
        yield own
    finally:
        own.stop()


@pytest.fixture(scope="module")
def fleet(stack: Stack) -> Iterator[Fleet]:
    players = Fleet([Player(i, setup, _ws_url(stack)) for i, setup in enumerate(SETUPS)])
    players.start()
    try:
        yield players
    finally:
        players.stop()


@pytest.fixture(scope="module")
def table(request: pytest.FixtureRequest) -> Iterator[list[Row]]:
    rows: list[Row] = []
    yield rows
    if not rows:
        return
    lines = [
        "recovery after SIGKILL, 20 games in play (times in s; down = from the kill to ready again, start = from "
        "started again to ready, resume = from ready again to the next move, outage = the longest a player "
        "went without a move from the kill until then)",
        f"{'killed':<8} {'exit':<18} {'down':>5} {'start':>6} {'resume max':>10} {'median':>7} "
        f"{'outage max':>10} {'median':>7} {'reconnects':>10} {'orphans':>7}  refusals; the slowest game",
    ]
    for row in rows:
        refusals = ", ".join(f"{code} {count}" for code, count in sorted(row.refusals.items())) or "-"
        lines.append(
            f"{row.name:<8} {row.exit:<18} {row.down:>5.1f} {row.restart_to_ready:>6.1f} {row.resume_max:>10.2f} "
            f"{row.resume_median:>7.2f} {row.outage_max:>10.2f} {row.outage_median:>7.2f} {row.reconnects:>10} "
            f"{row.orphans:>7}  {refusals}; {row.slowest}"
        )
    text = "\n".join(lines)
    OUTPUT.mkdir(parents=True, exist_ok=True)
    (OUTPUT / "fault-recovery.txt").write_text(text + "\n")
    capture = request.config.pluginmanager.getplugin("capturemanager")
    with capture.global_and_fixture_disabled() if capture else contextlib.nullcontext():
        print("\n" + text)


def longest_wait(progress: list[float], killed_at: float, resumed_at: float) -> float:
    """The longest a player went without a move from the kill until play resumed after the
    process was back: what the crash cost it. A game that played on meanwhile (Expert's turns go
    on in the AI's own processes while the Celery worker is down) waited only its usual turns;
    one whose process was needed waited from the kill (or its last move since) to the next."""
    longest, since = 0.0, killed_at
    for moment in progress:
        if moment <= killed_at:
            continue
        longest, since = max(longest, moment - since), moment
        if moment >= resumed_at:
            break
    return longest


def _setup_of(player: Player) -> str:
    return " ".join(str(value) for value in player.setup.values())


@pytest.mark.parametrize("name", KILLED)
def test_a_killed_process_comes_back_and_every_game_goes_on(
    name: str, stack: Stack, fleet: Fleet, table: list[Row]
) -> None:
    fleet.wait_all_playing()
    players = fleet.players
    refusals_before = sum((p.refusals for p in players), Counter[str]())
    reconnects_before = sum(p.reconnects for p in players)
    at_kill = {p.index: (p.game, p.seq, p.game is not None and p.game.last["over"]) for p in players}
    old_pid = stack.processes[name].pid
    if name == "gateway":
        # As long after its start as a crash comes, in a running installation: its spare is warm.
        stack.wait_spare_warm(name)
    spare = stack._children[name].spare
    killed_at = stack.crash(name)
    recovery = stack.wait_recovered(name, killed_at)
    assert recovery.ready_at is not None and recovery.started_at is not None
    ready = recovery.ready_at

    # Play resumes: every player moves on after the process is ready again (wait long enough to
    # measure a slow resumption rather than only fail on it).
    deadline = ready + RESUME_LIMIT + 15
    while time.monotonic() < deadline and not all(p.progress[-1] > ready for p in players):
        time.sleep(0.05)
    resumed = {p.index: next((t for t in p.progress if t > ready), None) for p in players}
    delays = {i: t - ready for i, t in resumed.items() if t is not None}
    outages = [
        longest_wait(list(p.progress), killed_at, t) for p in players if (t := resumed[p.index]) is not None
    ]
    orphans = group_members(old_pid) or []
    table.append(
        Row(
            name,
            recovery.exit,
            ready - killed_at,
            ready - recovery.started_at,
            max(delays.values(), default=float("inf")),
            statistics.median(delays.values()) if delays else float("inf"),
            max(outages, default=float("inf")),
            statistics.median(outages) if outages else float("inf"),
            sum((p.refusals for p in players), Counter[str]()) - refusals_before,
            sum(p.reconnects for p in players) - reconnects_before,
            len(orphans),
            _setup_of(max(players, key=lambda p: delays.get(p.index, float("inf")))),
        )
    )
    stalled = [p.describe() for p in players if resumed[p.index] is None]
    assert not stalled, f"no move since {name} was back: {stalled}"
    assert not orphans, f"what {name} left behind still runs: {orphans}"
    assert stack.restarts[name] == 1
    if name == "gateway":
        assert spare is not None and stack.processes[name] is spare.process, "the restart did not take the spare"

    # Every game in play at the kill went on, and the server's record is what its player saw or
    # ahead of it with the same history.
    for player in players:
        game, seen, over = at_kill[player.index]
        assert game is not None
        if not over:
            assert game.last["seq"] > seen or game.last["over"], (player.describe(), "did not go on")
    in_play = [(player, at_kill[player.index][0]) for player in players]
    kept = [(player.devices[game.first_state["game"]], game.first_state["game"]) for player, game in in_play if game]
    for player, (updates, server_seq) in zip(players, asyncio.run(histories(_ws_url(stack), kept)), strict=True):
        game, seen, _ = at_kill[player.index]
        problem = same_history(game, updates, server_seq, seen)
        assert problem is None, (player.describe(), problem)
    for player in players:
        assert not player.incidents, player.describe()

    slow = {i: round(delay, 2) for i, delay in delays.items() if delay > RESUME_LIMIT}
    assert not slow, f"play resumed more than {RESUME_LIMIT} s after {name} was back: {slow}"


def test_every_game_played_replays_to_its_final_state(stack: Stack, fleet: Fleet) -> None:
    """All the games the players played through the five kills: in order, no move lost or made
    twice, and the server's record of each is what its player saw, or ahead with the same
    history."""
    fleet.wait_all_playing()
    fleet.stop()  # nothing moves while the records are compared
    games = [(player, game) for player in fleet.players for game in player.games]
    for player, game in games:
        assert not player.incidents, player.describe()
        if game.updates:
            game.check_replay()
    kept = [(player.devices[game.first_state["game"]], game.first_state["game"]) for player, game in games]
    for (player, game), (updates, server_seq) in zip(games, asyncio.run(histories(_ws_url(stack), kept)), strict=True):
        problem = same_history(game, updates, server_seq, len(game.updates))
        assert problem is None, (player.describe(), game.first_state["game"], problem)
    assert len(games) >= len(SETUPS)
