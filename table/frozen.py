"""Deeply immutable JSON values: objects as read-only mappings, arrays as tuples.

`freeze` copies a JSON-like value (dicts, lists, tuples, scalars) into a form nobody can change (the
read-only mappings wrap fresh dicts that no one else holds); `thaw` copies it back into plain dicts and
lists, which a reader may change freely without touching the frozen value. A frozen value equals the
JSON it was made from (a frozen array equals the list of the same items), and `json` writes it as that
JSON but for the read-only mappings (`thaw` first).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

FrozenJson = Any       # a frozen JSON value: MappingProxyType, FrozenList, str, int, float, bool or None


class FrozenList(tuple[Any, ...]):
    """A frozen JSON array: a tuple that also equals the list of the same items, as the array it froze."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return tuple.__eq__(self, tuple(other) if isinstance(other, list) else other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = tuple.__hash__


def freeze(value: Any) -> FrozenJson:
    """A deeply immutable copy of a JSON-like value (already frozen parts are copied all the same)."""
    if isinstance(value, Mapping):
        return MappingProxyType({str(k): freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return FrozenList(freeze(v) for v in value)
    return value


def freeze_mapping(value: Mapping[str, Any]) -> Mapping[str, FrozenJson]:
    """`freeze` for an object, typed as a mapping."""
    return MappingProxyType({str(k): freeze(v) for k, v in value.items()})


def thaw(value: Any) -> Any:
    """A plain JSON copy (dicts and lists) of a frozen (or any JSON-like) value."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [thaw(v) for v in value]
    return value
