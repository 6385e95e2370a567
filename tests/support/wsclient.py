"""A test browser: speaks the websocket protocol (docs/protocol.md) the way the web client does,
keeping the game state it is sent and checking that updates arrive in sequence."""

from __future__ import annotations

import itertools
import json
import time
from typing import Any

from pydantic import ValidationError
from websockets.sync.client import ClientConnection, connect

from boxedin.common import delta
from boxedin.gateway.server_frames import server_frame

from edge_policy import choose_edge


class ProtocolBroken(AssertionError):
    """The server broke the protocol (an update out of sequence, a missing reply)."""


class Browser:
    def __init__(self, base_url: str, device: str | None = None, headers: dict[str, str] | None = None) -> None:
        self.url = base_url.replace("http://", "ws://") + "/ws"
        # The token the server issued; none until the first welcome (which carries it), as a
        # new browser has none.
        self.device: str | None = device
        self._connection = connect(self.url, max_size=2**24, open_timeout=10, additional_headers=headers)
        self.ws: ClientConnection = self._connection.__enter__()
        self.state: dict[str, Any] | None = None
        self.seq = -1
        self.errors: list[dict[str, Any]] = []
        self.updates: list[dict[str, Any]] = []
        # Online play: every presence frame and every `matched`, in the order they came.
        self.presence: list[dict[str, Any]] = []
        self.matched: list[dict[str, Any]] = []
        self._ids = itertools.count(1)

    def close(self) -> None:
        self._connection.__exit__(None, None, None)

    def send_raw(self, text: str) -> None:
        self.ws.send(text)

    def send(self, **frame: Any) -> int | str:
        frame.setdefault("id", next(self._ids))
        self.ws.send(json.dumps(frame))
        request_id: int | str = frame["id"]
        return request_id

    def receive(self, timeout: float = 15) -> dict[str, Any]:
        frame: dict[str, Any] = json.loads(self.ws.recv(timeout=timeout))
        self._apply(frame)
        return frame

    def _apply(self, frame: dict[str, Any]) -> None:
        # Every frame the real server sends is held to the models of the protocol.
        try:
            server_frame(frame)
        except ValidationError as exc:
            raise ProtocolBroken(f"the server sent a frame the protocol does not allow: {exc}") from None
        kind = frame["type"]
        if kind == "welcome":
            self.device = frame["device"]
        elif kind == "state":
            self.state, self.seq = frame["game"], frame["seq"]
        elif kind == "update":
            if frame["seq"] != self.seq + 1 or self.state is None:
                raise ProtocolBroken(f"update {frame['seq']} arrived after {self.seq}")
            # An update carries what changed: the state is the one before it with the changes.
            self.state, self.seq = delta.apply(self.state, frame["changes"]), frame["seq"]
            self.updates.append(frame)
        elif kind == "error":
            self.errors.append(frame)
        elif kind == "presence":
            self.presence.append(frame)
        elif kind == "matched":
            self.matched.append(frame)

    def request(self, timeout: float = 15, **frame: Any) -> dict[str, Any]:
        """Sends a frame and returns the reply to it (updates meanwhile are applied)."""
        request_id = self.send(**frame)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            reply = self.receive(max(0.1, deadline - time.monotonic()))
            if reply.get("reply_to") == request_id:
                return reply
        raise ProtocolBroken(f"no reply to {frame}")

    def hello(self, game: str | None = None, seq: int | None = None) -> dict[str, Any]:
        frame: dict[str, Any] = {"type": "hello"}
        if self.device is not None:
            frame["device"] = self.device
        if game is not None:
            frame["game"] = game
            if seq is not None:
                frame["seq"] = seq
        welcome = self.request(**frame)
        if game is not None and seq is None:
            # Without a seq the whole state follows the welcome.
            while self.receive()["type"] != "state":
                pass
        return welcome

    def new_game(self, **setup: Any) -> dict[str, Any]:
        return self.request(type="new_game", **setup)

    @property
    def game_id(self) -> str:
        assert self.state is not None
        return str(self.state["game"])

    def my_turn(self) -> bool:
        state = self.state
        if state is None or state["over"] or state["ai_thinking"]:
            return False
        return state["opponent"] == "local" or state["to_move"] == 1

    def wait_until(self, predicate: Any, timeout: float = 60) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while not (self.state is not None and predicate(self.state)):
            if time.monotonic() > deadline:
                raise ProtocolBroken(f"timed out waiting; last state seq {self.seq}")
            self.receive(max(0.1, deadline - time.monotonic()))
        return self.state

    def act(self, **frame: Any) -> None:
        """Sends an action for the followed game and waits for its update (or error)."""
        before = self.seq
        request_id = self.send(game=self.game_id, **frame)
        deadline = time.monotonic() + 15
        while self.seq == before:
            reply = self.receive(max(0.1, deadline - time.monotonic()))
            if reply["type"] == "error" and reply.get("reply_to") == request_id:
                raise ProtocolBroken(f"{frame} refused: {reply['code']}: {reply['message']}")

    def play_turn(self) -> None:
        """Plays the turn of the player to move with a simple policy (edge_policy)."""
        state = self.state
        assert state is not None
        if state["phase"] == "roll":
            self.act(type="roll")
            return
        self.act(type="draw", edge=choose_edge(state))

    def play_to_the_end(self, timeout: float = 120) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while self.state is not None and not self.state["over"]:
            if time.monotonic() > deadline:
                raise ProtocolBroken("the game did not finish in time")
            if self.my_turn():
                self.play_turn()
            else:
                self.receive(max(0.1, deadline - time.monotonic()))
        assert self.state is not None
        return self.state

    # --- online play -------------------------------------------------------------------------

    def open_online_menu(self) -> dict[str, Any]:
        """Comes to the online menu (the server pushes presence from now on); returns the
        `online_status` reply."""
        reply = self.request(type="online_menu", open=True)
        if reply["type"] != "online_status":
            raise ProtocolBroken(f"online_menu answered with {reply}")
        return reply

    def wait_presence(self, predicate: Any, timeout: float = 15) -> dict[str, Any]:
        """Receives until a presence frame (the last one received, or one that comes) meets
        ``predicate``; returns it."""
        deadline = time.monotonic() + timeout
        while not (self.presence and predicate(self.presence[-1])):
            left = deadline - time.monotonic()
            if left <= 0:
                last = self.presence[-1] if self.presence else None
                raise ProtocolBroken(f"no presence frame as awaited within {timeout:.0f} s; the last: {last}")
            try:
                self.receive(left)
            except TimeoutError:
                continue
        return self.presence[-1]

    def find_match(self, mode: str, name: str) -> dict[str, Any]:
        """Looks for a game: `match_waiting`, or `matched` when somebody was waiting (its
        state is then received too)."""
        reply = self.request(type="find_match", mode=mode, name=name)
        if reply["type"] == "matched":
            self.wait_until(lambda state: state["game"] == reply["game"], timeout=15)
        elif reply["type"] != "match_waiting":
            raise ProtocolBroken(f"find_match answered with {reply}")
        return reply

    def wait_matched(self, timeout: float = 15) -> dict[str, Any]:
        """Waits for the `matched` of a game this device waited for, and its state."""
        deadline = time.monotonic() + timeout
        while not self.matched:
            if time.monotonic() > deadline:
                raise ProtocolBroken("no `matched` came")
            self.receive(max(0.1, deadline - time.monotonic()))
        game = self.matched[-1]["game"]
        return self.wait_until(lambda state: state["game"] == game, max(0.1, deadline - time.monotonic()))
