"""An outside check's own renderer (issue 21): the tiles `smarttable markers DIR --tiles` writes, pasted on
a board seen by a pinhole camera, with a miniature drawn in 3D on each sticker.

It shares no code with the project's renderer (vision/synthetic.py, vision/miniature.py, vision/camera.py):
its own camera (the HQ camera's published sensor, 1.55 um pixels, and its 6 mm lens: f = 6 / 0.00155 px),
its own board texture, tiles pasted by cv2.warpPerspective of each tile's plane at its height, and
miniatures drawn as 3D polygons through the camera (painter's order, back faces culled), so parallax
leans them outward from under the camera. Built from the contract alone: board inches, x along the
board, y down it as seen from above; a heading is clockwise from +x; a tile's top edge is the facing.

World coordinates are board millimetres with z into the board (a point h mm above it has z = -h),
so the camera looking down sees x to the right and y down the image.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

MM = 25.4
PIXEL_MM = 0.00155  # the IMX477's pixel pitch (4056 x 1.55 um = 6.287 mm)
LENS_MM = 6.0
NATIVE = (4056, 3040)
LIGHT = np.array([-0.35, -0.25, -0.90]) / np.linalg.norm([-0.35, -0.25, -0.90])  # towards the light


def _rotation(tilt_x_deg: float, tilt_y_deg: float) -> np.ndarray:
    ax, ay = math.radians(tilt_x_deg), math.radians(tilt_y_deg)
    rx = np.array([[1, 0, 0], [0, math.cos(ax), -math.sin(ax)], [0, math.sin(ax), math.cos(ax)]])
    ry = np.array([[math.cos(ay), 0, math.sin(ay)], [0, 1, 0], [-math.sin(ay), 0, math.cos(ay)]])
    return rx @ ry


@dataclass(frozen=True)
class Camera:
    """K, world->camera R and t (millimetres), and the frame size."""

    K: np.ndarray
    R: np.ndarray
    t: np.ndarray
    size: tuple[int, int]

    @classmethod
    def hq_6mm(cls, size: tuple[int, int], board_in: tuple[float, float], height_mm: float,
               tilt_deg: tuple[float, float] = (0.0, 0.0)) -> Camera:
        """The HQ camera with its 6 mm lens (binned to `size`), `height_mm` above the board's centre,
        aimed at it, tilted by `tilt_deg` (about x, about y)."""
        f = LENS_MM / PIXEL_MM * size[0] / NATIVE[0]
        K = np.array([[f, 0, (size[0] - 1) / 2], [0, f, (size[1] - 1) / 2], [0, 0, 1]])
        R = _rotation(*tilt_deg)
        centre = np.array([board_in[0] * MM / 2, board_in[1] * MM / 2, 0.0])
        axis = R.T @ np.array([0.0, 0.0, 1.0])
        position = centre - axis * (height_mm / axis[2])
        return cls(K, R, -R @ position, size)

    @property
    def position(self) -> np.ndarray:
        return -self.R.T @ self.t

    def project(self, points: np.ndarray) -> np.ndarray:
        """(N, 3) world mm -> (N, 2) pixels."""
        cam = np.asarray(points, np.float64) @ self.R.T + self.t
        uvw = cam @ self.K.T
        return uvw[:, :2] / uvw[:, 2:3]

    def depth(self, points: np.ndarray) -> np.ndarray:
        return (np.asarray(points, np.float64) @ self.R.T + self.t)[:, 2]

    def plane(self, z_mm: float) -> np.ndarray:
        """Homography from (x, y) mm on the plane z = z_mm to pixels."""
        return self.K @ np.column_stack([self.R[:, 0], self.R[:, 1], self.R[:, 2] * z_mm + self.t])


@dataclass(frozen=True)
class Tile:
    """A tile as written: its BGRA image and its side in mm."""

    image: np.ndarray
    side_mm: float


@dataclass(frozen=True)
class Model:
    """A model on the board: its sticker's id, centre (board inches), heading (degrees), base (mm across,
    3 mm tall by default) and, when `height_mm`, a miniature of that height standing on it, its body
    `body_mm` in radius (0: 5 mm for a 30 mm model, scaled with the height). With `length_mm` the base
    is an oval, `base_mm` across the facing and `length_mm` along it, and the miniature a rider on a
    horse standing along it (`cavalry`); with `stand` too, a rectangular stand of five 6 mm-scale
    figures (`stand_figures`). `pose` "stride": the miniature's legs stand `footprint_mm` apart (feet
    centres) across its base; "cloak": a cloak `footprint_mm` across falls to the base over its lower
    third ("upright": its body stands on the base, nothing else)."""

    id: int
    x: float
    y: float
    heading: float
    base_mm: float
    height_mm: float = 0.0
    base_top_mm: float = 3.0
    seed: int = 0
    body_mm: float = 0.0
    length_mm: float = 0.0
    stand: bool = False
    pose: str = "upright"
    footprint_mm: float = 0.0


@dataclass(frozen=True)
class Face:
    points: np.ndarray  # (k, 3) world mm, a convex polygon
    colour: np.ndarray  # BGR 0-255, before shading
    normal: np.ndarray


@dataclass
class Frame:
    """A frame being built: float BGR, composited patch by patch."""

    camera: Camera
    image: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        w, h = self.camera.size
        self.image = np.zeros((h, w, 3), np.float32)

    def composite(self, box: tuple[int, int, int, int], colour: np.ndarray, cover: np.ndarray, ss: int) -> None:
        """Paste a patch rendered `ss` times finer over `box` (x0, y0, w, h), by its coverage."""
        x0, y0, w, h = box
        small = cv2.resize(colour * cover[..., None], (w, h), interpolation=cv2.INTER_AREA)
        alpha = cv2.resize(cover, (w, h), interpolation=cv2.INTER_AREA)[..., None]
        region = self.image[y0:y0 + h, x0:x0 + w]
        region[:] = region * (1 - alpha) + small


def board_texture(board_in: tuple[float, float], px_per_mm: float, rng: np.random.Generator) -> np.ndarray:
    """A grey-green mottled board with clutter: patches, stones, painted lines, rings and printed text."""
    w, h = int(board_in[0] * MM * px_per_mm), int(board_in[1] * MM * px_per_mm)
    tex = np.zeros((h, w, 3), np.float32)
    base = np.array([rng.uniform(70, 100), rng.uniform(95, 125), rng.uniform(80, 105)])  # BGR: grey-green
    for cells, amp in ((6, 22.0), (24, 14.0), (120, 8.0), (500, 5.0)):
        noise = rng.normal(0, 1, (cells, cells, 3)).astype(np.float32)
        noise[..., 1:] = noise[..., :1] * 0.7 + noise[..., 1:] * 0.3  # mostly brightness
        tex += cv2.resize(noise, (w, h), interpolation=cv2.INTER_CUBIC) * amp
    tex += base.astype(np.float32)
    for _ in range(int(board_in[0] * board_in[1] / 6)):  # stones and tufts
        c = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
        r = max(1, int(rng.uniform(0.5, 4) * px_per_mm))
        cv2.circle(tex, c, r, rng.uniform(20, 200, 3).tolist(), -1, cv2.LINE_AA)
    for _ in range(int(board_in[0] * board_in[1] / 30)):  # painted lines, ruts, twigs
        a = rng.uniform(0, 1, 2) * [w, h]
        b = a + rng.normal(0, 60 * px_per_mm, 2)
        cv2.line(tex, (int(a[0]), int(a[1])), (int(b[0]), int(b[1])), rng.uniform(25, 200, 3).tolist(),
                 max(1, int(rng.uniform(0.5, 3) * px_per_mm)), cv2.LINE_AA)
    for _ in range(int(board_in[0] * board_in[1] / 80)):  # round things: craters, tokens, cup rings
        c = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
        r = int(rng.uniform(4, 20) * px_per_mm)
        cv2.circle(tex, c, r, rng.uniform(10, 240, 3).tolist(), max(1, int(rng.uniform(0.5, 2.5) * px_per_mm)),
                   cv2.LINE_AA)
    words = np.zeros((h, w), np.uint8)
    for _ in range(int(board_in[0] * board_in[1] / 300)):  # printed words (a scatter terrain's label)
        c = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
        cv2.putText(words, "RUINS 7", c, cv2.FONT_HERSHEY_SIMPLEX, 0.12 * px_per_mm, 255,
                    max(1, int(0.6 * px_per_mm)), cv2.LINE_AA)
    ink = words[..., None].astype(np.float32) / 255
    return np.clip(tex * (1 - ink) + 20 * ink, 0, 255)


def _shade(face: Face, camera: Camera) -> np.ndarray:
    lit = max(0.0, float(face.normal @ LIGHT))
    return face.colour * (0.30 + 0.75 * lit)


def _cylinder(bottom: np.ndarray, axis: np.ndarray, radius: float, length: float, colour: np.ndarray,
              sides: int = 20, cap: bool = True) -> list[Face]:
    """A cylinder's faces: from `bottom` along unit `axis`, its sides and far cap."""
    a = axis / np.linalg.norm(axis)
    u = np.cross(a, [1.0, 0.0, 0.0] if abs(a[0]) < 0.9 else [0.0, 1.0, 0.0])
    u /= np.linalg.norm(u)
    v = np.cross(a, u)
    ang = np.linspace(0, 2 * math.pi, sides, endpoint=False)
    ring = np.cos(ang)[:, None] * u + np.sin(ang)[:, None] * v
    top = bottom + a * length
    faces = []
    for i in range(sides):
        j = (i + 1) % sides
        quad = np.array([bottom + radius * ring[i], bottom + radius * ring[j], top + radius * ring[j],
                         top + radius * ring[i]])
        n = ring[i] + ring[j]
        faces.append(Face(quad, colour, n / np.linalg.norm(n)))
    if cap:
        faces.append(Face(top + radius * ring, colour, a))
    return faces


