"""`boxedin smoke --url URL`: plays one whole game through a running gateway, as a browser
would, and exits 0 when it went through, 1 when not (saying at which step). The chart's
`helm test` pod runs it against the gateway's Service.

The steps: a websocket to URL's /ws; hello (a welcome with a device); a new game against the AI,
easy, in Mini (its state); then, to the end of the game, each of the player's actions (a roll at
the start of a turn, else a draw of the first open edge) once it is the player's turn, and the
update each makes, the AI's turns coming between; the result of the finished game. Each step has
``--timeout`` seconds."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from websockets.exceptions import WebSocketException
from websockets.sync.client import ClientConnection, connect

from boxedin.common import delta


class SmokeFailed(Exception):
    """A step did not go through."""


def websocket_url(url: str) -> str:
    """The websocket address of a gateway given as http(s)://HOST[:PORT][/PATH] (or ws(s)://):
    its /ws, unless the path already names it."""
    parts = urlsplit(url if "://" in url else f"http://{url}")
    scheme = {"http": "ws", "https": "wss", "ws": "ws", "wss": "wss"}.get(parts.scheme)
    if scheme is None or not parts.netloc:
        raise SmokeFailed(f"not a gateway address: {url!r} (http://HOST:PORT)")
    path = parts.path.rstrip("/")
    if not path.endswith("/ws"):
        path += "/ws"
    return urlunsplit((scheme, parts.netloc, path, "", ""))


def open_edges(state: dict[str, Any]) -> list[list[Any]]:
    n = state["boxes"]
    drawn = {(o, r, c) for o, r, c, *_ in state["edges"]}
    every = [("h", r, c) for r in range(n + 1) for c in range(n)] + [
        ("v", r, c) for r in range(n) for c in range(n + 1)
    ]
    return [list(edge) for edge in every if edge not in drawn]


class Player:
    def __init__(self, ws: ClientConnection, timeout: float) -> None:
        self.ws, self.timeout = ws, timeout
        self.state: dict[str, Any] | None = None
        self.seq = -1
        self._ids = 0

    def receive(self, deadline: float) -> dict[str, Any]:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        frame: dict[str, Any] = json.loads(self.ws.recv(timeout=left))
        if frame.get("type") == "state":
            self.state, self.seq = frame["game"], frame["seq"]
        elif frame.get("type") == "update" and self.state is not None:
            if frame["seq"] != self.seq + 1:
                raise SmokeFailed(f"update {frame['seq']} came after {self.seq}")
            self.state, self.seq = delta.apply(self.state, frame["changes"]), frame["seq"]
        return frame

    def send(self, **frame: Any) -> int:
        self._ids += 1
        self.ws.send(json.dumps({**frame, "id": self._ids}))
        return self._ids

    def request(self, step: str, **frame: Any) -> dict[str, Any]:
        self.send(**frame)
        deadline = time.monotonic() + self.timeout
        try:
            while True:
                reply = self.receive(deadline)
                if reply.get("reply_to") == self._ids:
                    if reply["type"] == "error":
                        raise SmokeFailed(f"{step}: refused: {reply.get('code')}: {reply.get('message')}")
                    return reply
        except TimeoutError:
            raise SmokeFailed(f"{step}: no reply in {self.timeout:g} s") from None

    def wait(self, step: str, predicate: Any, request_id: int | None = None) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        try:
            while self.state is None or not predicate(self.state):
                frame = self.receive(deadline)
                if frame.get("type") == "error" and request_id is not None and frame.get("reply_to") == request_id:
                    raise SmokeFailed(f"{step}: refused: {frame.get('code')}: {frame.get('message')}")
        except TimeoutError:
            raise SmokeFailed(f"{step}: not within {self.timeout:g} s (last seq {self.seq})") from None
        return self.state


# More than any game of Mini can take: a gateway that never ends the game fails the test.
MOST_ACTIONS = 200


def play_to_the_end(player: Player, say: Any) -> int:
    """The player's actions until the game is over (the AI's turns come as updates between);
    the number of them."""
    actions = 0
    while True:
        # The AI may be to move: its turns come as updates until it is the player's, or the end.
        state = player.wait(
            "the player's turn", lambda s: s["over"] or (s["to_move"] == 1 and not s.get("ai_thinking"))
        )
        if state["over"]:
            if actions == 0:
                raise SmokeFailed("the game was over before the player could act")
            return actions
        if actions == MOST_ACTIONS:
            raise SmokeFailed(f"the game was not over after {MOST_ACTIONS} actions of the player's")
        before = player.seq
        if state.get("phase") == "roll":
            action: dict[str, Any] = {"type": "roll"}
        else:
            action = {"type": "draw", "edge": open_edges(state)[0]}
        sent = player.send(**action, game=state["game"])
        player.wait(f"the update of {action['type']}", lambda _, before=before: player.seq > before, sent)
        if actions == 0:
            say(f"{action['type']}: update {player.seq} came")
        actions += 1


def smoke(url: str, timeout: float = 15.0, say: Any = print) -> None:
    """Plays the steps; raises SmokeFailed at the first that does not go through."""
    address = websocket_url(url)
    started = time.monotonic()
    try:
        with connect(address, open_timeout=timeout, close_timeout=2, max_size=2**24) as ws:
            say(f"connected to {address}")
            player = Player(ws, timeout)
            welcome = player.request("hello", type="hello")
            if welcome.get("type") != "welcome" or not welcome.get("device"):
                raise SmokeFailed(f"hello: answered with {welcome.get('type')!r}, not a welcome with a device")
            say("hello: welcome")
            reply = player.request(
                "new game", type="new_game", mode="mini", opponent="ai", level="easy", ai_speed="fast"
            )
            if reply.get("type") != "state":
                raise SmokeFailed(f"new game: answered with {reply.get('type')!r}, not its state")
            say(f"new game: {reply['game']['game']} (Mini, against the AI, easy)")
            actions = play_to_the_end(player, say)
            state = player.state
            assert state is not None
            result = player.request("the result", type="game_result", game=state["game"])
            if result.get("type") != "result":
                raise SmokeFailed(f"the result: answered with {result.get('type')!r}, not the result")
            scores = ":".join(str(score) for score in state["scores"])
            say(f"game over: {scores} after {actions} actions of the player's (update {player.seq})")
    except (OSError, WebSocketException) as exc:
        raise SmokeFailed(f"the websocket to {address}: {exc}") from None
    say(f"ok in {time.monotonic() - started:.1f} s")


def run(args: argparse.Namespace) -> int:
    try:
        smoke(args.url, args.timeout)
    except SmokeFailed as failed:
        print(f"smoke test failed: {failed}", file=sys.stderr)
        return 1
    return 0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "smoke",
        help="play one whole game through a running gateway (exit 0: it went through)",
        description=__doc__,
    )
    parser.add_argument("--url", required=True, help="the gateway, http://HOST:PORT (its /ws is used)")
    parser.add_argument("--timeout", type=float, default=15.0, help="seconds for each step (default 15)")
    parser.set_defaults(handler=run)
