"""Seats and who may do what: the game table and ``authorize``, which decides every call on a
game; the table's one stored form; and the Redis keys laid out for Redis Cluster."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from redis.crc import key_slot

from boxedin.common.devices import device_hash
from boxedin.common.keys import Keys, partition_of
from boxedin.common.reasons import Refusal
from boxedin.engine.actions import Draw, EndTurn, Resign, Roll, Timeout, Undo, edge_from_json
from boxedin.engine.game import Game
from boxedin.engine.session.seats import COMPUTER, DEADLINE, Person, Seat, authorize
from boxedin.engine.session.setup import new_game
from boxedin.engine.session.table import Table

ROOT = Path(__file__).resolve().parents[3]
ME = device_hash("my-device-token-0123456789")
THEM = device_hash("their-device-token-0123456789")


def started(opponent: str, level: str = "", first: int = 1, mode: str = "classic") -> tuple[Game, Table]:
    return new_game(ME, mode=mode, opponent=opponent, level=level, first=first)


def reason(call: object) -> str:
    with pytest.raises(Refusal) as refused:
        call()  # type: ignore[operator]
    return refused.value.reason


# --- seats ------------------------------------------------------------------------------------


def test_against_the_ai_the_person_holds_seat_one_and_the_ai_seat_two() -> None:
    _, table = started("ai", "hard")
    assert table.seats == (Seat("human", "You", device=ME), Seat("ai", "AI (Hard)", level="hard"))
    assert (table.opponent, table.level, table.computer_seat()) == ("ai", "hard", 2)


def test_a_local_game_gives_both_seats_to_the_same_device() -> None:
    _, table = started("local")
    assert [s.device for s in table.seats] == [ME, ME]
    assert [s.name for s in table.seats] == ["Player 1", "Player 2"]
    assert table.opponent == "local" and table.computer_seat() is None and table.held_by(ME) == [1, 2]


def test_the_practice_computer_holds_seat_two_and_the_person_always_starts() -> None:
    game, table = new_game(ME, mode="practice_3x3", opponent="practice", first=2, seed="s")
    assert table.seats[1] == Seat("practice", "Computer") and game.to_move == 1
    assert not table.saved  # beside the saved game, never replacing it


def test_the_device_is_kept_as_a_hash_of_its_token() -> None:
    token = "my-device-token-0123456789"
    _, table = new_game(device_hash(token), mode="classic", opponent="ai")
    assert token not in table.to_json() and table.seats[0].device == device_hash(token)
    assert len(device_hash(token)) == 64


def test_the_table_round_trips_through_its_stored_form() -> None:
    _, table = started("ai", "expert")
    table.deadline, table.hidden = 1795000000.5, True
    assert Table.from_json(table.to_json()) == table


def test_a_table_of_the_old_layout_does_not_load() -> None:
    old = '{"device": "x", "opponent": "ai", "level": "easy", "clock": 0}'
    with pytest.raises(ValueError, match="version"):
        Table.from_json(old)


# --- authorize ----------------------------------------------------------------------------------


def test_another_device_may_neither_see_nor_play_a_game() -> None:
    game, table = started("local")
    assert reason(lambda: authorize(table, game, Person(THEM), "view")) == "not_your_game"
    assert reason(lambda: authorize(table, game, Person(THEM), Roll())) == "not_your_game"


def test_in_a_local_game_the_device_plays_whichever_seat_is_to_move() -> None:
    game, table = started("local", first=2)
    assert authorize(table, game, Person(ME), Roll()) == 2
    assert authorize(table, game, Person(ME), Resign(0)) == 2


def test_the_person_cannot_act_while_the_computer_is_to_move() -> None:
    game, table = started("ai", "easy", first=2)
    assert reason(lambda: authorize(table, game, Person(ME), Roll())) == "not_your_turn"
    # ...but may resign at any moment: the person's own seat resigns.
    assert authorize(table, game, Person(ME), Resign(0)) == 1
    assert authorize(table, game, Person(ME), "view") == 1


def test_the_computer_acts_only_on_its_own_turn_and_only_with_moves() -> None:
    game, table = started("ai", "easy", first=1)
    assert reason(lambda: authorize(table, game, COMPUTER, Roll())) == "not_your_turn"
    game.apply(Roll(3))
    assert reason(lambda: authorize(table, game, COMPUTER, Draw(edge_from_json(["h", 0, 0])))) == "not_your_turn"
    game, table = started("ai", "easy", first=2)
    assert authorize(table, game, COMPUTER, Roll()) == 2
    assert reason(lambda: authorize(table, game, COMPUTER, Undo())) == "malformed"
    assert reason(lambda: authorize(table, game, COMPUTER, Resign(0))) == "malformed"
    assert authorize(table, game, COMPUTER, EndTurn()) == 2


def test_a_local_game_has_no_computer_to_act_for() -> None:
    game, table = started("local")
    assert reason(lambda: authorize(table, game, COMPUTER, Roll())) == "not_your_turn"


def test_a_deadline_can_only_end_a_turn() -> None:
    game, table = started("local")
    assert authorize(table, game, DEADLINE, Timeout()) == 1
    assert reason(lambda: authorize(table, game, DEADLINE, Roll())) == "malformed"


# --- keys ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("partitions", [1, 4, 16])
def test_a_games_keys_share_one_slot_with_its_partitions_work_stream_and_deadlines(partitions: int) -> None:
    keys = Keys("boxedin:", partitions)
    for n in range(200):
        game_id = f"g_{n:08x}abc"
        p = partition_of(game_id, partitions)
        slots = {
            key_slot(k.encode()) for k in (keys.game(game_id), keys.updates(game_id), keys.work(p), keys.deadlines(p))
        }
        assert len(slots) == 1, game_id
    assert len(keys.work_streams()) == partitions == len(set(keys.deadline_sets()))


def test_the_partition_of_a_game_is_the_same_in_every_process() -> None:
    # CRC-32, not Python's salted hash(): these values hold in any process.
    assert [partition_of(g, 16) for g in ("g_a", "g_b", "g_c")] == [2, 8, 14]


def test_a_key_prefix_with_braces_is_refused() -> None:
    with pytest.raises(ValueError, match="hash tag"):
        Keys("boxed{in}:")


def test_every_redis_key_is_named_in_the_keys_module() -> None:
    """No service writes a key name of its own: f-strings with the key prefix live in keys.py."""
    offenders = []
    for path in (ROOT / "services").rglob("*.py"):
        if path.name == "keys.py" or "v1" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.JoinedStr) and "prefix" in ast.unparse(node):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == []


# --- the architecture ---------------------------------------------------------------------------


def imported_modules(folder: Path) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for path in folder.rglob("*.py"):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                names.add(base)
                names.update(f"{base}.{alias.name}" for alias in node.names)
        found[str(path.relative_to(ROOT))] = names
    return found


def test_the_engine_never_calls_the_ai() -> None:
    for path, names in imported_modules(ROOT / "services" / "engine").items():
        assert not {n for n in names if n.endswith(("ai_pb2_grpc", "ai_pb2")) or ".ai." in f"{n}."}, path


def test_the_gateway_asks_the_ai_service_for_reviews_only() -> None:
    """Computer turns never go through the gateway: its one call to the AI service is Review
    (in the session), and it imports nothing of the AI's code."""
    for path, names in imported_modules(ROOT / "services" / "gateway").items():
        assert not {n for n in names if n.startswith("boxedin.ai")}, path
        text = (ROOT / path).read_text()
        calls = set(re.findall(r"self\.ai\.(\w+)\(", text))
        assert calls <= {"Review"}, path
        if {n for n in names if n.endswith(("ai_pb2_grpc", "ai_pb2"))}:
            assert Path(path).name in ("session.py", "app.py"), path


def test_the_session_layer_does_no_io_and_never_imports_the_service() -> None:
    """The session layer is pure: the engine service and a Same Wi-Fi host call it, never the
    other way round, and it touches neither the network, the wire format nor the store."""
    forbidden = ("boxedin.engine.service", "boxedin.v1", "grpc", "redis")
    session = ROOT / "services" / "engine" / "session"
    for path, names in imported_modules(session).items():
        assert not {n for n in names if n.startswith(forbidden)}, path
    for path in session.rglob("*.py"):
        # A relative import reaching out of the package (``from ..service import ...``) counts too.
        outward = [node for node in ast.walk(ast.parse(path.read_text())) if isinstance(node, ast.ImportFrom)]
        assert not [node.module for node in outward if node.level > 1], path
