"""The stats service with real processes: every finished game is counted exactly once, through
a crash between reading and acknowledging, a replay of the stream and two replicas reading at
once; the websocket frames of the statistics; and bad input refused with nothing changed."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator

import grpc
import pytest
import redis

from boxedin.common.devices import device_hash
from boxedin.common.keys import STATS_GROUP, Keys, partition_of
from boxedin.common.reasons import REASON_KEY
from boxedin.engine import codec
from boxedin.supervisor.launcher import Stack, free_port
from boxedin.v1 import common_pb2, engine_pb2, engine_pb2_grpc, stats_pb2, stats_pb2_grpc

from stacks import issued_device, make_stack
from stats_games import QUICK_LAST_SIX_ON_FOUR_EDGES, edges_in_order
from wsclient import Browser

# Whole-stack: real processes on loopback (`pytest -m "not stack"` leaves them out).
pytestmark = pytest.mark.stack

# Twenty devices, with tokens as the stack's gateways issue them (filled in when the stack
# starts): their games are played through the engine, and some are looked at through a gateway.
DEVICES: list[str] = []


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    own = make_stack("statistics", worker=False, extra_env={"BOXEDIN_STATS_CLAIM_IDLE_SECONDS": "2"})
    try:
        own.start()
        DEVICES[:] = [issued_device(own) for _ in range(20)]
        yield own
    finally:
        own.stop()


async def _finish_games(
    stack: Stack, devices: list[str], per_device: int, finished: list[str] | None = None
) -> list[str]:
    """Finishes games against the AI (Easy), each resigned by its player at once: a loss. Each
    finished game's id is added to ``finished`` as it finishes."""
    done = finished if finished is not None else []
    async with stack.channel(stack.engine_port, "gateway") as channel:
        engine = engine_pb2_grpc.EngineStub(channel)
        setup = common_pb2.GameSetup(mode="mini", opponent="ai", level="easy", first=1)

        async def one(device: str) -> None:
            game = await engine.CreateGame(engine_pb2.CreateGameRequest(device=device, setup=setup))
            await engine.Act(
                engine_pb2.ActRequest(
                    game_id=game.game_id, device=device, actor=common_pb2.ACTOR_HUMAN,
                    action=common_pb2.Action(resign=True), expected_seq=0,
                )
            )  # fmt: skip
            done.append(game.game_id)

        for _ in range(per_device):
            await asyncio.gather(*(one(device) for device in devices))
    return done


def pending_finished(stack: Stack) -> int:
    client = redis.Redis.from_url(str(stack.redis_url))
    return sum(int(client.xpending(s, STATS_GROUP)["pending"]) for s in Keys(stack.key_prefix, 16).finished_streams())


def stats_of(stack: Stack, device: str, port: int | None = None) -> stats_pb2.DeviceStatistics:
    with grpc.insecure_channel(f"127.0.0.1:{port or stack.stats_port}") as channel:
        reply: stats_pb2.DeviceStatistics = stats_pb2_grpc.StatsStub(channel).GetStats(
            stats_pb2.StatsRequest(device=device), timeout=5, metadata=stack.call_metadata("gateway")
        )
        return reply


