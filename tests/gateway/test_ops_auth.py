"""How /ops takes its token, over HTTP against the gateway's app (no stack: the lifespan is not
run, so only what needs no backend is asked for): the sign-in form, the session cookie and its
flags, a forged or expired cookie refused, the bearer header, ``?token=`` refused and blanked
out of the access log, wrong tokens limited per address, and sign-out."""

from __future__ import annotations

import asyncio
import secrets
import time

from fastapi.testclient import TestClient

from boxedin.common.settings import Settings
from boxedin.gateway import ops
from boxedin.gateway.app import create_app

TOKEN = "ops-token-for-the-tests-0123456789"


def client(base_url: str = "http://testserver", address: str = "203.0.113.7", token: str = TOKEN) -> TestClient:
    config = Settings(service_secret=secrets.token_hex(16), ops_token=token, web_dist="/nonexistent")
    return TestClient(create_app(config), base_url=base_url, client=(address, 50000), follow_redirects=False)


def sign_in(http: TestClient, token: str = TOKEN) -> tuple[int, str]:
    reply = http.post("/ops/login", data={"token": token})
    return reply.status_code, reply.headers.get("set-cookie", "")


def test_without_a_session_ops_shows_the_form_that_posts_to_login() -> None:
    reply = client().get("/ops")
    assert reply.status_code == 401
    assert reply.headers["www-authenticate"].startswith("Bearer")
    assert reply.headers["cache-control"] == "no-store"
    assert '<form method="post" action="/ops/login">' in reply.text
    assert 'type="password"' in reply.text and 'name="token"' in reply.text
    assert TOKEN not in reply.text
    figures = client().get("/ops/figures")
    assert figures.status_code == 401
    assert "Authorization: Bearer" in figures.json()["detail"] and "form" in figures.json()["detail"]


def test_the_right_token_sets_a_signed_http_only_strict_cookie_not_the_token() -> None:
    http = client()
    status, cookie = sign_in(http)
    assert status == 303
    flags = [part.strip().lower() for part in cookie.split(";")]
    name, _, value = cookie.split(";")[0].partition("=")
    assert name == ops.COOKIE
    assert TOKEN not in cookie
    assert ops.session_valid(value, TOKEN)
    assert "httponly" in flags and "samesite=strict" in flags and "path=/ops" in flags
    assert f"max-age={ops.SESSION_SECONDS}" in flags
    assert "secure" not in flags  # plain http: a Secure cookie would never come back
    page = http.get("/ops")
    assert page.status_code == 200 and 'id="players"' in page.text and "/ops/logout" in page.text


def test_over_https_the_cookie_is_secure() -> None:
    _, cookie = sign_in(client("https://testserver"))
    assert "secure" in [part.strip().lower() for part in cookie.split(";")]
    # Behind a proxy that ends TLS (an Ingress), as the proxy says.
    for header in ({"X-Forwarded-Proto": "https"}, {"Forwarded": "for=192.0.2.1;proto=https"}):
        reply = client().post("/ops/login", data={"token": TOKEN}, headers=header)
        assert "secure" in [part.strip().lower() for part in reply.headers["set-cookie"].split(";")], header


def test_a_forged_or_expired_or_other_tokens_cookie_is_refused() -> None:
    now = time.time()
    good = ops.issue_session(TOKEN, now)
    expires, nonce, signature = good.split(".")
    forged = [
        f"{int(expires) + 3600}.{nonce}.{signature}",  # a later expiry, the old signature
        f"{expires}.{nonce}.{'0' * len(signature)}",
        f"{expires}.{nonce}",
        TOKEN,
        "",
        ops.issue_session("another-installations-token-0000", now),
        ops.issue_session(TOKEN, now - ops.SESSION_SECONDS - 1),  # expired
    ]
    for value in forged:
        assert not ops.session_valid(value, TOKEN), value
        http = client()
        http.cookies.set(ops.COOKIE, value)
        assert http.get("/ops").status_code == 401, value
        assert http.get("/ops/figures").status_code == 401, value
    assert ops.session_valid(good, TOKEN, now)
    # A value claiming to last longer than a session is refused even when signed.
    assert not ops.session_valid(good, TOKEN, now - 3600)


