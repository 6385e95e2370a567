"""The services take calls only from each other, and each caller only for what it does
(boxedin.common.service_auth): a call without the installation's secret, with a wrong one, or from
a service that may not make it is refused, and changes no game; the engine holds every caller to
its part (only the AI plays the computer, only the engine's own deadlines end a turn on time, a
game is read for a device or, by the AI, for the computer's seat)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from boxedin.common.reasons import REASON_KEY
from boxedin.common.service_auth import CALLER_HEADER, METHOD_CALLERS, PROOF_HEADER, call_metadata
from boxedin.supervisor.launcher import Stack
from boxedin.v1 import (
    ai_pb2,
    ai_pb2_grpc,
    common_pb2,
    engine_pb2,
    engine_pb2_grpc,
    matchmaker_pb2,
    matchmaker_pb2_grpc,
    stats_pb2,
    stats_pb2_grpc,
)

# Whole-stack: real processes on loopback (`pytest -m "not stack"` leaves them out).
pytestmark = pytest.mark.stack

DEVICE = "service-auth-device-0123456789"
Metadata = tuple[tuple[str, str], ...]


def refusal(call: Callable[[], object]) -> tuple[grpc.StatusCode, str, str]:
    with pytest.raises(grpc.RpcError) as refused:
        call()
    error = refused.value
    reason = dict(error.trailing_metadata() or ()).get(REASON_KEY, "")  # type: ignore[attr-defined]
    return error.code(), str(reason), error.details()  # type: ignore[attr-defined]


def new_game(stack: Stack, opponent: str = "local", device: str = DEVICE) -> common_pb2.GameSnapshot:
    """A new game, the device's saved game (replacing, and so ending, its last one)."""
    with grpc.insecure_channel(f"127.0.0.1:{stack.engine_port}") as channel:
        level = "easy" if opponent == "ai" else ""
        setup = common_pb2.GameSetup(mode="mini", opponent=opponent, level=level, first=1)
        request = engine_pb2.CreateGameRequest(device=device, setup=setup)
        snapshot: common_pb2.GameSnapshot = engine_pb2_grpc.EngineStub(channel).CreateGame(
            request, timeout=5, metadata=stack.call_metadata("gateway")
        )
        return snapshot


def seq_of(stack: Stack, game_id: str) -> int:
    with grpc.insecure_channel(f"127.0.0.1:{stack.engine_port}") as channel:
        request = engine_pb2.GetGameRequest(game_id=game_id, device=DEVICE)
        snapshot = engine_pb2_grpc.EngineStub(channel).GetGame(request, metadata=stack.call_metadata("gateway"))
        return snapshot.seq


def test_every_rpc_of_every_service_names_its_callers() -> None:
    for module, service in ((engine_pb2, "Engine"),):
        methods = set(module.DESCRIPTOR.services_by_name[service].methods_by_name)
        assert methods == set(METHOD_CALLERS["engine"]), "every Engine RPC is listed, and nothing else"
    assert METHOD_CALLERS["matchmaker"] == {"*": frozenset({"gateway"})}
    assert METHOD_CALLERS["stats"] == {"*": frozenset({"gateway"})}
    # Computer turns come from the work streams only; the gateway asks the AI for reviews.
    assert METHOD_CALLERS["ai"] == {"Review": frozenset({"gateway"})}


