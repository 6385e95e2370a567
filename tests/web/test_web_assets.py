"""The gateway serves the built client gzip'd, with hashed asset names kept for a year and
index.html checked on every visit (services/gateway/webassets.py)."""

from __future__ import annotations

import gzip
import re
import urllib.request
import pytest

# Whole-stack: real processes on loopback (`pytest -m "not stack"` leaves them out).
pytestmark = pytest.mark.stack


def fetch(url: str, gzip_ok: bool = True) -> tuple[int, dict[str, str], bytes]:
    headers = {"Accept-Encoding": "gzip"} if gzip_ok else {"Accept-Encoding": "identity"}
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as reply:
        return reply.status, {k.lower(): v for k, v in reply.headers.items()}, reply.read()


def test_assets_are_hashed_gzipped_and_kept_long(web_url: str) -> None:
    status, head, body = fetch(web_url + "/")
    assert status == 200
    assert head["cache-control"] == "no-cache"  # names the current assets: checked every visit
    assert head.get("content-encoding") == "gzip"
    page = gzip.decompress(body).decode()
    assets = re.findall(r'(?:src|href)="/(assets/[^"]+)"', page)
    assert {a.rsplit(".", 1)[1] for a in assets} == {"js", "css"}, assets
    for asset in assets:
        assert re.fullmatch(r"assets/[\w.-]+-[\w-]{8}\.(js|css)", asset), f"{asset} has no content hash"
        status, head, body = fetch(f"{web_url}/{asset}")
        assert status == 200
        assert head["content-encoding"] == "gzip"
        assert head["cache-control"] == "public, max-age=31536000, immutable"
        plain = gzip.decompress(body)
        assert len(body) < len(plain) / 2  # text compresses well; proof it is not gzip'd twice or empty
        # A browser that takes no gzip gets the same file plainly.
        _, head_plain, body_plain = fetch(f"{web_url}/{asset}", gzip_ok=False)
        assert "content-encoding" not in head_plain
        assert body_plain == plain


def test_a_missing_asset_is_not_cached(web_url: str) -> None:
    req = urllib.request.Request(web_url + "/assets/index-00000000.js")
    try:
        urllib.request.urlopen(req, timeout=10)
    except urllib.error.HTTPError as err:
        assert err.code == 404
        assert "immutable" not in (err.headers.get("Cache-Control") or "")
    else:
        raise AssertionError("a missing asset was served")