def test_a_bearer_header_lets_a_script_in_and_a_wrong_one_does_not() -> None:
    http = client()
    assert http.get("/ops", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200
    assert http.get("/ops", headers={"Authorization": f"bearer {TOKEN}"}).status_code == 200
    for header in (f"Basic {TOKEN}", "Bearer wrong", f"Bearer {TOKEN}x", "Bearer"):
        reply = http.get("/ops/figures", headers={"Authorization": header})
        assert reply.status_code == 401, header
        assert "Authorization: Bearer" in reply.json()["detail"]


def test_token_in_the_url_is_refused_naming_the_header_and_the_form() -> None:
    http = client()
    for path in (f"/ops?token={TOKEN}", f"/ops/figures?token={TOKEN}", "/ops?token=", f"/ops/login?x=1&token={TOKEN}"):
        reply = http.get(path) if "login" not in path else http.post(path, data={"token": TOKEN})
        assert reply.status_code == 400, path
        detail = reply.json()["detail"]
        assert "not taken in the URL" in detail and "Authorization: Bearer" in detail and "form" in detail
        assert "set-cookie" not in reply.headers
    # A browser gets the form, with the same words.
    page = http.get(f"/ops?token={TOKEN}", headers={"Accept": "text/html"})
    assert page.status_code == 400 and 'action="/ops/login"' in page.text and "not taken in the URL" in page.text
    assert TOKEN not in page.text


def test_the_url_token_is_blanked_out_of_the_scope_the_access_log_reads() -> None:
    seen: list[bytes] = []

    async def app(scope: dict, receive: object, send: object) -> None:  # type: ignore[type-arg]
        raise AssertionError("a request with ?token= must not reach the app")

    middleware = ops.TokenNotInUrl(app)  # type: ignore[arg-type]
    scope = {"type": "http", "path": "/ops", "query_string": f"a=1&token={TOKEN}".encode(), "headers": [],
             "method": "GET"}  # fmt: skip
    sent: list[dict] = []  # type: ignore[type-arg]

    async def receive() -> dict:  # type: ignore[type-arg]
        return {"type": "http.request", "body": b""}

    async def send(message: dict) -> None:  # type: ignore[type-arg]
        if message["type"] == "http.response.start":
            # uvicorn writes its access line here, from this very scope.
            seen.append(scope["query_string"])
        sent.append(message)

    asyncio.run(middleware(scope, receive, send))  # type: ignore[arg-type]
    assert sent[0]["status"] == 400
    assert seen == [b"a=1&token=[removed]"]
    # Other paths' query strings are left alone.
    other = {"type": "http", "path": "/operations", "query_string": b"token=x"}
    passed: list[object] = []

    async def through(scope: dict, receive: object, send: object) -> None:  # type: ignore[type-arg]
        passed.append(scope["query_string"])

    asyncio.run(ops.TokenNotInUrl(through)(other, receive, send))  # type: ignore[arg-type]
    assert passed == [b"token=x"]


def test_a_wrong_token_gets_the_form_again_and_a_few_a_minute_per_address() -> None:
    http = client(address="198.51.100.1")
    for _ in range(ops.LOGIN_TRIES):
        reply = http.post("/ops/login", data={"token": "wrong"})
        assert reply.status_code == 401
        assert 'action="/ops/login"' in reply.text and "not the ops token" in reply.text
        assert "set-cookie" not in reply.headers
    # Now even the right token waits, and so does the header.
    held = http.post("/ops/login", data={"token": TOKEN})
    assert held.status_code == 429 and int(held.headers["retry-after"]) > 0
    assert "set-cookie" not in held.headers
    assert http.get("/ops/figures", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 429
    # Another address is not held back (one app: the throttle is the gateway's).
    other = TestClient(http.app, client=("198.51.100.2", 50000), follow_redirects=False)
    assert other.post("/ops/login", data={"token": TOKEN}).status_code == 303


def test_wrong_bearer_tokens_count_too() -> None:
    http = client(address="198.51.100.3")
    for _ in range(ops.LOGIN_TRIES):
        assert http.get("/ops/figures", headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert http.post("/ops/login", data={"token": TOKEN}).status_code == 429


def test_the_throttle_forgets_after_its_window() -> None:
    now = [1000.0]
    throttle = ops.LoginThrottle(tries=3, window=60, max_addresses=2, clock=lambda: now[0])
    for _ in range(3):
        throttle.failed("a")
    assert throttle.retry_after("a") == 60
    now[0] += 30
    assert throttle.retry_after("a") == 30
    now[0] += 30.5
    assert throttle.retry_after("a") == 0
    # Bounded: a third address pushes out the one whose last failure is oldest.
    throttle.failed("b")
    throttle.failed("c")
    throttle.failed("d")
    assert throttle.retry_after("b") == 0 and len(throttle._failures) <= 2


def test_sign_out_clears_the_cookie() -> None:
    http = client()
    sign_in(http)
    assert http.get("/ops").status_code == 200
    reply = http.post("/ops/logout")
    assert reply.status_code == 303 and reply.headers["location"] == "/ops"
    assert ops.COOKIE in reply.headers["set-cookie"] and "max-age=0" in reply.headers["set-cookie"].lower()
    # The client dropped the cookie, as a browser does.
    assert ops.COOKIE not in http.cookies
    assert http.get("/ops").status_code == 401


def test_without_a_token_set_the_page_is_off() -> None:
    http = client(token="")
    assert http.get("/ops").status_code == 404
    assert http.post("/ops/login", data={"token": ""}).status_code == 404
    assert http.get("/ops/figures", headers={"Authorization": "Bearer "}).status_code == 404
