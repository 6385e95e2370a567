"""The image: the Dockerfile cannot be built here (no Docker engine), so its stages and user
are read, and its entrypoint is run with stand-ins for python and celery, for every process kind
the chart runs."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
from pathlib import Path

import helm_python as helm
import pytest

from chart_render import (
    DOCKERFILE,
    ENTRYPOINT,
    KINDS,
    ROOT,
    Rendered,
    container,
)

# Whole-stack: real processes on loopback (`pytest -m "not stack"` leaves them out).
pytestmark = pytest.mark.stack

# --- the image -----------------------------------------------------------------------------------


def dockerfile_stages() -> dict[str, list[tuple[str, str]]]:
    """The Dockerfile's stages by name: their instructions (continuation lines joined)."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    stages: dict[str, list[tuple[str, str]]] = {}
    current: list[tuple[str, str]] = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        instruction, _, rest = line.partition(" ")
        if instruction.upper() == "FROM":
            found = re.fullmatch(r"(\S+)\s+AS\s+(\S+)", rest.strip(), re.IGNORECASE)
            assert found, f"every stage is named: FROM {rest}"
            current = stages.setdefault(found.group(2), [("FROM", found.group(1))])
        elif stages:
            current.append((instruction.upper(), rest.strip()))
    return stages


def test_dockerfile_builds_in_stages_and_runs_unprivileged(chart: helm.Chart) -> None:
    stages = dockerfile_stages()
    assert list(stages) == ["web", "build", "runtime"]
    text = DOCKERFILE.read_text()
    assert re.search(r"ARG PYTHON_IMAGE=python:3\.11", text)
    runs = {name: " ".join(arg for op, arg in body if op == "RUN") for name, body in stages.items()}
    assert "npm ci" in runs["web"] and "npm run build" in runs["web"]
    assert "grpc_tools.protoc" in runs["build"] and "setup.py build_ext --inplace" in runs["build"]
    assert "pip install" in runs["build"]
    runtime = stages["runtime"]
    assert "gcc" not in runs["runtime"] and "npm" not in runs["runtime"]
    users = [arg for op, arg in runtime if op == "USER"]
    assert users, "the runtime stage sets a USER"
    uid = users[-1].split(":")[0]
    assert uid.isdigit() and int(uid) != 0, "a numeric non-root USER (runAsNonRoot can check it)"
    # The user the chart runs the pods as.
    assert chart.values["podSecurityContext"]["runAsUser"] == int(uid)
    entrypoint = [arg for op, arg in runtime if op == "ENTRYPOINT"]
    assert entrypoint and json.loads(entrypoint[-1]) == ["/usr/local/bin/boxedin-entrypoint"]
    assert any(op == "COPY" and "deploy/entrypoint.sh /usr/local/bin/boxedin-entrypoint" in arg for op, arg in runtime)
    # The web client and the built package come from the earlier stages.
    copies = [arg for op, arg in runtime if op == "COPY"]
    assert any("--from=web" in arg and "/app/web/dist" in arg for arg in copies)
    assert any("--from=build" in arg and "/opt/venv" in arg for arg in copies)


def test_dockerfile_builds_with_a_plain_builder() -> None:
    """Nothing that needs BuildKit: no parser directive naming a frontend (`# syntax=`), no
    `COPY --chmod`/`--link`/`--parents`, no `RUN --mount`/`--network`/`--security`, no heredocs."""
    text = DOCKERFILE.read_text()
    for line in text.splitlines():
        assert not re.match(r"#\s*syntax\s*=", line.strip(), re.IGNORECASE), line
    joined = re.sub(r"\\\n", " ", text)
    instructions = [line.strip() for line in joined.splitlines() if line.strip() and not line.strip().startswith("#")]
    for line in instructions:
        op, _, rest = line.partition(" ")
        if op.upper() in ("COPY", "ADD"):
            flags = re.findall(r"--([a-z-]+)", rest.split(" ", 1)[0] + " " + rest)
            assert not set(flags) & {"chmod", "link", "parents", "exclude", "checksum", "keep-git-dir"}, line
        if op.upper() == "RUN":
            assert not re.match(r"--(mount|network|security)\b", rest), line
        assert "<<" not in line, f"a heredoc needs BuildKit: {line}"
    # The entrypoint is made executable by a RUN (COPY --chmod needs BuildKit).
    runs = " ".join(line for line in instructions if line.upper().startswith("RUN "))
    assert "chmod 0755 /usr/local/bin/boxedin-entrypoint" in runs


def test_dockerfile_bases_are_pinned() -> None:
    """Every base image is an exact release (MAJOR.MINOR.PATCH) or a digest, never a moving tag."""
    text = DOCKERFILE.read_text()
    args = dict(re.findall(r"^ARG\s+([A-Z_]+)=(\S+)", text, re.MULTILINE))
    stages = dockerfile_stages()
    for name, body in stages.items():
        base = body[0][1]
        found = re.fullmatch(r"\$\{?([A-Z_]+)\}?", base)
        image = args[found.group(1)] if found else base
        if image in stages:
            continue
        assert re.search(r"@sha256:[0-9a-f]{64}$", image) or re.search(r":\d+\.\d+\.\d+(-[a-z0-9.-]+)?$", image), (
            f"stage {name}: {image} is not pinned"
        )


