"""One browser connection: identifies the device and dispatches its frames to the engine
service. The followed game's updates are delivered by its feed (feed.py); the gateway holds no
rule, no clock and no computer turn: deadlines and computer turns are the engine's and the AI
service's, through Redis."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from dataclasses import dataclass
from typing import Any

import grpc
import redis.asyncio as redis
from fastapi import WebSocket

from boxedin.common.devices import check_device
from boxedin.common.metrics import ROUND_TRIP, RULE_ERRORS, WEBSOCKET_FRAMES, at_zero
from boxedin.common.reasons import REASONS, Refusal, refusal_of
from boxedin.v1 import (
    ai_pb2,
    ai_pb2_grpc,
    common_pb2,
    engine_pb2,
    engine_pb2_grpc,
    matchmaker_pb2_grpc,
    stats_pb2,
    stats_pb2_grpc,
)

from . import client_frames, convert, refusal_log, server_frames
from .connection import Connection
from .feed import GameFeed
from .hub import UpdateHub
from .identity import DeviceTokens
from .limits import CLOSE_TOO_FAST, GatewayLimits, count_refusal
from .online import PresenceFeed, WaitingKeeper
from .online_session import OnlinePlay
from .presence import Presence
from .repeats import ActionAnswers, Refused
from .watch_session import WatchPlay
from .watchers import Watchers

log = logging.getLogger("boxedin.gateway.session")
at_zero(RULE_ERRORS, *((reason,) for reason in REASONS))
at_zero(WEBSOCKET_FRAMES, *((kind,) for kind in client_frames.FRAME_TYPES))
# A review under way is asked after this often, and given up on when no turn came in this long.
REVIEW_POLL_SECONDS = 0.5
REVIEW_QUIET_SECONDS = 120.0


@dataclass
class Backends:
    engine: engine_pb2_grpc.EngineAsyncStub
    hub: UpdateHub
    stats: stats_pb2_grpc.StatsAsyncStub
    presence: Presence
    matchmaker: matchmaker_pb2_grpc.MatchmakerAsyncStub
    presence_feed: PresenceFeed
    keeper: WaitingKeeper
    limits: GatewayLimits
    tokens: DeviceTokens
    answers: ActionAnswers
    ai: ai_pb2_grpc.AiAsyncStub
    watchers: Watchers


def _summary(saved: common_pb2.SavedGameSummary) -> server_frames.SavedSummary:
    return server_frames.SavedSummary.model_validate(
        {
            "game": saved.game_id,
            "mode": saved.mode,
            "overlap": saved.overlap or None,
            "opponent": saved.opponent,
            "level": saved.level or None,
            "scores": [saved.score1, saved.score2],
            "round": saved.round,
            "updated": saved.updated,
        }
    )


class Session(OnlinePlay, WatchPlay):
    def __init__(self, ws: WebSocket, backends: Backends) -> None:
        self.ws = ws
        self.engine = backends.engine
        self.stats = backends.stats
        self.presence = backends.presence
        self.matchmaker = backends.matchmaker
        self.hub = backends.hub
        self.presence_feed = backends.presence_feed
        self.keeper = backends.keeper
        self.tokens = backends.tokens
        self.answers = backends.answers
        self.ai = backends.ai
        self.review_watch: asyncio.Task[None] | None = None
        self.watchers = backends.watchers
        self.device: str | None = None
        self.connection = Connection(ws, backends.limits.connection, backends.limits.log)
        self.budgets = backends.limits.addresses
        self.feed = GameFeed(backends.engine, backends.hub, self.push)
        self.feed.count_watchers = backends.watchers.total

    @property
    def game_id(self) -> str | None:
        return self.feed.game_id

    @property
    def hello_device(self) -> str:
        """The device said hello with: set for every frame but hello, as ``handle`` refuses the
        others before it."""
        assert self.device is not None, "a frame before hello"
        return self.device

    # --- sending ---------------------------------------------------------------------------

    def push(self, body: server_frames.ServerFrameModel | str) -> None:
        """Sends a frame the gateway built, or one the engine made (passed on as it is): queues it
        on the connection, in order, without waiting for the client (connection.py)."""
        self.connection.send(body if isinstance(body, str) else body.to_json())

    async def send(self, body: server_frames.ServerFrameModel | str) -> None:
        self.push(body)

    def reconnect_after(self, seconds: float) -> None:
        """The gateway is draining (drain.py): the client is to reconnect in ``seconds``."""
        self.push(server_frames.Reconnect.build(seconds))

    async def send_error(self, refusal: Refusal, reply_to: str | int | None) -> None:
        RULE_ERRORS.labels(refusal.reason).inc()
        count_refusal(refusal.reason)
        refusal_log.refused(refusal.reason, game=self.game_id, seq=self.feed.seq)
        seq = self.feed.seq if self.game_id is not None and self.feed.seq >= 0 else None
        await self.send(server_frames.Error.build(refusal.reason, refusal.message, reply_to=reply_to, seq=seq))

    # --- the connection --------------------------------------------------------------------

    async def run(self) -> None:
        connection, address = self.connection, self.connection.address
        self.budgets.websocket_opened(address, connection)
        try:
            while (message := await connection.receive(said_hello=self.device is not None)) is not None:
                text = message.get("text")
                if not self.budgets.frame(address):
                    # The address's frames, over all its sockets: the one sending is closed at
                    # once, without reading the frame (docs/protocol.md, Limits).
                    count_refusal("address_frames")
                    self._close_too_fast("too many frames from your address: slow down")
                    continue
                if not connection.credits.take():
                    await self._too_fast(text)
                    continue
                if text is None:
                    await self.send_error(Refusal("bad_message", "frames are JSON text, not binary"), None)
                    continue
                await self.handle(text)
        finally:
            self.budgets.websocket_closed(address, connection)
            if self.device is not None:
                self.presence.leave(self.device)
            if self.review_watch is not None:
                self.review_watch.cancel()
            await self.online_goodbye()
            await self._leave(hide=True)
            await connection.finish()

    def _close_too_fast(self, reason: str) -> None:
        """Closes the connection for its flood with 4429; its address's reconnects cost more."""
        if self.connection.open:
            self.budgets.too_fast(self.connection.address)
        self.connection.close(CLOSE_TOO_FAST, reason, "too_fast")

    async def _too_fast(self, text: str | None) -> None:
        """A frame beyond the connection's credits: refused, and the connection closed when the
        client keeps on sending (docs/protocol.md, Limits)."""
        if self.connection.credits.exhausted:
            count_refusal("credits_exhausted")
            self._close_too_fast("too many frames: slow down")
            return
        reply_to = None
        if text is not None and len(text) <= client_frames.MAX_FRAME_BYTES:
            with contextlib.suppress(ValueError, RecursionError):
                reply_to = client_frames.request_id(json.loads(text))
        limits = self.connection.limits
        message = f"more than {limits.frame_credits} frames at once or {limits.frame_credits_per_second:g} a second"
        await self.send_error(Refusal("too_fast", message), reply_to)

    async def handle(self, text: str) -> None:
        reply_to = None
        try:
            frame = client_frames.parse_frame(text)
            reply_to = frame.id
            WEBSOCKET_FRAMES.labels(frame.type).inc()
            if frame.type != "ping":
                self.connection.active_at = time.monotonic()
            if self.device is None and frame.type != "hello":
                raise Refusal("hello_first", "say hello with your device token first")
            self.check_may_send(frame)
            await getattr(self, "on_" + frame.type, self.on_action)(frame)
        except Refusal as refusal:
            if reply_to is None:
                with contextlib.suppress(ValueError, RecursionError):
                    reply_to = client_frames.request_id(json.loads(text))
            await self.send_error(refusal, reply_to)
        except grpc.RpcError as error:
            await self.send_error(refusal_of(error), reply_to)
        except Exception:
            # Whatever went wrong, the connection stays and the game is as the engine keeps it.
            refusal_log.failed(game=self.game_id)
            await self.send_error(
                Refusal("internal", "something went wrong on the server; the game is unchanged"), reply_to
            )

    async def _follow(self, snapshot: common_pb2.GameSnapshot, since: int | None = None, reply_to: Any = None) -> None:
        if self.game_id != snapshot.game_id:
            await self._leave(hide=False)
        await self.feed.attach(snapshot, since, reply_to)

    async def _leave(self, *, hide: bool) -> None:
        """Stops following the game; when the connection ends, the game goes off screen (its
        move clock stands still)."""
        has_clock, online, watched = self.feed.has_clock, self.feed.online, self.watching
        self.keeper.forget_connected(self)
        game_id = await self.feed.detach()
        if watched:
            if game_id is not None:
                await self.watchers.leave(game_id)
            return
        if hide and game_id is not None and online and self.device:
            await self.away(game_id)
        elif hide and game_id is not None and has_clock and self.device:
            with contextlib.suppress(grpc.RpcError):
                await self.engine.SetVisibility(
                    engine_pb2.VisibilityRequest(game_id=game_id, device=self.device, visible=False), timeout=5
                )

    # --- frames ------------------------------------------------------------------------------

    async def on_hello(self, frame: client_frames.Hello) -> None:
        if self.device is not None:
            if frame.device != self.device:
                raise Refusal("bad_device", "a connection keeps the device it said hello with")
            device, new = self.device, False
        else:
            if frame.device:
                check_device(frame.device)
            try:
                # A token we did not issue (made up, or from before tokens were issued) is
                # replaced: the welcome carries the device's token from now on.
                device, new = await self.tokens.vouch(frame.device)
            except redis.RedisError as exc:
                raise Refusal("unavailable", "the server cannot reach its store; try again shortly") from exc
            self.presence.arrive(device)
            self.device = device
            self.feed.device = device
            self.online_hello(device)
        saved: server_frames.SavedSummary | None = None
        if not new:
            try:
                saved = _summary(await self.engine.GetSavedGame(engine_pb2.DeviceRequest(device=device), timeout=5))
            except grpc.RpcError as error:
                if refusal_of(error).reason != "no_game":
                    raise
        await self.send(server_frames.Welcome.build(device, saved, time.time(), reply_to=frame.id))
        if frame.game and not new:
            snapshot = await self.engine.GetGame(
                engine_pb2.GetGameRequest(game_id=frame.game, device=device), timeout=5
            )
            await self._follow(snapshot, since=frame.seq)
            if snapshot.facts.online and not snapshot.over:
                await self.back(frame.game)
            elif snapshot.facts.clock and not snapshot.over:
                await self.engine.SetVisibility(
                    engine_pb2.VisibilityRequest(game_id=frame.game, device=device, visible=True), timeout=5
                )

    async def on_new_game(self, frame: client_frames.NewGame) -> None:
        first = {1: 1, 2: 2, "random": 0}.get(frame.first)
        if first is None or isinstance(frame.first, bool):
            raise Refusal("bad_setup", f'the first player is 1, 2 or "random", not {frame.first!r}')
        if frame.seed is not None and not frame.seed.strip():
            # A seed given must say something: "" would otherwise read as no seed at all.
            raise Refusal("bad_seed", "a seed is 1 to 96 characters after trimming; leave it out for random dice")
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
            engine_pb2.CreateGameRequest(device=self.hello_device, setup=setup), timeout=5
        )
        await self._follow(snapshot, reply_to=frame.id)

    async def on_resume(self, frame: client_frames.Resume) -> None:
        snapshot = await self.engine.ResumeGame(engine_pb2.DeviceRequest(device=self.hello_device), timeout=5)
        await self._follow(snapshot, reply_to=frame.id)

    async def on_discard(self, frame: client_frames.Discard) -> None:
        saved_id = None
        with contextlib.suppress(grpc.RpcError):
            saved_id = (
                await self.engine.GetSavedGame(engine_pb2.DeviceRequest(device=self.hello_device), timeout=5)
            ).game_id
        await self.engine.DiscardSavedGame(engine_pb2.DeviceRequest(device=self.hello_device), timeout=5)
        if saved_id is not None and saved_id == self.game_id:
            await self._leave(hide=False)
        await self.send(server_frames.Saved.build(None, reply_to=frame.id))

    async def on_action(self, frame: client_frames.Play | client_frames.Draw) -> None:
        started = time.perf_counter()
        allowed = self.budgets.action(self.connection.address)
        if allowed is None:
            count_refusal("address_actions")
            self._close_too_fast("too many actions from your address: slow down")
            return
        if not allowed:
            # Before the engine is asked anything: the refusal costs it nothing.
            raise Refusal("too_fast", "your address sends more actions a second than its budget")
        repeat_key = self.answers.repeat_key(self.hello_device, frame) if frame.id is not None else ""
        try:
            snapshot = await self._act(frame, repeat_key)
        except (Refusal, grpc.RpcError) as error:
            if repeat_key:
                refusal = error if isinstance(error, Refusal) else refusal_of(error)
                first = await self._first_refusal(frame.game, repeat_key, refusal)
                if first is not None:
                    raise Refusal(first.reason, first.message) from None
            raise
        if snapshot.repeat_of:
            # Sent again (its answer was lost with a connection): it was applied before. The
            # connection gets every update up to now first, as after any action.
            await self.feed.sync_to(snapshot)
            await self.send(server_frames.Ack.build(reply_to=frame.id, seq=snapshot.repeat_of))
            return
        await self.feed.sync_to(snapshot)
        ROUND_TRIP.labels(frame.type).observe(time.perf_counter() - started)

    async def _first_refusal(self, game_id: str, repeat_key: str, refusal: Refusal) -> Refused | None:
        """After a refusal: the first sending's refusal when this action is its repeat (refused
        now as stale, the game having moved on), else None, keeping this refusal for a repeat."""
        try:
            if refusal.reason == "stale":
                return await self.answers.first_refusal(game_id, repeat_key)
            await self.answers.refused(game_id, repeat_key, refusal)
        except redis.RedisError:
            pass  # the refusal itself is what counts
        return None

    async def _act(
        self, frame: client_frames.Play | client_frames.Draw, repeat_key: str = ""
    ) -> common_pb2.GameSnapshot:
        if frame.type == "draw":
            orientation, row, col = frame.edge
            action = common_pb2.Action(draw=common_pb2.Edge(orientation=orientation, row=row, col=col))
        else:
            action = common_pb2.Action()
            setattr(action, frame.type, True)  # the frame's type names the action's field
        if frame.game != self.game_id:
            snapshot = await self.engine.GetGame(
                engine_pb2.GetGameRequest(game_id=frame.game, device=self.hello_device), timeout=5
            )
            await self._follow(snapshot)
        request = engine_pb2.ActRequest(
            game_id=frame.game,
            device=self.hello_device,
            actor=common_pb2.ACTOR_HUMAN,
            action=action,
            expected_seq=-1 if frame.seq is None else frame.seq,
            repeat_key=repeat_key,
        )
        try:
            return await self.engine.Act(request, timeout=10)
        except grpc.RpcError as error:
            if refusal_of(error).reason == "time_up":
                # The clock ended the turn first: the browser needs that update.
                await self.feed.catch_up()
            raise

    async def on_visibility(self, frame: client_frames.Visibility) -> None:
        snapshot = await self.engine.SetVisibility(
            engine_pb2.VisibilityRequest(game_id=frame.game, device=self.hello_device, visible=frame.visible),
            timeout=5,
        )
        await self.feed.sync_to(snapshot)
        await self.send(server_frames.Ack.build(reply_to=frame.id))

    async def on_ping(self, frame: client_frames.Ping) -> None:
        await self.send(server_frames.Pong.build(reply_to=frame.id))

    # --- statistics ----------------------------------------------------------------------------

    async def on_stats(self, frame: client_frames.Stats) -> None:
        reply = await self.stats.GetStats(stats_pb2.StatsRequest(device=self.hello_device), timeout=5)
        await self.send(convert.stats_frame(reply, frame.id))

    async def on_game_result(self, frame: client_frames.GameResult) -> None:
        # The engine says first whether the game is the device's and over: only then is it worth
        # waiting for it to be counted (an unknown id would hold a stats call for the whole wait).
        wait = convert.RESULT_WAIT_SECONDS
        try:
            snapshot = await self.engine.GetGame(
                engine_pb2.GetGameRequest(game_id=frame.game, device=self.hello_device), timeout=5
            )
        except grpc.RpcError as error:
            if refusal_of(error).reason != "no_game":
                raise
            wait = 0  # gone from the engine (a day after it ended): only a result counted already
        else:
            if not snapshot.over:
                raise Refusal("not_over", "the game is still running: its result comes when it ends")
        request = stats_pb2.GameResultRequest(device=self.hello_device, game_id=frame.game, wait_seconds=wait)
        reply = await self.stats.GetGameResult(request, timeout=convert.RESULT_WAIT_SECONDS + 5)
        await self.send(convert.result_frame(reply, frame.id))

    # --- reviews -------------------------------------------------------------------------------

    async def on_review(self, frame: client_frames.Review) -> None:
        """The review of a finished game of the device's, or of the game the connection watches:
        the AI service starts it on the first ask; the review as it stands comes back at once,
        then again as turns come in, until the last (docs/protocol.md, Reviews)."""
        if self.watching:
            # By the watch id: the engine, which keeps the links, checks it leads to this game.
            request = ai_pb2.ReviewRequest(game_id=frame.game, watch_id=self.feed.watch_id)
        else:
            request = ai_pb2.ReviewRequest(game_id=frame.game, device=self.hello_device)
        reply = await self.ai.Review(request, timeout=10)
        self._send_review(reply, frame.id)
        if self.review_watch is not None:
            self.review_watch.cancel()
            self.review_watch = None
        if reply.done < reply.total:
            self.review_watch = asyncio.create_task(self._watch_review(request, reply.done))

    def _send_review(self, reply: ai_pb2.ReviewReply, reply_to: str | int | None = None) -> None:
        # The AI service's review JSON is passed on as it is, never parsed here.
        head = '{"type":"review",'
        if reply_to is not None:
            head += f'"reply_to":{json.dumps(reply_to)},'
        self.push(head + reply.review_json[1:])

    async def _watch_review(self, request: ai_pb2.ReviewRequest, done: int) -> None:
        """Asks again every ``REVIEW_POLL_SECONDS`` while the review is under way, and passes
        on each change; gives up when the AI service cannot be reached or nothing came in for
        ``REVIEW_QUIET_SECONDS`` (the client can always ask again)."""
        quiet_since = time.monotonic()
        while time.monotonic() - quiet_since < REVIEW_QUIET_SECONDS:
            await asyncio.sleep(REVIEW_POLL_SECONDS)
            try:
                reply = await self.ai.Review(request, timeout=10)
            except grpc.RpcError:
                return
            if reply.done != done:
                done, quiet_since = reply.done, time.monotonic()
                self._send_review(reply)
            if reply.done >= reply.total:
                return

    async def on_reset_stats(self, frame: client_frames.ResetStats) -> None:
        if frame.token is None:
            token = await self.stats.RequestReset(stats_pb2.StatsRequest(device=self.hello_device), timeout=5)
            await self.send(server_frames.ResetConfirm.build(token.token, token.expires_in, reply_to=frame.id))
            return
        reply = await self.stats.Reset(stats_pb2.ResetRequest(device=self.hello_device, token=frame.token), timeout=5)
        await self.send(convert.stats_frame(reply, frame.id))
