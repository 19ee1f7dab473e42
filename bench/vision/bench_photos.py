"""Marker detection on real photos (../shared/photos beside the repository), measured in one run.

The photos are split (tests/data/vision/photos-split.json) into a development part and a held-out
part that nothing is tuned on; each part is reported per photo set and in all. Per set: reference
markers found, extras (detections matching no reference marker: false ids), corner error (median,
90th percentile, max) and the share of corners within 1 px, and CPU per photo, for
`smarttable detect` (vision.detect.detect_markers) against plain OpenCV (an ArucoDetector with
default parameters for the same dictionary) and the AprilTag C library alone on the whole frame
(`apriltag("tag36h11", maxhamming=1, decimate=1.0)`, decision margin >= 30, for the families it
knows). The consensus references of the AprilTag sets sit within a few hundredths of a pixel of the
library's own corners, so its corner error there says little (bench/vision/bench_corners.py measures
corners against renders' ground truth).
Goals for ours, per part: >= 98% found, no false ids, >= 95% of corners within 1 px, CPU <= 1.2x
plain OpenCV. CPU is process time (all threads), the median of --repeats runs per photo, interleaved.

    .venv/bin/python bench/vision/bench_photos.py [--repeats 3] [--photos DIR] [--misses]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from vision import apriltags
from vision.detect import detect_markers, get_dictionary
from vision.families import family
from vision.images import read_image
from vision.photoset import Photo, Score, photo_sets, split

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "vision"
Detect = Callable[[np.ndarray, str], list[tuple[int, np.ndarray]]]


def ours(image: np.ndarray, dictionary: str) -> list[tuple[int, np.ndarray]]:
    return [(d.id, d.corners) for d in detect_markers(image, dictionary)]


_PLAIN: dict[str, cv2.aruco.ArucoDetector] = {}


def plain_opencv(image: np.ndarray, dictionary: str) -> list[tuple[int, np.ndarray]]:
    if dictionary not in _PLAIN:
        params = cv2.aruco.DetectorParameters()  # OpenCV's defaults
        _PLAIN[dictionary] = cv2.aruco.ArucoDetector(get_dictionary(dictionary), params)
    corners, ids, _ = _PLAIN[dictionary].detectMarkers(image)
    ids = np.zeros(0, int) if ids is None else np.asarray(ids).reshape(-1)
    return [(int(i), np.asarray(c, float).reshape(4, 2)) for i, c in zip(ids, corners, strict=True)]


_ALONE: dict[str, object] = {}


def apriltag_library(image: np.ndarray, dictionary: str) -> list[tuple[int, np.ndarray]]:
    """The AprilTag C library alone on the whole frame, as the issue ran it."""
    name = family(dictionary).library
    if name is None:
        return []
    if name not in _ALONE:
        import apriltag

        _ALONE[name] = apriltag.apriltag(name, maxhamming=1, decimate=1.0)
    found = _ALONE[name].detect(image)  # type: ignore[attr-defined]
    return [(int(d["id"]), np.asarray(d["lb-rb-rt-lt"], float)[apriltags.TO_OPENCV_ORDER] - 0.5)
            for d in found if d["margin"] >= apriltags.MIN_MARGIN]


DETECTORS: dict[str, Detect] = {"plain": plain_opencv, "ours": ours, "library": apriltag_library}


def cpu_seconds(fn: Callable[[], object]) -> float:
    t = time.process_time()
    fn()
    return time.process_time() - t


def measure(photos: list[Photo], repeats: int) -> tuple[dict[str, Score], dict[str, list[float]]]:
    scores = {name: Score() for name in DETECTORS}
    cpu: dict[str, list[float]] = {name: [] for name in DETECTORS}
    for photo in photos:
        image = read_image(photo.path)
        runs: dict[str, list[float]] = {name: [] for name in DETECTORS}
        for _ in range(repeats):  # interleaved, so every detector sees the same machine load
            for name, fn in DETECTORS.items():
                runs[name].append(cpu_seconds(lambda: fn(image, photo.dictionary)))  # noqa: B023
        for name, fn in DETECTORS.items():
            scores[name].add(photo, fn(image, photo.dictionary))
            cpu[name].append(statistics.median(runs[name]))
    return scores, cpu


def line(name: str, s: Score, cpu: list[float], base: list[float]) -> str:
    med, p90, worst = s.error_stats()
    ratio = sum(cpu) / sum(base)
    return (f"  {name:8s} found {s.found:3d}/{s.reference:<3d} ({s.recall:6.1%})  extras {len(s.extras):2d}  "
            f"corners median {med:.2f} p90 {p90:.2f} max {worst:5.2f} px, {s.within(1.0):6.1%} <= 1 px  "
            f"CPU {statistics.median(cpu) * 1000:6.1f} ms/photo (median), {ratio:.2f}x plain")


def merge(total: Score, s: Score) -> None:
    total.reference += s.reference
    total.found += s.found
    total.extras += s.extras
    total.missed += s.missed
    total.corner_errors += s.corner_errors


def report_part(part: str, sets: dict[str, list[Photo]], repeats: int, misses: bool) -> None:
    print(f"== {part} part ==")
    totals = {name: Score() for name in DETECTORS}
    cpu_all: dict[str, list[float]] = {name: [] for name in DETECTORS}
    for name, photos in sets.items():
        if not photos:
            continue
        scores, cpu = measure(photos, repeats)
        print(f"{name} ({len(photos)} photos, {photos[0].dictionary})")
        for det in DETECTORS:
            if det == "library" and family(photos[0].dictionary).library is None:
                print("  library  (does not know this dictionary)")
                continue
            print(line(det, scores[det], cpu[det], cpu["plain"]))
            if misses and det == "ours" and part == "development":
                print(f"    missed {scores[det].missed}\n    extras {scores[det].extras}")
            merge(totals[det], scores[det])
            cpu_all[det] += cpu[det]
    print(f"all sets ({part})")
    for det in ("plain", "ours"):
        print(line(det, totals[det], cpu_all[det], cpu_all["plain"]))
    s, ratio = totals["ours"], sum(cpu_all["ours"]) / sum(cpu_all["plain"])
    note = json.loads((DATA / "photos-unlisted.json").read_text())
    unlisted = {(u["photo"], u["id"]) for u in note["markers"]}
    false = [e for e in s.extras if e not in unlisted]
    print(f"  extras of ours that are real markers missing from the reference (photos-unlisted.json): "
          f"{len(s.extras) - len(false)}; false ids: {false}")
    goals = {">= 98% found": s.recall >= 0.98, "no false ids": not false,
             ">= 95% corners <= 1 px": s.within(1.0) >= 0.95, "CPU <= 1.2x plain": ratio <= 1.2}
    print("  goals: " + ", ".join(f"{k} [{'ok' if v else 'MISSED'}]" for k, v in goals.items()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", default=str(ROOT.parent / "shared" / "photos"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--misses", action="store_true",
                        help="list ours' misses and extras on the development part (never the held-out one)")
    args = parser.parse_args()
    root = Path(args.photos)
    if not root.is_dir():
        print(f"bench_photos: {root}: no such folder (the shared photos sit beside the repository)",
              file=sys.stderr)
        return 2
    for part, sets in split(photo_sets(root), DATA / "photos-split.json").items():
        report_part(part, sets, args.repeats, args.misses)
    return 0


if __name__ == "__main__":
    sys.exit(main())
