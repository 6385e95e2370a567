"""What every server frame is built of: strict models, the protocol's small types, and the
two kinds of "nothing".

Two kinds of "nothing" are kept apart, because the client tells them apart:
- a required field that may be null (``level``, ``seed``, ``to_move``, ``winner``, ``saved``...)
  is always sent, as ``null`` when there is nothing;
- an optional field (``reply_to``, the error's ``seq``, ``previews``, ``box_holders``) is left
  out when there is nothing, and is never ``null``.
Required fields have no default; optional ones default to ``None``, which ``_Model`` refuses as
input and leaves out of the JSON, and which the JSON schema does not offer (``Absent``).
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    StrictInt,
    StrictStr,
    model_serializer,
    model_validator,
)
from pydantic.json_schema import SkipJsonSchema


def _not_bool(value: Any) -> Any:
    """Literals of numbers take ``True`` for 1 (``True == 1``); the protocol sends numbers."""
    if isinstance(value, bool):
        raise ValueError("a number, not true or false")
    return value


Absent = SkipJsonSchema[None]  # an optional field's "not sent": no null in the schema
PlayerNo = Annotated[Literal[1, 2], BeforeValidator(_not_bool)]
Winner = Annotated[Literal[0, 1, 2], BeforeValidator(_not_bool)]  # 0: a tie
Orientation = Literal["h", "v"]
Count = Annotated[StrictInt, Field(ge=0)]
Positive = Annotated[StrictInt, Field(ge=1)]
ReplyTo = Annotated[StrictStr, Field(max_length=64)] | StrictInt  # a client frame's id (client_frames.py)
EdgeRef = tuple[Orientation, Count, Count]  # ["h", row, col]
DrawnEdge = tuple[Orientation, Count, Count, PlayerNo]  # ["h", row, col, who drew it]
ScorePair = tuple[StrictInt, StrictInt]  # players 1 and 2
Opponent = Literal["ai", "local", "practice", "online"]


def _no_null_default(schema: dict[str, Any]) -> None:
    """An optional field's ``None`` means "not sent": the schema offers no null, so no default."""
    for prop in schema.get("properties", {}).values():
        if "default" in prop and prop["default"] is None:
            del prop["default"]


class _Model(BaseModel):
    """Strict about what is there (``extra="forbid"``: a field the protocol does not name is an
    error) and exact about what is not (see the module's docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True, json_schema_extra=_no_null_default)
    _optional: ClassVar[frozenset[str]] = frozenset()  # the fields left out when None

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        cls._optional = frozenset(name for name, field in cls.model_fields.items() if not field.is_required())

    @model_validator(mode="before")
    @classmethod
    def _absent_is_not_null(cls, data: Any) -> Any:
        if cls._optional and isinstance(data, dict):
            for name in cls._optional:
                if name in data and data[name] is None:
                    raise ValueError(f"{name} is left out when there is none, never null")
        return data

    @model_serializer(mode="wrap")
    def _leave_out_absent(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if self._optional and isinstance(data, dict):
            for name in self._optional:
                if name in data and data[name] is None:
                    del data[name]
        return data

    def to_json(self) -> str:
        """Compact JSON, as sent on the websocket."""
        return self.model_dump_json()



def given(**optional: Any) -> dict[str, Any]:
    """The optional fields that have a value: the others are left out, not set to null."""
    return {name: value for name, value in optional.items() if value is not None}

