"""The callers' way to the engine replicas (issue 32): each game's calls go to the replica that
holds it, so that replica's copy of the game (boxedin.engine.service.copies) stays current and
an action changes it without reading the game from Redis.

The replica of a game is chosen by rendezvous (highest-random-weight) hashing of the game's
partition (boxedin.common.keys.partition_of) over the live endpoints: every caller that sees the
same endpoints picks the same replica for a partition, and when an endpoint goes only its own
partitions move (each to the endpoint of the next highest weight), while when one comes back
or is added it takes back only those it wins. The endpoints are the address list of
BOXEDIN_ENGINE_ADDRESS (``127.0.0.1:50051,127.0.0.1:50061``, or gRPC's ``ipv4:`` form), and a
name in it (``dns:///boxedin-engine-headless:50051``, a headless Service in the chart) is resolved
to all its addresses, again every ``resolve_seconds``.

Redis stays the authority. Two callers may disagree for a moment (one saw a replica go before
the other did, or resolved the name at another time), and a game's actions then reach two
replicas: each commit compares the game's stored seq and revision, so a copy another replica
left behind is never used to judge an action; the game is read again and the action judged on
it. A wrong guess costs a read of the game, never a wrong result
(tests/common/test_engine_router.py plays one game alternately on two replicas).

Calls that are about no game yet (a new game, a device's saved game, the figures) go to the
replica of a key of their own: a new game's id is drawn here, before the call, so that even the
first call of a game lands on its replica (CreateGameRequest.game_id); a device's calls go to
the replica of its token's partition.

Actions go over one long-lived line to each replica, not as a unary call each: the replica's
action port (boxedin.common.act_socket, BOXEDIN_ENGINE_ACT_SOCKET), asked for once with
GetActPort, or its gRPC stream (boxedin.common.act_line, BOXEDIN_ENGINE_ACT_STREAM) while it is
asked, when it has none, or when it cannot be reached. At one action in flight a unary call costs
the two sides together about 0.8 ms of CPU, a message on the stream 0.55 and a frame on the port
0.2 (`boxedin bench grpc`, issue 32). An action is routed as any call, and its answer or refusal is the same;
those a line leaves unanswered when it breaks are made at the next replica as a unary call's
would be. A replica that is down is sent unary calls, which wait for it up to their deadlines.
"""

from __future__ import annotations

import asyncio
import hashlib
import ipaddress
import itertools
import json
import logging
import socket
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import grpc

from boxedin.v1 import engine_pb2, engine_pb2_grpc

from .act_line import Carrier, Line, LineCall
from .act_socket import SocketLine, split_address
from .game_ids import new_game_id
from .keys import partition_of
from .reasons import REASON_KEY
from .service_auth import CALLER_HEADER, PROOF_HEADER, CallerCredentials, call_metadata
from .settings import Settings

log = logging.getLogger("boxedin.engine_router")

_Request = TypeVar("_Request")
_Reply = TypeVar("_Reply")

# A down replica's channel retries its connection within this (gRPC's default backoff grows to
# 120 s): a restarted replica gets its partitions back within a few seconds of answering.
# Unlike grpc_client's channels, a call does not wait for its replica to be ready: one that
# cannot reach it fails at once and is made to the next replica (_RoutedCall).
_CHANNEL_OPTIONS = [
    ("grpc.service_config", json.dumps({"loadBalancingConfig": [{"pick_first": {}}]})),
    ("grpc.max_reconnect_backoff_ms", 2_000),
    ("grpc.initial_reconnect_backoff_ms", 250),
]


