"""The synthetic camera: renders a `SyntheticScene` through a `PinholeCamera` into greyscale frames.

The board (cloth, terrain, dice, marker-like clutter, decoy markers printed at the wrong size) is a
texture drawn once and warped through the camera. Every real marker is rendered exactly: the rays of
its pixels (supersampled) meet the plane at the marker's height, so tilt, lens distortion and parallax
come out right with known ground truth. A marker may lie on a solid base (its side wall drawn) with
painted miniatures standing on it, ray-traced (vision/miniature.py); a `Tile` (a sticker image, such
as `smarttable markers --tiles` writes) can replace a marker's printed square. Hands are drawn over
everything; then uneven light, blur, noise and optional JPEG artefacts.
"""

from __future__ import annotations

import copy
import math
import random
from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.camera import PinholeCamera
from vision.detect import get_dictionary
from vision.miniature import trace
from vision.sticker import Sticker, sticker_image
from vision.synthetic_scene import Hand, SceneMarker, SyntheticScene

MM_PER_INCH = 25.4
TEXELS_PER_CELL = 16
QUIET_CELLS = 1.0  # white margin around a printed marker, in cells


@dataclass(frozen=True)
class RenderOptions:
    dictionary: str = "DICT_APRILTAG_36h11"
    blur_sigma: float = 0.6
    noise_sigma: float = 2.0
    light: float = 0.25  # depth of the light fall-off across the board (0: even)
    clutter: int = 40  # number of clutter items on the board
    decoys: int = 2  # real dictionary markers printed at a wrong size
    jpeg_quality: int = 0  # 0: no JPEG round trip
    supersample: int = 4
    texture_ppi: float = 40.0
    seed: int = 7


@dataclass(frozen=True)
class Tile:
    """A sticker's image to lie on a marker's base: square, greyscale or BGR(A) uint8 (alpha: 0 outside
    the sticker), `side_mm` across; its centre on the marker's centre, its top edge the facing."""

    image: np.ndarray
    side_mm: float

    def texture(self) -> np.ndarray:
        """(N, N, 2) float32: premultiplied grey and alpha."""
        img = self.image
        alpha = img[..., 3].astype(np.float32) if img.ndim == 3 and img.shape[2] == 4 else None
        colour = img[..., :3] if img.ndim == 3 else img
        grey = cv2.cvtColor(colour, cv2.COLOR_BGR2GRAY) if colour.ndim == 3 else colour
        a = np.full(grey.shape, 255.0, np.float32) if alpha is None else alpha
        return np.dstack([grey.astype(np.float32) * (a / 255.0), a])


