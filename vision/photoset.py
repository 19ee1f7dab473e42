"""Real photos with reference markers (`shared/photos/`), and detections scored against them.

Each photo `NAME.jpg|png` has `NAME.ref.json`: `{"dictionary", "markers": [{"id", "corners"}]}`, corners
in OpenCV's convention in any cyclic order. Scoring follows the photos' README: a reference marker is
found when a detection with its id has its centre within max(5 px, a quarter of the marker's side) of
the reference centre; corner error is per corner after the best cyclic alignment (either way round);
a detection that matches no reference marker is an extra (a false id).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from table.errors import ConfigError

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")


@dataclass(frozen=True)
class RefMarker:
    id: int
    corners: np.ndarray  # (4, 2)

    @property
    def centre(self) -> np.ndarray:
        return self.corners.mean(axis=0)

    @property
    def side(self) -> float:
        c = self.corners
        return float(np.mean(np.linalg.norm(c - np.roll(c, -1, axis=0), axis=1)))


@dataclass(frozen=True)
class Photo:
    path: Path
    dictionary: str
    markers: tuple[RefMarker, ...]


def load_set(folder: Path) -> list[Photo]:
    """The photos of one set (a folder), each with its reference markers, sorted by name."""
    photos = []
    for ref in sorted(folder.glob("*.ref.json")):
        stem = ref.name[: -len(".ref.json")]
        images = [p for p in sorted(folder.glob(stem + ".*")) if p.suffix.lower() in IMAGE_SUFFIXES]
        image = images[0] if images else None
        if image is None:
            raise ConfigError(f"{ref}: no image {stem}.jpg or .png beside it")
        try:
            doc = json.loads(ref.read_text())
            markers = tuple(RefMarker(int(m["id"]), np.asarray(m["corners"], float).reshape(4, 2))
                            for m in doc["markers"])
            photos.append(Photo(image, str(doc["dictionary"]), markers))
        except (ValueError, KeyError, TypeError) as exc:
            raise ConfigError(f"{ref}: not a reference file ({exc})") from None
    return photos


def photo_sets(root: Path) -> dict[str, list[Photo]]:
    """Every set under root (one folder each, by name)."""
    return {d.name: load_set(d) for d in sorted(root.iterdir()) if d.is_dir() and any(d.glob("*.ref.json"))}


PARTS = ("development", "held-out")


def split(sets: dict[str, list[Photo]], split_file: Path) -> dict[str, dict[str, list[Photo]]]:
    """The sets cut into a development part and a held-out part, by the photo names the split file
    (`{"held_out": {set: [photo file names]}}`) holds out: {part: {set: photos}}."""
    try:
        held = {k: set(v) for k, v in json.loads(split_file.read_text())["held_out"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ConfigError(f"{split_file}: not a photo split ({exc})") from None
    parts: dict[str, dict[str, list[Photo]]] = {part: {} for part in PARTS}
    for name, photos in sets.items():
        out = held.get(name, set())
        parts["development"][name] = [p for p in photos if p.path.name not in out]
        parts["held-out"][name] = [p for p in photos if p.path.name in out]
    return parts


def corner_errors(found: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Per-corner distances (4,) after the cyclic alignment of `found` to `ref` with the least total,
    either way round (reference files list corners clockwise or counter-clockwise)."""
    best = min((np.roll(q, k, axis=0) for q in (found, found[::-1]) for k in range(4)),
               key=lambda q: float(np.linalg.norm(q - ref, axis=1).sum()))
    return np.linalg.norm(best - ref, axis=1)


@dataclass
class Score:
    """Found reference markers, extras and corner errors, summed over photos."""

    reference: int = 0
    found: int = 0
    extras: list[tuple[str, int]] = field(default_factory=list)  # (photo name, id)
    missed: list[tuple[str, int]] = field(default_factory=list)
    corner_errors: list[float] = field(default_factory=list)

    def add(self, photo: Photo, detections: Iterable[tuple[int, np.ndarray]]) -> None:
        """Score one photo's detections, each (id, corners (4, 2))."""
        refs = list(photo.markers)
        matched: set[int] = set()
        for marker_id, corners in detections:
            corners = np.asarray(corners, float).reshape(4, 2)
            centre = corners.mean(axis=0)
            hit = None
            for k, r in enumerate(refs):
                if k not in matched and r.id == marker_id and \
                        np.linalg.norm(centre - r.centre) <= max(5.0, r.side / 4):
                    hit = k
                    break
            if hit is None:
                self.extras.append((photo.path.name, marker_id))
                continue
            matched.add(hit)
            self.corner_errors += corner_errors(corners, refs[hit].corners).tolist()
        self.reference += len(refs)
        self.found += len(matched)
        self.missed += [(photo.path.name, r.id) for k, r in enumerate(refs) if k not in matched]

    @property
    def recall(self) -> float:
        return self.found / self.reference if self.reference else 1.0

    def within(self, px: float) -> float:
        """Share of matched corners within px of the reference."""
        e = self.corner_errors
        return float(np.mean(np.asarray(e) <= px)) if e else 1.0

    def error_stats(self) -> tuple[float, float, float]:
        """Corner error median, 90th percentile and max (px)."""
        if not self.corner_errors:
            return (float("nan"),) * 3
        e = np.asarray(self.corner_errors)
        return float(np.median(e)), float(np.percentile(e, 90)), float(e.max())


Detector = Callable[[np.ndarray, str], Iterable[tuple[int, np.ndarray]]]


def score(photos: Sequence[Photo], detect: Detector) -> Score:
    """Run `detect(image, dictionary) -> [(id, corners)]` on every photo and score it."""
    from vision.images import read_image

    s = Score()
    for photo in photos:
        s.add(photo, detect(read_image(photo.path), photo.dictionary))
    return s