def weight(endpoint: str, partition: int) -> int:
    """The rendezvous weight of an endpoint for a partition: the same in every process (Python's
    own hash() is salted per process)."""
    digest = hashlib.blake2b(f"{endpoint}/{partition}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def ranking(endpoints: Sequence[str], partition: int) -> list[str]:
    """The endpoints in the order a partition prefers them: its owner first, then the one its
    games move to when the owner is down, and so on."""
    return sorted(endpoints, key=lambda endpoint: (weight(endpoint, partition), endpoint), reverse=True)


def owners(endpoints: Sequence[str], partitions: int) -> list[str]:
    """The owner of each partition among these endpoints."""
    return [ranking(endpoints, partition)[0] for partition in range(partitions)]


@dataclass(frozen=True, slots=True)
class EngineAddress:
    """BOXEDIN_ENGINE_ADDRESS read as endpoints: ``fixed`` addresses (IP literals), and ``names``
    to resolve to all their addresses."""

    fixed: tuple[str, ...]
    names: tuple[tuple[str, int], ...]

    @classmethod
    def parse(cls, address: str) -> EngineAddress:
        text = address.strip()
        for scheme in ("ipv4:", "ipv6:", "dns:///", "dns:"):
            if text.startswith(scheme):
                text = text[len(scheme) :]
                break
        fixed: list[str] = []
        names: list[tuple[str, int]] = []
        for entry in text.split(","):
            entry = entry.strip()
            host, sep, port_text = entry.rpartition(":")
            if not sep or not host or not port_text.isdigit() or not 0 < int(port_text) < 65536:
                raise ValueError(f"an engine address is host:port, not {entry!r} (in {address!r})")
            host = host.strip("[]")
            try:
                ip = ipaddress.ip_address(host)
            except ValueError:
                names.append((host, int(port_text)))
            else:
                fixed.append(_endpoint(str(ip), int(port_text)))
        return cls(tuple(dict.fromkeys(fixed)), tuple(dict.fromkeys(names)))


def _endpoint(ip: str, port: int) -> str:
    return f"[{ip}]:{port}" if ":" in ip else f"{ip}:{port}"


async def resolve(address: EngineAddress) -> list[str]:
    """Every endpoint the address stands for now (a name: all its A and AAAA records)."""
    found = list(address.fixed)
    loop = asyncio.get_running_loop()
    for host, port in address.names:
        for family, _, _, _, sockaddr in await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM):
            if family in (socket.AF_INET, socket.AF_INET6):
                found.append(_endpoint(str(sockaddr[0]), port))
    return sorted(set(found))


@dataclass(slots=True)
class _Endpoint:
    address: str
    channel: grpc.aio.Channel
    stub: engine_pb2_grpc.EngineAsyncStub
    # Down: its connection was lost or cannot be made (it was ready once, or its connecting
    # failed). A new endpoint is taken as up: its first calls wait for the connection.
    down: bool = False
    ready_once: bool = False
    watcher: asyncio.Task[None] | None = field(default=None, repr=False)
    # Its actions' line, opened on the first action: its action port's (act_socket) once known,
    # else its stream (act_line); an engine of before ActBatches is sent unary Act calls
    # (``unary_only``).
    line: Carrier | None = field(default=None, repr=False)
    unary_only: bool = False
    # Its action port: None until asked (GetActPort, again once it is back after it was down, as
    # a restarted replica has another), 0 when it has none or it could not be reached.
    act_port: int | None = None
    asking: asyncio.Task[None] | None = field(default=None, repr=False)


class _Routed(grpc.aio.UnaryUnaryMultiCallable[_Request, _Reply]):
    """One engine method: each call goes to the replica of its request's routing key."""

    def __init__(
        self,
        router: EngineRouter,
        pick: Callable[[_Request], str],
        method: _Method[_Request, _Reply],
        *,
        on_line: bool = False,
    ) -> None:
        self._router = router
        self._pick = pick
        self._method = method
        self._on_line = on_line  # Act: sent over the replica's action stream (act_line)

    def __call__(
        self,
        request: _Request,
        *,
        timeout: float | None = None,
        metadata: grpc.aio.Metadata | Sequence[tuple[str, str | bytes]] | None = None,
        credentials: grpc.CallCredentials | None = None,
        wait_for_ready: bool | None = None,
        compression: grpc.Compression | None = None,
    ) -> grpc.aio.UnaryUnaryCall[_Request, _Reply]:
        options = _CallOptions(timeout, metadata, credentials, wait_for_ready, compression)
        return _RoutedCall(self._router, self._pick(request), self._method, request, options, self._on_line)


_Method = Callable[["engine_pb2_grpc.EngineAsyncStub"], grpc.aio.UnaryUnaryMultiCallable[_Request, _Reply]]


@dataclass(frozen=True, slots=True)
class _CallOptions:
    timeout: float | None
    metadata: grpc.aio.Metadata | Sequence[tuple[str, str | bytes]] | None
    credentials: grpc.CallCredentials | None
    wait_for_ready: bool | None
    compression: grpc.Compression | None


