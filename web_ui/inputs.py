"""Reading request bodies and query strings: each bad value becomes an ApiError naming its field."""

from __future__ import annotations

import math
import re
from typing import Any

from flask import request

from table import strictjson
from table.live.command_limits import ARG, IDENT
from web_ui.errors import ApiError

MAX_INT = 2**31 - 1


def body() -> dict[str, Any]:
    """The request's JSON object (an empty body counts as `{}`): strict JSON, so NaN, Infinity and
    deep nesting are a 400 naming the body."""
    raw = request.get_data(cache=True)
    if not raw:
        return {}
    if not request.is_json:
        raise ApiError(400, "body", "expected a JSON object (Content-Type: application/json)")
    try:
        data = strictjson.loads(raw)
    except strictjson.StrictJsonError as exc:          # named by its path when it is known
        raise ApiError(400, exc.path or "body", f"invalid JSON: {exc}") from None
    except UnicodeDecodeError as exc:
        raise ApiError(400, "body", f"invalid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ApiError(400, "body", "expected a JSON object")
    return data


def ident(value: Any, field: str) -> str:
    if not isinstance(value, str) or not IDENT.fullmatch(value):
        raise ApiError(400, field, "expected an id (1-64 letters, digits, '_', '.', ':' or '-')")
    return value


def argument(value: str, field: str) -> str:
    """A rule question's argument: an id, a weapon name or a hex as `q,r`."""
    if not ARG.fullmatch(value):
        raise ApiError(400, field, "expected an id, a name or a hex q,r (letters, digits, '_.:,-')")
    return value


def parse_int(text: str, field: str, lo: int = 0, hi: int = MAX_INT) -> int:
    """A whole number given as text (a query parameter or a header)."""
    if not re.fullmatch(r"-?\d{1,10}", text.strip()):
        raise ApiError(400, field, "expected a whole number")
    return integer(int(text), field, lo, hi)


def integer(value: Any, field: str, lo: int = 0, hi: int = MAX_INT) -> int:
    """A whole number in a JSON body (a string is refused)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ApiError(400, field, "expected a whole number")
    if not lo <= value <= hi:
        raise ApiError(400, field, f"must be between {lo} and {hi}, got {value}")
    return value


def number(value: Any, field: str, lo: float, hi: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ApiError(400, field, "expected a number")
    if not lo <= value <= hi:
        raise ApiError(400, field, f"must be between {lo} and {hi}, got {value}")
    return float(value)


def choice(value: Any, field: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise ApiError(400, field, f"must be one of {', '.join(choices)}")
    return value


def only(data: dict[str, Any], allowed: set[str], prefix: str = "") -> None:
    """Refuse unknown keys, so a typo is an error rather than silently ignored."""
    for key in data:
        if key not in allowed:
            known = ", ".join(sorted(allowed)) or "none"
            raise ApiError(400, f"{prefix}{key}", f"unknown field (known: {known})")


def query_int(name: str, default: int, lo: int = 0, hi: int = MAX_INT) -> int:
    raw = request.args.get(name)
    return default if raw is None else parse_int(raw, name, lo, hi)
