"""The operator's page, /ops: the live presence and games figures for those who run Boxed In
without Grafana, behind a token from a Secret (``BOXEDIN_OPS_TOKEN``). Without a token set the
page is off.

The token never travels in a URL, where access logs (the gateway's, an Ingress controller's, a
proxy's) would keep it:

- a person signs in with the form GET /ops shows (it posts to /ops/login); the right token sets
  a session cookie (HttpOnly, SameSite=Strict, Secure over https, path /ops) holding an expiry
  and a nonce signed with a key derived from the token, never the token itself, valid for
  ``SESSION_SECONDS``; POST /ops/logout clears it. Changing the token ends every session;
- a script sends ``Authorization: Bearer TOKEN``;
- ``?token=`` on any /ops address is refused with 400 before anything reads it, and the access
  log gets the address with the value blanked out (``TokenNotInUrl``).

Tokens are compared in constant time. Wrong tokens (form or header) are counted per client
address: after ``LOGIN_TRIES`` in ``LOGIN_WINDOW_SECONDS`` that address is answered 429 until the
oldest falls out of the window, whatever it sends."""

from __future__ import annotations

import hashlib
import hmac
import html
import math
import secrets
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode

import grpc
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from boxedin.common.metrics import WEBSOCKETS
from boxedin.engine.rules import MODES
from boxedin.v1 import engine_pb2

router = APIRouter()

COOKIE = "boxedin_ops"
SESSION_SECONDS = 8 * 3600
LOGIN_TRIES = 5
LOGIN_WINDOW_SECONDS = 60.0
# The form's body is one field; anything larger is not read.
MAX_FORM_BYTES = 4096
# Said wherever the token is asked for.
HOW = "sign in with the form at /ops, or send the header Authorization: Bearer <token>"
NO_STORE = {"Cache-Control": "no-store"}
# The page names the modes as the rule book does ("Chain Reaction"), not by their ids.
MODE_NAMES = {**{mode.id: mode.name for mode in MODES.values()}, "custom": "Custom board"}
CHALLENGE = {"WWW-Authenticate": 'Bearer realm="boxedin-ops"', **NO_STORE}


# --- the session cookie ------------------------------------------------------------------------


def _session_key(token: str) -> bytes:
    """The key sessions are signed with: derived from the token, so the cookie does not reveal it
    and a new token ends every session."""
    return hmac.new(token.encode(), b"boxedin ops session v1", hashlib.sha256).digest()


def issue_session(token: str, now: float | None = None) -> str:
    """A session value: ``EXPIRES.NONCE.SIGNATURE``."""
    expires = int((time.time() if now is None else now) + SESSION_SECONDS)
    body = f"{expires}.{secrets.token_hex(16)}"
    signature = hmac.new(_session_key(token), body.encode(), hashlib.sha256).hexdigest()
    return f"{body}.{signature}"


