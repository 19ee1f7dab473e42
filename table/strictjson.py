"""Strict JSON in and out: no NaN or Infinity either way, and no nesting deep enough to crash.

Python's `json` reads and writes `NaN`, `Infinity` and `-Infinity`, which are not JSON: a browser's
`JSON.parse` refuses them, so one such value would blank every phone's panel. Every document the
table reads from outside goes through `loads`, every one it writes through `dumps`.
"""

from __future__ import annotations

import json
import math
from typing import Any

MAX_DEPTH = 64          # deeper than any scene, event or request the table knows
MAX_DIGITS = 100        # a whole number longer than this is no count, id or seq the table knows (Python
                        # itself refuses past 4,300 digits, with a ValueError that is no JSON error)


class StrictJsonError(ValueError):
    """A document that is not strict JSON; the message says where (a line, a column or a path), and
    `path` names the value when it is known (`rulings.climb_cost`, `terrain[2].polygon[0]`)."""

    def __init__(self, message: str, path: str = "") -> None:
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path


class _TooLong:
    """Stands in for a whole number with too many digits until its path is found."""


class NonFiniteError(StrictJsonError):
    """NaN, Infinity, or a number too large to be finite."""


def _refuse_constant(name: str) -> Any:
    raise NonFiniteError(f"{name} is not a JSON number (only finite numbers are allowed)")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise NonFiniteError(f"{text} is too large for a number")
    return value


def loads(text: str | bytes) -> Any:
    """Parse strict JSON: StrictJsonError for NaN/Infinity, numbers that overflow to infinity,
    integers of more than MAX_DIGITS digits (with their path), nesting deeper than MAX_DEPTH or
    malformed text (with the line and column). Linear in the text's length whatever it holds: the
    standard library's parser reads it (deeper than the interpreter's recursion limit is a
    RecursionError at once), then the nesting of what it read is checked."""
    too_long: list[str] = []

    def whole(digits: str) -> Any:
        if len(digits.lstrip("-")) > MAX_DIGITS:
            too_long.append(digits)
            return _TooLong()
        return int(digits)

    try:
        value = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float, parse_int=whole)
    except json.JSONDecodeError as exc:
        raise StrictJsonError(f"line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise StrictJsonError(f"nested more than {MAX_DEPTH} deep") from None
    if _nested_deeper(value, text):
        raise StrictJsonError(f"nested more than {MAX_DEPTH} deep")
    if too_long:
        digits = len(too_long[0].lstrip("-"))
        raise StrictJsonError(f"a whole number too long to read ({digits:,} digits, at most {MAX_DIGITS})",
                              _path_of(value, ""))
    return value


def _path_of(value: Any, path: str) -> str:
    """Where the first too-long number is (`a.b[2]`; "" for the whole document)."""
    if isinstance(value, _TooLong):
        return path
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found = _path_of(item, f"{path}[{key}]" if isinstance(key, int) else f"{path}.{key}" if path else key)
        if found or isinstance(item, _TooLong):
            return found
    return ""


def _nested_deeper(value: Any, text: str | bytes) -> bool:
    """The parsed document nests arrays and objects deeper than MAX_DEPTH (looked at, one level at a
    time, only when the text has enough brackets for it)."""
    if isinstance(text, str):
        brackets = text.count("[") + text.count("{")
    else:
        brackets = text.count(b"[") + text.count(b"{")
    level = [value] if brackets > MAX_DEPTH and isinstance(value, (dict, list)) else []
    for _ in range(MAX_DEPTH):
        below: list[Any] = []
        for item in level:
            for child in item.values() if isinstance(item, dict) else item:
                if isinstance(child, (dict, list)):
                    below.append(child)
        level = below
    return bool(level)


def dumps(value: Any, **options: Any) -> str:
    """Serialise as strict JSON (ValueError for a non-finite number); compact unless told otherwise."""
    options.setdefault("separators", (",", ":") if options.get("indent") is None else (",", ": "))
    return json.dumps(value, allow_nan=False, **options)


def non_finite_path(value: Any, path: str = "") -> str | None:
    """The path of the first non-finite float in a parsed document (TOML, a dict built in code), if any."""
    if isinstance(value, float) and not math.isfinite(value):
        return path or "(the value)"
    if isinstance(value, dict):
        items: Any = ((f"{path}.{k}" if path else str(k), v) for k, v in value.items())
    elif isinstance(value, (list, tuple)):
        items = ((f"{path}[{i}]", v) for i, v in enumerate(value))
    else:
        return None
    for where, item in items:
        found = non_finite_path(item, where)
        if found is not None:
            return found
    return None
