"""Players' names in online games: 1 to 20 characters after trimming, letters, digits, spaces,
``_`` and ``-`` (the rule book, "Playing Online": the other player sees it)."""

from __future__ import annotations

import re

from .reasons import Refusal

NAME_MAX = 20
# \w is letters (any script), digits and "_"; nothing that could be markup or a control character.
_NAME = re.compile(r"[\w\- ]+")


def check_name(raw: str) -> str:
    """The name as it is kept (trimmed), or a ``Refusal`` (``bad_name``) saying what is wrong."""
    name = raw.strip()
    if not name:
        raise Refusal("bad_name", "choose a name of 1 to 20 characters")
    if len(name) > NAME_MAX:
        raise Refusal("bad_name", f"a name is at most {NAME_MAX} characters, not {len(name)}")
    if not _NAME.fullmatch(name):
        raise Refusal("bad_name", "a name has only letters, digits, spaces, _ and -")
    return name
