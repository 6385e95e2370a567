"""The chart's Prometheus alerting rules and Grafana dashboards (deploy/helm/boxedin/files/):
promtool checks the rules and proves each alert fires on series built for it
(tests/deploy/rules_test.yaml), keeps every installation's `namespace` apart and links a
runbook section of docs/runbooks.md; every dashboard has its panels and a `${datasource}` variable;
every PromQL expression in the dashboards and the rules is valid, names only metrics the services
define, and runs without error on a real Prometheus (Debian's) that scrapes a running stack while
`boxedin load` plays games and loads the rules themselves."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
import warnings
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client.metrics import MetricWrapperBase

from boxedin.common import metrics
from boxedin.supervisor.launcher import Stack, free_port
from boxedin.tools.load.loadtest import run_load

from stacks import OUTPUT, ROOMY_BUDGETS, make_stack
from wsclient import Browser

# Whole-stack: real processes on loopback (`pytest -m "not stack"` leaves them out).
pytestmark = pytest.mark.stack


ROOT = Path(__file__).resolve().parents[2]
FILES = ROOT / "deploy" / "helm" / "boxedin" / "files"
RULES = FILES / "rules.yaml"
DASHBOARDS = FILES / "dashboards"
RULES_TEST = Path(__file__).with_name("rules_test.yaml")
RUNBOOKS = ROOT / "docs" / "runbooks.md"
# The namespace the live test's Prometheus gives every target, as the chart's scrape job does.
NAMESPACE = "boxedin-test"
PROMETHEUS = os.environ.get("BOXEDIN_PROMETHEUS", "/usr/bin/prometheus")
PROMTOOL = os.environ.get("BOXEDIN_PROMTOOL", "/usr/bin/promtool")

# The `job` label each process kind gets from the chart's scrape configuration (rules.yaml's
# header), with the port of the stack that process serves /metrics on.
JOBS: dict[str, Callable[[Stack], int]] = {
    "boxedin-gateway": lambda stack: stack.gateway_metrics["gateway"],
    "boxedin-engine": lambda stack: stack.metrics_ports["engine"],
    "boxedin-ai": lambda stack: stack.metrics_ports["ai"],
    "boxedin-stats": lambda stack: stack.metrics_ports["stats"],
    "boxedin-worker": lambda stack: stack.metrics_ports["worker"],
    "boxedin-matchmaker": lambda stack: stack.metrics_ports["matchmaker"],
}

ALERTS = {
    "BoxedInErrorRate", "BoxedInActionRoundTripSlow", "BoxedInActionApplySlow", "BoxedInExpertFallingBack",
    "BoxedInNoCeleryWorker", "BoxedInServiceDown", "BoxedInKindMissing", "BoxedInRedisUnreachable",
    "BoxedInPresenceFiguresStale", "BoxedInStreamFiguresStale", "BoxedInComputerTurnsWaiting", "BoxedInDeadlinesLate",
    "BoxedInDeadlineLoopStopped", "BoxedInStatsLagging", "BoxedInTrafficGone", "BoxedInRedisMemoryHigh",
    "BoxedInRedisAofFailing", "BoxedInManyRefusals", "BoxedInConnectionsLost",
}  # fmt: skip
# What the alerts without a plain threshold work from, which a running stack has: the AI's Expert
# pool setting, every kind's targets, the players online.
SET_MEASURES = {
    "BoxedInNoCeleryWorker": 'max by (namespace) (boxedin_expert_pool_enabled{job="boxedin-ai"})',
    "BoxedInKindMissing": 'group by (namespace, job) (up{job=~"boxedin-.*"})',
    "BoxedInTrafficGone": 'max by (namespace) (boxedin_players_online{job="boxedin-engine"})',
}
# Alerts on redis_exporter's figures: the live test's stack runs a plain Redis with no exporter
# (the chart's Redis has it as a sidecar), so they have no data there; promtool tests them.
REDIS_EXPORTER_ALERTS = {"BoxedInRedisMemoryHigh", "BoxedInRedisAofFailing"}

# Each dashboard's panels the issue asks for, by title, with a metric each must query.
REQUIRED_PANELS = {
    "presence-and-games.json": {
        "Players online": "boxedin_players_online",
        "Games now": "boxedin_games_now",
        "Games now by mode": "boxedin_games_now",
        "Stats backlog": "boxedin_stats_backlog",
        "Stats lag p50 / p99": "boxedin_stats_lag_seconds_bucket",
        "Find Match: players waiting by mode": "boxedin_find_match_waiting",
        "Find Match: pairing time": "boxedin_pairing_seconds_bucket",
        "Mode popularity (last 7 days)": "boxedin_games_created_total",
        "Games started by mode and opponent": "boxedin_games_created_total",
        "Games finished by mode and opponent": "boxedin_games_finished_total",
    },
    "service-health.json": {
        "Action round trip p50 / p99": "boxedin_round_trip_seconds_bucket",
        "Refusals by code": "boxedin_refusals_total",
        "CAS conflicts": "boxedin_cas_conflicts_total",
        "RPC latency by method": "boxedin_rpc_seconds_bucket",
        "WebSocket connections": "boxedin_websocket_connections",
        "WebSocket frames by type": "boxedin_websocket_frames_total",
        "WebSocket closes by code": "boxedin_websocket_closes_total",
        "Gateway refusals by reason": "boxedin_gateway_refusals_total",
        "Deadlines by outcome": "boxedin_deadlines_total",
        "Deadline lateness p50 / p99": "boxedin_deadline_lateness_seconds_bucket",
        "Deadline loop: time since its last tick": "boxedin_deadline_loop_tick_timestamp_seconds",
        "Redis memory": "redis_memory_max_bytes",
        "Redis commands": "redis_commands_processed_total",
        "Redis append-only file": "redis_aof_last_write_status",
        "Pod CPU": "container_cpu_usage_seconds_total",
        "Pod memory": "container_memory_working_set_bytes",
        "Pod restarts": "kube_pod_container_status_restarts_total",
    },
    "ai.json": {
        "Think time by level": "boxedin_ai_think_seconds_bucket",
        "Celery queue length": "boxedin_celery_queue_length",
        "Expert task latency": "boxedin_expert_task_seconds_bucket",
        "Expert fallbacks": "boxedin_expert_fallbacks_total",
        "Workers busy": "boxedin_celery_tasks_running",
        "Computer turns waiting": "boxedin_computer_turns_waiting",
        "Oldest waiting computer turn by partition": "boxedin_computer_turn_oldest_wait_seconds",
        "Review queue length": "boxedin_review_queue_length",
    },
}
# What the dashboards query besides the services' own metrics: the standard exporters' names
# (oliver006/redis_exporter beside the chart's Redis, cAdvisor in the kubelet, kube-state-metrics).
EXPORTED_ELSEWHERE = {
    "redis_memory_used_bytes", "redis_memory_max_bytes", "redis_commands_processed_total", "redis_connected_clients",
    "redis_aof_last_write_status", "redis_aof_last_bgrewrite_status", "redis_loading_dump_file", "redis_up",
    "container_cpu_usage_seconds_total", "container_memory_working_set_bytes",
    "kube_pod_container_status_restarts_total",
}  # fmt: skip
# Panels not from the services' own metrics, which the live test's stack cannot give data to.
NOT_FROM_THE_STACK = re.compile(r"\b(redis|container|kube)_\w+")
# Metrics a dashboard or a rule may query before any service defines them (none now).
NOT_YET_DEFINED: set[str] = set()

# The value a single-value variable takes in the tests.
SAMPLE_VALUES = {"namespace": NAMESPACE}
# Grafana's built-in variables, as concrete values for promtool and Prometheus.
GRAFANA_BUILTINS = {"__rate_interval": "1m", "__interval": "15s", "__range": "5m"}
SUFFIXES = {
    "counter": ("_total", "_created"),
    "gauge": ("",),
    "histogram": ("_bucket", "_count", "_sum", "_created"),
    "summary": ("", "_count", "_sum", "_created"),
}


def defined_series() -> set[str]:
    """Every series name the services' metrics (services/common/metrics.py) are exported as."""
    names = {"up"}
    for value in vars(metrics).values():
        if isinstance(value, MetricWrapperBase):
            names.update(value._name + suffix for suffix in SUFFIXES[value._type])
    return names