class _RoutedCall(grpc.aio.UnaryUnaryCall[_Request, _Reply]):
    """A call to the replica of its key. A replica that cannot be reached (UNAVAILABLE without
    an engine reason: it was just killed, or is not up yet) is marked down at once and the call
    made once more to the next replica of the key's partition. That is safe for every engine
    call: an action names the seq it was chosen for (and the gateway's its repeat key, under which
    an applied action is answered, not applied again), a new game's id is stored only once (a
    repeat is refused busy), and the others set or read what they name."""

    def __init__(
        self,
        router: EngineRouter,
        key: str,
        method: _Method[_Request, _Reply],
        request: _Request,
        options: _CallOptions,
        on_line: bool = False,
    ) -> None:
        self._router, self._key, self._method, self._request, self._options = router, key, method, request, options
        self._on_line = on_line
        self._endpoint = router.endpoint_for(key)
        self._call = self._start(self._endpoint)
        self._retried = False

    def _line_takes(self, endpoint: _Endpoint) -> bool:
        """An action goes over the replica's line unless the replica is down (its call then
        waits for it, as a unary call does) or the call carries options a stream's message
        cannot."""
        options = self._options
        return (
            self._on_line
            and not endpoint.down
            and not endpoint.unary_only
            and options.metadata is None
            and options.credentials is None
            and options.wait_for_ready is None
            and options.compression is None
        )

    def _start(self, endpoint: _Endpoint) -> grpc.aio.UnaryUnaryCall[_Request, _Reply]:
        options = self._options
        if self._line_takes(endpoint):
            line = self._router.line(endpoint)
            return LineCall(line, self._request, options.timeout)  # type: ignore[arg-type, return-value]
        wait_for_ready = options.wait_for_ready
        if wait_for_ready is None and endpoint.down:
            # Every replica is down: wait for one to be back, up to the call's deadline, as a
            # single replica's callers do while it restarts.
            wait_for_ready = True
        return self._method(endpoint.stub)(
            self._request,
            timeout=options.timeout,
            metadata=options.metadata,
            credentials=options.credentials,
            wait_for_ready=wait_for_ready,
            compression=options.compression,
        )

    async def _reply(self) -> _Reply:
        try:
            return await self._call
        except grpc.aio.AioRpcError as error:
            if isinstance(self._call, LineCall) and self._call.never_reached:
                # The action port could not be reached though the replica may be up (a port a
                # network policy shuts): its actions go over its stream from now on.
                self._router.port_unreachable(self._endpoint)
                self._call = self._start(self._endpoint)
                return await self._reply()
            if isinstance(self._call, LineCall) and error.code() is grpc.StatusCode.UNIMPLEMENTED:
                # An engine of before ActBatches (a rolling upgrade): its actions go as Act calls.
                self._endpoint.unary_only = True
                self._call = self._start(self._endpoint)
                return await self._reply()
            if self._retried or not _unreachable(error):
                raise
            self._router.mark_down(self._endpoint)
            self._retried = True
            self._endpoint = self._router.endpoint_for(self._key)
            self._call = self._start(self._endpoint)
            return await self._call

    def __await__(self) -> Generator[Any, None, _Reply]:
        return self._reply().__await__()

    # The rest is the call under way's.
    def cancelled(self) -> bool:
        return self._call.cancelled()

    def done(self) -> bool:
        return self._call.done()

    def time_remaining(self) -> float | None:
        return self._call.time_remaining()

    def cancel(self) -> bool:
        return self._call.cancel()

    def add_done_callback(self, callback: Callable[[Any], None]) -> None:
        self._call.add_done_callback(callback)

    async def initial_metadata(self) -> grpc.aio.Metadata:
        return await self._call.initial_metadata()

    async def trailing_metadata(self) -> grpc.aio.Metadata:
        return await self._call.trailing_metadata()

    async def code(self) -> grpc.StatusCode:
        return await self._call.code()

    async def details(self) -> str:
        return await self._call.details()

    async def wait_for_connection(self) -> None:
        await self._call.wait_for_connection()


def _unreachable(error: grpc.aio.AioRpcError) -> bool:
    """The replica was not reached (or its connection broke): UNAVAILABLE from gRPC itself,
    not the engine's own refusal (which carries its reason, e.g. Redis cannot be reached)."""
    if error.code() is not grpc.StatusCode.UNAVAILABLE:
        return False
    return not any(key == REASON_KEY for key, _ in error.trailing_metadata() or ())