def _sphere(centre: np.ndarray, radius: float, colour: np.ndarray, lat: int = 8, lon: int = 14) -> list[Face]:
    faces = []
    th = np.linspace(0, math.pi, lat + 1)
    ph = np.linspace(0, 2 * math.pi, lon + 1)
    for i in range(lat):
        for j in range(lon):
            corners = [(th[i], ph[j]), (th[i], ph[j + 1]), (th[i + 1], ph[j + 1]), (th[i + 1], ph[j])]
            pts = np.array([[math.sin(t) * math.cos(p), math.sin(t) * math.sin(p), math.cos(t)]
                            for t, p in corners])
            n = pts.mean(axis=0)
            faces.append(Face(centre + radius * pts, colour, n / np.linalg.norm(n)))
    return faces


def _dull(rng: np.random.Generator) -> np.ndarray:
    """A dull paint, from black primer to white primer."""
    hsv = np.uint8([[[rng.integers(0, 180), rng.integers(0, 110), rng.integers(15, 235)]]])
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float64)


def miniature(model: Model) -> list[Face]:
    """A body (a cylinder `body_mm` in radius, or 5 mm for a 30 mm model scaled with the height), a head, and
    an arm or weapon 8 mm long (scaled) pointing a random way; glued by hand, up to 0.5 mm off the base's
    centre; striding or cloaked as its `pose` says."""
    rng = np.random.default_rng(model.seed)
    s = model.height_mm / 30.0
    off = rng.uniform(-0.5, 0.5, 2)
    feet = np.array([model.x * MM + off[0], model.y * MM + off[1], -model.base_top_mm])
    up = np.array([0.0, 0.0, -1.0])
    body_r, body_h = model.body_mm or 5.0 * s, model.height_mm
    paint = _dull(rng)
    if model.pose == "stride":
        faces = _legs(model, feet, body_r, body_h, paint)
    else:
        faces = _cylinder(feet, up, body_r, body_h, paint)
    if model.pose == "cloak":
        faces += _cylinder(feet, up, model.footprint_mm / 2, body_h / 3, paint)
    faces += _sphere(feet + up * (body_h + 2.5 * s), 3.6 * s, _dull(rng))
    turn, tilt = rng.uniform(0, 2 * math.pi), math.radians(rng.uniform(-35, 35))
    out = np.array([math.cos(turn) * math.cos(tilt), math.sin(turn) * math.cos(tilt), -math.sin(tilt)])
    shoulder = feet + up * body_h * rng.uniform(0.55, 0.8) + out * body_r * 0.6
    faces += _cylinder(shoulder, out, 1.3 * s, 8.0 * s + 0.4 * body_r, _dull(rng), sides=10)
    return faces