class Renderer:
    """Renders frames of a board seen by one camera; the background is drawn once and cached.
    `tiles` (marker id -> Tile) draws those markers from their sticker images."""

    def __init__(self, camera: PinholeCamera, board: tuple[float, float],
                 options: RenderOptions | None = None, tiles: dict[int, Tile] | None = None):
        self.camera = camera
        self.board = board
        self.options = options or RenderOptions()
        self.dictionary = get_dictionary(self.options.dictionary)
        self.tiles = dict(tiles or {})
        self._textures: dict[tuple[int, bool, float, float], tuple[np.ndarray, float]] = {}
        self._tile_textures: dict[int, np.ndarray] = {}
        self._background = self._render_background()
        self._light = self._light_field()
        self._rng = np.random.default_rng(self.options.seed)

    def with_tiles(self, tiles: dict[int, Tile]) -> Renderer:
        """A renderer of the same camera, board and options (the background shared, not redrawn) that
        draws these tiles instead: benches render many sticker designs over one board."""
        out = copy.copy(self)
        out.tiles = dict(tiles)
        out._tile_textures = {}
        return out

    # --- background -------------------------------------------------------------------------------
    def _render_background(self) -> np.ndarray:
        o = self.options
        tex = _board_texture((int(self.board[0] * o.texture_ppi), int(self.board[1] * o.texture_ppi)),
                             o.texture_ppi, o, self.dictionary)
        return warp_plane(self.camera, tex, o.texture_ppi, border=45)

    def _light_field(self) -> np.ndarray:
        width, height = self.camera.size
        y, x = np.mgrid[0:height, 0:width].astype(np.float32)
        cx, cy = width * 0.35, height * 0.3
        r2 = ((x - cx) ** 2 + (y - cy) ** 2) / float(width**2 + height**2)
        return (1.0 - self.options.light * (r2 / r2.max())).astype(np.float32)

    # --- markers ----------------------------------------------------------------------------------
    def _texture(self, marker: SceneMarker, corner: bool) -> tuple[np.ndarray, float]:
        """(texture BGRA-like (N, N, 2) value+alpha, extent in inches) of a marker on its base."""
        key = (marker.id, corner, marker.size_mm, marker.base_mm)
        if key not in self._textures:
            cells = self.dictionary.markerSize + 2
            side = cells * TEXELS_PER_CELL
            img = cv2.aruco.generateImageMarker(self.dictionary, marker.id, side, borderBits=1)
            quiet = int(QUIET_CELLS * TEXELS_PER_CELL)
            printed = cv2.copyMakeBorder(img, quiet, quiet, quiet, quiet, cv2.BORDER_CONSTANT, value=235)
            marker_in = marker.size_mm / MM_PER_INCH
            base_in = marker.base_mm / MM_PER_INCH
            extent = max(marker_in * printed.shape[0] / side, base_in)
            n = int(round(extent / marker_in * side))
            n += (n - printed.shape[0]) % 2  # an even border each side: the marker stays centred
            value = np.full((n, n), 70, np.uint8)
            alpha = np.zeros((n, n), np.uint8)
            if base_in > 0 and not corner:
                cv2.circle(value, (n // 2, n // 2), n // 2, 70, -1)
                cv2.circle(alpha, (n // 2, n // 2), n // 2, 255, -1)
            off = (n - printed.shape[0]) // 2
            value[off:off + printed.shape[0], off:off + printed.shape[0]] = printed
            alpha[off:off + printed.shape[0], off:off + printed.shape[0]] = 255
            premultiplied = (value.astype(np.float32) * (alpha / 255.0)).astype(np.float32)
            # extent of the texture in inches: exactly n texels at the marker's scale
            self._textures[key] = (np.dstack([premultiplied, alpha.astype(np.float32)]), n * marker_in / side)
        return self._textures[key]

    def _marker_texture(self, marker: SceneMarker, corner: bool) -> tuple[np.ndarray, float]:
        """The marker's texture and its extent in inches: its tile's, or its printed marker's (with the
        flat base disc unless it lies on a solid base)."""
        tile = self.tiles.get(marker.id)
        if tile is None:
            return self._texture(replace(marker, base_mm=0.0) if marker.base_shape else marker, corner)
        if marker.id not in self._tile_textures:
            # no finer than twice the supersampled pixels (a print's fine detail would alias)
            ends = self.camera.project(np.array([[marker.x, marker.y, 0.0], [marker.x + 1.0, marker.y, 0.0]]))
            px_per_inch = float(np.linalg.norm(ends[1] - ends[0]))
            n = int(2 * self.options.supersample * px_per_inch * tile.side_mm / MM_PER_INCH)
            texture = tile.texture()
            if texture.shape[0] > n:
                texture = cv2.resize(texture, (n, n), interpolation=cv2.INTER_AREA)
            self._tile_textures[marker.id] = texture
        return self._tile_textures[marker.id], tile.side_mm / MM_PER_INCH

    def _draw_marker(self, image: np.ndarray, marker: SceneMarker, corner: bool) -> None:
        texture, extent = self._marker_texture(marker, corner)
        n = texture.shape[0]
        z = -marker.height_in
        half = extent / 2 * math.sqrt(2)
        ring = np.array([[marker.x + dx, marker.y + dy, z] for dx in (-half, half) for dy in (-half, half)])
        px = self.camera.project(ring)
        width, height = self.camera.size
        x0, y0 = np.floor(px.min(axis=0)).astype(int) - 2
        x1, y1 = np.ceil(px.max(axis=0)).astype(int) + 2
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, width - 1), min(y1, height - 1)
        if x1 <= x0 or y1 <= y0:
            return
        ss = self.options.supersample
        sub = (np.arange(ss) + 0.5) / ss - 0.5
        xs = (np.arange(x0, x1 + 1)[:, None] + sub[None, :]).reshape(-1)
        ys = (np.arange(y0, y1 + 1)[:, None] + sub[None, :]).reshape(-1)
        grid = np.stack(np.meshgrid(xs, ys), axis=-1).reshape(-1, 2)
        board = self.camera.pixels_to_plane(grid, z) - np.array([marker.x, marker.y])
        a = math.radians(marker.heading + 90.0)  # heading -90 (facing -y) is the marker as printed
        c, s = math.cos(a), math.sin(a)
        local = np.column_stack([c * board[:, 0] + s * board[:, 1], -s * board[:, 0] + c * board[:, 1]])
        tex = ((local / extent + 0.5) * n - 0.5).astype(np.float32).reshape(len(ys), len(xs), 2)
        sampled = cv2.remap(texture, tex[..., 0], tex[..., 1], cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0)).astype(np.float32)
        hh, ww = y1 - y0 + 1, x1 - x0 + 1
        sampled = sampled.reshape(hh, ss, ww, ss, 2).mean(axis=(1, 3))
        alpha = sampled[..., 1] / 255.0
        region = image[y0:y1 + 1, x0:x1 + 1]
        region[:] = sampled[..., 0] + region * (1 - alpha)

    def _draw_hand(self, image: np.ndarray, hand: Hand) -> None:
        a = math.radians(hand.angle)
        ux, uy = math.cos(a), math.sin(a)  # towards the arm
        px, py = -uy, ux
        pts = []
        outline = [(-0.3, 0.0), (0.3, 0.0), (1.6, 1.2), (3.5, 1.5), (hand.length_in, 1.3),
                   (hand.length_in, -1.3), (3.5, -1.5), (1.6, -1.2)]
        for along, across in outline:
            pts.append([hand.x + ux * along + px * across, hand.y + uy * along + py * across,
                        -hand.height_in])
        poly = self.camera.project(np.array(pts))
        cv2.fillPoly(image, [np.round(poly * 16).astype(np.int32)], 175.0, cv2.LINE_AA, shift=4)

    # --- solid bases and miniatures ----------------------------------------------------------------
    def _draw_base(self, image: np.ndarray, marker: SceneMarker) -> None:
        """A solid base: its side wall (the hull of its bottom and top outlines) and its top."""
        top = base_outline(marker, -marker.height_in)
        bottom = base_outline(marker, 0.0)
        wall = cv2.convexHull(self.camera.project(np.vstack([top, bottom])).astype(np.float32))
        shade = 0.7 * marker.base_grey  # the wall is lit from the side, the top from above
        outline = np.round(wall.reshape(-1, 2) * 16).astype(np.int32)
        cv2.fillPoly(image, [outline], shade, cv2.LINE_AA, shift=4)
        face = self.camera.project(top)
        cv2.fillPoly(image, [np.round(face * 16).astype(np.int32)], marker.base_grey, cv2.LINE_AA, shift=4)

    def _draw_figures(self, image: np.ndarray, marker: SceneMarker) -> None:
        """The miniatures standing on a marker's base, ray-traced (supersampled), with a soft contact
        shadow around their feet on the base."""
        base_top = marker.height_in * MM_PER_INCH
        tallest = max(f.height_mm for f in marker.figures)
        reach = max(f.radius_mm + math.hypot(*f.offset_mm) + max((a.length_mm + a.radius_mm for a in f.arms),
                                                                 default=0.0) for f in marker.figures)
        ring = [(marker.x + reach / MM_PER_INCH * math.cos(a), marker.y + reach / MM_PER_INCH * math.sin(a))
                for a in np.linspace(0, 2 * math.pi, 16, endpoint=False)]
        corners = np.array([[x, y, -z / MM_PER_INCH] for x, y in ring
                            for z in (base_top, base_top + tallest)])
        px = self.camera.project(corners)
        width, height = self.camera.size
        x0, y0 = np.maximum(np.floor(px.min(axis=0)).astype(int) - 2, 0)
        x1, y1 = np.minimum(np.ceil(px.max(axis=0)).astype(int) + 2, (width - 1, height - 1))
        if x1 <= x0 or y1 <= y0:
            return
        ss = self.options.supersample
        sub = (np.arange(ss) + 0.5) / ss - 0.5
        xs = (np.arange(x0, x1 + 1)[:, None] + sub[None, :]).reshape(-1)
        ys = (np.arange(y0, y1 + 1)[:, None] + sub[None, :]).reshape(-1)
        grid = np.stack(np.meshgrid(xs, ys), axis=-1).reshape(-1, 2)
        eye = -self.camera.R.T @ self.camera.t.reshape(3)
        origin = np.array([(eye[0] - marker.x) * MM_PER_INCH, (eye[1] - marker.y) * MM_PER_INCH,
                           -eye[2] * MM_PER_INCH])
        on_board = (self.camera.pixels_to_plane(grid, 0.0) - np.array([marker.x, marker.y])) * MM_PER_INCH
        rays = np.column_stack([on_board, np.zeros(len(grid))]) - origin
        hit, grey = trace(marker.figures, origin, rays, marker.heading, base_top)
        # where the rays that miss meet the base top: darkened near each figure's feet
        s = (origin[2] - base_top) / origin[2]
        spot = origin[:2] + rays[:, :2] * s
        shadow = np.ones(len(grid))
        h = math.radians(marker.heading)
        for f in marker.figures:
            foot = np.array([math.cos(h) * f.offset_mm[0] - math.sin(h) * f.offset_mm[1],
                             math.sin(h) * f.offset_mm[0] + math.cos(h) * f.offset_mm[1]])
            gap = np.linalg.norm(spot - foot, axis=1) - f.radius_mm
            shadow *= 1 - 0.3 * np.clip(1 - gap / (0.8 * f.radius_mm), 0, 1)
        hh, ww = y1 - y0 + 1, x1 - x0 + 1
        paint = np.where(hit, grey, 0.0).reshape(hh, ss, ww, ss).sum(axis=(1, 3)) / (ss * ss)
        dim = np.where(hit, 0.0, shadow).reshape(hh, ss, ww, ss).sum(axis=(1, 3)) / (ss * ss)
        region = image[y0:y1 + 1, x0:x1 + 1]
        region[:] = paint + region * dim

    # --- frame ------------------------------------------------------------------------------------
    def render(self, scene: SyntheticScene, corner_ids: frozenset[int] | set[int] = frozenset()
               ) -> np.ndarray:
        """One greyscale uint8 frame of the scene: flat markers, then solid bases with their markers,
        then the miniatures (those farthest out from under the camera first: nearer ones lean over
        them), then hands."""
        o = self.options
        image: np.ndarray = self._background.astype(np.float32)
        flat = [m for m in scene.markers if not m.base_shape]
        solid = [m for m in scene.markers if m.base_shape]
        for marker in sorted(flat, key=lambda m: m.height_in):
            self._draw_marker(image, marker, marker.id in corner_ids)
        for marker in sorted(solid, key=lambda m: m.height_in):
            self._draw_base(image, marker)
            self._draw_marker(image, marker, marker.id in corner_ids)
        eye = -self.camera.R.T @ self.camera.t.reshape(3)
        for marker in sorted((m for m in solid if m.figures), key=lambda m: -math.dist((m.x, m.y), eye[:2])):
            self._draw_figures(image, marker)
        for hand in scene.hands:
            self._draw_hand(image, hand)
        image *= self._light
        if o.blur_sigma > 0:
            image = cv2.GaussianBlur(image, (0, 0), o.blur_sigma)
        if o.noise_sigma > 0:
            image += self._rng.normal(0.0, o.noise_sigma, image.shape).astype(np.float32)
        frame = np.clip(image, 0, 255).astype(np.uint8)
        if not o.jpeg_quality:
            return frame
        ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, o.jpeg_quality])
        decoded = cv2.imdecode(data, cv2.IMREAD_GRAYSCALE) if ok else None
        if decoded is None:
            raise RuntimeError("JPEG round trip failed")
        return decoded