class _OfAGame(Protocol):
    game_id: str


def _by_game(request: _OfAGame) -> str:
    return request.game_id


def _by_device(request: engine_pb2.DeviceRequest) -> str:
    return request.device


def _new_game(request: engine_pb2.CreateGameRequest | engine_pb2.OnlineGameRequest) -> str:
    # The id is drawn here so that the call goes to the replica its actions will go to.
    if not request.game_id:
        request.game_id = new_game_id()
    return request.game_id


def _by_first_player(request: engine_pb2.KeepConnectedRequest) -> str:
    # A renewal names many games: one replica writes them all (each a script of its own).
    return request.players[0].game_id if request.players else ""


def _by_watch(request: engine_pb2.WatchLink) -> str:
    return request.watch_id


def _any(request: engine_pb2.FiguresRequest) -> str:
    # The figures are Redis's, the same from every replica.
    return ""


if TYPE_CHECKING:
    _Stub = engine_pb2_grpc.EngineAsyncStub
else:
    _Stub = object


class EngineRouter(_Stub):
    """The Engine stub of every caller (gateway, matchmaker, AI): the same typed methods, each
    call sent to the replica of its game's partition. ``start()`` resolves the endpoints and
    watches them; ``close()`` closes every channel."""

    def __init__(
        self,
        address: str,
        caller: str,
        secret: str,
        partitions: int,
        *,
        resolve_seconds: float = 10.0,
        routing: str = "partition",
        act_stream: bool = True,
        act_socket: bool = True,
    ) -> None:
        if routing not in ("partition", "round_robin"):
            raise ValueError(f"engine routing is partition or round_robin, not {routing!r}")
        self.round_robin = routing == "round_robin"
        self._turns = itertools.count()
        self.address = EngineAddress.parse(address)
        self.partitions = partitions
        self.resolve_seconds = resolve_seconds
        self._credentials = CallerCredentials(caller, secret)
        self._metadata = call_metadata(caller, secret)  # an action stream's, once when it opens
        given = dict(self._metadata)
        self._caller, self._proof = given[CALLER_HEADER], given[PROOF_HEADER]  # an action port's hello
        self._act_socket = act_socket
        self._endpoints: dict[str, _Endpoint] = {}
        # Each partition's ranking of the endpoints known (live or not), worked out when they change.
        self._rankings: list[list[_Endpoint]] = [[] for _ in range(partitions)]
        self._resolver: asyncio.Task[None] | None = None
        self._started = False
        self._closing: set[asyncio.Task[None]] = set()
        if self.address.fixed and not self.address.names:
            self._set_endpoints(list(self.address.fixed))
        self.CreateGame = _Routed(self, _new_game, lambda stub: stub.CreateGame)
        self.GetGame = _Routed(self, _by_game, lambda stub: stub.GetGame)
        self.Act = _Routed(self, _by_game, lambda stub: stub.Act, on_line=act_stream)
        self.GetSavedGame = _Routed(self, _by_device, lambda stub: stub.GetSavedGame)
        self.ResumeGame = _Routed(self, _by_device, lambda stub: stub.ResumeGame)
        self.DiscardSavedGame = _Routed(self, _by_device, lambda stub: stub.DiscardSavedGame)
        self.SetVisibility = _Routed(self, _by_game, lambda stub: stub.SetVisibility)
        self.GetUpdates = _Routed(self, _by_game, lambda stub: stub.GetUpdates)
        self.GetFigures = _Routed(self, _any, lambda stub: stub.GetFigures)
        self.CreateOnlineGame = _Routed(self, _new_game, lambda stub: stub.CreateOnlineGame)
        self.GetOnlineGame = _Routed(self, _by_device, lambda stub: stub.GetOnlineGame)
        self.SetConnected = _Routed(self, _by_game, lambda stub: stub.SetConnected)
        self.KeepConnected = _Routed(self, _by_first_player, lambda stub: stub.KeepConnected)
        self.Leave = _Routed(self, _by_game, lambda stub: stub.Leave)
        self.Rematch = _Routed(self, _by_game, lambda stub: stub.Rematch)
        self.ShareWatch = _Routed(self, _by_game, lambda stub: stub.ShareWatch)
        self.GetWatchedGame = _Routed(self, _by_watch, lambda stub: stub.GetWatchedGame)

    # --- the endpoints ------------------------------------------------------------------------

    async def start(self) -> None:
        """Resolves a name in the address (again every resolve_seconds) and starts watching each
        endpoint's connection. Needs the running event loop the calls are made on."""
        if self.address.names:
            await self.resolve_now()
            self._resolver = asyncio.get_running_loop().create_task(self._resolve_again())
        for endpoint in self._endpoints.values():
            self._watch(endpoint)

    async def resolve_now(self) -> None:
        try:
            found = await resolve(self.address)
        except OSError as exc:
            # The last endpoints known keep serving; a name that never resolved leaves none,
            # and every call then fails UNAVAILABLE until it does.
            log.warning("engine address not resolved", extra={"address": str(self.address), "error": str(exc)})
            return
        if found and set(found) != set(self._endpoints):
            self._set_endpoints(found)

    async def _resolve_again(self) -> None:
        while True:
            await asyncio.sleep(self.resolve_seconds)
            await self.resolve_now()

    def _set_endpoints(self, addresses: list[str]) -> None:
        gone = [self._endpoints.pop(address) for address in list(self._endpoints) if address not in addresses]
        for address in addresses:
            if address not in self._endpoints:
                channel = grpc.aio.insecure_channel(address, options=_CHANNEL_OPTIONS, interceptors=[self._credentials])
                endpoint = _Endpoint(address, channel, engine_pb2_grpc.EngineStub(channel))
                self._endpoints[address] = endpoint
                if self._started:
                    self._watch(endpoint)
        self._rankings = [
            [self._endpoints[address] for address in ranking(list(self._endpoints), partition)]
            for partition in range(self.partitions)
        ]
        for endpoint in gone:
            # Kept until done: the event loop holds only weak references to its tasks.
            closing = asyncio.get_running_loop().create_task(self._close(endpoint))
            self._closing.add(closing)
            closing.add_done_callback(self._closing.discard)
        log.info("engine endpoints", extra={"endpoints": sorted(self._endpoints)})

    def _watch(self, endpoint: _Endpoint) -> None:
        if endpoint.watcher is None:
            endpoint.watcher = asyncio.get_running_loop().create_task(self._follow(endpoint))

    async def _follow(self, endpoint: _Endpoint) -> None:
        """Keeps ``down`` up to date from the channel's connectivity: down when a ready
        connection is lost or connecting fails (a killed replica: its connection breaks at
        once), up again when it is ready. A lost connection is made again at once, so a
        replica that only closed an old connection (grpc_server.py ends them now and then) is
        down for the moment of reconnecting."""
        connectivity = grpc.ChannelConnectivity
        while True:
            state = endpoint.channel.get_state(try_to_connect=True)
            if state is connectivity.READY:
                if endpoint.down:
                    log.info("engine endpoint up", extra={"endpoint": endpoint.address})
                    endpoint.act_port = None  # a replica back may listen on another port
                endpoint.down, endpoint.ready_once = False, True
            elif state is connectivity.TRANSIENT_FAILURE or (
                state is not connectivity.SHUTDOWN and endpoint.ready_once
            ):
                if not endpoint.down:
                    log.info("engine endpoint down", extra={"endpoint": endpoint.address, "state": state.name})
                endpoint.down = True
            if state is connectivity.SHUTDOWN:
                return
            await endpoint.channel.wait_for_state_change(state)

    def line(self, endpoint: _Endpoint) -> Carrier:
        """The endpoint's action line: the one open, or a new one when it has served its time
        or ended (the old one is half-closed, and ends once its actions are answered). The new one
        is to the action port when the replica has one, else its stream."""
        line = endpoint.line
        if line is None or not line.usable:
            if line is not None:
                line.retire()
                if isinstance(line, SocketLine) and line.ended is not None and endpoint.act_port:
                    endpoint.act_port = None  # it broke: the replica may be another by now
            line = endpoint.line = self._new_line(endpoint)
        return line

    def _new_line(self, endpoint: _Endpoint) -> Carrier:
        if self._act_socket and endpoint.act_port:
            return SocketLine(split_address(endpoint.address), endpoint.act_port, self._caller, self._proof)
        if self._act_socket and endpoint.act_port is None and endpoint.asking is None:
            endpoint.asking = asyncio.get_running_loop().create_task(self._ask_port(endpoint))
        return Line(endpoint.stub, self._metadata)

    async def _ask_port(self, endpoint: _Endpoint) -> None:
        """Asks the replica for its action port; once known, the stream open meanwhile is retired,
        so that the next action opens the port's line."""
        try:
            reply = await endpoint.stub.GetActPort(engine_pb2.ActPortRequest(), timeout=5)
            endpoint.act_port = reply.port
        except grpc.aio.AioRpcError as error:
            # An engine of before the port has no GetActPort; one that did not answer is asked
            # again with its next line.
            if error.code() is grpc.StatusCode.UNIMPLEMENTED:
                endpoint.act_port = 0
        finally:
            endpoint.asking = None
        if endpoint.act_port and isinstance(endpoint.line, Line):
            endpoint.line.retire()

    async def ports_asked(self) -> None:
        """Waits for the action ports asked for to be known (tools and tests measure a line)."""
        asking = [endpoint.asking for endpoint in self._endpoints.values() if endpoint.asking is not None]
        if asking:
            await asyncio.wait(asking)

    def port_unreachable(self, endpoint: _Endpoint) -> None:
        if endpoint.act_port:
            log.warning(
                "engine action port not reached: actions go over the stream",
                extra={"endpoint": endpoint.address, "port": endpoint.act_port},
            )
        endpoint.act_port = 0
        if isinstance(endpoint.line, SocketLine):
            endpoint.line.retire()

    async def _close(self, endpoint: _Endpoint) -> None:
        if endpoint.watcher is not None:
            endpoint.watcher.cancel()
        if endpoint.asking is not None:
            endpoint.asking.cancel()
        if endpoint.line is not None:
            endpoint.line.retire()
        # Calls under way finish first (their own deadlines bound them).
        await endpoint.channel.close(grace=10)

    async def close(self) -> None:
        if self._resolver is not None:
            self._resolver.cancel()
        endpoints, self._endpoints = list(self._endpoints.values()), {}
        for endpoint in endpoints:
            if endpoint.watcher is not None:
                endpoint.watcher.cancel()
            if endpoint.asking is not None:
                endpoint.asking.cancel()
            if endpoint.line is not None:
                endpoint.line.close()
            await endpoint.channel.close()

    # --- the choice ---------------------------------------------------------------------------

    @property
    def endpoints(self) -> list[str]:
        return sorted(self._endpoints)

    @property
    def live(self) -> list[str]:
        return sorted(address for address, endpoint in self._endpoints.items() if not endpoint.down)

    def mark_down(self, endpoint: _Endpoint) -> None:
        """A call found the endpoint unreachable: its partitions move until it is ready again."""
        if not endpoint.down:
            log.info("engine endpoint down", extra={"endpoint": endpoint.address, "state": "unreachable"})
        endpoint.down = True

    def any_channel(self) -> grpc.aio.Channel:
        """The channel of a live replica (a readiness check asks whether an engine answers)."""
        return self.endpoint_for("").channel

    def owner(self, key: str) -> str:
        """The endpoint a routing key's calls go to now."""
        return self.endpoint_for(key).address

    def endpoint_for(self, key: str) -> _Endpoint:
        ranked = self._rankings[partition_of(key, self.partitions)]
        if not ranked:
            raise grpc.aio.AioRpcError(
                grpc.StatusCode.UNAVAILABLE,
                grpc.aio.Metadata(),
                grpc.aio.Metadata(),
                details=f"no engine endpoint: {self.address} resolved to none",
            )
        if self.round_robin:
            live = [endpoint for endpoint in ranked if not endpoint.down]
            if live:
                return live[next(self._turns) % len(live)]
        for endpoint in ranked:
            if not endpoint.down:
                return endpoint
        # Every replica is down: the owner's calls wait for it (or another) to be back, up to
        # their own deadlines, as a single replica's calls do while it restarts.
        return ranked[0]


async def engine_router(config: Settings, caller: str) -> EngineRouter:
    """The engine stub of the service ``caller``, its endpoints resolved and watched."""
    router = EngineRouter(
        config.engine_address,
        caller,
        config.service_secret,
        config.work_partitions,
        resolve_seconds=config.engine_resolve_seconds,
        routing=config.engine_routing,
        act_stream=config.engine_act_stream,
        act_socket=config.engine_act_socket,
    )
    await router.start()
    return router
