"""Two `boxedin lan` processes as on two machines: each in a network namespace of its own, the two
joined by a veth pair (a Wi-Fi network of two). The joiner finds the game by multicast DNS, the
codes agree, and a whole game is played. Making namespaces needs root and iproute2; without
them this test is skipped (the loopback tests play the same with a typed address)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from lanplay import Browser, LanProcess, host_and_join, lan_processes, let_in, play_to_the_end

pytestmark = [pytest.mark.asyncio, pytest.mark.stack]


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=10)


@pytest.fixture
def network() -> Iterator[tuple[str, str]]:
    if shutil.which("ip") is None:
        pytest.skip("iproute2's `ip` is missing: network namespaces cannot be made")
    if os.geteuid() != 0:
        pytest.skip("making network namespaces needs root")
    tag = f"bx{os.getpid() % 100000}"
    first, second = f"{tag}host", f"{tag}join"
    made: list[str] = []
    try:
        for ns in (first, second):
            _ip("netns", "add", ns)
            made.append(ns)
            _ip("-n", ns, "link", "set", "lo", "up")
        _ip("link", "add", f"{tag}a", "netns", first, "type", "veth", "peer", "name", f"{tag}b", "netns", second)
        for ns, link, address in ((first, f"{tag}a", "10.77.0.1/24"), (second, f"{tag}b", "10.77.0.2/24")):
            _ip("-n", ns, "addr", "add", address, "dev", link)
            _ip("-n", ns, "link", "set", link, "up")
    except subprocess.CalledProcessError as exc:
        for ns in made:
            subprocess.run(["ip", "netns", "del", ns], check=False, capture_output=True)
        pytest.skip(f"network namespaces cannot be made here: {exc.stderr.decode().strip()}")
    try:
        yield first, second
    finally:
        for ns in made:
            subprocess.run(["ip", "netns", "del", ns], check=False, capture_output=True)


async def test_two_machines_find_each_other_and_play_a_whole_game(network: tuple[str, str], tmp_path: Path) -> None:
    first, second = network
    host_process = LanProcess(tmp_path / "host.log", uds=tmp_path / "host.sock", netns=first, discovery=True)
    joiner_process = LanProcess(tmp_path / "joiner.log", uds=tmp_path / "joiner.sock", netns=second, discovery=True)
    with lan_processes(host_process, joiner_process):
        host, joiner = await Browser(host_process).open(), await Browser(joiner_process).open()
        try:
            host_code, joiner_code = await host_and_join(host, joiner)  # from the list of games seen
            assert host_code == joiner_code
            await let_in(host, joiner)
            final = await play_to_the_end(host, joiner)
            assert final["over"] and final["players"][1]["name"] == "Bob"
        finally:
            await host.close()
            await joiner.close()
