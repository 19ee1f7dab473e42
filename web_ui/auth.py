"""The table's PIN: every change needs it, reading does not.

The PIN comes from `[web] pin` in the config, else from `pin.txt` in the table's data folder, else it
is generated on first start (six digits) and kept there, so it survives a restart.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from functools import wraps
from pathlib import Path
from typing import Any

from flask import current_app, request

from web_ui.errors import ApiError

PIN_HEADER = "X-Table-PIN"
PIN_FILE = "pin.txt"


def resolve_pin(configured: str, data_dir: Path) -> tuple[str, bool]:
    """The PIN to use and whether it was generated just now."""
    if configured:
        return configured, False
    path = data_dir / PIN_FILE
    if path.is_file():
        stored = path.read_text(encoding="utf-8").strip()
        if stored:
            return stored, False
    pin = f"{secrets.randbelow(10**6):06d}"
    data_dir.mkdir(parents=True, exist_ok=True)
    path.write_text(pin + "\n", encoding="utf-8")
    path.chmod(0o600)
    return pin, True


class PinGuard:
    """Checks PINs and slows guessing: a client address that gives `limit` wrong PINs within
    `window_s` is refused (429) until the window has passed."""

    def __init__(self, pin: str, limit: int = 10, window_s: float = 60.0):
        self.pin = pin
        self.limit = limit
        self.window_s = window_s
        self._failures: dict[str, list[float]] = {}
        self._lock = threading.Lock()

    def check(self, given: str | None, client: str = "") -> None:
        now = time.monotonic()
        with self._lock:
            recent = [t for t in self._failures.pop(client, []) if now - t < self.window_s]
            if recent:
                self._failures[client] = recent
            if len(recent) >= self.limit:
                raise ApiError(429, PIN_HEADER, "too many wrong PINs; wait a minute")
            if not given:
                raise ApiError(401, PIN_HEADER, f"a change needs the table's PIN ({PIN_HEADER})")
            if not hmac.compare_digest(given.encode(), self.pin.encode()):
                self._failures[client] = [*recent, now]
                raise ApiError(403, PIN_HEADER, "wrong PIN")


def needs_pin(view: Any) -> Any:
    """Decorator for a view that changes the game."""

    @wraps(view)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        guard = current_app.extensions["smarttable"].guard
        guard.check(request.headers.get(PIN_HEADER), request.remote_addr or "")
        return view(*args, **kwargs)

    return guarded
