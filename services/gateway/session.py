"""One browser connection: identifies the device, passes actions to the engine service, and
delivers the followed game's updates in sequence, catching up on any it missed."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
from dataclasses import dataclass
from typing import Any

import grpc
from fastapi import WebSocket, WebSocketDisconnect

from boxedin.common.devices import check_device
from boxedin.common.metrics import RULE_ERRORS, WEBSOCKET_FRAMES
from boxedin.common.reasons import Refusal, refusal_of
from boxedin.v1 import ai_pb2, ai_pb2_grpc, common_pb2, engine_pb2, engine_pb2_grpc

from . import frames
from .hub import UpdateHub

log = logging.getLogger("boxedin.gateway.session")
_SEQ = re.compile(r'^\{"type":"update","seq":(\d+),')
# A move clock fires a little after the server's deadline, so the engine always accepts it.
_CLOCK_LATE = 0.3
# The computer's turn is played by the AI service, which refreshes its claim on the game with
# every move and lets it lapse 30 s after a crash. When the followed game has waited on the
# computer longer than that, the gateway asks the AI service again.
_COMPUTER_SILENCE = 35.0


@dataclass
class Backends:
    engine: engine_pb2_grpc.EngineStub
    ai: ai_pb2_grpc.AiStub
    hub: UpdateHub


def _summary(saved: Any) -> dict[str, Any]:
    return {
        "game": saved.game_id,
        "mode": saved.mode,
        "overlap": saved.overlap or None,
        "opponent": saved.opponent,
        "level": saved.level or None,
        "scores": [saved.score1, saved.score2],
        "round": saved.round,
        "updated": saved.updated,
    }


class Session:
    def __init__(self, ws: WebSocket, backends: Backends) -> None:
        self.ws = ws
        self.engine = backends.engine
        self.ai = backends.ai
        self.hub = backends.hub
        self.device: str | None = None
        self.game_id: str | None = None
        self.seq = -1  # the last seq of the followed game delivered to the browser
        self.has_clock = False
        self._deliver_lock = asyncio.Lock()
        self._send_lock = asyncio.Lock()
        self._clock_task: asyncio.Task[None] | None = None
        self._computer_task: asyncio.Task[None] | None = None

    # --- sending ---------------------------------------------------------------------------

    async def send(self, body: dict[str, Any] | str) -> None:
        text = body if isinstance(body, str) else json.dumps(body, separators=(",", ":"))
        async with self._send_lock:
            with contextlib.suppress(RuntimeError, WebSocketDisconnect):
                await self.ws.send_text(text)

    async def send_error(self, refusal: Refusal, reply_to: str | int | None) -> None:
        RULE_ERRORS.labels(refusal.reason).inc()
        log.info("refused", extra={"game": self.game_id, "seq": self.seq, "reason": refusal.reason})
        body: dict[str, Any] = {"type": "error", "code": refusal.reason, "message": refusal.message}
        if reply_to is not None:
            body["reply_to"] = reply_to
        if self.game_id is not None and self.seq >= 0:
            body["seq"] = self.seq
        await self.send(body)

    # --- the connection --------------------------------------------------------------------

    async def run(self) -> None:
        try:
            while True:
                message = await self.ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                if text is None:
                    await self.send_error(Refusal("bad_message", "frames are JSON text, not binary"), None)
                    continue
                await self.handle(text)
        finally:
            await self._detach(hide=True)

    async def handle(self, text: str) -> None:
        reply_to = None
        try:
            frame = frames.parse_frame(text)
            reply_to = frame.id
            WEBSOCKET_FRAMES.labels(frame.type).inc()
            if self.device is None and frame.type != "hello":
                raise Refusal("hello_first", "say hello with your device token first")
            await getattr(self, "on_" + frame.type, self.on_action)(frame)
        except Refusal as refusal:
            if reply_to is None:
                with contextlib.suppress(ValueError, RecursionError):
                    reply_to = frames.request_id(json.loads(text))
            await self.send_error(refusal, reply_to)
        except grpc.RpcError as error:
            await self.send_error(refusal_of(error), reply_to)

    # --- following a game --------------------------------------------------------------------

    async def _attach(self, snapshot: Any, since: int | None = None, reply_to: Any = None) -> None:
        """Follows a game: sends the whole state, or only the updates after ``since``."""
        if self.game_id != snapshot.game_id:
            await self._detach(hide=False)
            self.game_id = snapshot.game_id
            await self.hub.follow(snapshot.game_id, self.deliver)
        state = json.loads(snapshot.state_json)
        self.has_clock = bool(state["clock"])
        async with self._deliver_lock:
            if since is not None and 0 <= since <= snapshot.seq:
                self.seq = since
                await self._catch_up()
            else:
                await self._send_state(snapshot, state, reply_to)
        if snapshot.computer_to_move:
            await self._kick_computer()

    async def _send_state(self, snapshot: Any, state: dict[str, Any], reply_to: Any = None) -> None:
        body: dict[str, Any] = {"type": "state", "seq": snapshot.seq, "game": state}
        if reply_to is not None:
            body["reply_to"] = reply_to
        self.seq = snapshot.seq
        await self.send(body)
        self._watch_clock(state)
        self._watch_computer(bool(state["ai_thinking"]))

    async def _detach(self, *, hide: bool) -> None:
        for task in (self._clock_task, self._computer_task):
            if task is not None:
                task.cancel()
        self._clock_task = self._computer_task = None
        if self.game_id is None:
            return
        game_id, self.game_id, self.seq = self.game_id, None, -1
        await self.hub.unfollow(game_id, self.deliver)
        if hide and self.has_clock and self.device:
            # Off screen, the move clock stands still.
            with contextlib.suppress(grpc.RpcError):
                await self.engine.SetVisibility(
                    engine_pb2.VisibilityRequest(game_id=game_id, device=self.device, visible=False),
                    timeout=5,
                )

    async def deliver(self, body: str) -> None:
        """An update of the followed game, from the hub: sent if it is the next one."""
        match = _SEQ.match(body)
        if match is None:
            return
        seq = int(match.group(1))
        async with self._deliver_lock:
            if self.game_id is None or seq <= self.seq:
                return
            if seq == self.seq + 1:
                await self._send_update(seq, body)
            else:
                await self._catch_up()

    async def _send_update(self, seq: int, body: str) -> None:
        self.seq = seq
        await self.send(body)
        if self.has_clock:
            self._watch_clock(json.loads(body)["game"])
        # Frames are compact JSON, so the flag can be seen without parsing the whole state.
        self._watch_computer('"ai_thinking":true' in body)

    async def _catch_up(self) -> None:
        """Sends every update after the last one delivered, or the whole state when they are
        no longer kept. Called with the delivery lock held."""
        assert self.game_id is not None and self.device is not None
        reply = await self.engine.GetUpdates(
            engine_pb2.GetUpdatesRequest(game_id=self.game_id, device=self.device, after_seq=self.seq),
            timeout=5,
        )
        if reply.complete:
            for update in reply.updates:
                if update.seq == self.seq + 1:
                    await self._send_update(update.seq, update.frame_json)
            return
        snapshot = await self.engine.GetGame(
            engine_pb2.GetGameRequest(game_id=self.game_id, device=self.device), timeout=5
        )
        await self._send_state(snapshot, json.loads(snapshot.state_json))

    async def _sync_to(self, snapshot: Any) -> None:
        """After a change made through this browser: make sure it has every update up to the
        snapshot's, passing on the one the change made without waiting for the channel."""
        async with self._deliver_lock:
            if self.game_id != snapshot.game_id or self.seq >= snapshot.seq:
                return
            if snapshot.update_json and snapshot.seq == self.seq + 1:
                await self._send_update(snapshot.seq, snapshot.update_json)
            else:
                await self._catch_up()

    def _watch_clock(self, state: dict[str, Any]) -> None:
        """Ends the turn when the move clock of the followed game runs out."""
        if self._clock_task is not None:
            self._clock_task.cancel()
            self._clock_task = None
        remaining = state.get("clock_remaining_ms")
        if remaining is None or state.get("over"):
            return
        game_id, seq = state["game"], state["seq"]

        async def ring() -> None:
            await asyncio.sleep(remaining / 1000 + _CLOCK_LATE)
            request = engine_pb2.ActRequest(
                game_id=game_id,
                actor=common_pb2.ACTOR_CLOCK,
                action=common_pb2.Action(timeout=True),
                expected_seq=seq,
            )
            with contextlib.suppress(grpc.RpcError):
                await self.engine.Act(request, timeout=5)

        self._clock_task = asyncio.create_task(ring())

    def _watch_computer(self, thinking: bool) -> None:
        """While the computer is to move, asks the AI service again after a long silence."""
        if self._computer_task is not None:
            self._computer_task.cancel()
            self._computer_task = None
        if not thinking:
            return

        async def nudge() -> None:
            while True:
                await asyncio.sleep(_COMPUTER_SILENCE)
                log.warning("the computer's turn went silent; asking again", extra={"game": self.game_id})
                await self._kick_computer()

        self._computer_task = asyncio.create_task(nudge())

    async def _kick_computer(self) -> None:
        assert self.game_id is not None
        with contextlib.suppress(grpc.RpcError):
            await self.ai.PlayTurn(ai_pb2.PlayTurnRequest(game_id=self.game_id), timeout=5)

    # --- frames ------------------------------------------------------------------------------

    async def on_hello(self, frame: frames.Hello) -> None:
        device = check_device(frame.device)
        if self.device is not None and device != self.device:
            raise Refusal("bad_device", "a connection keeps the device it said hello with")
        self.device = device
        try:
            saved: dict[str, Any] | None = _summary(
                await self.engine.GetSavedGame(engine_pb2.DeviceRequest(device=device), timeout=5)
            )
        except grpc.RpcError as error:
            if refusal_of(error).reason != "no_game":
                raise
            saved = None
        welcome: dict[str, Any] = {
            "type": "welcome",
            "device": device,
            "saved": saved,
            "server_time": time.time(),
        }
        if frame.id is not None:
            welcome["reply_to"] = frame.id
        await self.send(welcome)
        if frame.game:
            snapshot = await self.engine.GetGame(
                engine_pb2.GetGameRequest(game_id=frame.game, device=device), timeout=5
            )
            await self._attach(snapshot, since=frame.seq)
            if self.has_clock and not snapshot.over:
                await self.engine.SetVisibility(
                    engine_pb2.VisibilityRequest(game_id=frame.game, device=device, visible=True), timeout=5
                )

    async def on_new_game(self, frame: frames.NewGame) -> None:
        first = {1: 1, 2: 2, "random": 0}.get(frame.first)  # type: ignore[call-overload]
        if first is None or isinstance(frame.first, bool):
            raise Refusal("bad_setup", f'the first player is 1, 2 or "random", not {frame.first!r}')
        setup = common_pb2.GameSetup(
            mode=frame.mode,
            overlap=frame.overlap or "",
            opponent=frame.opponent,
            level=frame.level or "",
            first=first,
            clock_seconds=frame.clock,
            ai_speed=frame.ai_speed or "",
            seed=frame.seed or "",
        )
        snapshot = await self.engine.CreateGame(
            engine_pb2.CreateGameRequest(device=self.device, setup=setup), timeout=5
        )
        await self._attach(snapshot, reply_to=frame.id)

    async def on_resume(self, frame: frames.Resume) -> None:
        snapshot = await self.engine.ResumeGame(engine_pb2.DeviceRequest(device=self.device), timeout=5)
        await self._attach(snapshot, reply_to=frame.id)

    async def on_discard(self, frame: frames.Discard) -> None:
        saved_id = None
        with contextlib.suppress(grpc.RpcError):
            saved_id = (
                await self.engine.GetSavedGame(engine_pb2.DeviceRequest(device=self.device), timeout=5)
            ).game_id
        await self.engine.DiscardSavedGame(engine_pb2.DeviceRequest(device=self.device), timeout=5)
        if saved_id is not None and saved_id == self.game_id:
            await self._detach(hide=False)
        body: dict[str, Any] = {"type": "saved", "saved": None}
        if frame.id is not None:
            body["reply_to"] = frame.id
        await self.send(body)

    async def on_action(self, frame: frames.Play | frames.Draw) -> None:
        if frame.type == "draw":
            orientation, row, col = frame.edge  # type: ignore[union-attr]
            action = common_pb2.Action(draw=common_pb2.Edge(orientation=orientation, row=row, col=col))
        else:
            action = common_pb2.Action(**{frame.type: True})
        if frame.game != self.game_id:
            snapshot = await self.engine.GetGame(
                engine_pb2.GetGameRequest(game_id=frame.game, device=self.device), timeout=5
            )
            await self._attach(snapshot)
        request = engine_pb2.ActRequest(
            game_id=frame.game,
            device=self.device,
            actor=common_pb2.ACTOR_HUMAN,
            action=action,
            expected_seq=-1 if frame.seq is None else frame.seq,
        )
        try:
            snapshot = await self.engine.Act(request, timeout=10)
        except grpc.RpcError as error:
            if refusal_of(error).reason == "time_up":
                # The clock ended the turn first: the browser needs that update.
                async with self._deliver_lock:
                    if self.game_id is not None:
                        await self._catch_up()
            raise
        await self._sync_to(snapshot)

    async def on_visibility(self, frame: frames.Visibility) -> None:
        snapshot = await self.engine.SetVisibility(
            engine_pb2.VisibilityRequest(game_id=frame.game, device=self.device, visible=frame.visible),
            timeout=5,
        )
        await self._sync_to(snapshot)
        await self.send({"type": "ack", "reply_to": frame.id} if frame.id is not None else {"type": "ack"})

    async def on_ping(self, frame: frames.Ping) -> None:
        await self.send({"type": "pong", "reply_to": frame.id} if frame.id is not None else {"type": "pong"})
