"""Real-camera damage applied to a rendered frame, so tests and benches can measure recall on photos.

Renders are kinder than a Pi camera over a game table: a `Degradation` adds what real photos show,
each part optional - JPEG at quality 50-70 with 4:2:0 chroma subsampling (a USB camera's MJPEG),
motion blur a few pixels long in one direction (a bumped table, a slow shutter), defocus that grows
toward the frame's edges (fixed focus, field curvature), vignetting, a hard shadow edge across the
board (an arm, a lamp), signal-dependent sensor noise at high gain with row banding, and a slight
rolling-shutter wobble (rows shifted sideways). `LEVELS` holds the moderate and harsh presets the
bench and the tests use.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class Degradation:
    """What to do to a frame; zero leaves that part out."""

    jpeg_quality: int = 0  # 1-100; encoded as colour with 4:2:0 chroma subsampling
    motion_px: float = 0.0  # length of a straight motion blur
    motion_deg: float = 20.0  # its direction in the image
    defocus_edge: float = 0.0  # Gaussian sigma (px) at the frame's corners, zero at the centre
    vignette: float = 0.0  # light lost at the corners (0.4: 40% darker)
    shadow: float = 0.0  # light lost on the dark side of a hard shadow edge
    shadow_at: float = 0.45  # where the edge crosses the frame's middle row, as a fraction of the width
    noise_mid: float = 0.0  # noise sigma at mid-grey (shot noise grows with brightness) plus row banding
    wobble_px: float = 0.0  # rolling shutter: rows shifted sideways by up to this, a slow sine down the frame


LEVELS: dict[str, Degradation] = {
    "jpeg 70": Degradation(jpeg_quality=70),
    "jpeg 50": Degradation(jpeg_quality=50),
    "motion 3 px": Degradation(motion_px=3.0),
    "motion 4 px": Degradation(motion_px=4.0),
    "motion 6 px": Degradation(motion_px=6.0),
    "defocus 1.5 px": Degradation(defocus_edge=1.5),
    "defocus 2.5 px": Degradation(defocus_edge=2.5),
    "vignette+shadow 40%": Degradation(vignette=0.4, shadow=0.4),
    "vignette+shadow 65%": Degradation(vignette=0.5, shadow=0.65),
    "gain noise 6": Degradation(noise_mid=6.0),
    "gain noise 12": Degradation(noise_mid=12.0),
    "wobble 0.5 px": Degradation(wobble_px=0.5),
    "wobble 1.5 px": Degradation(wobble_px=1.5),
    "all moderate": Degradation(jpeg_quality=70, motion_px=3.0, defocus_edge=1.5, vignette=0.4, shadow=0.4,
                                noise_mid=6.0, wobble_px=0.5),
    "all harsh": Degradation(jpeg_quality=50, motion_px=6.0, defocus_edge=2.5, vignette=0.5, shadow=0.65,
                             noise_mid=12.0, wobble_px=1.5),
}
MODERATE = ("jpeg 70", "motion 3 px", "defocus 1.5 px", "vignette+shadow 40%", "gain noise 6",
            "wobble 0.5 px", "all moderate")


def degrade(image: np.ndarray, d: Degradation, seed: int = 0) -> np.ndarray:
    """A greyscale uint8 frame as a real camera would have spoiled it (same size)."""
    rng = np.random.default_rng(seed)
    img: np.ndarray = image.astype(np.float32)
    h, w = img.shape
    if d.wobble_px:
        img = _wobble(img, d.wobble_px)
    if d.vignette or d.shadow:
        img *= _light(h, w, d)
    if d.defocus_edge:
        img = _defocus(img, d.defocus_edge)
    if d.motion_px:
        img = cv2.filter2D(img, -1, _line_kernel(d.motion_px, d.motion_deg), borderType=cv2.BORDER_REPLICATE)
    if d.noise_mid:
        shot = d.noise_mid * np.sqrt(np.clip(img, 0, None) / 128.0)
        img += shot * rng.standard_normal(img.shape, dtype=np.float32)
        img += rng.normal(0.0, 0.25 * d.noise_mid, (h, 1)).astype(np.float32)  # row banding
    frame = np.clip(img, 0, 255).astype(np.uint8)
    if d.jpeg_quality:
        frame = _jpeg(frame, d.jpeg_quality)
    return frame


def _wobble(img: np.ndarray, amplitude: float) -> np.ndarray:
    h, w = img.shape
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    shift = amplitude * np.sin(2 * math.pi * 1.3 * y / h + 0.7).astype(np.float32)
    return cv2.remap(img, x + shift, y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def _light(h: int, w: int, d: Degradation) -> np.ndarray:
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    r2 = ((x - w / 2) ** 2 + (y - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    light = 1.0 - d.vignette * r2 ** 1.5
    if d.shadow:
        # a straight edge, tilted a little off vertical, softened over a pixel or two (a hard shadow)
        side = (x - d.shadow_at * w) - 0.25 * (y - h / 2)
        dark = cv2.GaussianBlur((side < 0).astype(np.float32), (0, 0), 1.2)
        light *= 1.0 - d.shadow * dark
    return light


def _defocus(img: np.ndarray, edge_sigma: float) -> np.ndarray:
    """Blur growing with the square of the distance from the centre: a blend of a few blurred copies."""
    h, w = img.shape
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    want = edge_sigma * (((x - w / 2) ** 2 + (y - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2))
    sigmas = np.linspace(0.0, edge_sigma, 5)
    copies = [img] + [cv2.GaussianBlur(img, (0, 0), float(s)) for s in sigmas[1:]]
    pos = np.clip(want / sigmas[1], 0, len(sigmas) - 1.001)
    low = pos.astype(np.int32)
    frac = pos - low
    out = np.zeros_like(img)
    for k in range(len(sigmas) - 1):
        sel = low == k
        out[sel] = copies[k][sel] * (1 - frac[sel]) + copies[k + 1][sel] * frac[sel]
    return out


def _line_kernel(length: float, degrees: float) -> np.ndarray:
    size = int(math.ceil(length)) | 1
    size += 2
    # drawn 4x larger, then shrunk: sub-pixel ends
    kernel: np.ndarray = np.zeros((size * 4, size * 4), np.float32)
    c = size * 2 - 0.5
    dx, dy = math.cos(math.radians(degrees)) * length * 2, math.sin(math.radians(degrees)) * length * 2
    ends = [(round((c - dx) * 16), round((c - dy) * 16)), (round((c + dx) * 16), round((c + dy) * 16))]
    cv2.line(kernel, ends[0], ends[1], 1.0, 4, cv2.LINE_AA, shift=4)
    kernel = cv2.resize(kernel, (size, size), interpolation=cv2.INTER_AREA)
    return kernel / kernel.sum()


def _jpeg(frame: np.ndarray, quality: int) -> np.ndarray:
    """Encoded as a colour camera would (a faint colour cast, 4:2:0), decoded back to grey."""
    tint = np.dstack([frame * 0.92, frame, np.minimum(frame * 1.06, 255)]).astype(np.uint8)
    params = [cv2.IMWRITE_JPEG_QUALITY, quality, cv2.IMWRITE_JPEG_SAMPLING_FACTOR,
              cv2.IMWRITE_JPEG_SAMPLING_FACTOR_420]
    ok, data = cv2.imencode(".jpg", tint, params)
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    decoded = cv2.imdecode(data, cv2.IMREAD_COLOR)
    if decoded is None:
        raise RuntimeError("JPEG decoding failed")
    return cv2.cvtColor(decoded, cv2.COLOR_BGR2GRAY)
