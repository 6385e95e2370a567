"""Packages found, not listed (issue 27): the wheel `pip wheel .` builds, installed into a fresh
virtualenv (not editable), runs `boxedin up` away from the repository and serves a game.

No network: the wheel is built with this virtualenv's setuptools and Cython
(``--no-build-isolation``) and installed without its dependencies, which the fresh virtualenv
reads from this one's site-packages through a .pth file. That adds the folder to sys.path only:
the .pth files in it, among them the editable install's finder of the package boxedin, are not
run, so every ``import boxedin`` there finds the wheel's."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import site
import subprocess
import sys
import sysconfig
import time
import urllib.request
import zipfile
from pathlib import Path
from typing import Any

import pytest

from boxedin.supervisor.launcher import free_port

from wsclient import Browser

# Whole-stack: real processes on loopback (`pytest -m "not stack"` leaves them out).
pytestmark = pytest.mark.stack

ROOT = Path(__file__).resolve().parents[2]
WEB_DIST = ROOT / "web" / "dist"
# `boxedin up` from the wheel starts and serves a move within this (about 10 s here). Building
# and installing the wheel take some 15 s more when scripts/setup's extensions are up to date
# (else the wheel compiles them, a minute or two).
START_SECONDS = 60


def run(command: list[str], **options: Any) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=600, **options)
    assert done.returncode == 0, f"{command}:\n{done.stdout}\n{done.stderr}"
    return done


def environment(key_prefix: str) -> dict[str, str]:
    """Nothing of this test run's settings nor of its PYTHONPATH (which may name the repository's
    services/ as boxedin); every port chosen, so no default port of another run is in the way."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("BOXEDIN_", "PYTHON"))}
    env.pop("REDIS_URL", None)
    env.update({"BOXEDIN_KEY_PREFIX": key_prefix, "PYTHONUNBUFFERED": "1"})
    for name in ("ENGINE", "AI", "STATS", "MATCHMAKER"):
        env[f"BOXEDIN_{name}_ADDRESS"] = f"127.0.0.1:{free_port()}"
    for name in ("GATEWAY", "ENGINE", "AI", "WORKER", "STATS", "MATCHMAKER"):
        env[f"BOXEDIN_{name}_METRICS_PORT"] = str(free_port())
    return env


def source_tree(into: Path) -> Path:
    """The repository's package as committed, with what scripts/setup generated: the gRPC code
    (services/v1), Cython's C and the extensions compiled from it, the last put where setuptools
    looks for them (build/lib...), so that the wheel compiles nothing that is up to date. A copy:
    no file the repository's build/ kept from an earlier build (a module since moved) gets in."""
    tracked = run(["git", "ls-files", "pyproject.toml", "setup.py", "README.md", "services"], cwd=ROOT).stdout.split()
    generated = [path.relative_to(ROOT) for path in (ROOT / "services" / "v1").glob("*.py*")]
    generated += [path.relative_to(ROOT) for path in (ROOT / "services").rglob("_*.c")]
    for relative in [*map(Path, tracked), *generated]:
        (into / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / relative, into / relative)
    built = into / "build" / f"lib.{sysconfig.get_platform()}-{sys.implementation.cache_tag}" / "boxedin"
    for extension in (ROOT / "services").rglob("*.so"):
        (built / extension.parent.relative_to(ROOT / "services")).mkdir(parents=True, exist_ok=True)
        shutil.copy2(extension, built / extension.relative_to(ROOT / "services"))
    return into


def get(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=10) as response:
        return int(response.status), response.read().decode()


def test_the_wheel_runs_boxedin_up_and_serves_a_game(tmp_path: Path) -> None:
    if not (WEB_DIST / "index.html").exists():
        pytest.fail("the web client is not built (scripts/setup builds web/dist)")
    started = time.monotonic()
    wheels = tmp_path / "wheels"
    source = source_tree(tmp_path / "source")
    run([sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "--no-build-isolation", "-qw", str(wheels)])
    (wheel,) = wheels.glob("boxedin-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    packages_in = {name.rpartition("/")[0].replace("/", ".") for name in names if name.endswith("/__init__.py")}
    assert {"boxedin.v1", "boxedin.matchmaker", "boxedin.tools.arena", "boxedin.supervisor"} <= packages_in
    assert "boxedin/gateway/ops.html" in names
    compiled = {name.split(".")[0] for name in names if name.endswith(".so")}
    hot_paths = ("engine/_core", "ai/_playout", "ai/_solver", "ai/_dice_search", "ai/_dice_table")
    assert compiled == {f"boxedin/{name}" for name in hot_paths}  # setup.py's COMPILED_MODULES
    assert not [name for name in names if name.endswith(".c")]

    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "-q", str(wheel)])
    where = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    packages = Path(run([str(python), "-c", where]).stdout.strip())
    shared = [folder for folder in site.getsitepackages() if Path(folder).is_dir()]
    (packages / "dependencies-from-the-test-venv.pth").write_text("".join(f"{folder}\n" for folder in shared))

    # Away from the repository: a working folder, a data folder and a web client of its own.
    away = tmp_path / "away"
    away.mkdir()
    web = shutil.copytree(WEB_DIST, tmp_path / "web-dist")
    env = environment("test-wheel:") | {"BOXEDIN_WEB_DIST": str(web)}

    found = json.loads(
        run(
            [str(python), "-c", "import json, boxedin.engine._core as core, boxedin.v1, boxedin.matchmaker, "
             "boxedin.gateway.ops; print(json.dumps([core.__file__, boxedin.v1.__file__]))"],
            cwd=away, env=env,
        ).stdout
    )  # fmt: skip
    assert all(Path(path).is_relative_to(packages) for path in found), found
    assert found[0].endswith(".so"), found  # the compiled core, not its plain-Python source

    built = time.monotonic() - started
    port = free_port()
    output = tmp_path / "up.log"
    up = subprocess.Popen(
        [str(venv / "bin" / "boxedin"), "up", "--port", str(port), "--data", str(tmp_path / "data"), "--no-lan"],
        cwd=away, env=env, stdout=output.open("wb"), stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        url = ""
        launched = time.monotonic()
        while not url:
            assert up.poll() is None, f"boxedin up ended:\n{output.read_text()}"
            assert time.monotonic() - launched < START_SECONDS, f"boxedin up did not start:\n{output.read_text()}"
            found_url = re.search(r"open (http://\S+) in your browser", output.read_text())
            url = found_url.group(1) if found_url else ""
            time.sleep(0.1)
        assert url == f"http://127.0.0.1:{port}"

        status, page = get(url + "/")
        assert status == 200 and "<html" in page.lower()
        status, health = get(url + "/healthz")
        assert status == 200 and json.loads(health) == {"status": "ok"}

        browser = Browser(url)
        try:
            assert browser.hello()["type"] == "welcome"
            assert browser.new_game(mode="mini", opponent="local")["type"] == "state"
            browser.play_turn()
            assert browser.seq == 1 and not browser.errors
        finally:
            browser.close()
        served = time.monotonic() - launched
    finally:
        if up.poll() is None:
            up.send_signal(signal.SIGINT)
        try:
            up.wait(60)
        except subprocess.TimeoutExpired:
            up.kill()
            raise
    assert up.returncode == 0, output.read_text()
    print(f"the wheel built and installed in {built:.1f} s; boxedin up started and served a move in {served:.1f} s")
    assert served < START_SECONDS