def _legs(model: Model, feet: np.ndarray, body_r: float, body_h: float, paint: np.ndarray) -> list[Face]:
    """Two legs from feet `footprint_mm` apart (a random way across the base) to the hips, 40% up, and the
    body from there."""
    turn = np.random.default_rng(model.seed + 1).uniform(0, 2 * math.pi)
    across = np.array([math.cos(turn), math.sin(turn), 0.0])
    hips = feet + np.array([0.0, 0.0, -0.4 * body_h])
    faces = _cylinder(hips, np.array([0.0, 0.0, -1.0]), body_r, 0.6 * body_h, paint)
    for side in (-1.0, 1.0):
        foot = feet + across * side * model.footprint_mm / 2
        leg = hips - foot
        length = float(np.linalg.norm(leg))
        faces += _cylinder(foot, leg / length, 1.8 * model.height_mm / 30.0, length, paint, sides=10)
    return faces


def cavalry(model: Model) -> list[Face]:
    """A rider on a horse along the facing: the horse's body (a cylinder 11 mm thick, 40 mm long, its
    belly 10 mm above the base), four legs, its neck and head raised in front, a tail; the rider's body
    (4 mm in radius) `height_mm` - 20 mm tall on its back, a head and a lance or sword a random way."""
    rng = np.random.default_rng(model.seed)
    h = math.radians(model.heading)
    fwd, side = np.array([math.cos(h), math.sin(h), 0.0]), np.array([-math.sin(h), math.cos(h), 0.0])
    up = np.array([0.0, 0.0, -1.0])
    centre = np.array([model.x * MM, model.y * MM, -model.base_top_mm]) + side * rng.uniform(-0.5, 0.5)
    horse, rider = _dull(rng), _dull(rng)
    spine = centre + up * 15.5
    faces = _cylinder(spine - fwd * 20.0, fwd, 5.5, 40.0, horse)
    for along in (-15.0, 14.0):
        for across in (-3.0, 3.0):
            faces += _cylinder(centre + fwd * along + side * across, up, 1.4, 12.0, horse, sides=8)
    neck = spine + fwd * 17.0
    faces += _cylinder(neck, fwd * 0.5 + up, 3.2, 14.0, horse, sides=12)
    faces += _cylinder(neck + (fwd * 0.5 + up) / math.hypot(0.5, 1.0) * 12.0, fwd + up * -0.4, 2.8, 9.0,
                       horse, sides=12)
    faces += _cylinder(spine - fwd * 20.0, -fwd - up * 0.8, 1.5, 9.0, horse, sides=8)
    seat = spine + up * 5.0
    tall = max(model.height_mm - 20.0, 12.0)
    faces += _cylinder(seat, up, 4.0, tall, rider)
    faces += _sphere(seat + up * (tall + 2.8), 3.2, _dull(rng))
    turn, tilt = h + rng.uniform(-1.2, 1.2), math.radians(rng.uniform(-20, 35))
    out = np.array([math.cos(turn) * math.cos(tilt), math.sin(turn) * math.cos(tilt), -math.sin(tilt)])
    faces += _cylinder(seat + up * tall * 0.7, out, 1.0, rng.uniform(10.0, 30.0), _dull(rng), sides=8)
    return faces


