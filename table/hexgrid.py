"""Axial hex grid on the board, after Red Blob Games' hexagon guide.

Hexes are `(q, r)` tuples (axial; s = -q - r). `HexLayout` lays the grid on the board in inches;
`Hexside` is the edge between two neighbours as a value; `HexSnapper` turns a tracked point into a
hex without flicker at the edges. Offset and doubled coordinates convert to and from axial.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol

Hex = tuple[int, int]

DIRECTIONS: tuple[Hex, ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
DIAGONALS: tuple[Hex, ...] = ((2, -1), (1, -2), (-1, -1), (-2, 1), (-1, 2), (1, 1))
EVEN, ODD = 1, -1  # offset parity, as Red Blob Games names it


class GridSpec(Protocol):
    """How a grid lies on the board, as a scene says it (`table.scene.HexGridSpec`)."""

    @property
    def size(self) -> float: ...

    @property
    def orientation(self) -> str: ...

    @property
    def origin(self) -> tuple[float, float]: ...


def as_hex(h: Sequence[int]) -> Hex:
    """A hex given as any pair of ints (a JSON [q, r] too) as the grid's (q, r) tuple."""
    q, r = h
    return (q, r)


def hex_add(a: Hex, b: Hex) -> Hex:
    return (a[0] + b[0], a[1] + b[1])


def hex_subtract(a: Hex, b: Hex) -> Hex:
    return (a[0] - b[0], a[1] - b[1])


def hex_scale(a: Hex, k: int) -> Hex:
    return (a[0] * k, a[1] * k)


def direction(index: int) -> Hex:
    return DIRECTIONS[index % 6]


def neighbour(h: Hex, direction: int) -> Hex:
    return hex_add(h, DIRECTIONS[direction % 6])


def neighbours(h: Hex) -> tuple[Hex, ...]:
    return tuple(hex_add(h, d) for d in DIRECTIONS)


def diagonal_neighbour(h: Hex, direction: int) -> Hex:
    return hex_add(h, DIAGONALS[direction % 6])


def distance(a: Hex, b: Hex) -> int:
    dq, dr = a[0] - b[0], a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def rotate_left(h: Hex) -> Hex:
    """60 degrees counter-clockwise about (0, 0): cube (q, r, s) -> (-s, -q, -r)."""
    return (h[0] + h[1], -h[0])


def rotate_right(h: Hex) -> Hex:
    """60 degrees clockwise about (0, 0): cube (q, r, s) -> (-r, -s, -q)."""
    return (-h[1], h[0] + h[1])


def hex_round(q: float, r: float) -> Hex:
    s = -q - r
    rq, rr, rs = round(q), round(r), round(s)
    dq, dr, ds = abs(rq - q), abs(rr - r), abs(rs - s)
    if dq > dr and dq > ds:
        rq = -rr - rs
    elif dr > ds:
        rr = -rq - rs
    return (int(rq), int(rr))


def hex_lerp(a: tuple[float, float], b: tuple[float, float], t: float) -> tuple[float, float]:
    return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)


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


# ---------------------------------------------------------------- offset and doubled coordinates


def _check_parity(offset: int) -> None:
    if offset not in (EVEN, ODD):
        raise ValueError(f"offset must be EVEN (+1) or ODD (-1), got {offset!r}")