def wait_for_games(stack: Stack, devices: list[str], games: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if all(stats_of(stack, d).games >= games for d in devices):
            return
        time.sleep(0.2)
    raise AssertionError(f"not every device reached {games} games: {[stats_of(stack, d).games for d in devices]}")


def test_a_crash_between_reading_and_acknowledging_counts_every_game_once(stack: Stack) -> None:
    finished: list[str] = []
    worker = threading.Thread(target=lambda: asyncio.run(_finish_games(stack, DEVICES, 10, finished)))
    worker.start()
    # Kill the stats service while the 200 games finish.
    deadline = time.monotonic() + 30
    while len(finished) < 40 and time.monotonic() < deadline:
        worker.join(0.01)
    stack.kill_process("stats")
    worker.join(120)
    assert len(finished) == 200
    # A replica reads some of the games left and dies before acknowledging them.
    client = redis.Redis.from_url(str(stack.redis_url))
    for stream in Keys(stack.key_prefix, 16).finished_streams():
        client.xreadgroup(STATS_GROUP, "a-replica-that-died", {stream: ">"}, count=3)
    assert pending_finished(stack) > 0
    stack.start_stats()
    stack.wait_serving("stats", stack.stats_port)
    wait_for_games(stack, DEVICES, 10)
    for device in DEVICES:
        stats = stats_of(stack, device)
        assert (stats.games, stats.losses, stats.wins, stats.current_streak) == (10, 10, 0, 0)
        assert stats.by_level["easy"].games == 10 and stats.by_mode["mini"].games == 10
    deadline = time.monotonic() + 20
    while pending_finished(stack) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert pending_finished(stack) == 0


def test_a_replay_of_the_stream_counts_nothing_twice(stack: Stack) -> None:
    device = DEVICES[0]
    before = stats_of(stack, device).games
    game_id = asyncio.run(_finish_games(stack, [device], 1))[0]
    wait_for_games(stack, [device], before + 1)
    # The same finished game written to its stream again, as a replay would.
    with grpc.insecure_channel(f"127.0.0.1:{stack.engine_port}") as channel:
        snapshot = engine_pb2_grpc.EngineStub(channel).GetGame(
            engine_pb2.GetGameRequest(game_id=game_id), metadata=stack.call_metadata("ai")
        )
    again = common_pb2.FinishedGame(
        game_id=game_id,
        record=snapshot.record,
        seats=[
            common_pb2.SeatInfo(kind="human", device=device_hash(device), name="You"),
            common_pb2.SeatInfo(kind="ai", level="easy", name="AI (Easy)"),
        ],
        created=time.time() - 5,
        ended=time.time(),
    )
    keys = Keys(stack.key_prefix, 16)
    client = redis.Redis.from_url(str(stack.redis_url))
    stream = keys.finished(partition_of(game_id, 16))
    client.xadd(stream, {"game": again.SerializeToString()})
    # The replayed entry is read and acknowledged (the stream drains), and nothing changed.
    deadline = time.monotonic() + 20
    while client.xlen(stream) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert client.xlen(stream) == 0
    assert stats_of(stack, device).games == before + 1


def test_the_stats_service_counts_a_six_on_4_open_edges_as_a_4(stack: Stack) -> None:
    # Quick (d6, 60 edges): the device's last 6 finds 4 edges open and is shown as a 4. The
    # finished game travels as the engine writes it: the record of the faces, on its stream.
    device = issued_device(stack)
    game = edges_in_order("quick", QUICK_LAST_SIX_ON_FOUR_EDGES)
    finished = common_pb2.FinishedGame(
        game_id="a-six-on-4-open-edges",
        record=codec.encode(game),
        seats=[
            common_pb2.SeatInfo(kind="human", device=device_hash(device), name="You"),
            common_pb2.SeatInfo(kind="ai", level="easy", name="AI (Easy)"),
        ],
        created=time.time() - 5,
        ended=time.time(),
    )
    client = redis.Redis.from_url(str(stack.redis_url))
    stream = Keys(stack.key_prefix, 16).finished(partition_of(finished.game_id, 16))
    client.xadd(stream, {"game": finished.SerializeToString()})
    wait_for_games(stack, [device], 1)
    stats = stats_of(stack, device)
    assert dict(stats.dice) == {"6": 5, "2": 1, "4": 1}
    top_of_the_die = next(a for a in stats.achievements if a.id == "top_face_50")
    assert top_of_the_die.progress == 5


def test_two_replicas_reading_at_once_give_the_same_totals(stack: Stack) -> None:
    second = free_port()
    stack.start_stats(second, name="stats-2")
    stack.wait_serving("stats-2", second)
    try:
        devices = DEVICES[10:]
        before = {d: stats_of(stack, d).games for d in devices}
        asyncio.run(_finish_games(stack, devices, 20))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and any(stats_of(stack, d).games < before[d] + 20 for d in devices):
            time.sleep(0.2)
        for device in devices:
            assert stats_of(stack, device).games == before[device] + 20
            assert stats_of(stack, device, second).games == before[device] + 20
    finally:
        stack.stop_process("stats-2")


def test_a_won_game_shows_its_leaderboard_line_and_its_achievements(stack: Stack) -> None:
    browser = Browser(stack.url())
    try:
        browser.hello()
        browser.new_game(mode="mini", opponent="ai", level="easy", ai_speed="fast", seed="a won game")
        final = browser.play_to_the_end(timeout=120)
        result = browser.request(type="game_result", game=final["game"])
        assert result["type"] == "result" and result["game"] == final["game"]
        stats = browser.request(type="stats")
        overview = stats["overview"]
        assert overview["games"] == 1
        if final["winner"] == 1:
            line = result["leaderboard"]
            mine, theirs = final["scores"]
            assert line["points"] == int(100 * mine / (mine + theirs) + 0.5) and line["place"] == 1
            assert line["sentence"] == f"{line['points']} points: place 1 on your Mini leaderboard."
            assert result["achievements"], "a first win unlocks something"
            assert stats["leaderboards"]["all"][0]["game"] == final["game"]
        else:
            assert result["leaderboard"] is None
        unlocked = {a["id"] for a in stats["achievements"] if a["unlocked_at"] is not None}
        assert {a["id"] for a in result["achievements"]} <= unlocked
        assert len(stats["achievements"]) == 36
    finally:
        browser.close()


def test_a_reset_needs_its_confirmation_token_and_then_empties_everything(stack: Stack) -> None:
    browser = Browser(stack.url(), device=DEVICES[3])
    try:
        browser.hello()
        assert browser.request(type="stats")["overview"]["games"] > 0
        wrong = browser.request(type="reset_stats", token="not-the-token")
        assert wrong["type"] == "error" and wrong["code"] == "bad_token"
        assert browser.request(type="stats")["overview"]["games"] > 0
        confirm = browser.request(type="reset_stats")
        assert confirm["type"] == "reset_confirm" and confirm["expires_in"] == 60
        emptied = browser.request(type="reset_stats", token=confirm["token"])
        assert emptied["type"] == "stats" and emptied["overview"]["games"] == 0
        assert emptied["leaderboards"] == {"all": []}
        assert all(a["unlocked_at"] is None for a in emptied["achievements"])
        again = browser.request(type="reset_stats", token=confirm["token"])
        assert again["code"] == "bad_token"  # a token serves once
    finally:
        browser.close()


def test_the_reset_confirmation_token_is_stored_hashed(stack: Stack) -> None:
    """Like a device token, a confirmation token is kept only as its hash: reading the store
    does not let anybody reset another device's statistics."""
    with grpc.insecure_channel(f"127.0.0.1:{stack.stats_port}") as channel:
        stub = stats_pb2_grpc.StatsStub(channel)
        as_gateway = stack.call_metadata("gateway")
        token = stub.RequestReset(stats_pb2.StatsRequest(device=DEVICES[15]), timeout=5, metadata=as_gateway).token
        client = redis.Redis.from_url(str(stack.redis_url))
        try:
            stored = client.get(Keys(stack.key_prefix, 16).stats_reset_token(device_hash(DEVICES[15])))
        finally:
            client.close()
        assert isinstance(stored, bytes) and token.encode() not in stored
        with pytest.raises(grpc.RpcError) as refused:
            # The stored value, named as the token, is just another wrong token.
            named = stats_pb2.ResetRequest(device=DEVICES[15], token=stored.decode())
            stub.Reset(named, timeout=5, metadata=as_gateway)
        assert dict(refused.value.trailing_metadata())[REASON_KEY] == "bad_token"
        stub.Reset(stats_pb2.ResetRequest(device=DEVICES[15], token=token), timeout=5, metadata=as_gateway)


def test_bad_statistics_requests_are_refused_with_a_reason(stack: Stack) -> None:
    with grpc.insecure_channel(f"127.0.0.1:{stack.stats_port}") as channel:
        stub = stats_pb2_grpc.StatsStub(channel)
        as_gateway = stack.call_metadata("gateway")
        with pytest.raises(grpc.RpcError) as refused:
            stub.GetStats(stats_pb2.StatsRequest(device="short"), timeout=5, metadata=as_gateway)
        assert dict(refused.value.trailing_metadata())[REASON_KEY] == "bad_device"
        with pytest.raises(grpc.RpcError) as refused:
            stub.Reset(stats_pb2.ResetRequest(device=DEVICES[5]), timeout=5, metadata=as_gateway)
        assert dict(refused.value.trailing_metadata())[REASON_KEY] == "bad_token"
        # A client's mistake, never a failure of the service (the error-rate alert counts those).
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
        with pytest.raises(grpc.RpcError) as refused:
            wrong = stats_pb2.ResetRequest(device=DEVICES[5], token="not-the-token")
            stub.Reset(wrong, timeout=5, metadata=as_gateway)
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
        with pytest.raises(grpc.RpcError) as refused:
            unknown_game = stats_pb2.GameResultRequest(device=DEVICES[5], game_id="g_unknown")
            stub.GetGameResult(unknown_game, timeout=5, metadata=as_gateway)
        assert dict(refused.value.trailing_metadata())[REASON_KEY] == "no_game"
        never_seen = stats_pb2.StatsRequest(device="never-seen-device-0123456789")
        unknown = stub.GetStats(never_seen, timeout=5, metadata=as_gateway)
        assert unknown.games == 0 and len(unknown.achievements) == 36
    browser = Browser(stack.url(), device=DEVICES[5])
    try:
        browser.hello()
        games = browser.request(type="stats")["overview"]["games"]
        for frame in ({"type": "game_result"}, {"type": "reset_stats", "token": ""}, {"type": "stats", "x": 1}):
            reply = browser.request(**frame)
            assert reply["type"] == "error" and reply["code"] == "bad_message", reply
        assert browser.request(type="stats")["overview"]["games"] == games
    finally:
        browser.close()