def test_a_call_without_the_secret_is_refused_and_the_health_check_is_answered(live_stack: Stack) -> None:
    game = new_game(live_stack)
    roll = engine_pb2.ActRequest(
        game_id=game.game_id, device=DEVICE, actor=common_pb2.ACTOR_HUMAN,
        action=common_pb2.Action(roll=True), expected_seq=game.seq,
    )  # fmt: skip
    wrong = call_metadata("gateway", "not-this-installations-secret")
    forged = ((CALLER_HEADER, "gateway"), (PROOF_HEADER, "0" * 64))
    with grpc.insecure_channel(f"127.0.0.1:{live_stack.engine_port}") as channel:
        engine = engine_pb2_grpc.EngineStub(channel)
        code, reason, details = refusal(lambda: engine.Act(roll, timeout=5))
        assert (code, reason) == (grpc.StatusCode.UNAUTHENTICATED, "unauthenticated")
        assert "only from Boxed In's own services" in details
        for metadata in (wrong, forged):
            code, reason, details = refusal(lambda m=metadata: engine.Act(roll, timeout=5, metadata=m))
            assert (code, reason) == (grpc.StatusCode.UNAUTHENTICATED, "unauthenticated")
            assert "does not match this installation's secret" in details
        health = health_pb2_grpc.HealthStub(channel)
        assert health.Check(health_pb2.HealthCheckRequest(), timeout=5).status == health_pb2.HealthCheckResponse.SERVING
    for port, call in (
        (live_stack.stats_port, lambda c: stats_pb2_grpc.StatsStub(c).GetStats(stats_pb2.StatsRequest(device=DEVICE))),
        (live_stack.matchmaker_port, lambda c: matchmaker_pb2_grpc.PresenceStub(c).GetPresence(
            matchmaker_pb2.PresenceRequest())),
        (live_stack.ai_port, lambda c: ai_pb2_grpc.AiStub(c).ChooseTurn(ai_pb2.ChooseTurnRequest())),
    ):  # fmt: skip
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            assert refusal(lambda c=channel, f=call: f(c))[:2] == (grpc.StatusCode.UNAUTHENTICATED, "unauthenticated")
    assert seq_of(live_stack, game.game_id) == game.seq, "no refused call changed the game"


def test_each_service_takes_calls_only_from_the_services_that_make_them(live_stack: Stack) -> None:
    def denied(port: int, caller: str, call: Callable[[grpc.Channel, Metadata], object]) -> str:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            code, reason, details = refusal(lambda: call(channel, live_stack.call_metadata(caller)))
        assert (code, reason) == (grpc.StatusCode.PERMISSION_DENIED, "not_allowed"), details
        return details

    stats = stats_pb2.StatsRequest(device=DEVICE)
    assert "the matchmaker may not call stats" in denied(
        live_stack.stats_port, "matchmaker", lambda c, m: stats_pb2_grpc.StatsStub(c).GetStats(stats, metadata=m)
    )
    presence = matchmaker_pb2.PresenceRequest()
    denied(live_stack.matchmaker_port, "ai",
           lambda c, m: matchmaker_pb2_grpc.PresenceStub(c).GetPresence(presence, metadata=m))  # fmt: skip
    denied(live_stack.ai_port, "gateway",
           lambda c, m: ai_pb2_grpc.AiStub(c).ChooseTurn(ai_pb2.ChooseTurnRequest(), metadata=m))  # fmt: skip
    online = engine_pb2.OnlineGameRequest()
    assert "the gateway may not call engine.CreateOnlineGame" in denied(
        live_stack.engine_port, "gateway",
        lambda c, m: engine_pb2_grpc.EngineStub(c).CreateOnlineGame(online, metadata=m),
    )  # fmt: skip
    create = engine_pb2.CreateGameRequest(device=DEVICE, setup=common_pb2.GameSetup(mode="mini", opponent="local"))
    denied(live_stack.engine_port, "ai", lambda c, m: engine_pb2_grpc.EngineStub(c).CreateGame(create, metadata=m))
    denied(live_stack.engine_port, "matchmaker",
           lambda c, m: engine_pb2_grpc.EngineStub(c).CreateGame(create, metadata=m))  # fmt: skip