def stand_figures(model: Model) -> list[Face]:
    """Five 6 mm-scale figures on a stand (`height_mm` tall, bodies 1.6 mm in radius, each with a head
    and a gun or spear): one on the sticker's middle, two each side of it beyond the sticker, a little
    staggered fore and aft."""
    rng = np.random.default_rng(model.seed)
    h = math.radians(model.heading)
    fwd, side = np.array([math.cos(h), math.sin(h), 0.0]), np.array([-math.sin(h), math.cos(h), 0.0])
    up = np.array([0.0, 0.0, -1.0])
    centre = np.array([model.x * MM, model.y * MM, -model.base_top_mm])
    faces: list[Face] = []
    for across in (0.0, -11.5, -16.0, 11.5, 16.0):
        feet = centre + side * (across + rng.uniform(-0.8, 0.8)) + fwd * (rng.uniform(-4.0, 4.0) if across else 0)
        tall = model.height_mm * rng.uniform(0.85, 1.0)
        faces += _cylinder(feet, up, 1.6, tall * 0.8, _dull(rng), sides=10)
        faces += _sphere(feet + up * (tall * 0.8 + 1.0), 1.2, _dull(rng), lat=5, lon=8)
        turn = h + rng.uniform(-1.0, 1.0)
        out = np.array([math.cos(turn), math.sin(turn), -math.sin(math.radians(rng.uniform(-20, 30)))])
        faces += _cylinder(feet + up * tall * 0.6, out, 0.5, rng.uniform(3.0, 7.0), _dull(rng), sides=6)
    return faces