def base_outline(marker: SceneMarker, z: float, points: int = 72) -> np.ndarray:
    """(points, 3) world points round a solid base's outline at world height z: a circle, an oval or a
    rectangle `base_mm` across the facing and `base_depth_mm` (or `base_mm`) along it."""
    half_w = marker.base_mm / 2 / MM_PER_INCH
    half_d = (marker.base_depth_mm or marker.base_mm) / 2 / MM_PER_INCH
    t = np.linspace(0, 2 * math.pi, points, endpoint=False)
    if marker.base_shape == "rect":
        c, s = np.cos(t), np.sin(t)
        k = 1 / np.maximum(np.abs(c), np.abs(s))  # the unit square's outline, walked round by angle
        along, across = half_d * c * k, half_w * s * k
    else:
        along, across = half_d * np.cos(t), half_w * np.sin(t)
    h = math.radians(marker.heading)
    x = marker.x + along * math.cos(h) - across * math.sin(h)
    y = marker.y + along * math.sin(h) + across * math.cos(h)
    return np.column_stack([x, y, np.full(points, z)])


def sticker_tiles(stickers: dict[int, float], dpi: int = 300) -> dict[int, Tile]:
    """The ring stickers' images (id -> base mm) as the renderer's tiles, printed at `dpi`."""
    out = {}
    for marker_id, base in stickers.items():
        sticker = Sticker(base)
        px = int(round(sticker.diameter_mm / MM_PER_INCH * dpi))
        out[marker_id] = Tile(sticker_image(marker_id, sticker, px), sticker.diameter_mm)
    return out


