"""`boxedin bench grpc`: the CPU an action's transport costs its caller and the engine, as a unary
Act call, on the action stream (boxedin.common.act_line) and on the engine's action port
(boxedin.common.act_socket), issue 32, apart from what the engine does with it. The engine is
the real EngineService with its call interceptors, in a process of its own, with its action
work left out (each action answered at once with a snapshot of a typical size), with its
action port; the caller is the real EngineRouter, with
the stream off (unary), on without the port (stream), and with the port (port). The runs go round
the three in turn, at 1 and at 8 actions in flight; each figure is the median of the runs with
their spread (min-max). With 8 in flight, a stream's message (or a port's frame) carries the
actions and answers that were ready together."""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import statistics
import sys
import time
from typing import Any

SECRET = "bench-grpc-secret-0123456789abcdef"
_TICKS = os.sysconf("SC_CLK_TCK")


def _cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICKS


def _snapshot() -> Any:
    from boxedin.v1 import common_pb2

    # About an update's size in a classic game (`boxedin updates`), with its facts.
    update = '{"type":"update","seq":12,"action":{"draw":["h",2,3]},"changes":' + '{"edges":[["h",2,3,1]]}' * 8 + "}"
    return common_pb2.GameSnapshot(
        game_id="g_0123456789abcdef", seq=12, update_json=update, opponent="local", to_move=1,
        facts=common_pb2.GameFacts(seq=12, turn=4, phase="draw"),
    )  # fmt: skip


def _serve(ready: Any, port: Any) -> None:
    from boxedin.common import event_loop

    async def main() -> None:
        import grpc
        import redis.asyncio as redis

        from boxedin.common.grpc_server import ObservingInterceptor
        from boxedin.common.keys import Keys
        from boxedin.common.service_auth import CallerCheck
        from boxedin.engine.service.act_port import ActPort
        from boxedin.engine.service.server import EngineService
        from boxedin.engine.service.store import GameStore
        from boxedin.v1 import engine_pb2, engine_pb2_grpc

        answer = _snapshot()

        class Answering(EngineService):
            """The engine's calls as they are, its action work left out."""

            async def act(self, request: engine_pb2.ActRequest) -> Any:
                return answer

        # Never used: no action reaches the store.
        service = Answering(GameStore(redis.Redis(), Keys("bench-grpc:"), line=False))
        server = grpc.aio.server(interceptors=[ObservingInterceptor(), CallerCheck("engine", SECRET)])
        engine_pb2_grpc.add_EngineServicer_to_server(service, server)
        port.value = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        await ActPort(service, SECRET).start("127.0.0.1", 0)
        ready.set()
        await server.wait_for_termination()

    event_loop.run(main())


async def _measure(port: int, server_pid: int, runs: int, actions: int) -> dict[str, dict[str, list[float]]]:
    from boxedin.common.engine_router import EngineRouter
    from boxedin.v1 import common_pb2, engine_pb2

    routers = {
        "unary": EngineRouter(f"127.0.0.1:{port}", "gateway", SECRET, 16, act_stream=False, act_socket=False),
        "stream": EngineRouter(f"127.0.0.1:{port}", "gateway", SECRET, 16, act_stream=True, act_socket=False),
        "port": EngineRouter(f"127.0.0.1:{port}", "gateway", SECRET, 16, act_stream=True, act_socket=True),
    }
    request = engine_pb2.ActRequest(
        game_id="g_0123456789abcdef", device="bench-device-0123456789abcdef", actor=common_pb2.ACTOR_HUMAN,
        action=common_pb2.Action(draw=common_pb2.Edge(orientation="h", row=2, col=3)), expected_seq=11,
        repeat_key="0123456789abcdef0123456789abcdef",
    )  # fmt: skip
    figures: dict[str, dict[str, list[float]]] = {}
    try:
        for router in routers.values():
            await router.start()
            await router.Act(request, timeout=10)  # connected, and the line opened
            await router.ports_asked()  # the port's line is opened by the next action
        for _ in range(runs):
            for in_flight in (1, 8):
                for kind, router in routers.items():

                    async def play(count: int, router: EngineRouter = router) -> None:
                        for _ in range(count):
                            await router.Act(request, timeout=10)

                    server_before, caller_before = _cpu(server_pid), time.process_time()
                    await asyncio.gather(*(play(actions // in_flight) for _ in range(in_flight)))
                    done = (actions // in_flight) * in_flight
                    entry = figures.setdefault(f"{kind}, {in_flight} in flight", {"caller": [], "engine": []})
                    entry["caller"].append(1000 * (time.process_time() - caller_before) / done)
                    entry["engine"].append(1000 * (_cpu(server_pid) - server_before) / done)
    finally:
        for router in routers.values():
            await router.close()
    return figures


def _figure(values: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(values), 3), "min": round(min(values), 3), "max": round(max(values), 3)}


def run(args: argparse.Namespace) -> int:
    from boxedin.common import event_loop

    if args.runs < 1 or args.actions < 8:
        print("boxedin bench grpc: --runs is at least 1 and --actions at least 8", file=sys.stderr)
        return 2
    context = multiprocessing.get_context("spawn")
    ready, port = context.Event(), context.Value("i", 0)
    server = context.Process(target=_serve, args=(ready, port), daemon=True)
    server.start()
    try:
        if not ready.wait(60):
            print("boxedin bench grpc: the engine did not start", file=sys.stderr)
            return 1
        measured = event_loop.run(_measure(port.value, server.pid or 0, args.runs, args.actions))
    finally:
        server.terminate()
        server.join(10)
    result = {
        "cpu_ms_per_action": {
            label: {side: _figure(values) for side, values in sides.items()} for label, sides in measured.items()
        },
        "runs": args.runs,
        "actions_per_run": args.actions,
    }
    if args.json:
        print(json.dumps(result))
        return 0
    print("CPU ms per action, median (min-max) of", args.runs, "runs of", args.actions, "actions")
    print(f"{'':24s} {'caller':>22s} {'engine':>22s}")
    for label, sides in result["cpu_ms_per_action"].items():
        cells = [f"{f['median']:.3f} ({f['min']:.3f}-{f['max']:.3f})" for f in (sides["caller"], sides["engine"])]
        print(f"{label:24s} {cells[0]:>22s} {cells[1]:>22s}")
    return 0


def add_to(targets: Any) -> None:
    parser = targets.add_parser(
        "grpc", help="CPU per action of its transport, caller and engine: a unary Act, the action stream, the port"
    )
    parser.add_argument("--runs", type=int, default=3, help="runs of each (default 3)")
    parser.add_argument("--actions", type=int, default=2000, help="actions per run and kind (default 2000)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.set_defaults(handler=run)