def _outline(model: Model, z: float, count: int) -> np.ndarray:
    """(count, 3) points round the base's edge at height z: a circle, an oval along the facing, or a
    stand's rectangle (its four corners)."""
    h = math.radians(model.heading)
    fwd, side = np.array([math.cos(h), math.sin(h)]), np.array([-math.sin(h), math.cos(h)])
    ang = np.linspace(0, 2 * math.pi, count, endpoint=False)
    along = (model.length_mm or model.base_mm) / 2 * np.cos(ang)
    across = model.base_mm / 2 * np.sin(ang)
    if model.stand:
        along = model.length_mm / 2 * np.array([1.0, 1.0, -1.0, -1.0])
        across = model.base_mm / 2 * np.array([-1.0, 1.0, 1.0, -1.0])
        count = 4
    xy = np.array([model.x * MM, model.y * MM]) + along[:, None] * fwd + across[:, None] * side
    return np.column_stack([xy, np.full(count, z)])


def _base(model: Model, rng: np.random.Generator) -> tuple[list[Face], Face]:
    """The base's side wall and its top (a dark moulded base)."""
    colour = np.full(3, rng.uniform(25, 70)) + rng.uniform(-8, 8, 3)
    bottom, top = _outline(model, 0.0, 96), _outline(model, -model.base_top_mm, 96)
    walls = []
    for i in range(len(bottom)):
        j = (i + 1) % len(bottom)
        quad = np.array([bottom[i], bottom[j], top[j], top[i]])
        mid = (bottom[i] + bottom[j]) / 2 - np.array([model.x * MM, model.y * MM, 0.0])
        n = np.array([mid[0], mid[1], 0.0])
        walls.append(Face(quad, colour, n / np.linalg.norm(n)))
    return walls, Face(top, colour * 1.15, np.array([0.0, 0.0, -1.0]))


def tile_to_plane(tile: Tile, x_in: float, y_in: float, heading: float) -> np.ndarray:
    """3x3: a tile's pixel (column, row) -> board mm on its plane; its top edge faces `heading`."""
    n = tile.image.shape[0]
    step = tile.side_mm / n
    h = math.radians(heading)
    fwd, right = np.array([math.cos(h), math.sin(h)]), np.array([-math.sin(h), math.cos(h)])
    origin = np.array([x_in * MM, y_in * MM]) + (0.5 * step - tile.side_mm / 2) * (right - fwd)
    return np.array([[right[0] * step, -fwd[0] * step, origin[0]],
                     [right[1] * step, -fwd[1] * step, origin[1]], [0, 0, 1]])


