"""The reason catalogue against the gRPC statuses and the error-rate alert: a refusal of what a
client asked is never a failure of the service, in a status code or in a metric (issue 31)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import grpc
import pytest
import yaml

from boxedin.common import reasons

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "deploy" / "helm" / "boxedin" / "files" / "rules.yaml"
SERVICE_FAILURE = {grpc.StatusCode.INTERNAL, grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.UNKNOWN}


def _raised_codes() -> dict[str, str]:
    """Every code a service refuses with by name (``Refusal("code", ...)``), with where."""
    found: dict[str, str] = {}
    for path in sorted((ROOT / "services").rglob("*.py")):
        if "v1" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "Refusal"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                found.setdefault(node.args[0].value, f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def _error_rate_rule() -> str:
    for group in yaml.safe_load(RULES.read_text(encoding="utf-8"))["groups"]:
        for rule in group["rules"]:
            if rule.get("alert") == "BoxedInErrorRate":
                return str(rule["expr"])
    raise AssertionError("rules.yaml has no BoxedInErrorRate")


def test_every_code_a_service_refuses_with_is_catalogued_with_its_status() -> None:
    """A code missing from the catalogue would travel as INTERNAL: a page for a client's mistake."""
    missing = {code: where for code, where in _raised_codes().items() if code not in reasons.REASONS}
    assert missing == {}
    assert all(isinstance(reason.status, grpc.StatusCode) for reason in reasons.CATALOGUE)


@pytest.mark.parametrize("reason", [r for r in reasons.CATALOGUE if r.code not in reasons.FAILURE_CODES], ids=str)
def test_no_refusal_of_what_was_asked_travels_as_a_service_failure(reason: reasons.Reason) -> None:
    if reason.audience == "service":
        # A service calling without the secret or outside its rights is misconfigured: that
        # is the operator's to know, and its statuses say so.
        assert reason.status in {grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.UNAUTHENTICATED}
        return
    assert reason.status not in SERVICE_FAILURE
    assert reason.status in reasons.REFUSAL_STATUSES


def test_the_failures_travel_as_failures() -> None:
    assert {reasons.REASONS[code].status for code in reasons.FAILURE_CODES} <= SERVICE_FAILURE


def test_a_wrong_confirmation_token_and_too_many_join_tries_are_client_refusals() -> None:
    assert reasons.REASONS["bad_token"].status == grpc.StatusCode.PERMISSION_DENIED
    assert reasons.REASONS["too_many_tries"].status == grpc.StatusCode.FAILED_PRECONDITION


def test_the_error_rate_alert_counts_exactly_the_failures() -> None:
    """The alert leaves out the statuses of refusals, and counts the gateway's failure codes."""
    rule = _error_rate_rule()
    refusals = {"OK"} | {status.name for status in reasons.REFUSAL_STATUSES}
    excluded = set(re.findall(r'code!~"([^"]+)"', rule))
    assert excluded and all(set(pattern.split("|")) == refusals for pattern in excluded)
    counted = set(re.findall(r'reason=~"([^"]+)"', rule))
    assert all(set(pattern.split("|")) == reasons.FAILURE_CODES for pattern in counted) and counted
