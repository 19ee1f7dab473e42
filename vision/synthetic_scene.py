"""What the synthetic camera sees: markers (corner and model) at their heights, and hands.

A `SyntheticScene` is built from a contract scene file plus the table config, or directly in tests;
`move_script` turns one scene into a sequence of frames where models move and a hand passes over.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

from table.config import Config
from table.config_schema import id_ranges
from table.scene import Scene
from vision.miniature import Figure, figures_for_base
from vision.sticker import TYPICAL_BASE_HEIGHT_MM

MM_PER_INCH = 25.4


@dataclass(frozen=True)
class SceneMarker:
    """A printed marker: centre in board inches, heading (contract), black-square side in mm,
    height above the board in inches; `base_mm` draws a flat base disc around it (0: none).

    With `base_shape` (`circle`, `oval` or `rect`, `base_mm` wide across the facing and
    `base_depth_mm` deep along it: 0 is `base_mm`) the base is solid instead: its side wall rises
    from the board to its top `height_in` above it, where the marker (or sticker) lies, painted
    `base_grey`; `figures` stand on it (vision.miniature)."""

    id: int
    x: float
    y: float
    heading: float = 0.0
    size_mm: float = 15.0
    height_in: float = 0.0
    base_mm: float = 0.0
    base_shape: str = ""
    base_depth_mm: float = 0.0
    base_grey: float = 60.0
    figures: tuple[Figure, ...] = ()


@dataclass(frozen=True)
class Hand:
    """A hand and forearm over the board: fingertips at (x, y) inches, arm coming from `angle` degrees."""

    x: float
    y: float
    angle: float = 90.0
    height_in: float = 4.0
    length_in: float = 14.0


@dataclass(frozen=True)
class SyntheticScene:
    board: tuple[float, float] = (48.0, 48.0)
    markers: tuple[SceneMarker, ...] = ()
    hands: tuple[Hand, ...] = ()

    def with_marker(self, marker_id: int, **changes: Any) -> SyntheticScene:
        """A copy with one marker's fields changed (e.g. x, y, heading)."""
        markers = tuple(replace(m, **changes) if m.id == marker_id else m for m in self.markers)
        return replace(self, markers=markers)

    def model_markers(self, corner_ids: set[int]) -> tuple[SceneMarker, ...]:
        return tuple(m for m in self.markers if m.id not in corner_ids)


def corner_markers(config: Config) -> tuple[SceneMarker, ...]:
    """The corner (and edge) markers the config describes, flat on the board as printed (heading -90)."""
    markers = config.markers
    size = float(markers.corner_size_mm)
    points = {**markers.corners, **markers.edges}
    return tuple(SceneMarker(int(k), float(v[0]), float(v[1]), -90.0, size)
                 for k, v in points.items())


def config_stickers(config: Config) -> dict[int, float]:
    """`[markers] stickers` as ring sticker id -> base mm."""
    return {i: float(b) for b, ids in config.markers.stickers.items() for i in id_ranges(ids)}


def from_scene(scene: Scene, config: Config) -> SyntheticScene:
    """Corner markers from the config plus one marker per model that has one (position, heading,
    base). A model's marker height is its `marker_height_mm` field, else `markers.model_height_mm`.
    A model on a ring sticker (`[markers] stickers`) stands on a solid base, a miniature on it (the
    sticker's image comes from the renderer's tiles: vision.synthetic.sticker_tiles)."""
    markers = config.markers
    stickers = config_stickers(config)
    models = []
    for model in scene.models:
        if model.marker is None or model.x is None or model.y is None:
            continue
        base = stickers.get(model.marker)
        default_mm = (markers.model_height_mm or TYPICAL_BASE_HEIGHT_MM) if base else markers.model_height_mm
        height_mm = float(model.extra.get("marker_height_mm", default_mm))
        marker = SceneMarker(model.marker, model.x, model.y, model.heading, float(markers.model_size_mm),
                             height_mm / MM_PER_INCH, model.base.width_mm)
        if base:
            rng = random.Random(model.marker)
            marker = replace(marker, base_mm=base, base_shape="circle", base_grey=rng.uniform(30, 150),
                             figures=figures_for_base(base, rng))
        models.append(marker)
    board = (scene.board.width, scene.board.height)
    return SyntheticScene(board, corner_markers(config) + tuple(models))


def move_script(scene: SyntheticScene, moves: Mapping[int, tuple[float, float]], *,
                hand_frames: int = 4, still_frames: int = 6) -> Iterator[SyntheticScene]:
    """Frames of a move: still, a hand reaching for each moving marker (covering it), the marker at its
    new place with the hand withdrawing, then still again."""
    yield from [scene] * still_frames
    current = scene
    for marker_id, (x, y) in moves.items():
        start = next(m for m in current.markers if m.id == marker_id)
        for i in range(hand_frames):
            f = (i + 1) / hand_frames
            hx, hy = start.x + (x - start.x) * f, start.y + (y - start.y) * f
            moved = current.with_marker(marker_id, x=hx, y=hy)
            yield replace(moved, hands=(Hand(hx, hy + 0.2, angle=_away_angle(hx, hy, scene.board)),))
        current = current.with_marker(marker_id, x=x, y=y)
        yield replace(current, hands=(Hand(x, y + 3.0, angle=_away_angle(x, y, scene.board)),))
    yield from [current] * still_frames


def _away_angle(x: float, y: float, board: tuple[float, float]) -> float:
    """Arms come from the nearest board edge."""
    w, h = board
    options = {180.0: x, 0.0: w - x, -90.0: y, 90.0: h - y}
    return min(options, key=options.__getitem__)


def grid_layout(count: int, board: tuple[float, float], *, size_mm: float = 15.0, first_id: int = 10,
                margin: float = 5.0, seed: int = 1, height_in: float = 0.0) -> tuple[SceneMarker, ...]:
    """`count` markers spread over the board in a jittered grid with varied headings (benches, tests)."""
    rng = random.Random(seed)
    cols = math.ceil(math.sqrt(count))
    rows = math.ceil(count / cols)
    w, h = board[0] - 2 * margin, board[1] - 2 * margin
    out = []
    for i in range(count):
        r, c = divmod(i, cols)
        x = margin + (c + 0.5) * w / cols + rng.uniform(-0.2, 0.2) * w / cols
        y = margin + (r + 0.5) * h / rows + rng.uniform(-0.2, 0.2) * h / rows
        out.append(SceneMarker(first_id + i, round(x, 4), round(y, 4), round(rng.uniform(-180, 180), 2),
                               size_mm, height_in, 25.0))
    return tuple(out)


def on_solid_bases(markers: tuple[SceneMarker, ...], *, base_mm: float = 25.0, thickness_mm: float = 3.0,
                   figures: bool = True, seed: int = 1, shape: str = "circle", depth_mm: float = 0.0
                   ) -> tuple[SceneMarker, ...]:
    """The markers on solid bases `thickness_mm` thick (the marker on top), each painted its own
    shade, with a typical miniature for the base (vision.miniature.figures_for_base) standing on it
    unless `figures` is false."""
    rng = random.Random(seed)
    out = []
    for m in markers:
        grey = rng.uniform(25, 170)
        standing = figures_for_base(base_mm, rng) if figures else ()
        out.append(replace(m, height_in=thickness_mm / MM_PER_INCH, base_mm=base_mm, base_shape=shape,
                           base_depth_mm=depth_mm, base_grey=grey, figures=standing))
    return tuple(out)
