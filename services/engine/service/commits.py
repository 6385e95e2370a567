"""What every engine call stands on: loading a game (from this process's copy when it is
current), committing a change with compare-and-set together with its update, the computer turn
it leaves and its next deadline, and the snapshots the calls reply with."""

from __future__ import annotations

import time
from collections.abc import Awaitable
from typing import Any, TypeVar

import grpc
import redis.asyncio as redis

from boxedin.common.devices import device_hash
from boxedin.common.metrics import CAS_CONFLICTS, GAMES_FINISHED, RULE_ERRORS
from boxedin.common.reasons import Refusal, abort
from boxedin.common.service_auth import calling_service
from boxedin.common.settings import Settings
from boxedin.engine import codec
from boxedin.engine.game import Game
from boxedin.engine.session import online, watch
from boxedin.engine.session.changes import LastStates, update_changes
from boxedin.engine.session.seats import COMPUTER, Caller, Person, View, authorize
from boxedin.engine.session.state import game_state, to_json, update_frame
from boxedin.engine.session.table import Table
from boxedin.v1 import common_pb2, engine_pb2_grpc

from .convert import facts, finished_game, mode_of
from .copies import GameCopies
from .store import Commit, GameStore, StoredGame

# The games kept decoded, as BOXEDIN_ENGINE_GAME_COPIES says by default.
GAME_COPIES: int = Settings.model_fields["engine_game_copies"].default
_Request = TypeVar("_Request")
_Reply = TypeVar("_Reply")


