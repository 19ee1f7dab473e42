"""The immutable view of the live table that the web panel reads, and the commands it may send.

The controller publishes a new `Snapshot` (with a higher `seq`) whenever anything visible changes;
readers never see a half-updated table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from table.frozen import freeze, freeze_mapping, thaw

Document = Mapping[str, Any]      # a frozen JSON object (table/frozen.py): read-only, its arrays tuples


@dataclass(frozen=True)
class Snapshot:
    """One published state of the table, deeply immutable: whatever a maker passes in is copied into
    read-only mappings and tuples, so no reader can change what another reader (or the table) sees.
    `to_dict` gives each caller a plain JSON copy of its own."""

    seq: int
    status: Document                  # camera, calibration, hardware: {"camera": "ok", ...}
    ruleset: str
    phase: Document                   # {"turn": 1, "phase": "...", "player": "A", "phases": [...]}
    scene: Document                   # the scene document (contract's scene file format)
    warnings: tuple[Document, ...] = ()          # {"id", "kind", "message", "units": [...], "acknowledged"}
    leds: tuple[tuple[int, int, int], ...] = ()  # the current LED frame, one RGB per LED
    selection: Document = field(default_factory=dict)
    timestamp: float = 0.0

    def __post_init__(self) -> None:
        for name in ("status", "phase", "scene", "selection"):
            object.__setattr__(self, name, freeze_mapping(getattr(self, name)))
        object.__setattr__(self, "warnings", freeze(self.warnings))
        object.__setattr__(self, "leds", freeze(self.leds))

    def to_dict(self) -> dict[str, Any]:
        """The snapshot as `GET /api/state` serves it: a fresh plain copy for each caller."""
        return {"seq": self.seq, "status": thaw(self.status), "ruleset": self.ruleset,
                "phase": thaw(self.phase), "scene": thaw(self.scene), "warnings": thaw(self.warnings),
                "leds": thaw(self.leds), "selection": thaw(self.selection), "timestamp": self.timestamp}


@dataclass(frozen=True)
class Receipt:
    """A change's answer: the command's result, and whether the change is on disk yet. A change the game
    log refused is still applied (the table keeps it and retries): `saving` says why it is not saved."""

    result: dict[str, Any]
    saving: str = ""          # "" once the change is on disk; else why not yet
    batch: int = 0            # the game log's batch that holds it (0: it logged nothing)
    again: bool = False       # answered before under the same idempotency key: this is that answer

    @property
    def saved(self) -> bool:
        return not self.saving


class Controller(Protocol):
    """What the web panel may use of the table controller."""

    def snapshot(self) -> Snapshot: ...

    def wait_for_change(self, after_seq: int, timeout: float) -> Snapshot:
        """Block until a snapshot newer than `after_seq` exists (or the timeout passes); return the newest."""

    def command(self, name: str, **params: Any) -> dict[str, Any]:
        """Change the game: 'advance_phase', 'select', 'roll', 'set_terrain', 'assign_marker',
        'settings', 'acknowledge'... Raises a TableError subclass for a bad request."""

    def change(self, name: str, params: Mapping[str, Any], key: str | None = None) -> Receipt:
        """`command` (or "bookmark": `take_bookmark`'s parameters) with its receipt: applied, saved or
        saving. The same `key` (an idempotency key) again is answered as the first time, not run again;
        with other parameters it is a QueryError."""