def test_the_engine_holds_each_caller_to_its_part(live_stack: Stack) -> None:
    local = new_game(live_stack)
    against_ai = new_game(live_stack, opponent="ai", device="service-auth-other-device-0123")

    def act(game: common_pb2.GameSnapshot, actor: int, caller: str, device: str = DEVICE) -> tuple[str, str]:
        request = engine_pb2.ActRequest(
            game_id=game.game_id, device=device, actor=actor,  # type: ignore[arg-type]
            action=common_pb2.Action(roll=True), expected_seq=game.seq,
        )  # fmt: skip
        with grpc.insecure_channel(f"127.0.0.1:{live_stack.engine_port}") as channel:
            stub = engine_pb2_grpc.EngineStub(channel)
            _, reason, details = refusal(lambda: stub.Act(request, metadata=live_stack.call_metadata(caller)))
        return reason, details

    assert act(local, common_pb2.ACTOR_AI, "gateway") == (
        "not_allowed",
        "only the AI service plays the computer's turns",
    )
    assert act(local, common_pb2.ACTOR_HUMAN, "ai") == ("not_allowed", "only the gateway acts for a player")
    for caller in ("gateway", "ai"):
        assert act(local, common_pb2.ACTOR_CLOCK, caller) == (
            "not_allowed",
            "only the engine's deadlines end a turn on time",
        )
    assert act(local, common_pb2.ACTOR_HUMAN, "gateway", device="")[0] == "bad_device"

    def read(game: common_pb2.GameSnapshot, caller: str) -> common_pb2.GameSnapshot:
        with grpc.insecure_channel(f"127.0.0.1:{live_stack.engine_port}") as channel:
            request = engine_pb2.GetGameRequest(game_id=game.game_id)
            snapshot: common_pb2.GameSnapshot = engine_pb2_grpc.EngineStub(channel).GetGame(
                request, timeout=5, metadata=live_stack.call_metadata(caller)
            )
            return snapshot

    # Without a device, a game is read only by the AI, and only where the computer has a seat.
    assert refusal(lambda: read(local, "gateway"))[1] == "bad_device"
    assert refusal(lambda: read(local, "ai"))[1] == "not_your_game"
    assert read(against_ai, "ai").game_id == against_ai.game_id
    assert seq_of(live_stack, local.game_id) == local.seq, "no refused action changed the game"


def test_the_action_stream_takes_its_callers_as_act_does(live_stack: Stack) -> None:
    game = new_game(live_stack)

    def over_stream(request: engine_pb2.ActRequest, metadata: Metadata | None) -> list[engine_pb2.ActAnswer]:
        with grpc.insecure_channel(f"127.0.0.1:{live_stack.engine_port}") as channel:
            calls = iter([engine_pb2.ActCalls(calls=[engine_pb2.ActCall(number=7, request=request)])])
            batches = engine_pb2_grpc.EngineStub(channel).ActBatches(calls, timeout=5, metadata=metadata)
            return [answer for batch in batches for answer in batch.answers]

    roll = engine_pb2.ActRequest(
        game_id=game.game_id, device=DEVICE, actor=common_pb2.ACTOR_HUMAN,
        action=common_pb2.Action(roll=True), expected_seq=game.seq,
    )  # fmt: skip
    # The stream is refused whole to a caller without the secret, and to one that may not act.
    code, reason, _ = refusal(lambda: over_stream(roll, None))
    assert (code, reason) == (grpc.StatusCode.UNAUTHENTICATED, "unauthenticated")
    code, reason, details = refusal(lambda: over_stream(roll, live_stack.call_metadata("matchmaker")))
    assert (code, reason) == (grpc.StatusCode.PERMISSION_DENIED, "not_allowed")
    assert "the matchmaker may not call engine.ActBatches" in details
    # On the gateway's stream, each action is held to the caller's part as Act holds it.
    as_ai = engine_pb2.ActRequest()
    as_ai.CopyFrom(roll)
    as_ai.actor = common_pb2.ACTOR_AI
    [answer] = over_stream(as_ai, live_stack.call_metadata("gateway"))
    assert (answer.number, answer.reason) == (7, "not_allowed")
    assert answer.message == "only the AI service plays the computer's turns"
    assert seq_of(live_stack, game.game_id) == game.seq, "no refused action changed the game"
    [answer] = over_stream(roll, live_stack.call_metadata("gateway"))
    assert (answer.number, answer.reason, answer.snapshot.seq) == (7, "", game.seq + 1)
    assert seq_of(live_stack, game.game_id) == game.seq + 1


@pytest.mark.parametrize("module", ["boxedin.engine.service", "boxedin.gateway"])
def test_a_service_without_the_shared_secret_refuses_to_start(module: str) -> None:
    env = {key: value for key, value in os.environ.items() if key != "BOXEDIN_SERVICE_SECRET"}
    env["BOXEDIN_SERVICE_SECRET"] = "short"
    env["BOXEDIN_ENGINE_ADDRESS"] = "127.0.0.1:0"
    env["BOXEDIN_ENGINE_METRICS_PORT"] = "0"
    env["BOXEDIN_GATEWAY_PORT"] = "0"
    done = subprocess.run([sys.executable, "-m", module], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "BOXEDIN_SERVICE_SECRET must be set" in done.stderr