def session_valid(value: str, token: str, now: float | None = None) -> bool:
    """Is ``value`` a session this token signed, not yet expired?"""
    parts = value.split(".")
    if len(parts) != 3 or not parts[0].isdigit():
        return False
    expires, nonce, signature = parts
    wanted = hmac.new(_session_key(token), f"{expires}.{nonce}".encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(signature.encode(), wanted.encode()):
        return False
    now = time.time() if now is None else now
    # Never longer than a session lasts, whatever the value says.
    return now < int(expires) <= now + SESSION_SECONDS


def token_matches(given: str, expected: str) -> bool:
    return hmac.compare_digest(given.encode(), expected.encode())


# --- wrong tokens, per client address --------------------------------------------------------


class LoginThrottle:
    """Counts wrong tokens per client address over a sliding window; an address with ``tries``
    of them in the last ``window`` seconds is held back. At most ``max_addresses`` are kept (the
    one whose last wrong token is oldest goes first)."""

    def __init__(
        self,
        tries: int = LOGIN_TRIES,
        window: float = LOGIN_WINDOW_SECONDS,
        max_addresses: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.tries, self.window, self.max_addresses, self.clock = tries, window, max_addresses, clock
        self._failures: dict[str, deque[float]] = {}

    def _recent(self, address: str) -> deque[float] | None:
        failures = self._failures.get(address)
        if failures is None:
            return None
        cutoff = self.clock() - self.window
        while failures and failures[0] <= cutoff:
            failures.popleft()
        if not failures:
            del self._failures[address]
            return None
        return failures

    def retry_after(self, address: str) -> int:
        """Seconds until ``address`` may try again; 0: it may now."""
        failures = self._recent(address)
        if failures is None or len(failures) < self.tries:
            return 0
        return max(1, math.ceil(failures[0] + self.window - self.clock()))

    def failed(self, address: str) -> None:
        failures = self._recent(address)
        if failures is None:
            if len(self._failures) >= self.max_addresses:
                oldest = min(self._failures, key=lambda key: self._failures[key][-1])
                del self._failures[oldest]
            failures = self._failures[address] = deque()
        failures.append(self.clock())


def _throttle(request: Request) -> LoginThrottle:
    state = request.app.state
    throttle: LoginThrottle | None = getattr(state, "ops_throttle", None)
    if throttle is None:
        throttle = state.ops_throttle = LoginThrottle()
    return throttle


def _over_https(request: Request) -> bool:
    """Did the browser come over https, to this process or to a proxy in front of it? The
    cookie is then Secure. A proxy's X-Forwarded-Proto (or Forwarded: proto=) is believed here
    whoever sent it: a client that claims https when it is not only loses its own cookie."""
    if request.url.scheme == "https":
        return True
    forwarded_proto = request.headers.get("x-forwarded-proto", "").split(",")[0].strip().lower()
    forwarded = request.headers.get("forwarded", "").split(",")[0].lower().replace(" ", "")
    return forwarded_proto == "https" or "proto=https" in forwarded.split(";")


def _address(request: Request) -> str:
    return request.client.host if request.client is not None else ""


# --- who may see the figures ---------------------------------------------------------------------


class Refused(Exception):
    """Not let in: ``status`` 401 (no or a wrong token) or 429 (too many wrong ones)."""

    def __init__(self, status: int, message: str, retry_after: int = 0) -> None:
        super().__init__(message)
        self.status, self.message, self.retry_after = status, message, retry_after


def _expected_token(request: Request) -> str | None:
    expected: str = request.app.state.config.ops_token
    return expected or None


def check_operator(request: Request, expected: str) -> None:
    """Lets in a request with the right bearer token or a valid session cookie; raises
    ``Refused`` otherwise. A wrong bearer token counts against the address."""
    throttle = _throttle(request)
    address = _address(request)
    header = request.headers.get("authorization")
    if header is not None:
        wait = throttle.retry_after(address)
        if wait:
            raise Refused(429, f"too many wrong tokens from your address: try again in {wait} s", wait)
        scheme, _, given = header.partition(" ")
        if scheme.lower() == "bearer" and token_matches(given.strip(), expected):
            return
        throttle.failed(address)
        raise Refused(401, f"wrong token: the header is Authorization: Bearer <token>, or {HOW}")
    cookie = request.cookies.get(COOKIE)
    if cookie and session_valid(cookie, expected):
        return
    raise Refused(401, f"the operator's page needs its token: {HOW}")


def _off() -> JSONResponse:
    return JSONResponse({"detail": "the operator's page is off: no BOXEDIN_OPS_TOKEN is set"}, 404)


def _form(status: int, message: str = "", retry_after: int = 0) -> HTMLResponse:
    headers = dict(CHALLENGE)
    if retry_after:
        headers["Retry-After"] = str(retry_after)
    shown = f'<p class="error" role="alert">{html.escape(message)}</p>' if message else ""
    body = _LOGIN.replace("<!--message-->", shown)
    return HTMLResponse(body, status, headers=headers)


@router.get("/ops/figures")
async def figures(request: Request) -> Response:
    """The figures as JSON, which the page reads every two seconds."""
    expected = _expected_token(request)
    if expected is None:
        return _off()
    try:
        check_operator(request, expected)
    except Refused as refused:
        headers = dict(CHALLENGE)
        if refused.retry_after:
            headers["Retry-After"] = str(refused.retry_after)
        return JSONResponse({"detail": refused.message}, refused.status, headers=headers)
    state = request.app.state
    try:
        reply = await state.backends.engine.GetFigures(engine_pb2.FiguresRequest(), timeout=5)
        games: dict[str, Any] = {
            "games_now": dict(reply.games_now),
            "games_started": dict(reply.games_started),
            "games_finished": dict(reply.games_finished),
        }
    except grpc.RpcError as exc:
        games = {"error": f"the engine did not answer ({exc.code().name})"}
    body = {
        "players_online": await state.presence.players_online(),
        "connections_here": int(WEBSOCKETS._value.get()),
        "mode_names": MODE_NAMES,
        **games,
    }
    return JSONResponse(body, headers=NO_STORE)


@router.get("/ops", response_class=HTMLResponse)
async def page(request: Request) -> Response:
    """The page for a signed-in operator (or a bearer token); else the sign-in form, 401."""
    expected = _expected_token(request)
    if expected is None:
        return _off()
    try:
        check_operator(request, expected)
    except Refused as refused:
        # Without a cookie or with an expired one, no complaint: just the form.
        message = refused.message if refused.status == 429 or "authorization" in request.headers else ""
        return _form(refused.status, message, refused.retry_after)
    return HTMLResponse(_PAGE, headers=NO_STORE)


@router.post("/ops/login")
async def login(request: Request) -> Response:
    """The form's token: right, a session cookie and back to /ops (303); wrong, 401 and the
    form again; too many wrong ones from this address, 429."""
    expected = _expected_token(request)
    if expected is None:
        return _off()
    throttle = _throttle(request)
    address = _address(request)
    wait = throttle.retry_after(address)
    if wait:
        return _form(429, f"Too many wrong tokens from your address: try again in {wait} s.", wait)
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM_BYTES:
            return _form(413, "That is not a token.")
    given = dict(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True)).get("token", "")
    if not given or not token_matches(given, expected):
        throttle.failed(address)
        return _form(401, "That is not the ops token.")
    response = RedirectResponse("/ops", 303, headers=NO_STORE)
    response.set_cookie(
        COOKIE,
        issue_session(expected),
        max_age=SESSION_SECONDS,
        path="/ops",
        httponly=True,
        samesite="strict",
        secure=_over_https(request),
    )
    return response


@router.post("/ops/logout")
async def logout(request: Request) -> Response:
    response = RedirectResponse("/ops", 303, headers=NO_STORE)
    response.delete_cookie(COOKIE, path="/ops", httponly=True, samesite="strict", secure=_over_https(request))
    return response


# --- no token in the URL ---------------------------------------------------------------------


def _is_ops(path: str) -> bool:
    return path == "/ops" or path.startswith("/ops/")


class TokenNotInUrl:
    """ASGI middleware: a request for /ops... with ``token`` in its query string is answered 400
    with how to pass the token instead. The query string is rewritten in the request's scope
    first, which is what the server's access log reads: the value is never logged."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and _is_ops(scope["path"]) and scope.get("query_string"):
            pairs = parse_qsl(scope["query_string"].decode("latin-1"), keep_blank_values=True)
            if any(name == "token" for name, _ in pairs):
                scope["query_string"] = urlencode(
                    [(name, "[removed]" if name == "token" else value) for name, value in pairs], safe="[]"
                ).encode("latin-1")
                message = f"the ops token is not taken in the URL (logs would keep it): {HOW}"
                accept = dict(scope.get("headers") or []).get(b"accept", b"")
                refusal: Response = (
                    _form(400, message[0].upper() + message[1:] + ".")
                    if b"text/html" in accept
                    else JSONResponse({"detail": message}, 400, headers=NO_STORE)
                )
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)


_HERE = Path(__file__).parent
# The page itself reads /ops/figures every two seconds.
_PAGE = (_HERE / "ops.html").read_text()
_LOGIN = (_HERE / "ops-login.html").read_text()
