"""Synaptik cover dice on a centre-to-centre line: terrain pieces by kind, and units standing in the way."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry import Polygon

from table.geometry import footprint_core, outer_reach, segment_near
from table.scene import Model
from table.spatial import ShapeIndex


@dataclass(frozen=True)
class Cover:
    """Cover on a centre-to-centre line: terrain pieces by kind, and units standing in the way."""

    light_pieces: tuple[str, ...] = ()
    heavy_pieces: tuple[str, ...] = ()
    units: tuple[str, ...] = ()

    @property
    def light(self) -> int:
        return len(self.light_pieces) + len(self.units)

    @property
    def heavy(self) -> int:
        return len(self.heavy_pieces)

    @property
    def dice(self) -> int:
        return self.light + 2 * self.heavy

    def to_dict(self) -> dict[str, int]:
        return {"light": self.light, "heavy": self.heavy}


class Bases:
    """The models standing on the table, for finding units in the way of a line: a disc holding each
    base (numpy), and each base's core (`geometry.footprint_core`) made only when a line comes near."""

    def __init__(self, models: Sequence[Model]):
        self.models = tuple(models)
        discs = [(*m.position, outer_reach(m)) for m in self.models]
        self.discs = np.array(discs, dtype=float).reshape(-1, 3)
        self._cores: dict[int, Polygon] = {}

    def core(self, k: int) -> Polygon:
        if k not in self._cores:
            self._cores[k] = footprint_core(self.models[k])
        return self._cores[k]

    def units_crossed(self, segments: np.ndarray, skip: Sequence[set[str]]) -> list[list[str]]:
        """For each segment, the units (first model's order) whose bases it crosses, but for `skip`."""
        count = len(self.models)
        s, k = np.divmod(np.arange(len(segments) * count), count)
        near = segment_near(segments[s], self.discs[k]) if count else np.zeros(0, dtype=bool)
        rows = [(a, b) for a, b in zip(s[near].tolist(), k[near].tolist(), strict=True)
                if self.models[b].unit not in skip[a]]
        found: list[list[str]] = [[] for _ in range(len(segments))]
        if rows:
            cores = np.array([self.core(b) for _, b in rows], dtype=object)
            lines = shapely.linestrings(np.array([segments[a] for a, _ in rows]))
            for (a, b), hit in zip(rows, shapely.intersects(cores, lines), strict=True):
                if hit and self.models[b].unit not in found[a]:
                    found[a].append(self.models[b].unit)
        return found


def covers_on_lines(pairs: Sequence[tuple[Model, Model]], terrain: ShapeIndex, heavy: frozenset[str],
                    bases: Bases) -> list[Cover]:
    """Cover each target gets against its shooter, on their centre-to-centre line (contract ruling).

    `terrain` holds the cover pieces (`heavy` names those that are heavy cover), `bases` every model
    on the table. A piece holding the shooter's centre does not count.
    """
    segments = np.array([[a.position, b.position] for a, b in pairs], dtype=float).reshape(-1, 2, 2)
    pieces_hit = terrain.crossing_many(segments)
    units_hit = bases.units_crossed(segments, [{a.unit, b.unit} for a, b in pairs])
    holding = terrain.containing_many(segments[:, 0])
    found = []
    for piece_ks, units, own in zip(pieces_hit, units_hit, holding, strict=True):
        pieces = [terrain.ids[k] for k in piece_ks if k not in own]
        found.append(Cover(tuple(p for p in pieces if p not in heavy), tuple(p for p in pieces if p in heavy),
                           tuple(units)))
    return found
