"""Find rule systems by name: registered in code (`register`) or installed as entry points in the group
`smarttable.rulesets` (as gpiozero finds pin factories), loaded only when first asked for.

This is the core's view of a rule system: its name and what it declares (the `Declared` protocol), so
that the scene parser can ask for a system's `extra_scene_keys` without importing the rule systems.
`table.rules.get_ruleset` gives the same class typed as a `Ruleset`.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from typing import Any, ClassVar, Protocol, TypeVar

from table.errors import QueryError

GROUP = "smarttable.rulesets"


class Declared(Protocol):
    """What every rule-system class declares about itself (see `table.rules.base.Ruleset`)."""

    name: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]]
    title: ClassVar[str]
    extra_scene_keys: ClassVar[Mapping[str, frozenset[str]]]


C = TypeVar("C", bound=type[Any])

_REGISTERED: dict[str, type[Any]] = {}  # name and aliases -> class


def register(cls: C) -> C:
    """Class decorator: make a rule system findable by its name and aliases."""
    for key in (cls.name, *cls.aliases):
        _REGISTERED[key] = cls
    return cls


def unregister(cls: type[Any]) -> None:
    """Forget a class registered in code (a test's toy rule system)."""
    for key in [k for k, v in _REGISTERED.items() if v is cls]:
        del _REGISTERED[key]


@cache
def _installed() -> dict[str, EntryPoint]:
    return {ep.name: ep for ep in entry_points(group=GROUP)}


def names() -> list[str]:
    """Every rule system's name, without loading any."""
    return sorted(set(_installed()) | {cls.name for cls in _REGISTERED.values()})


def find(name: str) -> type[Declared]:
    """The rule-system class called `name` (or by an alias), loading its package on first use."""
    if name not in _REGISTERED and name in _installed():
        register(_installed()[name].load())
    if name not in _REGISTERED:
        _load_all()  # an alias is known only once its class is loaded
    try:
        return _REGISTERED[name]
    except KeyError:
        known = ", ".join(names())
        hint = "" if _installed() else f" (no {GROUP} entry points: install the table, scripts/setup.sh)"
        raise QueryError(f"unknown rule system {name!r} (known: {known}){hint}") from None


def every() -> list[type[Declared]]:
    """Every rule-system class, by name (this loads them all)."""
    _load_all()
    return sorted(set(_REGISTERED.values()), key=lambda cls: cls.name)


def _load_all() -> None:
    for name, entry in _installed().items():
        if name not in _REGISTERED:
            register(entry.load())