@dataclass
class Renderer:
    """Renders boards through `camera`: a texture, corner tiles, and models on sticker tiles."""

    camera: Camera
    board_in: tuple[float, float]
    seed: int = 0
    ss: int = 4  # patch supersampling
    paper: float = 235.0  # a white print under the table's light
    ink: float = 28.0
    blur_sigma: float = 0.75  # the lens's softness, pixels (0: none)
    noise_sigma: float = 2.5  # the sensor's, grey levels
    jpeg_quality: int = 90
    shadow: float = 0.0  # how much the miniature's shadow (cast away from LIGHT) darkens its base's top
    k1: float = 0.0  # the lens's radial distortion: r_d = r (1 + k1 r^2) in focal lengths

    def render(self, corners: dict[int, tuple[float, float]], models: list[Model], tiles: dict[int, Tile]) -> bytes:
        """A JPEG of the board with the corner tiles (ids -> centre, printed upright) and the models."""
        rng = np.random.default_rng(self.seed)
        frame = Frame(self.camera)
        ppm = 1.6
        tex = board_texture(self.board_in, ppm, rng)
        to_px = self.camera.plane(0.0) @ np.diag([1 / ppm, 1 / ppm, 1.0])
        to_px = to_px @ np.array([[1, 0, 0.5], [0, 1, 0.5], [0, 0, 1]])  # texel centres
        w, h = self.camera.size
        frame.image[:] = cv2.warpPerspective(tex, to_px, (w, h), flags=cv2.INTER_LINEAR,
                                             borderMode=cv2.BORDER_CONSTANT, borderValue=(40, 40, 45))
        for i, (x, y) in corners.items():
            self._flat(frame, tiles[i], x, y, -90.0, 0.0)
        for m in models:
            walls, top = _base(m, rng)
            draw = stand_figures if m.stand else cavalry if m.length_mm else miniature
            faces = draw(m) if m.height_mm else []
            self._model(frame, m, tiles[m.id], walls, top, faces)
        img = self._finish(frame.image, rng)
        ok, data = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, self.jpeg_quality])
        assert ok
        return data.tobytes()

    def _box(self, points: np.ndarray) -> tuple[int, int, int, int] | None:
        px = self.camera.project(points)
        w, h = self.camera.size
        x0, y0 = np.floor(px.min(axis=0)).astype(int) - 3
        x1, y1 = np.ceil(px.max(axis=0)).astype(int) + 3
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
        return None if x1 <= x0 or y1 <= y0 else (int(x0), int(y0), int(x1 - x0), int(y1 - y0))

    def _patch_map(self, box: tuple[int, int, int, int]) -> np.ndarray:
        """Full-frame pixels -> the patch's finer pixels (pixel centres kept)."""
        x0, y0, _, _ = box
        s = self.ss
        return np.array([[s, 0, s * (0.5 - x0) - 0.5], [0, s, s * (0.5 - y0) - 0.5], [0, 0, 1]])

    def _paste_tile(self, colour: np.ndarray, cover: np.ndarray, box: tuple[int, int, int, int], tile: Tile,
                    x: float, y: float, heading: float, z: float) -> None:
        H = self._patch_map(box) @ self.camera.plane(z) @ tile_to_plane(tile, x, y, heading)
        size = (cover.shape[1], cover.shape[0])
        warped = cv2.warpPerspective(tile.image.astype(np.float32), H, size, flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
        a = warped[..., 3:4] / 255
        printed = self.ink + (self.paper - self.ink) * warped[..., :3] / 255
        colour[:] = colour * (1 - a) + printed * a
        cover[:] = np.maximum(cover, a[..., 0])

    def _flat(self, frame: Frame, tile: Tile, x: float, y: float, heading: float, z: float) -> None:
        n = tile.image.shape[0]
        corners = np.array([[0, 0, 1], [n, 0, 1], [n, n, 1], [0, n, 1]], np.float64) - [0.5, 0.5, 0]
        plane = (tile_to_plane(tile, x, y, heading) @ corners.T).T
        box = self._box(np.column_stack([plane[:, :2], np.full(4, z)]))
        if box is None:
            return
        colour, cover = self._blank(box)
        self._paste_tile(colour, cover, box, tile, x, y, heading, z)
        frame.composite(box, colour, cover, self.ss)

    def _blank(self, box: tuple[int, int, int, int]) -> tuple[np.ndarray, np.ndarray]:
        _, _, w, h = box
        return np.zeros((h * self.ss, w * self.ss, 3), np.float32), np.zeros((h * self.ss, w * self.ss), np.float32)

    def _fill(self, colour: np.ndarray, cover: np.ndarray, box: tuple[int, int, int, int], points: np.ndarray,
              bgr: np.ndarray) -> None:
        px = self._patch_map(box) @ np.column_stack([self.camera.project(points), np.ones(len(points))]).T
        poly = np.round(px[:2].T * 16).astype(np.int32)
        cv2.fillPoly(colour, [poly], bgr.tolist(), cv2.LINE_8, shift=4)
        cv2.fillPoly(cover, [poly], 1.0, cv2.LINE_8, shift=4)

    def _model(self, frame: Frame, m: Model, tile: Tile, walls: list[Face], top: Face, faces: list[Face]) -> None:
        everything = np.vstack([f.points for f in walls + faces])
        box = self._box(everything)
        if box is None:
            return
        colour, cover = self._blank(box)
        eye = self.camera.position
        for face in walls:  # the side wall facing the camera
            if face.normal @ (eye - face.points.mean(axis=0)) > 0:
                self._fill(colour, cover, box, face.points, _shade(face, self.camera))
        self._fill(colour, cover, box, top.points, _shade(top, self.camera))
        self._paste_tile(colour, cover, box, tile, m.x, m.y, m.heading, -m.base_top_mm)
        if self.shadow and faces:
            self._cast_shadow(colour, box, faces, -m.base_top_mm)
        seen = [f for f in faces if f.normal @ (eye - f.points.mean(axis=0)) > 0]
        depth = [float(self.camera.depth(f.points.mean(axis=0)[None, :])[0]) for f in seen]
        for k in np.argsort(depth)[::-1]:  # far first
            self._fill(colour, cover, box, seen[k].points, _shade(seen[k], self.camera))
        frame.composite(box, colour, cover, self.ss)

    def _cast_shadow(self, colour: np.ndarray, box: tuple[int, int, int, int], faces: list[Face], z: float
                     ) -> None:
        """Darken the patch where the faces' shadow falls on the plane at `z` (a penumbra about 1 mm)."""
        mask = np.zeros(colour.shape[:2], np.float32)
        for face in faces:
            on_plane = face.points - np.outer((face.points[:, 2] - z) / LIGHT[2], LIGHT)
            px = self._patch_map(box) @ np.column_stack([self.camera.project(on_plane),
                                                         np.ones(len(on_plane))]).T
            cv2.fillPoly(mask, [np.round(px[:2].T * 16).astype(np.int32)], 1.0, cv2.LINE_8, shift=4)
        mm = self.ss * float(np.linalg.norm(np.diff(self.camera.project(np.array([[0.0, 0.0, z], [1.0, 0.0, z]])),
                                                    axis=0)))  # patch pixels a millimetre
        mask = cv2.GaussianBlur(mask, (0, 0), mm * 0.5)
        colour *= 1 - self.shadow * mask[..., None]

    def _distort(self, image: np.ndarray) -> np.ndarray:
        """The frame through the lens's distortion: each distorted pixel shows the ideal one at radius r
        where r (1 + k1 r^2) is its own (Newton's method over a table of radii, interpolated)."""
        h, w = image.shape[:2]
        K = self.camera.K
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
        u, v = (xx - K[0, 2]) / K[0, 0], (yy - K[1, 2]) / K[1, 1]
        rd = np.sqrt(u * u + v * v)
        table = np.linspace(0.0, float(rd.max()) * 1.001, 20001)
        r = table.copy()
        for _ in range(30):
            r = r - (r * (1 + self.k1 * r * r) - table) / (1 + 3 * self.k1 * r * r)
        scale = np.interp(rd, table[1:], r[1:] / table[1:])
        mx = (u * scale * K[0, 0] + K[0, 2]).astype(np.float32)
        my = (v * scale * K[1, 1] + K[1, 2]).astype(np.float32)
        return cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    def _finish(self, image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The table's light (brighter in the middle, a slope across), lens softness and sensor noise."""
        h, w = image.shape[:2]
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / (w * w / 4)
        slope = float(rng.uniform(-0.08, 0.08))
        light = (1.0 - 0.18 * r2 + slope * (xx / w - 0.5)).astype(np.float32)
        image = image * light[..., None]
        if self.k1:
            image = self._distort(image)
        out = cv2.GaussianBlur(image, (0, 0), self.blur_sigma) if self.blur_sigma > 0 else image
        out += rng.normal(0, self.noise_sigma, out.shape).astype(np.float32)
        return np.clip(out + 0.5, 0, 255).astype(np.uint8)


def spread(count: int, board_in: tuple[float, float], corners: dict[int, tuple[float, float]],
           rng: np.random.Generator, apart_in: float = 2.6, edge_in: float = 1.3) -> list[tuple[float, float]]:
    """`count` places over the whole board: at least `apart_in` apart, `edge_in` from its edges and clear
    of the corner tiles."""
    out: list[tuple[float, float]] = []
    while len(out) < count:
        p = (float(rng.uniform(edge_in, board_in[0] - edge_in)), float(rng.uniform(edge_in, board_in[1] - edge_in)))
        if all(math.dist(p, c) > 3.0 for c in corners.values()) and all(math.dist(p, q) > apart_in for q in out):
            out.append(p)
    return out
