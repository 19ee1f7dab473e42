"""What one panel app holds: the controller and its settings, kept in `app.extensions["smarttable"]`."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from flask import current_app

from table.panel_api import PanelController
from web_ui.auth import PinGuard
from web_ui.fair import FairQueue
from web_ui.sse import SnapshotText
from web_ui.streams import Streams


@dataclass(frozen=True)
class PanelOptions:
    """The panel's settings (from the config's `[web]` section and the table's data folder)."""

    pin: str
    data_dir: Path
    sse_interval_s: float = 0.2
    heartbeat_s: float = 5.0
    max_streams: int = 40
    streams_per_address: int = 4
    marker_dictionary: str = "DICT_APRILTAG_36h11"
    marker_size_mm: float = 15.0


@dataclass
class PanelContext:
    controller: PanelController
    options: PanelOptions
    guard: PinGuard
    streams: Streams
    text: SnapshotText = field(default_factory=SnapshotText)
    questions: FairQueue = field(default_factory=FairQueue)      # turns to work out a read question


def panel() -> PanelContext:
    """The current app's panel context."""
    return current_app.extensions["smarttable"]
