"""What a scene may say: the keys known at each place, the size limits, and outlines that do not cross.

The contract's keys (and the table's own extensions) are listed here; each rule system adds its own
on its class (`Ruleset.extra_scene_keys`), so that a misspelt key is an error, never silently ignored.
"""

from __future__ import annotations

from collections.abc import Mapping

import shapely
from shapely.geometry import Polygon
from shapely.validation import explain_validity

from table import registry

SCENE_PLACES = ("scene", "board", "hexgrid", "terrain", "hexes", "hexsides", "unit", "weapon", "model",
                "base")
CONTRACT_KEYS: Mapping[str, frozenset[str]] = {
    "scene": frozenset({"format", "ruleset", "board", "hexgrid", "terrain", "hexes", "hexsides", "units",
                        "models", "note", "players"}),
    "board": frozenset({"width", "height"}),
    "hexgrid": frozenset({"size", "orientation", "origin"}),
    "terrain": frozenset({"id", "polygon", "height", "traits"}),
    "hexes": frozenset({"hex", "terrain", "road"}),
    "hexsides": frozenset({"between", "feature"}),
    "unit": frozenset({"id", "player", "name", "stats", "weapons"}),
    "weapon": frozenset({"name", "bands", "range"}),
    "model": frozenset({"id", "unit", "x", "y", "hex", "heading", "marker", "base", "height", "size",
                        "state", "marker_height_mm", "sigma", "heading_sigma"}),
    "base": frozenset({"shape", "diameter_mm", "width_mm", "depth_mm"}),
}
MODEL_STATES = ("tracked", "occluded", "stale")

MAX_VERTICES = 1000  # per terrain outline: a hand-made or traced piece needs a few dozen
MAX_TERRAIN = 2000
MODELS_PER_SQUARE_INCH = 4.0  # a 6 mm base covers 0.05 sq in; four per square inch is already a crowd
MIN_HEX_SIZE = 0.25  # inches centre to corner: a hex half an inch across, about the smallest marker
MAX_HEXES = 50_000  # hexes the grid lays on the board (a 48" board with 0.25" hexes has about 14,000)


def known_keys(ruleset: str) -> dict[str, frozenset[str]]:
    """The keys a scene of `ruleset` may use at each place: the contract's and the rule system's own
    (`Ruleset.extra_scene_keys`, read from its class through the registry)."""
    extra = registry.find(ruleset).extra_scene_keys
    unknown = set(extra) - set(SCENE_PLACES)
    if unknown:
        raise ValueError(f"{ruleset}: extra_scene_keys for unknown place(s) {sorted(unknown)}")
    return {place: CONTRACT_KEYS[place] | frozenset(extra.get(place, ())) for place in SCENE_PLACES}


def model_limit(width: float, height: float) -> int:
    """The most models a board of this size holds (see MODELS_PER_SQUARE_INCH)."""
    return max(100, int(width * height * MODELS_PER_SQUARE_INCH))


def hex_count(width: float, height: float, size: float) -> float:
    """About how many hexes of `size` cover the board (a hex's area is 3 * sqrt(3) / 2 * size**2)."""
    return width * height / (2.598076211353316 * size * size)


def crossing_problem(points: tuple[tuple[float, float], ...]) -> str | None:
    """Why an outline is not a simple polygon (it crosses or touches itself, or has no area), else None."""
    polygon = Polygon(points)
    if shapely.is_valid(polygon):
        return None
    if polygon.convex_hull.area <= 0:
        return "the outline has no area"
    return f"the outline crosses itself ({explain_validity(polygon)})"
