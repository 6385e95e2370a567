"""The rule set of a game, and the named presets of the rule book (modes) and the practice boards.

A mode only names values of the general rule set; the engine plays the rule set.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum


class RulesError(ValueError):
    """A rule set, mode or overlap rule that does not exist."""


class Overlap(IntEnum):
    """The 13 overlap rules, in the order of the menu's list. The values are stable codes."""

    INDEPENDENT = 0
    CONSUME = 1
    EXCLUSIVE = 2
    TAKEOVER = 3
    PROTECTED = 4
    LAYERED = 5
    VOLATILE = 6
    BUILDER = 7
    TERRITORY = 8
    MAJORITY = 9
    FORTRESS = 10
    HOME_TURF = 11
    CAPPED_LAYERED = 12

    @property
    def id(self) -> str:
        return self.name.lower()

    @classmethod
    def from_id(cls, rule_id: str) -> Overlap:
        for rule in cls:
            if rule.id == rule_id:
                return rule
        known = ", ".join(rule.id for rule in cls)
        raise RulesError(f"unknown overlap rule {rule_id!r}; the rules are {known}")

    @property
    def smallest_first(self) -> bool:
        """Whether squares completed by one edge resolve smallest first (else largest first)."""
        return self in (Overlap.BUILDER, Overlap.MAJORITY)

    @property
    def can_block(self) -> bool:
        """Whether a square can be blocked for good before it is complete (so edges can die)."""
        return self in (Overlap.CONSUME, Overlap.EXCLUSIVE, Overlap.PROTECTED, Overlap.FORTRESS)


OVERLAP_SUMMARIES: dict[Overlap, str] = {
    Overlap.INDEPENDENT: "Every square scores",
    Overlap.CONSUME: "Large squares absorb small ones",
    Overlap.EXCLUSIVE: "No overlaps at all",
    Overlap.TAKEOVER: "Large squares capture small ones",
    Overlap.PROTECTED: "Small squares block large ones",
    Overlap.LAYERED: "Bonus for overlapping your own squares",
    Overlap.VOLATILE: "Large squares erase the opponent's small ones",
    Overlap.BUILDER: "Bonus for building small to large",
    Overlap.TERRITORY: "Boxes count, not squares",
    Overlap.MAJORITY: "Boxes decide who gets the large squares",
    Overlap.FORTRESS: "Only the owner of the inside closes the outside",
    Overlap.HOME_TURF: "Double at home, nothing away",
    Overlap.CAPPED_LAYERED: "Layered, but a square can at most double",
}


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Everything that decides how a game is played.

    ``die`` is the number of faces, or ``None`` for a game without dice, where every turn is one
    line (``capture_owes_line``: and one more after every capture).
    """

    boxes: int
    die: int | None
    sizes: tuple[int, ...] = (1,)
    overlap: Overlap = Overlap.INDEPENDENT
    capturing_edge_free: bool = False
    capture_owes_line: bool = False

    def __post_init__(self) -> None:
        if not 1 <= self.boxes <= 16:
            raise RulesError(f"a board has 1 to 16 boxes per side, not {self.boxes}")
        if self.die is not None and not 1 <= self.die <= 64:
            raise RulesError(f"a die has 1 to 64 faces, not {self.die}")
        if not self.sizes or self.sizes[0] != 1 or list(self.sizes) != sorted(set(self.sizes)):
            raise RulesError(f"square sizes start at 1 and rise: {self.sizes}")
        if self.sizes[-1] > self.boxes:
            raise RulesError(f"a {self.sizes[-1]}x{self.sizes[-1]} square does not fit the board")
        if self.die is None and self.capturing_edge_free:
            raise RulesError("a capturing edge can only be free in a game with dice")
        if self.die is not None and self.capture_owes_line:
            raise RulesError("a capture owes another line only in a game without dice")
        if len(self.sizes) == 1 and self.overlap is not Overlap.INDEPENDENT:
            raise RulesError("a game with 1x1 boxes only has no overlap rule")

    @property
    def has_overlap(self) -> bool:
        """Whether squares of several sizes exist, so that an overlap rule applies."""
        return len(self.sizes) > 1

    @property
    def dots(self) -> int:
        return self.boxes + 1

    @property
    def edge_count(self) -> int:
        return 2 * self.boxes * (self.boxes + 1)

    def with_overlap(self, overlap: Overlap) -> RuleSet:
        return RuleSet(
            self.boxes,
            self.die,
            self.sizes,
            overlap,
            self.capturing_edge_free,
            self.capture_owes_line,
        )


@dataclass(frozen=True, slots=True)
class Mode:
    """A named preset: the rule book's nine modes and the practice boards."""

    id: str
    name: str
    tagline: str  # the menu's line under the name (web/src/generated/rules.ts carries it)
    rules: RuleSet
    practice: bool = False

    def rules_with(self, overlap: Overlap | None) -> RuleSet:
        if overlap is None:
            return self.rules
        if not self.rules.has_overlap:
            raise RulesError(f"{self.name} has 1x1 boxes only and takes no overlap rule")
        return self.rules.with_overlap(overlap)


def _standard(boxes: int) -> RuleSet:
    return RuleSet(boxes, None, capture_owes_line=True)


MODES: dict[str, Mode] = {
    mode.id: mode
    for mode in (
        Mode("mini", "Mini", "Done in a minute or two", RuleSet(3, 4)),
        Mode("standard", "Standard", "The pencil-and-paper game", _standard(5)),
        Mode("quick", "Quick", "Short dice games", RuleSet(5, 6)),
        Mode("classic", "Classic", "The balanced all-rounder", RuleSet(7, 6)),
        Mode(
            "chain_reaction",
            "Chain Reaction",
            "Captures come in rows",
            RuleSet(7, 6, capturing_edge_free=True),
        ),
        Mode("marathon", "Marathon", "The long haul", RuleSet(11, 8)),
        Mode("strategic", "Strategic", "Boxes and 2×2 squares", RuleSet(9, 8, (1, 2))),
        Mode("big_squares", "Big Squares", "Big points, big outlines", RuleSet(9, 10, (1, 2, 3))),
        Mode(
            "expert",
            "Expert",
            "Everything at once",
            RuleSet(11, 12, (1, 2, 3), Overlap.CONSUME),
        ),
        Mode("practice_2x2", "Practice 2x2", "Seeded practice", _standard(2), practice=True),
        Mode("practice_3x3", "Practice 3x3", "Seeded practice", _standard(3), practice=True),
        Mode("practice_4x4", "Practice 4x4", "Seeded practice", _standard(4), practice=True),
    )
}


def mode_by_id(mode_id: str) -> Mode:
    try:
        return MODES[mode_id]
    except KeyError:
        known = ", ".join(MODES)
        raise RulesError(f"unknown mode {mode_id!r}; the modes are {known}") from None
