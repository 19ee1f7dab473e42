"""Validating parsed JSON documents: each check names the document and the JSON path that failed."""

from __future__ import annotations

import difflib
import math
from collections.abc import Collection
from typing import Any

from table.errors import SceneError

MAX_MAGNITUDE = 1e6  # no board length, size or coordinate comes near this; beyond it is a mistake

Hex = tuple[int, int]


class JsonReader:
    """Checks JSON values at a path; every failure is an error naming the source and the path."""

    def __init__(self, source: str, error: type[Exception] = SceneError):
        self.source = source
        self.error = error

    def fail(self, path: str, message: str) -> Exception:
        where = f"{self.source}: " if self.source else ""
        return self.error(f"{where}{path}: {message}")

    def obj(self, value: Any, path: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(path, f"expected an object, got {kind_of(value)}")
        return value

    def array(self, value: Any, path: str) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(path, f"expected an array, got {kind_of(value)}")
        return value

    def keys(self, data: dict[str, Any], path: str, known: Collection[str]) -> None:
        """Every key of `data` is one of `known`; else name the first stranger and its nearest known key."""
        for key in data:
            if key not in known:
                raise self.fail(f"{path}.{key}" if path != "$" else str(key),
                                f"unknown key; {hint(str(key), known, 'keys')}")

    def choice(self, value: Any, path: str, known: Collection[str], what: str) -> str:
        """`value`, one of the strings `known`; else name it and the nearest known one (`what`: "trait")."""
        if isinstance(value, str) and value in known:
            return value
        raise self.fail(path, f"unknown {what} {value!r}; {hint(str(value), known, what + 's')}")

    def number(self, value: Any, path: str, *, minimum: float | None = None, positive: bool = False) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(path, f"expected a number, got {kind_of(value)}")
        if isinstance(value, float) and not math.isfinite(value):
            raise self.fail(path, f"expected a finite number, got {value}")
        if abs(value) > MAX_MAGNITUDE:
            raise self.fail(path, f"out of range (at most {MAX_MAGNITUDE:g} either side of 0)")
        if positive and value <= 0:
            raise self.fail(path, f"must be greater than 0, got {value}")
        if minimum is not None and value < minimum:
            raise self.fail(path, f"must be at least {minimum}, got {value}")
        return float(value)

    def integer(self, value: Any, path: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(path, f"expected an integer, got {kind_of(value)}")
        if abs(value) > MAX_MAGNITUDE:
            raise self.fail(path, f"out of range (at most {MAX_MAGNITUDE:g} either side of 0)")
        return value

    def string(self, value: Any, path: str) -> str:
        if not isinstance(value, str) or not value:
            raise self.fail(path, f"expected a non-empty string, got {kind_of(value)}")
        return value

    def point(self, value: Any, path: str) -> tuple[float, float]:
        items = self.array(value, path)
        if len(items) != 2:
            raise self.fail(path, f"expected [x, y], got {len(items)} numbers")
        return (self.number(items[0], f"{path}[0]"), self.number(items[1], f"{path}[1]"))

    def hex(self, value: Any, path: str) -> Hex:
        items = self.array(value, path)
        if len(items) != 2:
            raise self.fail(path, f"expected [q, r], got {len(items)} values")
        return (self.integer(items[0], f"{path}[0]"), self.integer(items[1], f"{path}[1]"))


_KINDS: dict[type, str] = {dict: "an object", list: "an array", str: "a string"}


def kind_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return _KINDS.get(type(value), type(value).__name__)


def hint(word: str, known: Collection[str], plural: str) -> str:
    """'did you mean "x"?' for the nearest of `known`, else the list of them ("known traits: a, b")."""
    close = difflib.get_close_matches(word, sorted(known), n=1, cutoff=0.6)
    return f'did you mean "{close[0]}"?' if close else f"known {plural}: {', '.join(sorted(known))}"
