"""One Redis subscription per gateway process, fanned out to the sockets that follow a game.
Updates arrive as the engine's ``Update`` messages: their facts are fields, never read out of
the frame's JSON. Fanning out never waits on a connection: a game's listeners take an update
without waiting (GameFeed.deliver), and each connection told of a started match is told by a task
of its own, so one slow client or call never holds up the updates of every other game."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import logging
import uuid
from collections.abc import Awaitable, Callable

import redis.asyncio as redis
from google.protobuf.message import DecodeError

from boxedin.common.cancelling import stop_task
from boxedin.common.keys import Keys
from boxedin.common.metrics import REDIS_UP
from boxedin.common.progress import WATCH
from boxedin.v1 import common_pb2, matchmaker_pb2

from . import server_frames
from .subscription import Subscription, SubscriptionLost

log = logging.getLogger("boxedin.gateway.hub")
# The shortest time between two counts of one game's watchers told to its followers.
COUNT_EVERY_SECONDS = 0.25
# How long following a game waits for Redis to confirm its channel. Longer means the subscription
# is down: its coming back catches every follower up (recovery_listeners).
CONFIRM_SECONDS = 5.0
# Takes an update, and its frame's text, without waiting (it may start a task to deliver it).
Listener = Callable[[common_pb2.Update, str], None]
# Takes a game's count of watchers without waiting: the same JSON text for every socket.
CountListener = Callable[[str], None]
# The total of a game's watchers over every gateway (Watchers.total).
CountWatchers = Callable[[str], Awaitable[int]]
# Watchers told of an update before the loop turns. Each is one socket write: 1,000 watchers of
# one game held the gateway's loop 23-31 ms an update (py-spy: two thirds of it in the transport's
# write), and every other game's frames waited behind them. A larger crowd is told by a task, this
# many at a time, the loop turning in between. An action of another game takes several turns of
# the loop (its frame read, the engine's reply, the update from Redis), each behind one part: with
# 100 at a time (2-3 ms a part), that game's actions made during a fan-out to 1,000 had a round
# trip p95 of 17.6-19.2 ms, with 10 at a time 8.8-10.5 ms (its actions at other times: 4-6 ms),
# the crowd being told as quickly (`boxedin load --watchers 1000`: other_game_..._during_fan_out).
WATCHERS_AT_ONCE = 10
MatchListener = Callable[[matchmaker_pb2.MatchStarted], Awaitable[None]]


class Followers:
    """The listeners of one game's updates: its players' (their own connections, any number),
    and its watchers'. Players are told of an update at once; watchers after them, a crowd of
    them by a task a part at a time (tell)."""

    __slots__ = ("_telling", "_waiting", "players", "watchers")

    def __init__(self) -> None:
        self.players: set[Listener] = set()
        self.watchers: set[Listener] = set()
        # Updates a crowd of watchers is yet to be told of, in seq order, and the task telling them.
        self._waiting: collections.deque[tuple[common_pb2.Update, str]] = collections.deque()
        self._telling: asyncio.Task[None] | None = None

    def __bool__(self) -> bool:
        return bool(self.players or self.watchers)

    def tell(self, update: common_pb2.Update, text: str) -> None:
        """Tells every player of the update, then the watchers: at once when they are few and
        none is still being told of an earlier update; else in their turn, in seq order."""
        for listener in list(self.players):
            _tell(listener, update, text)
        if not self.watchers:
            return
        if self._telling is None and len(self.watchers) <= WATCHERS_AT_ONCE:
            for listener in list(self.watchers):
                _tell(listener, update, text)
            return
        self._waiting.append((update, text))
        if self._telling is None:
            self._telling = asyncio.create_task(self._tell_watchers())

    async def _tell_watchers(self) -> None:
        try:
            while self._waiting:
                update, text = self._waiting.popleft()
                watchers = list(self.watchers)
                for start in range(0, len(watchers), WATCHERS_AT_ONCE):
                    if start:
                        await asyncio.sleep(0)  # the loop turns: other games' frames go on
                    for listener in watchers[start : start + WATCHERS_AT_ONCE]:
                        _tell(listener, update, text)
        finally:
            self._telling = None

    def stop(self) -> None:
        if self._telling is not None:
            self._telling.cancel()


def _tell(listener: Listener, update: common_pb2.Update, text: str) -> None:
    try:
        listener(update, text)
    except Exception:
        log.exception("delivering an update failed", extra={"game": update.game_id})


class UpdateHub:
    def __init__(self, client: redis.Redis, keys: Keys) -> None:
        self.client = client
        self.keys = keys
        # Subscribe messages are read: the one for the hub's own channel coming again says that
        # the subscription connected again and subscribed anew (Redis restarted, or the connection
        # broke). On a plain Redis the hub reads on a connection of its own (subscription.py);
        # on a cluster (or over TLS) through redis-py's PubSub.
        self.subscription = Subscription.for_client(client, self._dispatch, self._subscribed)
        self.pubsub = client.pubsub() if self.subscription is None else None
        self._subscribed_once = False
        self.own_channel = keys.gateway_channel(uuid.uuid4().hex)
        self._own = self.own_channel.encode()
        self._prefix = keys.channel_prefix.encode()
        self._matches = keys.matches_channel().encode()
        self._watchers = keys.watchers_channel().encode()
        # A game's players' listeners, then its watchers': the players are told first, before a
        # crowd of watchers (each update then takes as long to reach a player as without them).
        self.listeners: dict[str, Followers] = {}
        # Called when a game is followed for the first time or no longer followed at all (the
        # presence report names the games followed: "Games now").
        self.on_following_changed: Callable[[], None] = lambda: None
        # Called when the subscription came back after Redis was out of reach: updates published
        # meanwhile were missed (and if Redis restarted without its data, the games are gone).
        self.recovery_listeners: set[Callable[[], None]] = set()
        # Connections by the hash of their device token, told of the online games it starts.
        self.match_listeners: dict[str, set[MatchListener]] = {}
        self._task: asyncio.Task[None] | None = None
        # Connections being told of a started match: the last telling of each, which a next one
        # waits for (a connection hears of its matches one at a time, as they came).
        self._telling: dict[MatchListener, asyncio.Task[None]] = {}
        # Sockets following a game (players and watchers), told its count of watchers; one
        # count is read at a time per game, again when it changed meanwhile.
        self.count_listeners: dict[str, set[CountListener]] = {}
        self.count_watchers: CountWatchers | None = None
        self._counting: dict[str, bool] = {}  # game -> changed again while being counted
        self._counts: set[asyncio.Task[None]] = set()
        # Games' channels subscribed and not yet confirmed: following waits for the confirmation,
        # after which nothing published to the game can be missed.
        self._unconfirmed: dict[bytes, asyncio.Future[None]] = {}

    async def start(self) -> None:
        # A channel of its own keeps the subscription open while no game is followed.
        channels = (self.own_channel, self.keys.matches_channel(), self.keys.watchers_channel())
        if self.subscription is not None:
            self.subscription.subscribe(*channels)
            await self.subscription.connect()
            self._task = asyncio.create_task(self._keep())
            return
        assert self.pubsub is not None
        # A cluster client learns its nodes on its first command; a subscription needs them now.
        await self.client.initialize()
        await self.pubsub.subscribe(*channels)
        self._task = asyncio.create_task(self._listen())

    async def stop(self) -> None:
        for telling in [*self._telling.values(), *self._counts]:
            telling.cancel()
        for followers in self.listeners.values():
            followers.stop()
        if self._task is not None:
            await stop_task(self._task)
        WATCH.forget(f"gateway.updates:{self.own_channel}")
        if self.subscription is not None:
            self.subscription.close()
        if self.pubsub is not None:
            await self.pubsub.aclose()  # type: ignore[no-untyped-call, unused-ignore]  # unannotated before redis-py 8

    async def _subscribe(self, channel: str) -> None:
        if self.subscription is not None:
            self.subscription.subscribe(channel)
        elif self.pubsub is not None:
            await self.pubsub.subscribe(channel)

    async def _unsubscribe(self, channel: str) -> None:
        if self.subscription is not None:
            self.subscription.unsubscribe(channel)
        elif self.pubsub is not None:
            await self.pubsub.unsubscribe(channel)

    async def follow(self, game_id: str, listener: Listener, *, watcher: bool = False) -> None:
        """Adds a listener of the game's updates, and returns once Redis has confirmed the game's
        channel: every update published from then on reaches the listener. Updates published
        before (since the snapshot the follower was given) are the follower's to read
        (GameFeed.attach catches up)."""
        listeners = self.listeners.setdefault(game_id, Followers())
        channel = self.keys.channel(game_id)
        key = channel.encode()  # as the confirmation names it
        confirmed = self._unconfirmed.get(key)
        if not listeners:
            confirmed = self._unconfirmed[key] = asyncio.get_running_loop().create_future()
            await self._subscribe(channel)
            self.on_following_changed()
        (listeners.watchers if watcher else listeners.players).add(listener)
        if confirmed is not None and not confirmed.done():
            try:
                await asyncio.wait_for(asyncio.shield(confirmed), CONFIRM_SECONDS)
            except TimeoutError:
                log.warning("Redis did not confirm a game's channel in time", extra={"game": game_id})

    async def unfollow(self, game_id: str, listener: Listener) -> None:
        listeners = self.listeners.get(game_id)
        if not listeners:
            return
        listeners.players.discard(listener)
        listeners.watchers.discard(listener)
        if not listeners:
            del self.listeners[game_id]
            self._unconfirmed.pop(self.keys.channel(game_id).encode(), None)
            self.on_following_changed()
            with contextlib.suppress(redis.RedisError):
                await self._unsubscribe(self.keys.channel(game_id))

    def on_count(self, game_id: str, listener: CountListener) -> None:
        self.count_listeners.setdefault(game_id, set()).add(listener)

    def off_count(self, game_id: str, listener: CountListener) -> None:
        listeners = self.count_listeners.get(game_id)
        if listeners is not None:
            listeners.discard(listener)
            if not listeners:
                del self.count_listeners[game_id]

    def _count_changed(self, game_id: str) -> None:
        if game_id not in self.count_listeners or self.count_watchers is None:
            return
        if game_id in self._counting:
            self._counting[game_id] = True
            return
        self._counting[game_id] = False
        task = asyncio.create_task(self._tell_count(game_id, self.count_watchers))
        self._counts.add(task)
        task.add_done_callback(self._counts.discard)

    async def _tell_count(self, game_id: str, count_watchers: CountWatchers) -> None:
        try:
            while True:
                self._counting[game_id] = False
                count = await count_watchers(game_id)
                # Encoded once for every socket that follows the game.
                frame = server_frames.Watching.build(game_id, count).to_json()
                for listener in list(self.count_listeners.get(game_id, ())):
                    try:
                        listener(frame)
                    except Exception:
                        log.exception("telling the count of watchers failed", extra={"game": game_id})
                # Changes meanwhile (a crowd arriving through a shared link) make one count more,
                # not one each: every follower is told at most a few times a second.
                await asyncio.sleep(COUNT_EVERY_SECONDS)
                if not self._counting[game_id]:
                    return
        except redis.RedisError:
            pass  # the next change counts again
        finally:
            # No wait between the last look and this: a change from now on starts a new count.
            self._counting.pop(game_id, None)

    def on_match(self, device: str, listener: MatchListener) -> None:
        self.match_listeners.setdefault(device, set()).add(listener)

    def off_match(self, device: str, listener: MatchListener) -> None:
        listeners = self.match_listeners.get(device)
        if listeners is not None:
            listeners.discard(listener)
            if not listeners:
                del self.match_listeners[device]

    def _match_started(self, data: bytes) -> None:
        try:
            started = matchmaker_pb2.MatchStarted.FromString(data)
        except DecodeError:
            log.error("a started match that is not a MatchStarted message")
            return
        for device in started.devices:
            for listener in list(self.match_listeners.get(device, ())):
                task = asyncio.create_task(self._tell(listener, started, self._telling.get(listener)))
                self._telling[listener] = task
                task.add_done_callback(functools.partial(self._told, listener))

    @staticmethod
    async def _tell(
        listener: MatchListener, started: matchmaker_pb2.MatchStarted, before: asyncio.Task[None] | None
    ) -> None:
        if before is not None:
            await asyncio.wait({before})
        try:
            await listener(started)
        except Exception:
            log.exception("telling a connection of its game failed", extra={"game": started.game_id})

    def _told(self, listener: MatchListener, task: asyncio.Task[None]) -> None:
        if self._telling.get(listener) is task:
            del self._telling[listener]

    async def _keep(self) -> None:
        """Keeps the hub's own connection up: made again a second after it is lost, every channel
        subscribed anew. A round a second (1 s more after a failure): the gateway's readiness
        follows it."""
        assert self.subscription is not None
        progress = WATCH.loop(f"gateway.updates:{self.own_channel}", 2.0, "gateway.updates")
        while True:
            await progress.round()
            if not self.subscription.connected:
                try:
                    await self.subscription.connect()
                except SubscriptionLost as exc:
                    REDIS_UP.set(0)
                    log.warning("update subscription lost; retrying", extra={"error": str(exc)})
                    await asyncio.sleep(1)
                    continue
            REDIS_UP.set(1)
            await self.subscription.wait_lost(1.0)

    async def _listen(self) -> None:
        """The subscription through redis-py (a cluster, TLS)."""
        assert self.pubsub is not None
        # A round a second (1 s more after a failure): the gateway's readiness follows it.
        progress = WATCH.loop(f"gateway.updates:{self.own_channel}", 2.0, "gateway.updates")
        while True:
            await progress.round()
            try:
                message = await self.pubsub.get_message(timeout=1.0)
            except redis.RedisError:
                REDIS_UP.set(0)
                log.warning("update subscription lost; retrying")
                await asyncio.sleep(1)
                continue
            REDIS_UP.set(1)
            if message is None:
                continue
            if message["type"] == "subscribe":
                self._subscribed(message["channel"])
            elif message["type"] == "message":
                self._dispatch(message["channel"], message["data"])

    def _subscribed(self, channel: bytes) -> None:
        """A subscription confirmed: a game's lets its followers go on (follow); the hub's own
        channel again means every channel was subscribed anew, and the updates published
        meanwhile were missed."""
        if channel != self._own:
            confirmed = self._unconfirmed.pop(channel, None)
            if confirmed is not None and not confirmed.done():
                confirmed.set_result(None)
            return
        if self._subscribed_once:
            log.info("update subscription back: the games followed catch up")
            for recovered in list(self.recovery_listeners):
                recovered()
        self._subscribed_once = True

    def _dispatch(self, channel: bytes, data: bytes) -> None:
        if channel == self._matches:
            self._match_started(data)
            return
        if channel == self._watchers:
            self._count_changed(data.decode())
            return
        if not channel.startswith(self._prefix):
            return
        game_id = channel[len(self._prefix) :].decode()
        try:
            update = common_pb2.Update.FromString(data)
        except DecodeError:
            log.error("an update that is not an Update message", extra={"game": game_id})
            return
        # Read out of the message once: each read of a protobuf string makes a new copy, and
        # every follower of the game (its players and all its watchers) sends the same text.
        text = update.frame_json
        followers = self.listeners.get(game_id)
        if followers is not None:
            followers.tell(update, text)
