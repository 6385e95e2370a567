"""The chart rendered once per module, with its default values, with values-production.yaml and
as a Redis Cluster installation with everything optional switched on."""

from __future__ import annotations

from collections.abc import Iterator

import helm_python as helm
import pytest

from chart_render import (
    CHART,
    CLUSTER_VALUES,
    Rendered,
    production_values,
    render,
)


@pytest.fixture(scope="module")
def chart() -> Iterator[helm.Chart]:
    with helm.Chart.load(CHART) as loaded:
        yield loaded


@pytest.fixture(scope="module")
def default(chart: helm.Chart) -> Rendered:
    return render(chart, {})


@pytest.fixture(scope="module")
def production(chart: helm.Chart) -> Rendered:
    return render(chart, production_values())


@pytest.fixture(scope="module")
def cluster(chart: helm.Chart) -> Rendered:
    return render(chart, CLUSTER_VALUES)


@pytest.fixture(scope="module", params=["default", "production", "cluster"])
def rendered(request: pytest.FixtureRequest) -> Rendered:
    result: Rendered = request.getfixturevalue(request.param)
    return result
