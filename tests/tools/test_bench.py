"""The benchmarks' commands: `boxedin ai bench`, `boxedin figures bench`, `boxedin bench grpc`."""

from __future__ import annotations

import json

import pytest

from boxedin.cli import main


def test_ai_bench_prints_the_table_against_the_general_search(capsys):
    assert main(["ai", "bench", "--games", "1", "--baseline-up-to", "11"]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines()[2:]]
    assert rows, out
    for row in rows:
        open_lines = int(row[0])
        assert 10 <= open_lines <= 20
        assert float(row[2]) > 0
        if open_lines <= 11:
            assert float(row[3]) > 0 and row[4].endswith("x")
        else:
            assert row[3] == "-"


@pytest.mark.stack  # it starts a Redis of its own
def test_figures_bench_prints_games_now_and_the_streams_cost_beside_the_old_figure(capsys):
    assert main(["figures", "bench", "--games", "300", "--followed", "60", "--partitions", "2", "--rounds", "1"]) == 0
    figures = json.loads(capsys.readouterr().out)
    # The 60 followed games count, and so does every online game (about a fifth) followed or not.
    assert 60 <= figures["games_now"] <= 60 + 300 // 2
    for name in ("previous_games_now_ms", "games_now_ms", "streams_ms"):
        assert len(figures[name]) == 3 and all(ms > 0 for ms in figures[name]), figures


def test_grpc_bench_prints_the_cpu_of_a_unary_act_beside_the_action_stream_and_the_port(capsys):
    assert main(["bench", "grpc", "--runs", "1", "--actions", "200", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)["cpu_ms_per_action"]
    assert set(figures) == {f"{kind}, {n} in flight" for kind in ("unary", "stream", "port") for n in (1, 8)}
    for sides in figures.values():
        # The engine's CPU is read from /proc, in ticks of 10 ms: a short run's may be 0.
        assert sides["caller"]["min"] > 0 and sides["engine"]["min"] >= 0, figures
        for side in ("caller", "engine"):
            assert sides[side]["min"] <= sides[side]["median"] <= sides[side]["max"], figures