def dashboards() -> dict[str, dict[str, Any]]:
    return {path.name: json.loads(path.read_text()) for path in sorted(DASHBOARDS.glob("*.json"))}


def panels(board: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every panel but rows, those inside collapsed rows included."""
    for panel in board["panels"]:
        if panel["type"] == "row":
            yield from panel.get("panels", [])
        else:
            yield panel


def concrete(expr: str, variables: dict[str, str]) -> str:
    """A dashboard expression with Grafana's variables replaced by values Prometheus accepts."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2) or match.group(3)
        if name in GRAFANA_BUILTINS:
            return GRAFANA_BUILTINS[name]
        if name in variables:
            return variables[name]
        raise AssertionError(f"unknown Grafana variable ${name} in {expr!r}")

    return re.sub(r"\$\{(\w+)(?::\w+)?\}|\$(\w+)|\[\[(\w+)\]\]", value, expr)


def board_variables(board: dict[str, Any]) -> dict[str, str]:
    """A dashboard's query variables as the tests make them concrete: a multi-value variable
    stands for its "All" value (every query uses it with =~), the namespace (one installation,
    never "All") for the live test's."""
    return {
        v["name"]: v["allValue"] if v["includeAll"] else SAMPLE_VALUES[v["name"]]
        for v in board["templating"]["list"]
        if v["type"] == "query"
    }


def expressions() -> dict[str, list[str]]:
    """Every PromQL expression of the rules and the dashboards (variables made concrete), with
    where each is used."""
    found: dict[str, list[str]] = {}
    for group in yaml.safe_load(RULES.read_text())["groups"]:
        for rule in group["rules"]:
            name = rule.get("alert") or rule.get("record")
            found.setdefault(rule["expr"].strip(), []).append(f"rules.yaml: {name}")
    for file, board in dashboards().items():
        variables = board_variables(board)
        for variable in board["templating"]["list"]:
            if variable["type"] == "query":
                # label_values(metric, label) is Grafana's; the same question in PromQL:
                query = variable["query"]["query"] if isinstance(variable["query"], dict) else variable["query"]
                match = re.fullmatch(r"label_values\((.+),\s*(\w+)\)", query)
                assert match, f"{file}: variable {variable['name']}: {query!r}"
                expr = concrete(f"group by ({match.group(2)}) ({match.group(1)})", variables)
                found.setdefault(expr, []).append(f"{file}: variable {variable['name']}")
        for panel in panels(board):
            for target in panel["targets"]:
                expr = concrete(target["expr"], variables)
                found.setdefault(expr, []).append(f"{file}: {panel['title']} [{target['refId']}]")
    return found


def alert_rules() -> list[dict[str, Any]]:
    return [rule for group in yaml.safe_load(RULES.read_text())["groups"] for rule in group["rules"]]


def unwrap(expr: str) -> str:
    """``expr`` without parentheses around all of it."""
    expr = expr.strip()
    while expr.startswith("(") and expr.endswith(")"):
        depth = 0
        for i, char in enumerate(expr):
            depth += {"(": 1, ")": -1}.get(char, 0)
            if depth == 0 and i < len(expr) - 1:
                return expr
        expr = expr[1:-1].strip()
    return expr


def measure(expr: str) -> str | None:
    """What a rule compares with its threshold: ``X`` of ``X > 0.05``, or of ``(X > 0.05) and on
    (namespace) FLOOR >= 10`` (a floor: a minimum of work, which a quiet stack may not reach)."""
    head = re.split(r"^and on \(namespace\)$", expr.strip(), flags=re.MULTILINE)[0]
    found = re.fullmatch(r"(.*\S)\s*(?:>=|>|<|==)\s*[0-9.]+", unwrap(head), re.DOTALL)
    return found.group(1) if found else None


def slug(heading: str) -> str:
    """The anchor GitHub (and most Markdown renderers) give a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def run(args: list[str]) -> subprocess.CompletedProcess[str]:
    if not Path(args[0]).exists():
        pytest.fail(f"{args[0]} is missing: `scripts/setup --browser` installs Debian's prometheus package")
    return subprocess.run(args, capture_output=True, text=True, check=False, timeout=120)


# ----------------------------------------------------------------------------------- the rules


def test_the_rules_pass_promtool_check() -> None:
    checked = run([PROMTOOL, "check", "rules", str(RULES)])
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert f"SUCCESS: {len(ALERTS)} rules found" in checked.stdout


def test_each_alert_has_its_labels_and_annotations() -> None:
    rules = alert_rules()
    assert {rule["alert"] for rule in rules} == ALERTS
    for rule in rules:
        assert rule["labels"]["severity"] in ("critical", "warning"), rule["alert"]
        assert rule["annotations"]["summary"] and rule["annotations"]["description"], rule["alert"]
        # Each names the installation it is about.
        assert "$labels.namespace" in rule["annotations"]["summary"], rule["alert"]
    severity = {rule["alert"]: rule["labels"]["severity"] for rule in rules}
    # Expert still plays without the pool: a warning, not a page.
    assert severity["BoxedInNoCeleryWorker"] == severity["BoxedInExpertFallingBack"] == "warning"


def test_every_rule_keeps_each_installation_apart() -> None:
    """Every aggregation keeps `namespace` (one installation is one namespace), and so does every
    join: two installations never mix. absent() alone has none to keep."""
    aggregation = r"\b(sum|min|max|avg|count|group|stddev|stdvar|topk|bottomk|quantile|count_values)\s*"
    for rule in alert_rules():
        expr = rule["expr"]
        for found in re.finditer(aggregation + r"(by|without)?\s*(\([^()]*\))?\s*\(", expr):
            assert found.group(2) == "by" and "namespace" in re.findall(r"\w+", found.group(3)), (
                f"{rule['alert']}: {found.group(0)!r} does not keep namespace"
            )
        for found in re.finditer(r"\b(on|ignoring)\s*\(([^()]*)\)", expr):
            assert found.group(1) == "on" and "namespace" in re.findall(r"\w+", found.group(2)), (
                f"{rule['alert']}: {found.group(0)!r} mixes installations"
            )
        assert "vector(" not in expr and "scalar(" not in expr, f"{rule['alert']}: a value of no namespace"


def test_every_alert_links_its_runbook_section() -> None:
    """runbook_url: docs/runbooks.md (the chart puts monitoring.runbookBaseUrl in its place) and
    the anchor of the alert's own section, which says what it means, what to look at and what
    to do."""
    text = RUNBOOKS.read_text()
    sections = dict(re.findall(r"^## ([^\n]+)\n(.*?)(?=^## |\Z)", text, re.MULTILINE | re.DOTALL))
    anchors = {slug(heading): heading for heading in re.findall(r"^#+ (.+)$", text, re.MULTILINE)}
    for rule in alert_rules():
        url = rule["annotations"]["runbook_url"]
        base, _, anchor = url.partition("#")
        assert base == "docs/runbooks.md" and (ROOT / base).is_file(), url
        assert anchors.get(anchor) == rule["alert"], f"{rule['alert']}: no heading of docs/runbooks.md has #{anchor}"
        section = sections[rule["alert"]]
        for part in ("What it means", "What to look at", "What to do"):
            assert f"**{part}" in section, f"docs/runbooks.md, {rule['alert']}: no {part!r}"
    assert {heading for heading in sections if heading.startswith("BoxedIn")} == ALERTS


def test_promtool_proves_each_alert_fires_on_series_built_for_it() -> None:
    cases = yaml.safe_load(RULES_TEST.read_text())["tests"]
    # Each alert is expected to fire somewhere, and none fires on the healthy installation.
    fired = {check["alertname"] for case in cases for check in case["alert_rule_test"] if check["exp_alerts"]}
    assert fired == ALERTS
    by_name = {case["name"]: case for case in cases}
    quiet = {
        name: {c["alertname"] for c in case["alert_rule_test"] if not c["exp_alerts"]} for name, case in by_name.items()
    }
    assert not any(
        c["exp_alerts"] for name in ("healthy", "night", "celery off") for c in by_name[name]["alert_rule_test"]
    )
    # ... nor at night traffic (a few actions a minute, its blips) ...
    assert quiet["healthy"] == quiet["night"] == ALERTS
    # ... nor where Celery is off on purpose (no worker at all).
    assert {"BoxedInNoCeleryWorker", "BoxedInKindMissing", "BoxedInServiceDown"} <= quiet["celery off"]
    tested = run([PROMTOOL, "test", "rules", str(RULES_TEST)])
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "SUCCESS" in tested.stdout


def test_a_kind_the_chart_does_not_make_is_never_paged_as_missing(chart: Any, tmp_path: Path) -> None:
    """services.matchmaker.enabled false is a valid installation: its rules expect no matchmaker,
    and an installation of the same targets with the default rules is paged for the missing one."""
    from chart_render import FULLNAME, render

    def kind_missing_on_targets_without_a_matchmaker(rules_text: str) -> subprocess.CompletedProcess[str]:
        (tmp_path / "rules.yaml").write_text(rules_text)
        series = [
            {"series": f'up{{namespace="prod", job="boxedin-{kind}", instance="{kind}-1"}}', "values": "1x30"}
            for kind in ("gateway", "engine", "ai", "stats", "worker")
        ]
        case = {
            "name": "no matchmaker",
            "interval": "1m",
            "input_series": series,
            "alert_rule_test": [{"eval_time": "20m", "alertname": "BoxedInKindMissing", "exp_alerts": []}],
        }
        test_file = tmp_path / "test.yaml"
        suite = {"rule_files": ["rules.yaml"], "evaluation_interval": "1m", "tests": [case]}
        test_file.write_text(yaml.safe_dump(suite))
        return run([PROMTOOL, "test", "rules", str(test_file)])

    without = render(chart, {"services": {"matchmaker": {"enabled": False}}})
    assert not any(d for kind, d in without.deployments().items() if kind == "matchmaker")
    rules = without.get("ConfigMap", f"{FULLNAME}-prometheus-rules")["data"]["rules.yaml"]
    alerts = [rule for group in yaml.safe_load(rules)["groups"] for rule in group["rules"]]
    kind_missing = [rule for rule in alerts if rule.get("alert") == "BoxedInKindMissing"]
    assert len(kind_missing) == 1 and "boxedin-matchmaker" not in kind_missing[0]["expr"]
    assert "boxedin-engine" in kind_missing[0]["expr"]
    quiet = kind_missing_on_targets_without_a_matchmaker(rules)
    assert quiet.returncode == 0, quiet.stdout + quiet.stderr
    paged = kind_missing_on_targets_without_a_matchmaker(RULES.read_text())
    assert paged.returncode != 0 and "boxedin-matchmaker" in paged.stdout + paged.stderr, paged.stdout


# ------------------------------------------------------------------------------ the dashboards


def test_the_three_dashboards_have_their_panels_and_a_datasource_variable() -> None:
    boards = dashboards()
    assert set(boards) == set(REQUIRED_PANELS)
    uids = set()
    for file, board in boards.items():
        assert board["schemaVersion"] >= 36 and board["title"].startswith("Boxed In: "), file
        uids.add(board["uid"])
        variables = {v["name"]: v for v in board["templating"]["list"]}
        assert variables["datasource"]["type"] == "datasource" and variables["datasource"]["query"] == "prometheus"
        # One installation at a time (never two mixed), and any of its processes.
        assert variables["namespace"]["type"] == "query" and not variables["namespace"]["includeAll"], file
        assert variables["instance"]["includeAll"] and variables["instance"]["multi"], file
        # No data source is named by uid: every panel and query takes the variable's.
        text = json.dumps(board)
        assert set(re.findall(r'"uid": "([^"]*)"', text)) == {board["uid"], "${datasource}", "-- Grafana --"}
        titles: dict[str, list[str]] = {}
        ids, cells = set(), set()
        for panel in board["panels"]:
            position = panel["gridPos"]
            assert position["x"] + position["w"] <= 24, (file, panel["title"])
            for x in range(position["x"], position["x"] + position["w"]):
                for y in range(position["y"], position["y"] + position["h"]):
                    assert (x, y) not in cells, f"{file}: {panel['title']} overlaps another panel"
                    cells.add((x, y))
            assert panel["id"] not in ids
            ids.add(panel["id"])
        for panel in panels(board):
            assert panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"}, (file, panel["title"])
            assert panel["targets"] and panel["description"], (file, panel["title"])
            titles[panel["title"]] = [target["expr"] for target in panel["targets"]]
            for target in panel["targets"]:
                assert target["datasource"] == panel["datasource"], (file, panel["title"])
                # Every query is of the installation chosen.
                for selector in re.findall(r"\b(?:boxedin|redis|container|kube)_\w+(\{[^{}]*\})?", target["expr"]):
                    assert 'namespace="$namespace"' in selector, (file, panel["title"], target["expr"])
        assert len(titles) == len(list(panels(board))), f"{file}: two panels share a title"
        for title, metric in REQUIRED_PANELS[file].items():
            assert title in titles, f"{file} has no panel {title!r}"
            assert any(re.search(rf"\b{metric}\b", expr) for expr in titles[title]), (file, title, metric)
    assert len(uids) == 3


def test_every_expression_names_only_metrics_the_services_define() -> None:
    """Every panel's query names a metric, and each it names is one the services export (or a
    standard exporter's)."""
    defined = defined_series() | NOT_YET_DEFINED
    for expr, where in expressions().items():
        unknown = set(re.findall(r"\bboxedin_\w+", expr)) - defined
        assert not unknown, f"{where}: {sorted(unknown)} not in services/common/metrics.py"
        others = set(re.findall(r"\b(?:redis|container|kube)_\w+", expr)) - EXPORTED_ELSEWHERE
        assert not others, f"{where}: {sorted(others)} is no metric of redis_exporter, cAdvisor or kube-state-metrics"
        named = set(re.findall(r"\b(?:boxedin|redis|container|kube)_\w+|\bup\b", expr))
        assert named, f"{where}: {expr} names no metric"


def test_every_expression_is_valid_promql(tmp_path: Path) -> None:
    """promtool checks expressions only in rule files: one recording rule each."""
    found = list(expressions().items())
    rules = [{"record": f"boxedin_check_{i}", "expr": expr} for i, (expr, _) in enumerate(found)]
    path = tmp_path / "expressions.yaml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "expressions", "rules": rules}]}))
    checked = run([PROMTOOL, "check", "rules", str(path)])
    listing = "\n".join(f"{i}: {where}" for i, (_, where) in enumerate(found))
    assert checked.returncode == 0, f"{checked.stdout}{checked.stderr}\n{listing}"
    assert f"SUCCESS: {len(found)} rules found" in checked.stdout


# ------------------------------------------------------------------ a real Prometheus, a real stack


def poll(check: Callable[[], Any], timeout: float, every: float = 0.25) -> Any:
    """Polls ``check`` until it returns something true, which it returns; None after ``timeout``
    seconds."""
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() > deadline:
            return None
        time.sleep(every)


def wait_for(what: str, check: Callable[[], Any], timeout: float = 60) -> Any:
    result = poll(check, timeout)
    if not result:
        pytest.fail(f"timed out after {timeout:.0f} s waiting for {what}")
    return result


def stamp_after(stamp: str, moment: float) -> bool:
    """Whether Prometheus's RFC 3339 time ``stamp`` (to the nanosecond) is after ``moment``."""
    match = re.fullmatch(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)", stamp)
    if match is None or stamp.startswith("0001-"):  # never evaluated: Go's zero time
        return False
    whole, fraction, zone = match.groups()
    seconds = datetime.fromisoformat(whole + ("+00:00" if zone == "Z" else zone)).timestamp()
    return seconds + float("0." + (fraction or "0")) > moment


class Prometheus:
    def __init__(self, port: int) -> None:
        self.url = f"http://127.0.0.1:{port}"

    def get(self, path: str, **params: str) -> dict[str, Any]:
        url = self.url + path + ("?" + urllib.parse.urlencode(params) if params else "")
        try:
            with urllib.request.urlopen(url, timeout=10) as reply:
                return dict(json.loads(reply.read()))
        except urllib.error.HTTPError as error:  # a bad query: 400 with the error in the body
            return dict(json.loads(error.read()))

    def query(self, expr: str) -> dict[str, Any]:
        return self.get("/api/v1/query", query=expr)

    def value(self, expr: str) -> float:
        """The value of a one-series expression, 0 while it has none."""
        result = self.query(expr)["data"]["result"]
        return float(result[0]["value"][1]) if result else 0.0

    def targets(self) -> dict[str, dict[str, Any]]:
        return {t["labels"]["job"]: t for t in self.get("/api/v1/targets")["data"]["activeTargets"]}

    def ready(self) -> bool:
        with contextlib.suppress(OSError), urllib.request.urlopen(self.url + "/-/ready", timeout=1) as reply:
            return reply.status == 200
        return False


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    # Its load plays 30 games from loopback as fast as they go: on a fast machine (2,400 actions
    # a second here) one address's frames outrun their default burst, and games were refused.
    stack = make_stack("monitoring", worker=True, extra_env=ROOMY_BUDGETS)
    try:
        stack.start()
        yield stack
    finally:
        stack.stop()


@pytest.fixture(scope="module")
def prometheus(stack: Stack, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Prometheus]:
    """Debian's Prometheus on a loopback port, scraping every process of ``stack`` each second
    under the chart's job names, and evaluating rules.yaml each second."""
    if not Path(PROMETHEUS).exists():
        pytest.fail(f"{PROMETHEUS} is missing: `scripts/setup --browser` installs Debian's prometheus package")
    folder = tmp_path_factory.mktemp("prometheus")
    # The rules as they are, but that the turns-waiting alert fires 2 s after its condition
    # holds rather than a minute: the test of the AI replicas stopped waits seconds, not minutes.
    rules = yaml.safe_load(RULES.read_text())
    for rule in (r for group in rules["groups"] for r in group["rules"]):
        if rule.get("alert") == "BoxedInComputerTurnsWaiting":
            rule["for"] = "2s"
    (folder / "rules.yaml").write_text(yaml.safe_dump(rules, sort_keys=False))
    # Every target gets the namespace label the chart's scrape job and ServiceMonitors give it
    # (the rules aggregate by it).
    config = {
        "global": {"scrape_interval": "1s", "scrape_timeout": "1s", "evaluation_interval": "1s"},
        "rule_files": [str(folder / "rules.yaml")],
        "scrape_configs": [
            {
                "job_name": job,
                "static_configs": [{"targets": [f"127.0.0.1:{port(stack)}"], "labels": {"namespace": NAMESPACE}}],
            }
            for job, port in JOBS.items()
        ],
    }
    (folder / "prometheus.yml").write_text(yaml.safe_dump(config))
    port = free_port()
    log_dir = OUTPUT / "logs" / "monitoring"
    log_dir.mkdir(parents=True, exist_ok=True)
    with open(log_dir / "prometheus.log", "ab") as log:
        process = subprocess.Popen(
            [PROMETHEUS, f"--config.file={folder / 'prometheus.yml'}", f"--storage.tsdb.path={folder / 'data'}",
             f"--web.listen-address=127.0.0.1:{port}", "--log.level=warn"],
            stdout=log, stderr=log,
        )  # fmt: skip
    server = Prometheus(port)
    try:

        def up() -> bool:
            if process.poll() is not None:
                pytest.fail(f"prometheus stopped (exit status {process.returncode}): see {log_dir / 'prometheus.log'}")
            return server.ready()

        wait_for("Prometheus to be ready", up, timeout=30)
        yield server
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        shutil.rmtree(folder, ignore_errors=True)


def play_against_expert(stack: Stack) -> None:
    """One mini game against Expert (its playouts on the Celery pool), with one refused action."""
    browser = Browser(stack.url())
    try:
        browser.hello()
        browser.new_game(mode="mini", opponent="ai", level="expert", ai_speed="fast")
        browser.send(type="draw", game=browser.game_id, edge=["h", 0, 0])  # refused: roll first
        assert browser.play_to_the_end(timeout=180)["over"]
    finally:
        browser.close()


def test_every_expression_runs_on_prometheus_scraping_a_stack_under_load(stack: Stack, prometheus: Prometheus) -> None:
    # Every target scraped: all up, but the worker's metrics port may not be served yet.
    def scraped() -> dict[str, dict[str, Any]] | None:
        targets = prometheus.targets()
        if set(targets) != set(JOBS) or any(t["health"] == "unknown" for t in targets.values()):
            return None
        if all(t["health"] == "up" for job, t in targets.items() if job != "boxedin-worker"):
            return targets
        return None

    wait_for("Prometheus to scrape every process", scraped, timeout=30)
    # Give a worker that is still starting its chance; then tolerate it, saying so.
    worker = poll(lambda: (t := prometheus.targets()["boxedin-worker"])["health"] == "up" and t, timeout=10)
    worker_up = worker is not None
    if not worker_up:
        # Only a worker that serves no metrics yet is tolerated, not one Prometheus cannot read.
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", stack.metrics_ports["worker"]), 1):
            pytest.fail(
                f"the worker's metrics cannot be scraped: {prometheus.targets()['boxedin-worker']['lastError']}"
            )
        warnings.warn(
            f"the Celery worker serves no metrics on its port: up == 0 for boxedin-worker "
            f"({prometheus.targets()['boxedin-worker']['lastError']})",
            stacklevel=1,
        )

    games = 30
    url = stack.url().replace("http://", "ws://") + "/ws"
    result = asyncio.run(run_load(url, games, 10, "mini"))
    assert result["games"] == games and result["failed_games"] == 0, result
    play_against_expert(stack)
    played = time.time()

    # Prometheus has the games (the engine counted them) and the AI's turns...
    wait_for("Prometheus to see the games", lambda: prometheus.value("sum(boxedin_games_created_total)") >= games + 1)
    wait_for("Prometheus to see the games finished",
             lambda: prometheus.value("sum(boxedin_games_finished_total)") >= games + 1)  # fmt: skip
    wait_for("Prometheus to see Expert's turns",
             lambda: prometheus.value('sum(boxedin_ai_turns_total{level="expert"})') >= 1)  # fmt: skip
    wait_for("Prometheus to see the round trips",
             lambda: prometheus.value("sum(boxedin_round_trip_seconds_count)") >= result["actions"])  # fmt: skip

    # ... and has evaluated every rule since, without an error.
    def evaluated() -> list[dict[str, Any]] | None:
        rules = [r for g in prometheus.get("/api/v1/rules")["data"]["groups"] for r in g["rules"]]
        if len(rules) == len(ALERTS) and all(stamp_after(r.get("lastEvaluation", ""), played) for r in rules):
            return rules
        return None

    rules = wait_for("Prometheus to evaluate the rules after the games", evaluated, timeout=30)
    for rule in rules:
        assert rule["health"] == "ok" and not rule.get("lastError"), (rule["name"], rule.get("lastError"))

    # The panels the issue asks for show data, but Find Match's (no metric yet); so does what each
    # alert compares with its threshold (the alerts themselves are quiet: an empty result). A rate
    # needs two scrapes of a series: one first seen at the end of the games may need a second more.
    found = expressions()
    required_panels = {f"{file}: {title}" for file, titles in REQUIRED_PANELS.items() for title in titles}
    required = [
        (place, expr)
        for expr, where in found.items()
        for place in where
        if place.rsplit(" [", 1)[0] in required_panels
        and not NOT_YET_DEFINED & set(re.findall(r"\bboxedin_\w+", expr))
        and not NOT_FROM_THE_STACK.search(expr)
    ]
    for alert, expr in {rule["alert"]: rule["expr"] for rule in alert_rules()}.items():
        measured = SET_MEASURES.get(alert) or measure(expr)
        assert measured and measured in expr, alert
        if alert in REDIS_EXPORTER_ALERTS or NOT_YET_DEFINED & set(re.findall(r"\bboxedin_\w+", measured)):
            continue
        required.append((f"rules.yaml: {alert}, without its threshold", measured))

    def without_data() -> list[str]:
        return [f"{place}: {expr}" for place, expr in required if not prometheus.query(expr)["data"]["result"]]

    if poll(lambda: not without_data(), timeout=20) is None:
        pytest.fail("no data after the games in:\n" + "\n".join(without_data()))
    # ... for this installation: every kind, in its namespace, and Expert on the pool.
    kinds = prometheus.query(SET_MEASURES["BoxedInKindMissing"])["data"]["result"]
    assert {(s["metric"]["namespace"], s["metric"]["job"]) for s in kinds} == {(NAMESPACE, job) for job in JOBS}
    assert prometheus.value(SET_MEASURES["BoxedInNoCeleryWorker"]) == 1

    # Every expression of the dashboards and the rules: success, with data or an empty result.
    empty = []
    for expr, where in found.items():
        answer = prometheus.query(expr)
        assert answer["status"] == "success", f"{where}: {expr}\n{answer.get('errorType')}: {answer.get('error')}"
        assert answer["data"]["resultType"] in ("vector", "scalar"), where
        if not answer["data"]["result"]:
            empty.append((where, expr))
    report = "\n".join(f"  {'; '.join(where)}: {' '.join(expr.split())}" for where, expr in empty)
    print(f"{len(found)} expressions ran; {len(empty)} returned an empty result:\n{report}")

    # The healthy stack raises none of the alerts about failures (those about latency and Expert's
    # fallbacks depend on this machine's load and are only reported).
    active = {a["labels"]["alertname"]: a for a in prometheus.get("/api/v1/alerts")["data"]["alerts"]}
    print("alerts pending or firing:", {name: alert["labels"] for name, alert in active.items()})
    quiet = {
        "BoxedInErrorRate", "BoxedInServiceDown", "BoxedInKindMissing", "BoxedInRedisUnreachable",
        "BoxedInPresenceFiguresStale", "BoxedInStreamFiguresStale", "BoxedInComputerTurnsWaiting",
        "BoxedInDeadlineLoopStopped",
        "BoxedInStatsLagging", "BoxedInTrafficGone", "BoxedInConnectionsLost",
    }  # fmt: skip
    if worker_up:
        quiet.add("BoxedInNoCeleryWorker")
    else:
        down = [a["labels"]["job"] for a in prometheus.get("/api/v1/alerts")["data"]["alerts"]
                if a["labels"]["alertname"] == "BoxedInServiceDown"]  # fmt: skip
        assert set(down) <= {"boxedin-worker"}, down
        quiet.discard("BoxedInServiceDown")
    assert not {name for name in quiet & set(active) if active[name]["state"] == "firing"}, active

    # A quiet alert may be pending from one evaluation whose series were scraped at different
    # moments (Expert's tasks seen queued in the AI service just as the worker was seen running
    # none: CI, BoxedInNoCeleryWorker); its condition no longer holds at the next, and it clears.
    # An alert whose condition holds stays pending, and fails here.
    def raised() -> dict[str, Any]:
        now = {a["labels"]["alertname"]: a for a in prometheus.get("/api/v1/alerts")["data"]["alerts"]}
        return {name: now[name] for name in quiet & set(now)}

    if poll(lambda: not raised(), timeout=15) is None:
        pytest.fail(f"alerts of a healthy stack still pending or firing: {raised()}")


def headline_queries() -> dict[str, str]:
    """The headline panels' queries (their first), made concrete for this installation."""
    wanted = {
        "presence-and-games.json": ("Players online", "Games now", "Games now by mode"),
        "ai.json": ("Computer turns waiting",),
    }
    found: dict[str, str] = {}
    for file, board in dashboards().items():
        variables = board_variables(board)
        for panel in panels(board):
            if panel["title"] in wanted.get(file, ()):
                found[panel["title"]] = concrete(panel["targets"][0]["expr"], variables)
    assert len(found) == 4, found
    return found


def test_the_headline_panels_count_a_scripted_scenario_and_stopped_ai_fires_turns_waiting(
    stack: Stack, prometheus: Prometheus
) -> None:
    """Every AI replica stopped; then 3 players online, 2 games in Mini (one against the computer,
    which moves first: its turn waits, nobody plays it) and 1 in Classic. Each headline panel's
    query gives exactly those numbers in Prometheus, and the turns-waiting alert fires."""
    stack.stop_process("ai")
    started = time.time()
    players = [Browser(stack.url()) for _ in range(3)]
    try:
        for player in players:
            player.hello()
        players[0].new_game(mode="mini", opponent="ai", level="easy", first=2, ai_speed="fast")
        players[1].new_game(mode="mini", opponent="local")
        players[2].new_game(mode="classic", opponent="local")
        queries = headline_queries()

        def by_mode() -> dict[str, float]:
            result = prometheus.query(queries["Games now by mode"])["data"]["result"]
            return {s["metric"]["mode"]: float(s["value"][1]) for s in result if float(s["value"][1])}

        def numbers() -> dict[str, Any]:
            return {
                "players online": prometheus.value(queries["Players online"]),
                "games now": prometheus.value(queries["Games now"]),
                "games now by mode": by_mode(),
                "computer turns waiting": prometheus.value(queries["Computer turns waiting"]),
            }

        expected = {
            "players online": 3,
            "games now": 3,
            "games now by mode": {"mini": 2, "classic": 1},
            "computer turns waiting": 1,
        }
        if poll(lambda: numbers() == expected, timeout=20) is None:
            pytest.fail(f"the headline panels show {numbers()}, not {expected}")

        def firing() -> list[dict[str, Any]]:
            alerts = prometheus.get("/api/v1/alerts")["data"]["alerts"]
            return [
                a
                for a in alerts
                if a["labels"]["alertname"] == "BoxedInComputerTurnsWaiting" and a["state"] == "firing"
            ]

        (alert,) = wait_for("BoxedInComputerTurnsWaiting to fire", firing, timeout=30)
        assert alert["labels"]["namespace"] == NAMESPACE and alert["labels"]["severity"] == "critical"
        # Fired after the turn had waited its 10 s, not before.
        assert time.time() - started > 10
    finally:
        for player in players:
            player.close()
