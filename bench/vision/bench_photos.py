"""Marker detection on real photos (../shared/photos beside the repository), measured in one run.

Per photo set: reference markers found, extras (detections matching no reference marker: false ids),
corner error (median, 90th percentile, max) and the share of corners within 1 px, and CPU per photo,
for `smarttable detect` (vision.detect.detect_markers) against plain OpenCV (an ArucoDetector with
default parameters) and the AprilTag C library alone on the whole frame (apriltag-python, tag36h11 sets;
the consensus references take its corners, so its corner error says nothing).
Goals for ours: >= 98% found, no extras, >= 95% of corners within 1 px, CPU <= 1.2x plain OpenCV.
CPU is process time (all threads), the median of --repeats runs per photo, interleaved.

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
from vision.images import read_image
from vision.photoset import Photo, Score, photo_sets

ROOT = Path(__file__).resolve().parents[2]
UNLISTED = ROOT / "tests" / "data" / "vision" / "photos-unlisted.json"
Detect = Callable[[np.ndarray, str], list[tuple[int, np.ndarray]]]


def ours(image: np.ndarray, dictionary: str) -> list[tuple[int, np.ndarray]]:
    return [(d.id, d.corners) for d in detect_markers(image, dictionary)]


_PLAIN: dict[str, cv2.aruco.ArucoDetector] = {}


def plain_opencv(image: np.ndarray, dictionary: str) -> list[tuple[int, np.ndarray]]:
    if dictionary not in _PLAIN:
        params = cv2.aruco.DetectorParameters()
        _PLAIN[dictionary] = cv2.aruco.ArucoDetector(get_dictionary(dictionary), params)
    corners, ids, _ = _PLAIN[dictionary].detectMarkers(image)
    ids = np.zeros(0, int) if ids is None else np.asarray(ids).reshape(-1)
    return [(int(i), np.asarray(c, float).reshape(4, 2)) for i, c in zip(ids, corners, strict=True)]


def apriltag_library(image: np.ndarray, dictionary: str) -> list[tuple[int, np.ndarray]]:
    """The AprilTag C library alone on the whole frame (tag36h11 sets only)."""
    if dictionary != apriltags.DICTIONARY:
        return []
    return [(int(d["id"]), np.asarray(d["lb-rb-rt-lt"], float)[apriltags.TO_OPENCV_ORDER] - 0.5)
            for d in apriltags.library().detect(image)]


def cpu_seconds(fn: Callable[[], object]) -> float:
    t = time.process_time()
    fn()
    return time.process_time() - t


def measure(photos: list[Photo], detectors: dict[str, Detect], repeats: int
            ) -> tuple[dict[str, Score], dict[str, list[float]]]:
    scores = {name: Score() for name in detectors}
    cpu: dict[str, list[float]] = {name: [] for name in detectors}
    for photo in photos:
        image = read_image(photo.path)
        runs: dict[str, list[float]] = {name: [] for name in detectors}
        for _ in range(repeats):  # interleaved, so every detector sees the same machine load
            for name, fn in detectors.items():
                runs[name].append(cpu_seconds(lambda: fn(image, photo.dictionary)))  # noqa: B023
        for name, fn in detectors.items():
            scores[name].add(photo, fn(image, photo.dictionary))
            cpu[name].append(statistics.median(runs[name]))
    return scores, cpu


def line(name: str, s: Score, cpu: list[float], base: list[float]) -> str:
    med, p90, worst = s.error_stats()
    ratio = sum(cpu) / sum(base)
    return (f"  {name:9s} found {s.found:3d}/{s.reference:<3d} ({s.recall:6.1%})  extras {len(s.extras):2d}  "
            f"corners median {med:.2f} p90 {p90:.2f} max {worst:5.2f} px, {s.within(1.0):6.1%} <= 1 px  "
            f"CPU {statistics.median(cpu) * 1000:6.1f} ms/photo (median), {ratio:.2f}x plain")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", default=str(ROOT.parent / "shared" / "photos"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--misses", action="store_true", help="list the missed markers and the extras")
    args = parser.parse_args()
    root = Path(args.photos)
    if not root.is_dir():
        print(f"bench_photos: {root}: no such folder (the shared photos sit beside the repository)",
              file=sys.stderr)
        return 2
    detectors: dict[str, Detect] = {"plain": plain_opencv, "ours": ours, "apriltag": apriltag_library}
    totals = {name: Score() for name in detectors}
    cpu_all: dict[str, list[float]] = {name: [] for name in detectors}
    for name, photos in photo_sets(root).items():
        scores, cpu = measure(photos, detectors, args.repeats)
        print(f"{name} ({len(photos)} photos, {photos[0].dictionary})")
        for det in detectors:
            if det == "apriltag" and photos[0].dictionary != "DICT_APRILTAG_36h11":
                continue
            print(line(det, scores[det], cpu[det], cpu["plain"]))
            if args.misses and det == "ours":
                print(f"    missed {scores[det].missed}\n    extras {scores[det].extras}")
            t = totals[det]
            t.reference += scores[det].reference
            t.found += scores[det].found
            t.extras += scores[det].extras
            t.corner_errors += scores[det].corner_errors
            cpu_all[det] += cpu[det]
    print("all sets")
    for det in ("plain", "ours"):
        print(line(det, totals[det], cpu_all[det], cpu_all["plain"]))
    s, ratio = totals["ours"], sum(cpu_all["ours"]) / sum(cpu_all["plain"])
    unlisted = json.loads(UNLISTED.read_text())["markers"]
    false = [e for e in s.extras if e not in {(u["photo"], u["id"]) for u in unlisted}]
    print(f"extras of ours that are real markers missing from the reference ({UNLISTED.relative_to(ROOT)}): "
          f"{len(s.extras) - len(false)}; false ids: {false}")
    goals = {">= 98% found": s.recall >= 0.98, "no false ids": not false,
             ">= 95% corners <= 1 px": s.within(1.0) >= 0.95, "CPU <= 1.2x plain": ratio <= 1.2}
    print("goals: " + ", ".join(f"{k} [{'ok' if v else 'MISSED'}]" for k, v in goals.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
