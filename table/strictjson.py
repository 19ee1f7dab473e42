"""Strict JSON in and out: no NaN or Infinity either way, and no nesting deep enough to crash.

Python's `json` reads and writes `NaN`, `Infinity` and `-Infinity`, which are not JSON: a browser's
`JSON.parse` refuses them, so one such value would blank every phone's panel. Every document the
table reads from outside goes through `loads`, every one it writes through `dumps`.
"""

from __future__ import annotations

import json
import math
import re
from itertools import accumulate
from typing import Any

MAX_DEPTH = 64          # deeper than any scene, event or request the table knows
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(r"[\[\]{}]")


class StrictJsonError(ValueError):
    """A document that is not strict JSON; the message says where (a line, a column or a path)."""


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
    nesting deeper than MAX_DEPTH or malformed text (with the line and column)."""
    depth = _max_depth(text if isinstance(text, str) else text.decode("utf-8", "replace"))
    if depth > MAX_DEPTH:
        raise StrictJsonError(f"nested {depth} deep (at most {MAX_DEPTH})")
    try:
        return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except json.JSONDecodeError as exc:
        raise StrictJsonError(f"line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:  # pragma: no cover - _max_depth catches it first
        raise StrictJsonError(f"nested too deep (at most {MAX_DEPTH})") from None


def _max_depth(text: str) -> int:
    """How deep brackets nest outside strings (0 when there are too few brackets to matter)."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return 0
    steps = (1 if b in "[{" else -1 for b in _BRACKET.findall(_STRING.sub('""', text)))
    return max(accumulate(steps), default=0)


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
