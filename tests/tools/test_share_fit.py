"""`boxedin ai fit-share`: the share of the best reply Expert's lookahead credits, fitted on
Hard's games."""

from __future__ import annotations

import json

import pytest

from boxedin.cli import main
from boxedin.tools.share_fit import fit_share, turn_starts


def test_the_share_is_the_slope_of_what_the_mover_gains_against_the_best_reply():
    points = turn_starts("mini", 0, "t")
    assert points and all(reply >= 0 for reply, _ in points)
    fit = fit_share("mini", 6, "t")
    n = fit.samples
    xs = [x for i in range(6) for x, _ in turn_starts("mini", i, "t")]
    ys = [y for i in range(6) for _, y in turn_starts("mini", i, "t")]
    assert len(xs) == n
    mx, my = sum(xs) / n, sum(ys) / n
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)
    assert fit.share == pytest.approx(slope)
    assert fit.intercept == pytest.approx(my - slope * mx)
    assert fit.share_se > 0
    assert fit_share("mini", 6, "t") == fit  # the seed decides everything


def test_fit_share_prints_the_fit_and_refuses_what_it_cannot_fit(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ai", "fit-share", "--mode", "mini", "--games", "2", "--seed", "x"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["mode"] == "mini" and printed["games"] == 2 and printed["samples"] > 0
    assert set(printed) == {"mode", "games", "samples", "share", "share_se", "intercept"}
    with pytest.raises(SystemExit):
        main(["ai", "fit-share", "--mode", "standard"])
    assert "invalid choice: 'standard'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["ai", "fit-share", "--mode", "mini", "--games", "0"])
    assert "--games" in capsys.readouterr().err
