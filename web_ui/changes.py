"""A change's answer over HTTP, and its idempotency key.

Every write may carry an `Idempotency-Key` header (the panel sends a new one with each tap, and the same
one when it sends that tap again): the table makes the change once and answers a retry as the first time
(`Idempotent-Replayed: true`). The answer is 200 once the change is on disk, 202 when it is applied but the
game log could not store it yet ("saving": the table keeps it, retries every second, and shows the fault):
never a refusal that would make a retry apply it twice. See docs/web.md.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from flask import Response, jsonify, request

from table.errors import StorageError, TableError
from table.live.idempotency import KeyReused
from table.snapshot import Receipt
from web_ui.context import panel
from web_ui.errors import ApiError

HEADER = "Idempotency-Key"
REPLAYED = "Idempotent-Replayed"
KEY = re.compile(r"[\x21-\x7e]{1,128}")       # visible ASCII: a UUID, or any token the client makes


def key() -> str | None:
    """The request's idempotency key (None: none given); 400 naming the header for a malformed one."""
    value = request.headers.get(HEADER)
    if value is None:
        return None
    if not KEY.fullmatch(value):
        raise ApiError(400, HEADER, "expected 1-128 visible ASCII characters, a new one for each change")
    return value


def make(name: str, params: Mapping[str, Any], field: str = "body") -> Receipt:
    """The change made (once per idempotency key); a refusal is a 409 naming `field` (a StorageError,
    a bookmark's file that could not be written, is the caller's)."""
    try:
        return panel().controller.change(name, params, key())
    except StorageError:
        raise
    except KeyReused as exc:
        raise ApiError(409, HEADER, str(exc)) from None
    except TableError as exc:
        raise ApiError(409, field, str(exc)) from None


def answer(name: str, receipt: Receipt, result: Any = None) -> Response:
    """200 with the result once saved, 202 while applied and saving (`saving` says why not yet)."""
    body: dict[str, Any] = {"ok": True, "command": name, "seq": panel().controller.snapshot().seq,
                            "result": receipt.result if result is None else result, "saved": receipt.saved}
    if receipt.saving:
        body["saving"] = receipt.saving
    response = jsonify(body)
    response.status_code = 200 if receipt.saved else 202
    if receipt.again:
        response.headers[REPLAYED] = "true"
    return response
