"""Ordered delivery of the one game a connection follows: every update exactly once and in seq
order, from the hub as the engine publishes them or from the engine's store when some were
missed (a reconnect, a lost message, a change made through another gateway). Frames go to the
connection's outgoing queue (connection.py), so delivering never waits on the client; and the hub
is never kept waiting by one feed: an update that cannot go out at once (the feed is busy, or
updates were missed) is delivered by a task of its own, in turn."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Coroutine
from typing import Any

import grpc

from boxedin.common.reasons import refusal_of
from boxedin.v1 import common_pb2, engine_pb2, engine_pb2_grpc

from . import server_frames
from .hub import UpdateHub

log = logging.getLogger("boxedin.gateway.feed")
# Queues a frame for the browser; never waits (Session.push).
Send = Callable[[str], None]
# Called with the id of an online game's rematch once both players asked for it.
NextGame = Callable[[str], Coroutine[Any, Any, None]]


class GameFeed:
    def __init__(self, engine: engine_pb2_grpc.EngineAsyncStub, hub: UpdateHub, send: Send) -> None:
        self.engine = engine
        self.hub = hub
        self.send = send
        self.device = ""
        self.game_id: str | None = None
        self.seq = -1  # the last seq of the followed game delivered to the browser
        self.has_clock = False
        self.online = False  # the followed game is an online game
        self.seat = 0  # the device's seat in it
        # The watch id the followed game is watched with (a watcher's feed reads by it, acts
        # never, and follows no rematch); empty for a player's.
        self.watch_id = ""
        # Reads the total count of a followed online game's watchers, once it is followed.
        self.count_watchers: Callable[[str], Coroutine[Any, Any, int]] | None = None
        self.on_next_game: NextGame | None = None
        self._next_games: set[str] = set()  # rematches already passed on
        self._tasks: set[asyncio.Task[None]] = set()
        self._lock = asyncio.Lock()
        self._waiting = 0  # updates from the hub waiting for their turn (deliver)

    async def attach(
        self, snapshot: common_pb2.GameSnapshot, since: int | None = None, reply_to: Any = None, watch_id: str = ""
    ) -> None:
        """Follows a game: sends the whole state, or only the updates after ``since``; with
        ``watch_id``, as a watcher."""
        first = self.game_id != snapshot.game_id
        if first:
            await self.detach()
            self.game_id = snapshot.game_id
            await self.hub.follow(snapshot.game_id, self.deliver, watcher=bool(watch_id))
            self.hub.recovery_listeners.add(self.recover)
            if snapshot.facts.online:
                self.hub.on_count(snapshot.game_id, self.send)
        self.watch_id = watch_id
        self.online = snapshot.facts.online
        if snapshot.seat:
            self.seat = snapshot.seat
        async with self._lock:
            if since is not None and 0 <= since <= snapshot.seq:
                self.seq = since
                await self._catch_up()
            else:
                self._send_state(snapshot, reply_to)
                if first:
                    await self._moved_meanwhile()
        if first and snapshot.facts.online:
            await self._send_count(snapshot.game_id)

    async def detach(self) -> str | None:
        """Stops following; returns the game that was followed."""
        if self.game_id is None:
            return None
        game_id, self.game_id, self.seq = self.game_id, None, -1
        self.online, self.seat = False, 0
        self.watch_id = ""
        self.hub.recovery_listeners.discard(self.recover)
        self.hub.off_count(game_id, self.send)
        await self.hub.unfollow(game_id, self.deliver)
        return game_id

    async def _send_count(self, game_id: str) -> None:
        """The count of watchers as the connection starts to follow an online game (then the
        hub tells it of each change)."""
        if self.count_watchers is None:
            return
        try:
            count = await self.count_watchers(game_id)
        except Exception:
            log.warning("cannot read the count of watchers", extra={"game": game_id})
            return
        self.send(server_frames.Watching.build(game_id, count).to_json())

    @property
    def reader(self) -> str:
        """The device the engine reads the game for: none for a watcher, who reads by watch id."""
        return "" if self.watch_id else self.device

    def recover(self) -> None:
        """Redis was out of reach: catch up on what was missed, or say that the game is gone
        (Redis came back without its data)."""
        task = asyncio.create_task(self._recover())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _recover(self) -> None:
        game_id = self.game_id
        try:
            await self.catch_up()
        except grpc.RpcError as error:
            refusal = refusal_of(error)
            if refusal.reason not in ("no_game", "not_your_game") or self.game_id != game_id:
                log.warning("catching up after Redis came back failed", extra={"game": game_id, "error": str(error)})
                return
            await self.detach()
            message = "this game is no longer on the server (its data was lost); start a new one from the menu"
            self.send(server_frames.Error.build("no_game", message).to_json())

    def _send_state(self, snapshot: common_pb2.GameSnapshot, reply_to: Any = None) -> None:
        # The engine's state JSON is passed on as it is, never parsed here.
        head = f'{{"type":"state","seq":{snapshot.seq},'
        if reply_to is not None:
            head += f'"reply_to":{json.dumps(reply_to)},'
        self.seq = snapshot.seq
        self.has_clock = snapshot.facts.clock > 0
        self.online = snapshot.facts.online
        if snapshot.seat:
            self.seat = snapshot.seat
        self.send(f'{head}"game":{snapshot.state_json}}}')
        self._watch_facts(snapshot.facts)

    def _watch_facts(self, facts: common_pb2.GameFacts) -> None:
        """After a frame went out: an online game's rematch that started is followed next. Not
        under the delivery lock: following it takes the lock again."""
        if self.watch_id:
            return  # a rematch has a watch link of its own
        if facts.next_game and facts.next_game not in self._next_games and self.on_next_game is not None:
            self._next_games.add(facts.next_game)
            task = asyncio.create_task(self.on_next_game(facts.next_game))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def deliver(self, update: common_pb2.Update, text: str) -> None:
        """An update of the followed game, from the hub; never waits. The next one goes out at
        once when nothing else is being delivered; otherwise (the feed is busy, updates were
        missed) a task delivers it in its turn: the lock lets its holders in the order they came."""
        if update.game_id != self.game_id or update.seq <= self.seq:
            return
        if update.seq == self.seq + 1 and not self._waiting and not self._lock.locked():
            self._send_update(update, text)
            return
        self._waiting += 1
        task = asyncio.create_task(self._deliver_in_turn(update, text))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _deliver_in_turn(self, update: common_pb2.Update, text: str) -> None:
        try:
            async with self._lock:
                if update.game_id != self.game_id or update.seq <= self.seq:
                    return
                if update.seq == self.seq + 1:
                    self._send_update(update, text)
                else:
                    await self._catch_up()
        except Exception:
            # The next update (or the client's reconnect) catches up.
            log.exception("delivering an update failed", extra={"game": update.game_id})
        finally:
            self._waiting -= 1

    def _send_update(self, update: common_pb2.Update, text: str | None = None) -> None:
        self.seq = update.seq
        self.send(update.frame_json if text is None else text)
        self._watch_facts(update.facts)

    async def _catch_up(self) -> None:
        """Sends every update after the last one delivered, or the whole state when they are
        no longer kept. Called with the delivery lock held."""
        assert self.game_id is not None
        reply = await self.engine.GetUpdates(
            engine_pb2.GetUpdatesRequest(
                game_id=self.game_id, device=self.reader, after_seq=self.seq, watch_id=self.watch_id
            ),
            timeout=5,
        )
        if reply.complete:
            for update in reply.updates:
                if update.seq == self.seq + 1:
                    self._send_update(update)
            return
        snapshot = await self.engine.GetGame(
            engine_pb2.GetGameRequest(game_id=self.game_id, device=self.reader, watch_id=self.watch_id), timeout=5
        )
        self._send_state(snapshot)

    async def _moved_meanwhile(self) -> None:
        """What the game did between the snapshot and the hub's confirmed subscription: published
        before anybody here listened, it came by no channel. The computer's first turn of a game
        it begins can be over by then, and the player would wait for a move already made."""
        try:
            await self._catch_up()
        except grpc.RpcError as error:
            # The next update's gap, or the client's resync, catches up instead.
            log.warning("catching up on a game just followed failed", extra={"game": self.game_id, "error": str(error)})

    async def catch_up(self) -> None:
        async with self._lock:
            if self.game_id is not None:
                await self._catch_up()

    async def sync_to(self, snapshot: common_pb2.GameSnapshot) -> None:
        """After a change made through this connection: make sure it has every update up to
        the snapshot's, passing on the one the change made without waiting for the channel."""
        async with self._lock:
            if self.game_id != snapshot.game_id or self.seq >= snapshot.seq:
                return
            if snapshot.update_json and snapshot.seq == self.seq + 1:
                self.seq = snapshot.seq
                self.send(snapshot.update_json)
                self._watch_facts(snapshot.facts)
            else:
                await self._catch_up()