def qoffset_from_axial(offset: int, h: Hex) -> tuple[int, int]:
    """Axial -> (col, row) for flat-top columns shoved by parity (even-q / odd-q)."""
    _check_parity(offset)
    q, r = h
    return (q, r + (q + offset * (q & 1)) // 2)


def qoffset_to_axial(offset: int, cr: tuple[int, int]) -> Hex:
    _check_parity(offset)
    col, row = cr
    return (col, row - (col + offset * (col & 1)) // 2)


def roffset_from_axial(offset: int, h: Hex) -> tuple[int, int]:
    """Axial -> (col, row) for pointy-top rows shoved by parity (even-r / odd-r)."""
    _check_parity(offset)
    q, r = h
    return (q + (r + offset * (r & 1)) // 2, r)


def roffset_to_axial(offset: int, cr: tuple[int, int]) -> Hex:
    _check_parity(offset)
    col, row = cr
    return (col - (row + offset * (row & 1)) // 2, row)


def qdoubled_from_axial(h: Hex) -> tuple[int, int]:
    return (h[0], 2 * h[1] + h[0])


def qdoubled_to_axial(cr: tuple[int, int]) -> Hex:
    return (cr[0], (cr[1] - cr[0]) // 2)


def rdoubled_from_axial(h: Hex) -> tuple[int, int]:
    return (2 * h[0] + h[1], h[1])


def rdoubled_to_axial(cr: tuple[int, int]) -> Hex:
    return ((cr[0] - cr[1]) // 2, cr[1])


# ---------------------------------------------------------------- hexsides


@dataclass(frozen=True, order=True)
class Hexside:
    """The edge between two neighbouring hexes, as a value: Hexside(a, b) == Hexside(b, a)."""

    a: Hex
    b: Hex

    def __post_init__(self) -> None:
        a, b = (tuple(self.a), tuple(self.b))
        if distance(a, b) != 1:  # type: ignore[arg-type]
            raise ValueError(f"hexes {list(a)} and {list(b)} are not neighbours")
        lo, hi = sorted((a, b))
        object.__setattr__(self, "a", lo)
        object.__setattr__(self, "b", hi)

    @property
    def hexes(self) -> tuple[Hex, Hex]:
        return (self.a, self.b)

    def other(self, h: Hex) -> Hex:
        if h == self.a:
            return self.b
        if h == self.b:
            return self.a
        raise ValueError(f"hex {list(h)} is not on {self!r}")

    def __repr__(self) -> str:
        return f"Hexside({self.a}, {self.b})"


def hexsides_of(h: Hex) -> tuple[Hexside, ...]:
    return tuple(Hexside(h, n) for n in neighbours(h))


# ---------------------------------------------------------------- the grid on the board


@dataclass(frozen=True)
class HexLayout:
    """A hex grid laid on the board: size is centre-to-corner in inches, origin is hex (0, 0)'s centre.

    `size_y` (default: `size`) stretches the grid vertically, as Red Blob Games' Layout allows.
    """

    size: float = 1.0
    orientation: str = "flat"
    origin: tuple[float, float] = (0.0, 0.0)
    size_y: float | None = None

    @classmethod
    def from_spec(cls, spec: GridSpec) -> HexLayout:
        return cls(spec.size, spec.orientation, spec.origin)

    @property
    def _sy(self) -> float:
        return self.size if self.size_y is None else self.size_y

    def to_board(self, h: Hex) -> tuple[float, float]:
        q, r = h
        if self.orientation == "flat":
            x = self.size * 1.5 * q
            y = self._sy * math.sqrt(3) * (r + q / 2)
        else:
            x = self.size * math.sqrt(3) * (q + r / 2)
            y = self._sy * 1.5 * r
        return (self.origin[0] + x, self.origin[1] + y)

    def fractional(self, x: float, y: float) -> tuple[float, float]:
        px, py = (x - self.origin[0]) / self.size, (y - self.origin[1]) / self._sy
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
                 cy + self._sy * math.sin(math.radians(start + 60 * i))) for i in range(6)]

    def hexside_segment(self, side: Hexside) -> tuple[tuple[float, float], tuple[float, float]]:
        """The two board points where a hexside's edge starts and ends (for drawing it)."""
        ca, cb = self.corners(side.a), self.corners(side.b)
        shared = [p for p in ca if any(math.dist(p, o) < 1e-6 * self.size for o in cb)]
        return (shared[0], shared[1])

    def depth(self, h: Hex, x: float, y: float) -> float:
        """How far inside hex h a point lies: 1 at its centre, 0 on its edge, negative outside.

        Measured along the nearest edge normal, in units of the apothem (centre-to-edge distance).
        """
        fq, fr = self.fractional(x, y)
        dq, dr = fq - h[0], fr - h[1]
        ds = -dq - dr
        return 1.0 - max(abs(dq - dr), abs(dr - ds), abs(ds - dq))

    def hexes_on_board(self, width: float, height: float) -> list[Hex]:
        """Every hex whose centre lies on a width x height board (edges included), row by row."""
        corners = [self.fractional(x, y) for x in (0.0, width) for y in (0.0, height)]
        qs = [c[0] for c in corners]
        rs = [c[1] for c in corners]
        out = []
        for q in range(math.floor(min(qs)) - 1, math.ceil(max(qs)) + 2):
            for r in range(math.floor(min(rs)) - 1, math.ceil(max(rs)) + 2):
                x, y = self.to_board((q, r))
                if -1e-9 <= x <= width + 1e-9 and -1e-9 <= y <= height + 1e-9:
                    out.append((q, r))
        return out


# ---------------------------------------------------------------- snapping tracked models


@dataclass
class HexSnapper:
    """Turns tracked board points into hexes with hysteresis, so a model on an edge does not flicker.

    A key (model id) keeps its current hex until its point lies more than `margin` inches outside
    that hex, that is, clearly inside another.
    """

    layout: HexLayout
    margin: float = 0.1
    _current: dict[Hashable, Hex] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        apothem = self.layout.size * math.sqrt(3) / 2
        if self.margin < 0 or self.margin >= apothem:
            raise ValueError(f"margin must be in [0, {apothem:.3f}) inches, got {self.margin}")
        self._threshold = -self.margin / apothem

    def snap(self, key: Hashable, x: float, y: float) -> Hex:
        nearest = self.layout.to_hex(x, y)
        current = self._current.get(key)
        if current is None or (nearest != current and self.layout.depth(current, x, y) < self._threshold):
            current = nearest
            self._current[key] = current
        return current

    def current(self, key: Hashable) -> Hex | None:
        return self._current.get(key)

    def forget(self, key: Hashable) -> None:
        self._current.pop(key, None)
