"""A property worked out once per object (table/cached.py) holds up no other object: Python 3.11's
functools.cached_property held one lock per property for every object of the class while one value was
worked out, so a bookmark working out its rule system's cover index stalled every line of sight (the
panel's and the camera loop's) in the concurrency soak."""

from __future__ import annotations

import ast
import threading
import time

from table.cached import cached_property
from tests.live.live_fakes import ROOT


class Slow:
    def __init__(self, entered: threading.Event | None = None, release: threading.Event | None = None):
        self.entered, self.release, self.calls = entered, release, 0

    @cached_property
    def value(self) -> int:
        self.calls += 1
        if self.entered is not None and self.release is not None:
            self.entered.set()
            self.release.wait(10)
        return id(self)


def test_one_object_working_out_its_value_holds_up_no_other():
    entered, release = threading.Event(), threading.Event()
    slow = Slow(entered, release)
    worker = threading.Thread(target=lambda: slow.value)
    worker.start()
    try:
        assert entered.wait(5)
        asked = time.monotonic()
        other = Slow()
        assert other.value == id(other)
        assert time.monotonic() - asked < 1.0          # with functools' lock: the 10 s the first one waits
    finally:
        release.set()
        worker.join(10)
    assert slow.value == id(slow) and slow.calls == 1 and other.value == id(other) and other.calls == 1
    assert isinstance(Slow.__dict__["value"], cached_property) and Slow.value is Slow.__dict__["value"]


def test_no_module_uses_the_standard_librarys_locking_cached_property():
    found = []
    for folder in ("table", "web_ui", "hub", "vision"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and node.module == "functools" and any(
                        a.name == "cached_property" for a in node.names):
                    found.append(str(path.relative_to(ROOT)))
                elif isinstance(node, ast.Attribute) and node.attr == "cached_property" and isinstance(
                        node.value, ast.Name) and node.value.id == "functools":
                    found.append(str(path.relative_to(ROOT)))
    assert not found, f"use table.cached.cached_property (no lock shared by every object): {found}"
