"""`boxedin bench replicas`: the engine CPU per action as the engine and the gateway scale out
(issue 32), in one run: 1, 2 and 4 engine replicas behind 1 and 2 gateways, each game's calls
sent to the replica of its partition, and beside 2 replicas the round-robin baseline (every call
to the next replica, as before). Each configuration is its own stack (`boxedin load --own-stack`)
under the same load; the runs go round the configurations in turn, so that a busy machine weighs
on each alike, and each figure is the median of the runs with their spread (min-max).

The figure is the CPU seconds of every engine process (user and system, /proc) per 1,000 actions
answered: the work the engine tier does for the same play, whatever the number of replicas.
Beside it, the games read whole from Redis per 1,000 actions (HGETALL calls): a replica reads a
game when its copy is missing or another replica moved the game on, which affinity avoids.
With affinity, 2 replicas should cost at most 1.1 times 1 replica's."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from typing import Any

# (engine replicas, gateways, routing)
CONFIGURATIONS = [
    (1, 1, "partition"),
    (2, 1, "round_robin"),
    (2, 1, "partition"),
    (4, 1, "partition"),
    (1, 2, "partition"),
    (2, 2, "round_robin"),
    (2, 2, "partition"),
    (4, 2, "partition"),
]


def engine_cpu_per_1000(result: dict[str, Any]) -> float:
    """The CPU seconds of all engine replicas per 1,000 actions answered."""
    return float(sum(v for name, v in result["cpu_seconds_per_1000_actions"].items() if name.startswith("engine")))


def gateway_cpu_per_1000(result: dict[str, Any]) -> float:
    return float(sum(v for name, v in result["cpu_seconds_per_1000_actions"].items() if name.startswith("gateway")))


def _figure(values: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(values), 3), "min": round(min(values), 3), "max": round(max(values), 3)}


def run(args: argparse.Namespace) -> int:
    from boxedin.tools.load.own_stack import run_on_own_stack

    if args.runs < 1 or args.seconds <= 0 or args.concurrency < 1 or (args.players_per_engine or 1) < 1:
        print("boxedin bench replicas: --runs and --concurrency are at least 1, --seconds above 0", file=sys.stderr)
        return 2
    chosen = [c for c in CONFIGURATIONS if c[0] in args.engines and c[1] in args.gateways]
    measured: dict[tuple[int, int, str], list[dict[str, Any]]] = {c: [] for c in chosen}
    for run_number in range(args.runs):
        for engines, gateways, routing in chosen:
            label = f"{engines} engines, {gateways} gateways, {routing}"
            print(f"run {run_number + 1}/{args.runs}: {label}", file=sys.stderr)
            players = args.concurrency if args.players_per_engine is None else args.players_per_engine * engines
            result = run_on_own_stack(
                1_000_000, players, args.mode, engines=engines, think=args.think,
                seconds=args.seconds, ramp=args.ramp, gateways=gateways, routing=routing,
            )  # fmt: skip
            if result["failed_games"]:
                failed = f"{result['failed_games']} games failed ({label}): {result['errors']}"
                print(f"boxedin bench replicas: {failed}", file=sys.stderr)
                return 1
            measured[(engines, gateways, routing)].append(result)
    base = {gateways: measured.get((1, gateways, "partition")) for gateways in args.gateways}
    rows = []
    for (engines, gateways, routing), results in measured.items():
        engine_cpu = [engine_cpu_per_1000(r) for r in results]
        row: dict[str, Any] = {
            "engines": engines,
            "gateways": gateways,
            "routing": routing,
            "engine_cpu_ms_per_action": _figure(engine_cpu),
            "gateway_cpu_ms_per_action": _figure([gateway_cpu_per_1000(r) for r in results]),
            "actions_per_second": _figure([r["actions_per_second"] for r in results]),
            "game_reads_per_1000_actions": _figure([r["game_reads_per_1000_actions"] for r in results]),
            "actions": [r["all_actions_answered"] for r in results],
        }
        one = base.get(gateways)
        if one:
            # Each run against the same run's 1 replica: the machine's load then was the same.
            ratios = [cpu / engine_cpu_per_1000(ref) for cpu, ref in zip(engine_cpu, one, strict=True)]
            row["engine_cpu_vs_1_replica"] = _figure(ratios)
        rows.append(row)
    if args.json:
        load = {"concurrency": args.concurrency, "players_per_engine": args.players_per_engine}
        print(json.dumps({"mode": args.mode, "seconds": args.seconds, **load, "rows": rows}))
        return 0
    played_by = f"{args.concurrency} players"
    if args.players_per_engine is not None:
        played_by = f"{args.players_per_engine} players an engine"
    print(
        f"engine CPU per action ({args.mode}, {played_by}, think {args.think} s, "
        f"{args.seconds:.0f} s a run, {args.runs} runs: median [min-max])"
    )
    print(
        "| engines | gateways | routing | engine CPU ms/action | x 1 replica | gateway CPU ms/action "
        "| games read per 1,000 actions | actions/s |"
    )
    print("|---:|---:|---|---|---|---|---|---|")
    for row in rows:

        def cell(figure: dict[str, float] | None, digits: int = 3) -> str:
            if figure is None:
                return ""
            return f"{figure['median']:.{digits}f} [{figure['min']:.{digits}f}-{figure['max']:.{digits}f}]"

        print(
            f"| {row['engines']} | {row['gateways']} | {row['routing']} | {cell(row['engine_cpu_ms_per_action'])} "
            f"| {cell(row.get('engine_cpu_vs_1_replica'), 2)} | {cell(row['gateway_cpu_ms_per_action'])} "
            f"| {cell(row['game_reads_per_1000_actions'], 1)} | {cell(row['actions_per_second'], 0)} |"
        )
    return 0


def add_to(targets: Any) -> None:
    parser = targets.add_parser(
        "replicas", help="engine CPU per action with 1, 2 and 4 engine replicas and 1 and 2 gateways (own stacks)"
    )
    parser.add_argument("--runs", type=int, default=3, help="runs of every configuration (default 3)")
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds of load per configuration and run")
    parser.add_argument("--ramp", type=float, default=1.0, help="seconds of starting players, not counted (default 1)")
    parser.add_argument("--concurrency", type=int, default=40, help="players at once (default 40)")
    parser.add_argument(
        "--players-per-engine", type=int, metavar="N",
        help="N players for each engine replica in place of --concurrency: the same load per replica",
    )  # fmt: skip
    parser.add_argument("--think", type=float, default=0.05, help="seconds between a game's actions (default 0.05)")
    parser.add_argument("--mode", default="classic", help="the mode played (default classic)")
    parser.add_argument("--engines", type=int, nargs="+", default=[1, 2, 4], help="engine replica counts (1 2 4)")
    parser.add_argument("--gateways", type=int, nargs="+", default=[1, 2], help="gateway counts (1 2)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.set_defaults(handler=run)
