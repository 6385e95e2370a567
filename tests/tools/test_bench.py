"""The benchmarks' commands: `boxedin ai bench`."""

from __future__ import annotations

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
