"""The local player's side of Same Wi-Fi play: one per ``boxedin lan`` process, between its own
browser (the game on ``/ws``, the Same Wi-Fi screens on ``/lan``) and the other player's process.

Hosting, it listens for a joiner, runs the handshake, shows both codes, and on Let In runs the
game (host.py) for both. Joining, it connects, shows the code, and once let in passes its
browser's actions to the host and the host's frames to its browser: it decides nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from boxedin.common.names import check_name
from boxedin.common.reasons import Refusal
from boxedin.engine.rules import Overlap, RulesError, mode_by_id
from boxedin.gateway import client_frames as game_frames

from . import secure
from .discovery import Discovery, SeenGame, local_addresses
from .frames import parse_lan_frame
from .host import GRACE_SECONDS, HOST, JOINER, HostedGame, Out, Started
from .local import LocalGame
from .peer import Link

log = logging.getLogger("boxedin.lan")
Send = Callable[[dict[str, Any]], Awaitable[None]]
HANDSHAKE_SECONDS = 10.0
# A joiner whose link dropped tries again this often while the host keeps its seat.
RECONNECT_SECONDS = 1.0
LAN_ONLY = "This is the Same Wi-Fi app (boxedin lan): it plays Same Wi-Fi games only, with no game server."


def error(code: str, message: str, reply_to: Any = None, seq: int | None = None) -> dict[str, Any]:
    frame: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if reply_to is not None:
        frame["reply_to"] = reply_to
    if seq is not None:
        frame["seq"] = seq
    return frame


def parse_address(text: str) -> tuple[str, int]:
    host, sep, port = text.strip().rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise Refusal("bad_address", f"an address is host:port, such as 192.168.1.20:47000, not {text!r}")
    return host.strip("[]"), int(port)


@dataclass
class Hosting:
    mode: str
    overlap: str | None
    name: str
    server: asyncio.Server
    port: int
    game_id: str = field(default_factory=lambda: "h" + secrets.token_hex(8))
    link: Link | None = None
    joiner: str | None = None  # the joiner's name, once it said hello
    game: HostedGame | None = None
    resume: str = ""  # the token a let-in joiner comes back with
    deadline_task: asyncio.Task[None] | None = None


@dataclass
class Joining:
    address: str
    name: str
    link: Link | None = None
    host_name: str | None = None
    let_in: bool = False
    resume: str | None = None
    game: str | None = None  # the game followed, from the host's matched
    over: bool = False  # whether it has ended, from the host's frames
    task: asyncio.Task[Any] | None = None


class LocalPlayer:
    def __init__(
        self, *, peer_bind: str = "0.0.0.0", peer_port: int = 0, discovery: bool = True, grace: int = GRACE_SECONDS
    ) -> None:
        self.peer_bind, self.peer_port, self.grace = peer_bind, peer_port, grace
        self.device = secrets.token_urlsafe(32)  # 43 characters, as a gateway's tokens
        self.games: set[Send] = set()
        self.lobbies: set[Send] = set()
        self.hosting: Hosting | None = None
        self.joining: Joining | None = None
        # The local game (two players on this page), if one was started: the engine in-process.
        self.local_game: LocalGame | None = None
        self.discovery = Discovery(self._games_changed) if discovery else None

    async def start(self) -> None:
        if self.discovery is not None:
            await self.discovery.start()

    async def stop(self) -> None:
        await self._stop_hosting()
        await self._stop_joining()
        if self.discovery is not None:
            await self.discovery.stop()

    # --- to the browser ------------------------------------------------------------------------

    async def _to(self, sends: set[Send], frame: dict[str, Any]) -> None:
        for send in list(sends):
            with contextlib.suppress(Exception):
                await send(frame)

    def status(self, reply_to: Any = None) -> dict[str, Any]:
        hosting: dict[str, Any] | None = None
        link: dict[str, Any] | None = None
        if self.hosting is not None:
            h = self.hosting
            hosting = {"mode": h.mode, "overlap": h.overlap, "address": f"{local_addresses()[0]}:{h.port}"}
            if h.link is not None and h.joiner is not None:
                state = "playing" if h.game is not None else "code"
                link = {"role": "host", "state": state, "code": h.link.code, "name": h.joiner}
        elif self.joining is not None:
            j = self.joining
            if j.let_in:
                code = j.link.code if j.link else None
                link = {"role": "join", "state": "playing", "code": code, "name": j.host_name}
            elif j.link is not None and j.host_name is not None:
                link = {"role": "join", "state": "code", "code": j.link.code, "name": j.host_name}
            else:
                link = {"role": "join", "state": "connecting", "code": None, "name": None}
        games = [] if self.discovery is None else [g.to_json() for g in self.discovery.games.values()]
        frame: dict[str, Any] = {"type": "lan_status", "hosting": hosting, "link": link, "games": games}
        if reply_to is not None:
            frame["reply_to"] = reply_to
        return frame

    async def _push_status(self) -> None:
        await self._to(self.lobbies, self.status())

    async def _closed(self, reason: str, message: str) -> None:
        await self._to(self.lobbies, {"type": "lan_closed", "reason": reason, "message": message})
        await self._push_status()

    def _games_changed(self) -> None:
        asyncio.get_running_loop().create_task(self._push_status())

    # --- the Same Wi-Fi screens (/lan) -------------------------------------------------------------

    async def lobby_frame(self, text: str, send: Send) -> None:
        reply_to = None
        try:
            raw = json.loads(text)
            reply_to = game_frames.request_id(raw)
        except ValueError:
            pass
        try:
            frame = parse_lan_frame(text)
            if frame.type == "lan_open":
                await send(self.status(frame.id))
            elif frame.type == "lan_host":
                await self._host(frame.mode, frame.overlap, frame.name)
            elif frame.type == "lan_stop":
                await self._stop_hosting(bye=True)
                await self._stop_joining()
                await self._push_status()
            elif frame.type == "lan_join":
                await self._join(frame.game, frame.address, frame.name)
            elif frame.type == "lan_let_in":
                await self._let_in()
            elif frame.type == "lan_cancel":
                await self._cancel()
        except Refusal as refusal:
            await send(error(refusal.reason, refusal.message, reply_to))

    # --- hosting -----------------------------------------------------------------------------------

    async def _host(self, mode: str, overlap: str | None, name: str) -> None:
        name = check_name(name)
        try:
            chosen = mode_by_id(mode)
            chosen.rules_with(Overlap.from_id(overlap) if overlap else None)
        except RulesError as exc:
            raise Refusal("bad_setup", str(exc)) from None
        if chosen.practice:
            raise Refusal("bad_setup", f"{chosen.name} is not played against another player")
        if self.joining is not None or (self.hosting is not None and self.hosting.link is not None):
            raise Refusal("in_game", "leave the game you are in before hosting another")
        await self._stop_hosting()
        server = await asyncio.start_server(self._accepted, self.peer_bind, self.peer_port)
        port = server.sockets[0].getsockname()[1]
        self.hosting = Hosting(mode, overlap, name, server, port)
        if self.discovery is not None:
            await self.discovery.advertise(self.hosting.game_id, name, mode, overlap, port)
        await self._push_status()

    async def _stop_hosting(self, *, bye: bool = False) -> None:
        hosting, self.hosting = self.hosting, None
        if hosting is None:
            return
        hosting.server.close()
        if self.discovery is not None:
            await self.discovery.withdraw()
        if hosting.deadline_task is not None:
            hosting.deadline_task.cancel()
        if hosting.link is not None:
            await hosting.link.close(bye=True)
        if hosting.game is not None and not hosting.game.game.over:
            # The host quits a running game: it is over (on this side too).
            await self._to(self.games, error("host_left", "You closed the game you hosted: it is over."))

    async def _accepted(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        hosting = self.hosting
        try:
            keys = await secure.host(reader, writer, HANDSHAKE_SECONDS)
            channel = secure.Channel(reader, writer, keys)
            first = await asyncio.wait_for(secure.read_record(reader), HANDSHAKE_SECONDS)
            hello = json.loads(channel.keys.opener.open(first))
            name = check_name(str(hello.get("name", ""))) if isinstance(hello, dict) else ""
        except (secure.ChannelError, Refusal, ValueError, TimeoutError, asyncio.IncompleteReadError, OSError) as exc:
            log.info("a joiner was turned away: %s", exc)
            writer.close()
            return
        if hosting is None or hosting is not self.hosting:
            writer.close()
            return
        resume = hello.get("resume")
        coming_back = (
            hosting.game is not None and hosting.link is None and isinstance(resume, str)
            and hmac.compare_digest(resume, hosting.resume)
        )  # fmt: skip
        if hosting.link is not None or (hosting.game is not None and not coming_back):
            # One joiner at a time; a running game takes back only the player it let in.
            with contextlib.suppress(Exception):
                await channel.send(b'{"t":"cancel","busy":true}')
            writer.close()
            return
        link = Link(channel, self._from_joiner, self._joiner_gone)
        hosting.link = link
        if not coming_back:
            hosting.joiner = name
        link.start()
        await link.send({"t": "hello", "name": hosting.name, "mode": hosting.mode, "overlap": hosting.overlap})
        if coming_back and hosting.game is not None:
            await link.send({"t": "let_in", "resume": hosting.resume})
            await self._send_started(hosting.game, "room", to_host=False)
            await self._deliver(hosting.game.connection(JOINER, True))
        await self._push_status()

    async def _let_in(self) -> None:
        hosting = self.hosting
        if hosting is None or hosting.link is None or hosting.joiner is None or hosting.game is not None:
            raise Refusal("nobody_waiting", "nobody is waiting to be let in")
        hosting.game = HostedGame(hosting.mode, hosting.overlap or "", (hosting.name, hosting.joiner), grace=self.grace)
        hosting.resume = secrets.token_urlsafe(32)
        if self.discovery is not None:
            await self.discovery.withdraw()  # the game is no longer open to join
        await hosting.link.send({"t": "let_in", "resume": hosting.resume})
        await self._send_started(hosting.game, "room")
        hosting.deadline_task = asyncio.create_task(self._deadlines(hosting))
        await self._push_status()

    async def _cancel(self) -> None:
        hosting = self.hosting
        if hosting is not None and hosting.link is not None and hosting.game is None:
            link, hosting.link, hosting.joiner = hosting.link, None, None
            await link.send({"t": "cancel"})
            await link.close()
            await self._push_status()
            return
        if self.joining is not None and not self.joining.let_in:
            await self._stop_joining()
            await self._push_status()
            return
        raise Refusal("nobody_waiting", "there is no code to cancel")

    async def _send_started(self, game: HostedGame, via: str, *, to_host: bool = True) -> None:
        state = game.state_frame()
        hosting = self.hosting
        if to_host:
            await self._to(self.games, {"type": "matched", "game": game.id, "seat": HOST, "via": via})
            await self._to(self.games, state)
        if hosting is not None and hosting.link is not None:
            matched = {"type": "matched", "game": game.id, "seat": JOINER, "via": via}
            await hosting.link.send({"t": "frame", "frame": matched})
            await hosting.link.send({"t": "frame", "frame": state})

    async def _deliver(self, out: Out) -> None:
        """The host's game frames to both players."""
        hosting = self.hosting
        for item in out:
            if isinstance(item, Started):
                if hosting is not None and hosting.game is not None:
                    await self._send_started(hosting.game, item.via)
                continue
            await self._to(self.games, item)
            if hosting is not None and hosting.link is not None:
                await hosting.link.send({"t": "frame", "frame": item})

    async def _deadlines(self, hosting: Hosting) -> None:
        """An away joiner's grace, run out by the host as the engine service runs it out."""
        while self.hosting is hosting and hosting.game is not None:
            deadline = hosting.game.next_deadline()
            now = time.time()
            if deadline is not None and deadline <= now:
                await self._deliver(hosting.game.due(now))
                continue
            await asyncio.sleep(min(1.0, max(0.05, (deadline or now + 1.0) - now)))

    async def _from_joiner(self, link: Link, message: dict[str, Any]) -> None:
        hosting = self.hosting
        if hosting is None or hosting.link is not link:
            return
        kind = message.get("t")
        if kind == "resync" and hosting.game is not None:
            await link.send({"t": "frame", "frame": hosting.game.state_frame()})
        elif kind == "frame" and isinstance(message.get("frame"), dict):
            frame = message["frame"]
            answer = await self._game_frame(JOINER, json.dumps(frame))
            if answer is not None:
                await link.send({"t": "frame", "frame": answer})

    async def _joiner_gone(self, link: Link, why: str | None) -> None:
        hosting = self.hosting
        if hosting is None or hosting.link is not link:
            return
        hosting.link = None
        if hosting.game is None:
            hosting.joiner = None
            await self._push_status()
            return
        log.info("the joiner's link ended: %s", why or "it left")
        await self._deliver(hosting.game.connection(JOINER, False))
        await self._push_status()

    # --- joining -----------------------------------------------------------------------------------

    async def _join(self, game: str | None, address: str | None, name: str) -> None:
        name = check_name(name)
        if self.hosting is not None or self.joining is not None:
            raise Refusal("in_game", "leave the game you are in before joining another")
        if game:
            seen: SeenGame | None = self.discovery.games.get(game) if self.discovery else None
            if seen is None:
                raise Refusal("no_game", "that game is no longer on the network")
            address = seen.address
        if not address:
            raise Refusal("bad_address", "name a game of the list or type its address")
        parse_address(address)
        joining = Joining(address, name)
        self.joining = joining
        joining.task = asyncio.create_task(self._connect(joining))
        await self._push_status()

    async def _connect(self, joining: Joining) -> bool:
        """Connects and says hello; False when nothing listens at the address any more (a host
        that quit), True otherwise (the link may still fail: its end says why)."""
        host, port = parse_address(joining.address)
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), HANDSHAKE_SECONDS)
        except (OSError, TimeoutError) as exc:
            if self.joining is joining and not joining.let_in:
                self.joining = None
                await self._closed("unreachable", f"No game answers at {joining.address} ({exc}).")
            return not isinstance(exc, ConnectionRefusedError)
        try:
            keys = await secure.join(reader, writer, HANDSHAKE_SECONDS)
        except (secure.ChannelError, TimeoutError, asyncio.IncompleteReadError, OSError) as exc:
            writer.close()
            if self.joining is joining and not joining.let_in:
                self.joining = None
                await self._closed("refused", f"The host did not take the connection ({exc}).")
            return True
        if self.joining is not joining:
            writer.close()
            return True
        link = Link(secure.Channel(reader, writer, keys), self._from_host, self._host_gone)
        joining.link = link
        link.start()
        hello: dict[str, Any] = {"t": "hello", "name": joining.name}
        if joining.resume:
            hello["resume"] = joining.resume
        await link.send(hello)
        return True

    async def _from_host(self, link: Link, message: dict[str, Any]) -> None:
        joining = self.joining
        if joining is None or joining.link is not link:
            return
        kind = message.get("t")
        if kind == "hello":
            joining.host_name = str(message.get("name", ""))[:20]
            await self._push_status()
        elif kind == "let_in":
            joining.let_in = True
            joining.resume = str(message.get("resume", ""))
            await self._push_status()
        elif kind == "cancel":
            self.joining = None
            await link.close()
            busy = bool(message.get("busy"))
            await self._closed(
                "refused" if busy else "cancelled",
                "That game has its second player already." if busy else "The host did not let you in.",
            )
        elif kind == "frame" and isinstance(message.get("frame"), dict):
            frame = message["frame"]
            if frame.get("type") == "matched":
                joining.game, joining.over = frame.get("game"), False
            elif frame.get("type") == "state":
                joining.over = bool(frame.get("game", {}).get("over"))
            elif frame.get("type") == "update":
                joining.over = bool(frame.get("changes", {}).get("set", {}).get("over", joining.over))
            await self._to(self.games, frame)

    async def _host_gone(self, link: Link, why: str | None) -> None:
        joining = self.joining
        if joining is None or joining.link is not link:
            return
        joining.link = None
        if why is not None and joining.let_in and joining.resume:
            # The link broke but the host did not say it quits: the seat is kept for a while.
            log.info("the link to the host broke (%s): connecting again", why)
            joining.task = asyncio.create_task(self._reconnect(joining))
            await self._push_status()
            return
        self.joining = None
        if joining.let_in:
            await self._closed("host_left", f"{joining.host_name or 'The host'} closed the game: the game is over.")
        else:
            await self._closed("broken", f"The connection to the host ended ({why or 'the host stopped'}).")

    async def _reconnect(self, joining: Joining) -> None:
        deadline = time.monotonic() + self.grace
        while self.joining is joining and joining.link is None and time.monotonic() < deadline:
            await asyncio.sleep(RECONNECT_SECONDS)
            if not await self._connect(joining):
                break  # nothing listens there any more: the host quit
            if joining.link is not None:
                return  # linked again (should it break, its end starts another try)
        if self.joining is joining and joining.link is None:
            self.joining = None
            await self._closed("host_left", f"{joining.host_name or 'The host'} closed the game: the game is over.")

    async def _stop_joining(self) -> None:
        joining, self.joining = self.joining, None
        if joining is None:
            return
        if joining.task is not None:
            joining.task.cancel()
        if joining.link is not None:
            await joining.link.close(bye=True)

    # --- the game (/ws) ------------------------------------------------------------------------------

    async def game_frame(self, text: str, send: Send) -> None:
        """A frame of the local browser's game socket, answered as the gateway answers it."""
        if self.joining is not None and self.joining.let_in:
            try:
                frame = game_frames.parse_frame(text)
            except Refusal as refusal:
                await send(error(refusal.reason, refusal.message, _reply_to(text)))
                return
            if frame.type in ("hello", "ping", "online_menu", "visibility"):
                answer = await self._game_frame(HOST, text, local=send)
            elif self.joining.link is None:
                answer = error("unavailable", "The host cannot be reached right now: trying again.", frame.id)
            else:
                await self.joining.link.send({"t": "frame", "frame": json.loads(text)})
                return
        else:
            answer = await self._game_frame(HOST, text, local=send)
        if answer is not None:
            await send(answer)

    async def _game_frame(self, seat: int, text: str, local: Send | None = None) -> dict[str, Any] | None:
        try:
            frame = game_frames.parse_frame(text)
        except Refusal as refusal:
            return error(refusal.reason, refusal.message, _reply_to(text))
        kind = frame.type
        if kind == "ping":
            return {"type": "pong"}
        if kind == "hello" or kind == "online_menu":
            if local is None:
                return error("bad_message", f"{kind} is for the browser's own process", frame.id)
            if kind == "hello":
                await local({"type": "welcome", "device": self.device, "saved": None, "server_time": time.time()})
                if frame.game is not None and self.local_game is not None and frame.game == self.local_game.id:
                    await local(self.local_game.state_frame())
                elif frame.game is not None:
                    await self._catch_up(local)  # the page names the game it had on screen
                return None
            if not frame.open:
                return {"type": "ack", "reply_to": frame.id} if frame.id is not None else {"type": "ack"}
            await local({"type": "online_status", "game": self._running_game(), "room": None, "waiting": None})
            if self._running_game() is not None:
                await self._catch_up(local)
            return None
        if kind == "visibility":
            return {"type": "ack", "reply_to": frame.id} if frame.id is not None else {"type": "ack"}
        if kind == "new_game":
            return self._new_local_game(frame, local)
        played = self.local_game
        if played is not None and kind in PIPELINE_KINDS and getattr(frame, "game", None) == played.id:
            try:
                return played.act(kind, frame.game, edge=getattr(frame, "edge", None), expected_seq=frame.seq)
            except Refusal as refusal:
                return error(refusal.reason, refusal.message, frame.id, played.seq)
        hosting = self.hosting
        game = hosting.game if hosting is not None else None
        if game is None:
            return error("unavailable", LAN_ONLY, frame.id)
        try:
            if kind in ("roll", "draw", "end_turn", "undo", "timeout", "resign"):
                out = game.act(seat, kind, frame.game, edge=getattr(frame, "edge", None), expected_seq=frame.seq)
            elif kind == "leave":
                out = game.leave(seat, frame.game)
            elif kind == "rematch":
                out = game.rematch(seat, frame.game, frame.want)
            else:
                return error("unavailable", LAN_ONLY, frame.id)
        except Refusal as refusal:
            return error(refusal.reason, refusal.message, frame.id, game.seq)
        await self._deliver(out)
        return None

    def _new_local_game(self, frame: Any, local: Send | None) -> dict[str, Any]:
        """A local game for this page's two players (the other player's process starts none)."""
        if local is None:
            return error("bad_message", "new_game is for the browser's own process", frame.id)
        if self._running_game() is not None:
            return error("in_game", "finish the Same Wi-Fi game before starting a local one", frame.id)
        try:
            self.local_game = LocalGame(
                self.device, mode=frame.mode, overlap=frame.overlap, opponent=frame.opponent,
                first=frame.first, clock=frame.clock,
            )  # fmt: skip
        except Refusal as refusal:
            return error(refusal.reason, refusal.message, frame.id)
        return self.local_game.state_frame(frame.id)

    def _running_game(self) -> str | None:
        """The game being played, as online_status names it: a finished one is not (the player
        left it for the menu)."""
        if self.hosting is not None and self.hosting.game is not None:
            return None if self.hosting.game.game.over else self.hosting.game.id
        if self.joining is not None and self.joining.let_in and not self.joining.over:
            return self.joining.game
        return None

    async def _catch_up(self, local: Send) -> None:
        """A browser that (re)connects gets the game being played, as the gateway sends it."""
        hosting = self.hosting
        if hosting is not None and hosting.game is not None:
            await local({"type": "matched", "game": hosting.game.id, "seat": HOST, "via": "room"})
            await local(hosting.game.state_frame())
            return
        joining = self.joining
        if joining is not None and joining.let_in and joining.game is not None and joining.link is not None:
            await local({"type": "matched", "game": joining.game, "seat": JOINER, "via": "room"})
            await joining.link.send({"t": "resync"})


# The actions of a local game, as the engine's apply pipeline takes them.
PIPELINE_KINDS = frozenset({"roll", "draw", "end_turn", "undo", "resign"})


def _reply_to(text: str) -> Any:
    try:
        return game_frames.request_id(json.loads(text))
    except ValueError:
        return None
