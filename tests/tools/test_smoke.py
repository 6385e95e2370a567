"""`boxedin smoke`, which the chart's `helm test` pod runs: against a real stack it plays a
whole game (hello, a new game against the AI in Mini, every action and its update, the result)
and exits 0;
against no gateway, or one that does not answer as a gateway, it exits 1 saying which step
failed."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import threading

import pytest

from boxedin.supervisor.launcher import Stack, free_port
from boxedin.tools.smoke import SmokeFailed, websocket_url


def run_smoke(url: str, timeout: float = 15) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "boxedin.cli", "smoke", "--url", url, "--timeout", str(timeout)]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def test_the_websocket_address_of_a_gateway() -> None:
    assert websocket_url("http://play-boxedin-gateway:80") == "ws://play-boxedin-gateway:80/ws"
    assert websocket_url("https://games.example.org/") == "wss://games.example.org/ws"
    assert websocket_url("ws://127.0.0.1:8000/ws") == "ws://127.0.0.1:8000/ws"
    assert websocket_url("gateway:8000") == "ws://gateway:8000/ws"
    with pytest.raises(SmokeFailed):
        websocket_url("ftp://gateway")


@pytest.mark.stack
def test_smoke_plays_through_a_real_gateway(live_stack: Stack) -> None:
    done = run_smoke(live_stack.url())
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"connected to {live_stack.url().replace('http', 'ws')}/ws"
    assert lines[1] == "hello: welcome"
    assert lines[2].startswith("new game: ") and "Mini, against the AI, easy" in lines[2]
    # Mini starts each turn with a roll; a draw in a mode without dice.
    assert re.fullmatch(r"(roll|draw): update \d+ came", lines[3]), lines[3]
    # Played to the end: the final scores, once the result was told.
    over = re.fullmatch(r"game over: (\d+):(\d+) after (\d+) actions of the player's \(update \d+\)", lines[4])
    assert over, lines[4]
    assert int(over.group(3)) >= 1
    assert lines[-1].startswith("ok in ")


def test_smoke_fails_without_a_gateway() -> None:
    done = run_smoke(f"http://127.0.0.1:{free_port()}", timeout=3)
    assert done.returncode == 1
    assert "smoke test failed: the websocket to ws://127.0.0.1:" in done.stderr


def test_smoke_fails_on_a_server_that_accepts_but_never_answers() -> None:
    # A TCP server that takes the connection and says nothing: the handshake times out.
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    held: list[socket.socket] = []
    threading.Thread(target=lambda: held.append(server.accept()[0]), daemon=True).start()
    try:
        done = run_smoke(f"http://127.0.0.1:{port}", timeout=0.5)
    finally:
        for each in held:
            each.close()
        server.close()
    assert done.returncode == 1
    assert "smoke test failed" in done.stderr
