"""A real Debian nginx in front of a stack's gateways, as the chart's Ingress puts ingress-nginx
there (deploy/helm/boxedin/values.yaml, ingress): websocket upgrades passed on, idle timeouts of
an hour, the peer appended to X-Forwarded-For, and a gateway that answers 503 (it is draining)
passed over for the next one. It runs in the foreground (no daemon) with every file of its own
in one folder and listens on one loopback port; the tests and `boxedin load --drain` use it."""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

# The directives the chart's Ingress annotations and ingress-nginx's own template give every
# websocket location; changed together with values.yaml's ingress.annotations.
WEBSOCKET_LOCATION = """\
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header Host $host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto $scheme;
            proxy_read_timeout 3600s;
            proxy_send_timeout 3600s;
            proxy_connect_timeout 5s;
            proxy_next_upstream error timeout http_502 http_503;
            proxy_next_upstream_tries 3;
"""


def nginx_binary() -> str | None:
    return shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None)


def config_text(folder: Path, port: int, upstreams: list[int]) -> str:
    servers = "\n".join(f"        server 127.0.0.1:{upstream} max_fails=0;" for upstream in upstreams)
    kinds = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    temp = "\n".join(f"    {kind}_temp_path {folder / kind};" for kind in kinds)
    # Workers of a master started as root run as the user named here, who must read the folder.
    user = f"user {pwd.getpwuid(os.geteuid()).pw_name};\n" if os.geteuid() == 0 else ""
    return f"""{user}daemon off;
worker_processes 1;
pid {folder / "nginx.pid"};
error_log {folder / "error.log"} notice;
events {{
    worker_connections 4096;
}}
http {{
    log_format upstreams '$remote_addr "$http_x_forwarded_for" $status $upstream_addr $upstream_status';
    access_log {folder / "access.log"} upstreams;
{temp}
    map $http_upgrade $connection_upgrade {{
        default upgrade;
        '' close;
    }}
    upstream gateways {{
{servers}
    }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://gateways;
{WEBSOCKET_LOCATION}        }}
    }}
}}
"""


@dataclass
class Nginx:
    """nginx on ``port`` passing every request to the gateways on ``upstreams``."""

    port: int
    upstreams: list[int]
    folder: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="boxedin-nginx-")))
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 15) -> None:
        binary = nginx_binary()
        if binary is None:
            raise RuntimeError("nginx is not installed: apt-get install nginx-light (scripts/setup --browser does)")
        config = self.folder / "nginx.conf"
        config.write_text(config_text(self.folder, self.port, self.upstreams))
        with open(self.folder / "stderr.log", "ab") as stderr:
            self.process = subprocess.Popen(
                [binary, "-p", str(self.folder), "-c", str(config), "-e", str(self.folder / "error.log")],
                stdout=subprocess.DEVNULL,
                stderr=stderr,
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"nginx stopped while starting: {self.log_tail()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"nginx did not listen on {self.port} within {timeout:.0f} s: {self.log_tail()}")

    def passed_on(self) -> int:
        """Requests an upstream answered 503 and nginx then gave another (its access log lists
        every upstream a request tried, with each one's status)."""
        path = self.folder / "access.log"
        if not path.exists():
            return 0
        return sum(1 for line in path.read_text(errors="replace").splitlines() if "503, " in line or "503 : " in line)

    def log_tail(self) -> str:
        path = self.folder / "error.log"
        return path.read_text(errors="replace")[-2000:] if path.exists() else ""

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()  # nginx's fast shutdown
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)
