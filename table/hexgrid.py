"""Axial hex grid on the board, after Red Blob Games' hexagon guide.

Hexes are `(q, r)` tuples (axial; s = -q - r). `HexLayout` lays the grid on the board in inches.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

from table.scene import HexGridSpec

Hex = tuple[int, int]

DIRECTIONS: tuple[Hex, ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


def hex_add(a: Hex, b: Hex) -> Hex:
    return (a[0] + b[0], a[1] + b[1])


def hex_subtract(a: Hex, b: Hex) -> Hex:
    return (a[0] - b[0], a[1] - b[1])


def neighbour(h: Hex, direction: int) -> Hex:
    return hex_add(h, DIRECTIONS[direction % 6])


def neighbours(h: Hex) -> tuple[Hex, ...]:
    return tuple(hex_add(h, d) for d in DIRECTIONS)


def distance(a: Hex, b: Hex) -> int:
    dq, dr = a[0] - b[0], a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def hex_round(q: float, r: float) -> Hex:
    s = -q - r
    rq, rr, rs = round(q), round(r), round(s)
    dq, dr, ds = abs(rq - q), abs(rr - r), abs(rs - s)
    if dq > dr and dq > ds:
        rq = -rr - rs
    elif dr > ds:
        rr = -rq - rs
    return (int(rq), int(rr))


def line(a: Hex, b: Hex) -> list[Hex]:
    """Hexes on the line from a to b, endpoints nudged so a line along a hexside resolves one way."""
    n = distance(a, b)
    if n == 0:
        return [a]
    aq, ar = a[0] + 1e-6, a[1] + 1e-6
    bq, br = b[0] + 1e-6, b[1] + 1e-6
    return [hex_round(aq + (bq - aq) * i / n, ar + (br - ar) * i / n) for i in range(n + 1)]


def ring(centre: Hex, radius: int) -> list[Hex]:
    if radius == 0:
        return [centre]
    h = hex_add(centre, (DIRECTIONS[4][0] * radius, DIRECTIONS[4][1] * radius))
    out = []
    for side in range(6):
        for _ in range(radius):
            out.append(h)
            h = neighbour(h, side)
    return out


def hex_range(centre: Hex, radius: int) -> Iterator[Hex]:
    for dq in range(-radius, radius + 1):
        for dr in range(max(-radius, -dq - radius), min(radius, -dq + radius) + 1):
            yield (centre[0] + dq, centre[1] + dr)


@dataclass(frozen=True)
class HexLayout:
    """A hex grid laid on the board: size is centre-to-corner in inches, origin is hex (0, 0)'s centre."""

    size: float = 1.0
    orientation: str = "flat"
    origin: tuple[float, float] = (0.0, 0.0)

    @classmethod
    def from_spec(cls, spec: HexGridSpec) -> HexLayout:
        return cls(spec.size, spec.orientation, tuple(spec.origin))

    def to_board(self, h: Hex) -> tuple[float, float]:
        q, r = h
        if self.orientation == "flat":
            x = self.size * 1.5 * q
            y = self.size * math.sqrt(3) * (r + q / 2)
        else:
            x = self.size * math.sqrt(3) * (q + r / 2)
            y = self.size * 1.5 * r
        return (self.origin[0] + x, self.origin[1] + y)

    def fractional(self, x: float, y: float) -> tuple[float, float]:
        px, py = (x - self.origin[0]) / self.size, (y - self.origin[1]) / self.size
        if self.orientation == "flat":
            q = 2.0 / 3.0 * px
            r = -1.0 / 3.0 * px + math.sqrt(3) / 3.0 * py
        else:
            q = math.sqrt(3) / 3.0 * px - 1.0 / 3.0 * py
            r = 2.0 / 3.0 * py
        return (q, r)

    def to_hex(self, x: float, y: float) -> Hex:
        return hex_round(*self.fractional(x, y))

    def corners(self, h: Hex) -> list[tuple[float, float]]:
        cx, cy = self.to_board(h)
        start = 0.0 if self.orientation == "flat" else 30.0
        return [(cx + self.size * math.cos(math.radians(start + 60 * i)),
                 cy + self.size * math.sin(math.radians(start + 60 * i))) for i in range(6)]