class CommittingService(engine_pb2_grpc.EngineServicer):
    """The engine service's store, its copies of recent games and their last states, and the
    load and commit every call goes through."""

    def __init__(self, store: GameStore, *, act_from_copy: bool = True, copies: int = GAME_COPIES) -> None:
        self.store = store
        # Decoded games: consecutive actions on one game skip reading and replaying it.
        # act_from_copy False: every action reads the game first (`boxedin bench actions`
        # measures that path beside today's).
        self.copies = GameCopies(copies, act_from_copy=act_from_copy)
        # The last state of each recent game: an update carries the changes from it.
        self._states = LastStates(copies)

    # --- plumbing ---------------------------------------------------------------------------

    async def _load(self, game_id: str) -> tuple[StoredGame, Game]:
        try:
            stored = await self.store.load(game_id)
        except redis.RedisError as exc:
            raise Refusal("unavailable", "the game store cannot be reached; the game is unchanged") from exc
        if stored is None:
            raise Refusal("no_game", "there is no such game (it may have finished or been replaced)")
        return stored, self.copies.game_as_read(stored)

    async def _load_for(
        self, game_id: str, device: str, what: View, watch_id: str = ""
    ) -> tuple[StoredGame, Game, int]:
        """Loads a game a device may see, with the device's seat. Only the AI service reads a
        game without a device: one where the computer has a seat (the seat is then 0); and a
        watcher reads an online game with its watch id (seat 0)."""
        if watch_id and not device and what == "view":
            watch.check_watch_id(watch_id)
            try:
                stored, game = await self._load(game_id)
                leads_here = await self.store.watched_game_id(watch_id) == game_id
            except redis.RedisError as exc:
                raise Refusal("unavailable", "the game store cannot be reached") from exc
            except Refusal as refusal:
                raise Refusal("no_watch") if refusal.reason == "no_game" else refusal from None
            if not leads_here:
                raise Refusal("no_watch")
            return stored, game, 0
        if not device and calling_service() == "ai":
            caller: Caller = COMPUTER
        else:
            caller = Person(device_hash(device))
        stored, game = await self._load(game_id)
        self.copies.keep(stored, game)
        seat = authorize(stored.table, game, caller, what)
        return stored, game, seat if isinstance(caller, Person) else 0

    def _snapshot(
        self,
        game_id: str,
        seq: int,
        game: Game,
        table: Table,
        state_json: str,
        *,
        update: str = "",
        encoded: bytes | None = None,
        game_facts: common_pb2.GameFacts | None = None,
    ) -> common_pb2.GameSnapshot:
        return common_pb2.GameSnapshot(
            update_json=update,
            game_id=game_id,
            seq=seq,
            state_json=state_json,
            opponent=table.opponent,
            level=table.level or "",
            to_move=game.to_move or 0,
            over=game.over,
            ai_speed=table.ai_speed,
            record=encoded if encoded is not None else codec.encode(game),
            facts=game_facts if game_facts is not None else facts(seq, game, table),
        )

    def _read(self, stored: StoredGame, game: Game, seat: int = 0) -> common_pb2.GameSnapshot:
        """A game as it stands, for a call that changes nothing."""
        state = game_state(stored.game_id, stored.seq, game, stored.table, time.time())
        self._states.keep(stored.game_id, stored.seq, state)
        snapshot = self._snapshot(stored.game_id, stored.seq, game, stored.table, to_json(state))
        snapshot.seat = seat
        return snapshot

    def _computer_turn(
        self, game_id: str, seq: int, game: Game, table: Table, caller: Caller | None
    ) -> common_pb2.ComputerTurn | None:
        """The computer turn a change leaves to play: when the computer is to move after it and
        the change was not the computer's own (it plays its turn to the end by itself)."""
        if caller is COMPUTER or not table.computer_to_move(game):
            return None
        return common_pb2.ComputerTurn(game_id=game_id, seq=seq, turn=int(game.position.turn))

    async def _commit(
        self,
        stored: StoredGame,
        game: Game,
        action: dict[str, Any],
        now: float,
        caller: Caller | None,
        *,
        finishes: bool | None = None,
        whole_state: bool = True,
        with_record: bool = True,
        repeat_key: str = "",
    ) -> common_pb2.GameSnapshot:
        """Stores the changed game if nobody else changed it first, with its update, the
        computer turn it leaves to play and its next deadline. ``finishes``: the change ended
        the game (by default, when the game is over; a change after the end, such as a rematch
        ask, does not finish it again). ``whole_state``: the snapshot carries the whole state
        (an action's caller passes on the update and needs it only when it asks), and
        ``with_record`` the serialised game (only the AI reads it). ``repeat_key``:
        the action's identity, under which the commit keeps the seq it makes."""
        table = stored.table
        if finishes is None:
            finishes = game.over
        table.updated = now
        online.note_change(table, action, stored.seq)
        seq = stored.seq + 1
        before = self._states.at(stored.game_id, stored.seq)
        recomputed = before is None
        if before is None:
            if stored.kept:
                raise Refusal("busy", "this process's copy of the game was forgotten meanwhile; try again")
            before = game_state(stored.game_id, stored.seq, codec.decode(stored.game), table, now)
        state = game_state(stored.game_id, seq, game, table, now)
        state_json = to_json(state) if whole_state else ""
        body = update_frame(seq, action, to_json(update_changes(before, state, recomputed=recomputed)))
        game_facts = facts(seq, game, table)
        encoded = codec.encode(game)
        record_json = table.to_json()
        change = Commit(
            update=common_pb2.Update(game_id=stored.game_id, seq=seq, frame_json=body, facts=game_facts),
            computer_turn=self._computer_turn(stored.game_id, seq, game, table, caller),
            finished_game=finished_game(stored.game_id, encoded, table, now) if finishes else None,
            over=game.over,
            online=table.online is not None,
        )
        try:
            rev = await self.store.commit(
                stored.game_id, mode_of(game), stored.seq, encoded, table, change,
                expected_rev=stored.rev if stored.kept else None, record_json=record_json,
                repeat_key=repeat_key,
            )  # fmt: skip
        except redis.RedisError as exc:
            raise Refusal("unavailable", "the game store cannot be reached; the game is unchanged") from exc
        if not rev:
            if not stored.kept:
                CAS_CONFLICTS.inc()
            raise Refusal("busy", "another action on this game was applied at the same moment; try again")
        self.copies.keep(StoredGame(stored.game_id, seq, b"", table, rev, record_json), game)
        self._states.keep(stored.game_id, seq, state)
        if finishes:
            GAMES_FINISHED.labels(mode_of(game), table.opponent).inc()
        return self._snapshot(
            stored.game_id, seq, game, table, state_json,
            update=body, encoded=encoded if with_record else b"", game_facts=game_facts,
        )  # fmt: skip

    async def _store_new(self, game_id: str, game: Game, table: Table, change: Commit) -> None:
        """Stores a new game (one that must not exist yet) and keeps this process's copy of it."""
        record_json = table.to_json()
        rev = await self.store.commit(
            game_id, mode_of(game), -1, codec.encode(game), table, change, record_json=record_json
        )
        if not rev:
            # The id is stored already: only a caller's chosen id can be (CreateGameRequest.game_id).
            raise Refusal("busy", "a game with this id exists already; try again")
        self.copies.keep(StoredGame(game_id, 0, b"", table, rev, record_json), game)

    async def _guard(self, context: grpc.aio.ServicerContext[_Request, _Reply], work: Awaitable[_Reply]) -> _Reply:
        try:
            return await work
        except Refusal as refusal:
            RULE_ERRORS.labels(refusal.reason).inc()
            await abort(context, refusal)