def warp_plane(camera: PinholeCamera, texture: np.ndarray, ppi: float, border: int = 0, step: int = 8
               ) -> np.ndarray:
    """What the camera sees of a flat texture (ppi texels per inch, its top-left at the board origin):
    rays are traced on a grid every `step` pixels and interpolated in between (the map is smooth)."""
    width, height = camera.size
    gx = np.arange(0, width + step, step, dtype=np.float64)
    gy = np.arange(0, height + step, step, dtype=np.float64)
    grid = np.stack(np.meshgrid(gx, gy), axis=-1).reshape(-1, 2)
    board_xy = camera.pixels_to_plane(grid, 0.0).reshape(len(gy), len(gx), 2)
    coarse = (board_xy * ppi - 0.5).astype(np.float32)
    inverse = np.array([[1 / step, 0, 0], [0, 1 / step, 0]], np.float32)
    fine = cv2.warpAffine(coarse, inverse, (width, height), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
    return cv2.remap(texture, fine[..., 0], fine[..., 1], cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_CONSTANT, borderValue=border)


def _board_texture(size: tuple[int, int], ppi: float, o: RenderOptions, dictionary: cv2.aruco.Dictionary
                   ) -> np.ndarray:
    """The board's surface: mottled cloth, terrain shapes, dice, lines, marker-like grids and decoys."""
    rng = random.Random(o.seed)
    nprng = np.random.default_rng(o.seed)
    w, h = size
    cloth: np.ndarray = nprng.normal(0, 1, (max(1, h // 16), max(1, w // 16))).astype(np.float32)
    cloth = cv2.resize(cloth, (w, h), interpolation=cv2.INTER_CUBIC)
    tex = np.clip(120 + 10 * cloth, 0, 255).astype(np.uint8)
    for _ in range(o.clutter):
        kind = rng.choice(("terrain", "terrain", "die", "line", "grid", "text"))
        x, y = rng.uniform(0, w), rng.uniform(0, h)
        if kind == "terrain":
            n = rng.randint(4, 8)
            r = rng.uniform(1.0, 4.0) * ppi
            pts = [(x + r * math.cos(2 * math.pi * i / n + rng.uniform(-0.3, 0.3)) * rng.uniform(0.6, 1.2),
                    y + r * math.sin(2 * math.pi * i / n + rng.uniform(-0.3, 0.3)) * rng.uniform(0.6, 1.2))
                   for i in range(n)]
            cv2.fillPoly(tex, [np.asarray(pts).astype(np.int32)], int(rng.uniform(40, 210)), cv2.LINE_AA)
        elif kind == "die":
            s = 0.63 * ppi / 2
            box = cv2.boxPoints(((x, y), (2 * s, 2 * s), rng.uniform(0, 90)))
            cv2.fillPoly(tex, [box.astype(np.int32)], 235, cv2.LINE_AA)
            for _ in range(rng.randint(1, 6)):
                cv2.circle(tex, (int(x + rng.uniform(-s, s) * 0.6), int(y + rng.uniform(-s, s) * 0.6)),
                           max(1, int(s / 4)), 20, -1, cv2.LINE_AA)
        elif kind == "line":
            x2, y2 = x + rng.uniform(-8, 8) * ppi, y + rng.uniform(-8, 8) * ppi
            cv2.line(tex, (int(x), int(y)), (int(x2), int(y2)), int(rng.uniform(20, 230)),
                     max(1, int(rng.uniform(0.05, 0.3) * ppi)), cv2.LINE_AA)
        elif kind == "grid":  # a random black-and-white grid framed like a marker: false-positive bait
            cells = dictionary.markerSize + 2
            bits = (nprng.random((cells, cells)) > 0.5).astype(np.uint8) * 255
            bits[0, :] = bits[-1, :] = bits[:, 0] = bits[:, -1] = 0
            side = int(rng.uniform(0.4, 1.2) * ppi)
            patch = cv2.resize(bits, (side, side), interpolation=cv2.INTER_NEAREST)
            _paste(tex, patch, int(x), int(y))
        else:
            cv2.putText(tex, rng.choice(("HQ", "OBJ 3", "12", "ruins")), (int(x), int(y)),
                        cv2.FONT_HERSHEY_SIMPLEX, ppi / 30, int(rng.uniform(20, 230)), max(1, int(ppi / 15)))
    for _ in range(o.decoys):  # a real marker, but printed far larger than any model or corner marker
        side = int(rng.uniform(2.5, 3.5) * ppi)
        img = cv2.aruco.generateImageMarker(dictionary, rng.randint(0, 40), side, borderBits=1)
        patch = cv2.copyMakeBorder(img, side // 8, side // 8, side // 8, side // 8, cv2.BORDER_CONSTANT,
                                   value=235)
        _paste(tex, patch, int(rng.uniform(0.2, 0.8) * w), int(rng.uniform(0.2, 0.8) * h))
    return tex


def _paste(tex: np.ndarray, patch: np.ndarray, x: int, y: int) -> None:
    h, w = patch.shape
    x0, y0 = max(0, x - w // 2), max(0, y - h // 2)
    x1, y1 = min(tex.shape[1], x0 + w), min(tex.shape[0], y0 + h)
    tex[y0:y1, x0:x1] = patch[:y1 - y0, :x1 - x0]
