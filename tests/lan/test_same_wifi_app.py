"""Same Wi-Fi from `bash scripts/run`: `boxedin up` (the Stack) starts this machine's
`boxedin lan` beside the services and tells the gateway where it is, and the gateway names it
to the web client (GET /same-wifi), whose Same Wi-Fi tab opens it; a `boxedin lan` says it is
the Same Wi-Fi app itself. In a cluster (no BOXEDIN_LAN_URL) the gateway names none."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import httpx
import pytest

from boxedin.common.settings import Settings
from boxedin.gateway.app import create_app
from boxedin.supervisor.launcher import Stack, free_port

# Whole-stack: real processes on loopback (`pytest -m "not stack"` leaves them out).
pytestmark = pytest.mark.stack


@pytest.mark.asyncio
async def test_the_gateway_names_the_same_wifi_app_only_when_it_has_one() -> None:
    secret = "s" * 32
    for lan_url, named in (("http://127.0.0.1:8090/#same-wifi", "http://127.0.0.1:8090/#same-wifi"), ("", None)):
        # The route reads only the settings: the app's services (its lifespan) are not needed.
        app = create_app(Settings(service_secret=secret, lan_url=lan_url))
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gateway") as client:
            assert (await client.get("/same-wifi")).json() == {"url": named}


def test_the_stack_starts_the_same_wifi_app_and_names_it_to_the_gateway(tmp_path: Path) -> None:
    port = free_port()
    stack = Stack(lan_port=port, log_dir=tmp_path, worker=False)
    try:
        stack.start_lan()
        stack.wait_http(f"http://127.0.0.1:{port}/healthz", 60, "lan")
        assert stack.env()["BOXEDIN_LAN_URL"] == f"http://127.0.0.1:{port}/#same-wifi"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/same-wifi", timeout=5) as reply:
            assert json.load(reply) == {"here": True, "url": None}
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as reply:
            assert b'<div id="app">' in reply.read()
    finally:
        stack.stop()


def test_the_sockets_take_pages_of_the_process_itself_only() -> None:
    from boxedin.lan.server import LOOPBACK_NAMES, page_may_connect

    names = LOOPBACK_NAMES
    assert page_may_connect("http://127.0.0.1:8090", "127.0.0.1:8090", names)
    assert page_may_connect("http://localhost:8090", "localhost:8090", names)
    assert page_may_connect(None, "127.0.0.1:8090", names)  # not a browser
    assert not page_may_connect("http://evil.example", "127.0.0.1:8090", names)
    # A site that points a name of its own at this machine (DNS rebinding): its origin and the
    # Host agree, but the Host is not this machine's name.
    assert not page_may_connect("http://evil.example:8090", "evil.example:8090", names)
    assert not page_may_connect(None, None, names)
