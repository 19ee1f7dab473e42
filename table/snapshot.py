"""The immutable view of the live table that the web panel reads, and the commands it may send.

The controller publishes a new `Snapshot` (with a higher `seq`) whenever anything visible changes;
readers never see a half-updated table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class Snapshot:
    seq: int
    status: dict[str, Any]            # camera, calibration, hardware: {"camera": "ok", ...}
    ruleset: str
    phase: dict[str, Any]             # {"turn": 1, "phase": "...", "player": "A", "phases": [...]}
    scene: dict[str, Any]             # the scene document (contract's scene file format)
    warnings: tuple[dict[str, Any], ...] = ()   # {"id", "kind", "message", "units": [...], "acknowledged"}
    leds: tuple[tuple[int, int, int], ...] = ()  # the current LED frame, one RGB per LED
    selection: dict[str, Any] = field(default_factory=dict)
    timestamp: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"seq": self.seq, "status": self.status, "ruleset": self.ruleset, "phase": self.phase,
                "scene": self.scene, "warnings": list(self.warnings),
                "leds": [list(c) for c in self.leds], "selection": self.selection,
                "timestamp": self.timestamp}


class Controller(Protocol):
    """What the web panel may use of the table controller."""

    def snapshot(self) -> Snapshot: ...

    def wait_for_change(self, after_seq: int, timeout: float) -> Snapshot:
        """Block until a snapshot newer than `after_seq` exists (or the timeout passes); return the newest."""

    def command(self, name: str, **params: Any) -> dict[str, Any]:
        """Change the game: 'advance_phase', 'select', 'roll', 'set_terrain', 'assign_marker',
        'settings', 'acknowledge'... Raises a TableError subclass for a bad request."""