def test_dockerfile_exposes_every_port_the_processes_use(chart: helm.Chart) -> None:
    """EXPOSE names each kind's port and metrics port, as the chart (and the README) give them."""
    exposed: set[int] = set()
    for op, arg in dockerfile_stages()["runtime"]:
        if op == "EXPOSE":
            exposed |= {int(port.split("/")[0]) for port in arg.split()}
    used = {
        int(svc[field])
        for svc in chart.values["services"].values()
        for field in ("port", "metricsPort")
        if field in svc
    }
    assert used == {8000, 50051, 50052, 50053, 50054, 9100, 9101, 9102, 9103, 9104, 9105}
    assert exposed == used
    # The README's settings table gives the same defaults.
    readme = (ROOT / "README.md").read_text().split("## Settings", 1)[1].split("\n## ", 1)[0]
    assert used <= {int(port) for port in re.findall(r"\b(\d{4,5})\b", readme)}


def test_dockerignore_keeps_local_builds_out() -> None:
    ignored = {line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()}
    assert {".git", ".venv", "web/node_modules", "web/dist", "services/v1", "services/**/*.so"} <= ignored


@pytest.fixture(scope="module")
def stand_ins(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """python and boxedin stand-ins that print how they were called."""
    folder = tmp_path_factory.mktemp("bin")
    for name in ("python", "boxedin"):
        path = folder / name
        path.write_text(f'#!/bin/sh\necho {name} "$@"\n')
        path.chmod(0o755)
    return folder


def run_entrypoint(stand_ins: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {"PATH": f"{stand_ins}:/usr/bin:/bin", **(env or {})}
    return subprocess.run(
        ["sh", str(ENTRYPOINT), *args], env=environment, capture_output=True, text=True, timeout=10, check=False
    )


def launcher_commands() -> dict[str, str]:
    """How `boxedin up` starts each kind: its `python -m ...` arguments, from services/supervisor/launcher.py."""
    source = (ROOT / "services" / "supervisor" / "launcher.py").read_text()
    commands = {}
    for kind, module in (("engine", "boxedin.engine.service"), ("ai", "boxedin.ai.service"),
                         ("stats", "boxedin.stats"), ("gateway", "boxedin.gateway")):  # fmt: skip
        assert f'"-m", "{module}"' in source, module
        commands[kind] = f"-m {module}"
    assert '"-m", "celery", "-A", "boxedin.ai.tasks", "worker"' in source
    commands["worker"] = "-m celery -A boxedin.ai.tasks worker"
    return commands


def test_entrypoint_serves_every_kind_the_chart_runs(stand_ins: Path, cluster: Rendered) -> None:
    commands = launcher_commands()
    kinds = {container(deployment)["args"][0] for deployment in cluster.deployments().values()}
    assert kinds == set(KINDS)
    for kind in kinds:
        result = run_entrypoint(stand_ins, kind)
        assert result.returncode == 0, result.stderr
        output = result.stdout.strip()
        assert output.startswith("python -m "), output
        if kind in commands:
            # The same process `boxedin up` starts.
            assert output.startswith(f"python {commands[kind]}"), output
    assert run_entrypoint(stand_ins, "matchmaker").stdout.strip() == "python -m boxedin.matchmaker"


def test_entrypoint_runs_the_worker_as_configured(stand_ins: Path) -> None:
    output = run_entrypoint(stand_ins, "worker", "--hostname", "w1", env={"BOXEDIN_WORKER_CONCURRENCY": "6"}).stdout
    words = output.split()
    assert words[words.index("--concurrency") + 1] == "6"
    assert words[words.index("--prefetch-multiplier") + 1] == "1"
    assert words[-2:] == ["--hostname", "w1"]
    assert run_entrypoint(stand_ins, "boxedin", "replay", "-").stdout.strip() == "boxedin replay -"


def test_entrypoint_refuses_an_unknown_kind(stand_ins: Path) -> None:
    result = run_entrypoint(stand_ins, "matchmakr")
    assert result.returncode == 64
    assert "unknown process kind 'matchmakr'" in result.stderr
    assert run_entrypoint(stand_ins).returncode == 64


def test_every_kind_enabled_by_default_is_built(default: Rendered) -> None:
    """The modules the entrypoint runs for the kinds the chart starts by default exist."""
    modules = {
        "gateway": "boxedin.gateway.__main__",
        "engine": "boxedin.engine.service.__main__",
        "ai": "boxedin.ai.service.__main__",
        "stats": "boxedin.stats.__main__",
        "worker": "boxedin.ai.tasks",
        "matchmaker": "boxedin.matchmaker.__main__",
    }
    for kind in default.deployments():
        assert importlib.util.find_spec(modules[kind]) is not None, kind
    assert os.access(ENTRYPOINT, os.X_OK)
