"""Several cameras, one board: their observations merged into one.

Every camera is calibrated into the same board frame (shared corner or edge markers), so a marker
seen by two cameras in their overlap is one marker (markers carry their id): it is placed at the
mean of the cameras' positions weighted by each camera's uncertainty (inverse variance), and a
marker that crosses from one camera's area to the other keeps its id and is reported as one move.
Moves are found on the merged, settled positions (each camera's tracker already waits for a marker
to settle), so a move that one camera began and the other finished is still one move.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from vision.types import MarkerPose, MoveEvent, Observation

MIN_SIGMA_IN = 0.001         # no camera is trusted more than this


@dataclass(frozen=True)
class CameraView:
    """One camera's observation and its position uncertainty (1 sigma, inches)."""

    observation: Observation
    sigma_in: float


def weighted_pose(poses: Sequence[tuple[MarkerPose, float]]) -> tuple[float, float, float]:
    """(x, y, heading) of several sightings of one marker, each with its sigma in inches."""
    weights = [1.0 / max(sigma, MIN_SIGMA_IN) ** 2 for _, sigma in poses]
    total = sum(weights)
    x = sum(w * p.x for (p, _), w in zip(poses, weights, strict=True)) / total
    y = sum(w * p.y for (p, _), w in zip(poses, weights, strict=True)) / total
    c = sum(w * math.cos(math.radians(p.heading)) for (p, _), w in zip(poses, weights, strict=True))
    s = sum(w * math.sin(math.radians(p.heading)) for (p, _), w in zip(poses, weights, strict=True))
    heading = math.degrees(math.atan2(s, c))
    return x, y, 180.0 if heading <= -180.0 else heading


def merge_marker(marker_id: int, poses: Sequence[tuple[MarkerPose, float]]) -> MarkerPose:
    """One marker from every camera's pose of it: the cameras that see it settled, else those that
    see it moving, else (nobody sees it) the most recent occluded pose."""
    seen = [(p, s) for p, s in poses if not p.occluded]
    settled = [(p, s) for p, s in seen if not p.moving]
    use = settled or seen
    if not use:
        latest = max((p for p, _ in poses), key=lambda p: p.last_seen)
        return latest
    x, y, heading = weighted_pose(use)
    return MarkerPose(marker_id, x, y, heading, occluded=False, last_seen=max(p.last_seen for p, _ in use),
                      moving=not settled)


class ObservationMerger:
    """Merges each frame's camera views; remembers where each marker last settled, for moves."""

    def __init__(self, move_threshold_in: float):
        self.move_threshold_in = move_threshold_in
        self._settled: dict[int, tuple[float, float]] = {}

    def merge(self, views: Sequence[CameraView], timestamp: float) -> Observation:
        calibrated = [v for v in views if v.observation.calibrated]
        warnings = tuple(f"camera {i}: {w}" for i, v in enumerate(views) for w in v.observation.warnings)
        poses: dict[int, list[tuple[MarkerPose, float]]] = {}
        for view in calibrated:
            for marker_id, pose in view.observation.markers.items():
                poses.setdefault(marker_id, []).append((pose, view.sigma_in))
        markers = {m: merge_marker(m, p) for m, p in sorted(poses.items())}
        moves = []
        for marker_id, pose in markers.items():
            if pose.occluded or pose.moving:
                continue
            here = (pose.x, pose.y)
            before = self._settled.setdefault(marker_id, here)
            distance = math.dist(before, here)
            if distance > self.move_threshold_in:
                moves.append(MoveEvent(marker_id, before, here, distance, timestamp))
                self._settled[marker_id] = here
        errors = [v.observation.reprojection_error_px for v in calibrated
                  if v.observation.reprojection_error_px is not None]
        return Observation(timestamp, bool(calibrated), markers, tuple(moves), warnings,
                           max(errors) if errors else None)


def view_to_dict(view: CameraView) -> dict[str, object]:
    """A camera view as JSON-able data (what a remote camera publishes)."""
    obs = view.observation
    return {"timestamp": obs.timestamp, "calibrated": obs.calibrated, "sigma_in": view.sigma_in,
            "markers": [{"id": p.id, "x": p.x, "y": p.y, "heading": p.heading, "occluded": p.occluded,
                         "moving": p.moving} for p in obs.markers.values()],
            "warnings": list(obs.warnings), "reprojection_error_px": obs.reprojection_error_px}


def view_from_dict(doc: object, received: float) -> CameraView:
    """A camera view from `view_to_dict` data, its sightings stamped `received` (the receiver's
    clock); ValueError naming the field for anything else."""
    if not isinstance(doc, dict):
        raise ValueError("expected an object")
    sigma = doc.get("sigma_in")
    if (not isinstance(sigma, (int, float)) or isinstance(sigma, bool) or not math.isfinite(sigma)
            or sigma <= 0):
        raise ValueError(f"sigma_in: expected a positive number, got {sigma!r}")
    markers: dict[int, MarkerPose] = {}
    for i, m in enumerate(doc.get("markers") or []):
        try:
            pose = MarkerPose(int(m["id"]), float(m["x"]), float(m["y"]), float(m["heading"]),
                              bool(m.get("occluded", False)), received, bool(m.get("moving", False)))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"markers[{i}]: {exc}") from None
        if not all(math.isfinite(v) for v in (pose.x, pose.y, pose.heading)):
            raise ValueError(f"markers[{i}]: not a finite position")
        markers[pose.id] = pose
    warnings = tuple(str(w) for w in doc.get("warnings") or [])
    error = doc.get("reprojection_error_px")
    return CameraView(Observation(received, bool(doc.get("calibrated")), markers, (), warnings,
                                  float(error) if isinstance(error, (int, float)) else None), float(sigma))
