"""Camera sources and LED strips found by name: entry points in the groups `smarttable.cameras` and
`smarttable.strips` (pyproject.toml), or `register()` in code, each loaded only when first asked for,
the way gpiozero finds its pin factories (`gpiozero_pin_factories`).

A name is what the config gives (`camera.source`, `hardware.strip`); an unknown one is a ConfigError
naming that key and the known names.
"""

from __future__ import annotations

from functools import cache
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from table.errors import ConfigError, SetupError


class Plugins:
    """The classes of one kind (cameras, strips), by name; `key` is the config key that names one."""

    def __init__(self, group: str, key: str, what: str):
        self.group, self.key, self.what = group, key, what
        self._registered: dict[str, type[Any]] = {}

    def register(self, name: str, cls: type[Any]) -> None:
        """Make a class findable by `name` (a class that is not installed: a test's toy)."""
        self._registered[name] = cls

    def unregister(self, name: str) -> None:
        self._registered.pop(name, None)

    def names(self) -> list[str]:
        """Every name, without loading any class."""
        return sorted(set(_installed(self.group)) | set(self._registered))

    def load(self, name: str) -> type[Any]:
        """The class called `name`, importing its module on first use."""
        if name in self._registered:
            return self._registered[name]
        entry = _installed(self.group).get(name)
        if entry is None:
            hint = "" if _installed(self.group) else f" (no {self.group} entry points: install the table, " \
                                                      "scripts/setup.sh)"
            raise ConfigError(f"{self.key}: unknown {self.what} {name!r} (known: {', '.join(self.names())})"
                              f"{hint}")
        try:
            cls: type[Any] = entry.load()
        except (ImportError, AttributeError) as exc:
            raise SetupError(f"{self.key}: the {self.what} {name!r} ({entry.value}) cannot load: "
                             f"{exc}") from None
        self._registered[name] = cls
        return cls


@cache
def _installed(group: str) -> dict[str, EntryPoint]:
    return {ep.name: ep for ep in entry_points(group=group)}


CAMERAS = Plugins("smarttable.cameras", "camera.source", "camera source")
STRIPS = Plugins("smarttable.strips", "hardware.strip", "LED strip")
