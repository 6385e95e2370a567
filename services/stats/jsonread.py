"""Reading stored JSON back strictly: a value of the wrong type is a ``ValueError`` that names
it, never a silent default."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def obj(value: object, what: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"{what} is a JSON object, not {value!r}")
    return value


def whole(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} is a whole number, not {value!r}")
    return value


def number(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{what} is a number, not {value!r}")
    return float(value)


def text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{what} is a string, not {value!r}")
    return value


def optional(value: object, what: str, read: Any) -> Any:
    """None stays None; anything else is read with ``read(value, what)``."""
    return None if value is None else read(value, what)


def field(data: Mapping[str, Any], key: str, what: str) -> Any:
    if key not in data:
        raise ValueError(f"{what} has no {key!r}")
    return data[key]


def counts(value: object, what: str) -> dict[str, int]:
    """An object of whole numbers, e.g. the dice distribution."""
    return {str(k): whole(v, f"{what}[{k!r}]") for k, v in obj(value, what).items()}
