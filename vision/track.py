"""Tracking: keeps still models still, rides out hands over the board, reports settled moves.

Each marker has a settled position (the mean of every sighting since it came to rest, so jitter
shrinks as frames accumulate; so does its `sigma`: the per-frame share of each sighting's sigma, or the
sightings' own scatter if larger, over the square root of the frames averaged, plus the share that every
frame shares, such as calibration and parallax). A sighting farther than `move_threshold_in` starts a
candidate move; once the marker has been seen in one place for `stable_frames` frames the move is
committed and a `MoveEvent` is emitted (also when a marker that was lifted, or timed out, comes back somewhere
else). A marker not seen where the camera looked is occluded: it keeps its last
position, flagged, until `occlusion_timeout_s`, then it is gone. A new marker must be seen
`stable_frames` times before it is reported, so a one-frame false detection never places a model.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from table.config import Config
from vision.types import MarkerPose, MoveEvent

Point = tuple[float, float]
# sightings within this many inches of the candidate count as "the same place" while settling
SETTLE_RADIUS = 0.04
HEADING_THRESHOLD = 3.0  # degrees: a turn in place is settled like a move, without a move event


@dataclass(frozen=True)
class Sighting:
    x: float
    y: float
    heading: float
    sigma: float = 0.0  # this frame's position sd (inches), of which
    heading_sigma: float = 0.0
    sigma_frame: float = 0.0  # the share new in each frame: averaging frames shrinks it


@dataclass
class _Track:
    id: int
    sum_x: float = 0.0
    sum_y: float = 0.0
    sum_cos: float = 0.0
    sum_sin: float = 0.0
    sum_sq: float = 0.0  # sum of x^2 + y^2: the sightings' scatter (jitter)
    count: int = 0
    last: Sighting | None = None  # the newest sighting averaged in: its sigma
    last_seen: float = 0.0
    confirmed: bool = False
    hidden: bool = False  # looked for and not found, and not seen since
    candidate: list[Sighting] = field(default_factory=list)

    @property
    def position(self) -> Point:
        return (self.sum_x / self.count, self.sum_y / self.count)

    @property
    def heading(self) -> float:
        h = math.degrees(math.atan2(self.sum_sin, self.sum_cos))
        return h + 360.0 if h <= -180.0 else h  # atan2(-0.0, -1) is -180: the contract wants (-180, 180]

    @property
    def sigmas(self) -> tuple[float, float]:
        """(position sd in inches, heading sd in degrees) of the averaged position: the per-frame share
        (or the sightings' own scatter, if larger) over sqrt(count), plus the share frames share."""
        s = self.last
        if s is None or self.count <= 0:
            return (0.0, 0.0)
        frame_var = s.sigma_frame ** 2
        if self.count > 1:
            mx, my = self.position
            spread = max(0.0, self.sum_sq / self.count - mx * mx - my * my) / 2  # per axis
            scatter = spread * self.count / (self.count - 1)
            frame_var = max(frame_var, scatter)
        fixed_var = max(0.0, s.sigma ** 2 - s.sigma_frame ** 2)
        return (math.sqrt(fixed_var + frame_var / self.count), s.heading_sigma / math.sqrt(self.count))

    def settle(self, sightings: list[Sighting]) -> None:
        self.sum_x = self.sum_y = self.sum_cos = self.sum_sin = self.sum_sq = 0.0
        self.count = 0
        for s in sightings:
            self.add(s)
        self.candidate = []

    def add(self, s: Sighting) -> None:
        self.sum_x += s.x
        self.sum_y += s.y
        self.sum_cos += math.cos(math.radians(s.heading))
        self.sum_sin += math.sin(math.radians(s.heading))
        self.sum_sq += s.x * s.x + s.y * s.y
        self.count += 1
        self.last = s


@dataclass(frozen=True)
class TrackerSettings:
    stable_frames: int = 3
    occlusion_timeout_s: float = 10.0
    move_threshold_in: float = 0.05
    max_average: int = 50  # sightings averaged at most: a slow drift (a nudged model) still shows

    @classmethod
    def from_config(cls, config: Config) -> TrackerSettings:
        t = config.tracking
        return cls(int(t.stable_frames), float(t.occlusion_timeout_s), float(t.move_threshold_in))


class Tracker:
    """Feed it each frame's sightings with `update()`; read `poses()`."""

    def __init__(self, settings: TrackerSettings | None = None):
        self.settings = settings or TrackerSettings()
        self._tracks: dict[int, _Track] = {}
        self._gone: dict[int, Point] = {}  # where markers no longer tracked last stood

    def update(self, sightings: Mapping[int, Sighting], timestamp: float,
               looked_at: Callable[[int], bool] = lambda marker_id: True) -> list[MoveEvent]:
        """One frame: `sightings` by marker id; `looked_at(id)` tells whether the place that marker was
        last seen was examined this frame (markers elsewhere count as unchanged: seen if they were
        seen last time, still occluded if they were not)."""
        events: list[MoveEvent] = []
        for marker_id, s in sightings.items():
            track = self._tracks.get(marker_id)
            if track is None:
                track = self._tracks[marker_id] = _Track(marker_id, last_seen=timestamp)
            event = self._sighting(track, s, timestamp)
            if event:
                events.append(event)
        for marker_id, track in list(self._tracks.items()):
            if marker_id in sightings:
                continue
            looked = looked_at(marker_id)
            if not looked and not track.hidden:  # unchanged: still there (a hidden one stays hidden)
                track.last_seen = timestamp
                continue
            track.hidden = True
            if looked and not track.confirmed:
                del self._tracks[marker_id]  # a marker seen once or twice and then not: forget it
            elif timestamp - track.last_seen > self.settings.occlusion_timeout_s:
                self.drop(marker_id)
        return events

    def _sighting(self, track: _Track, s: Sighting, timestamp: float) -> MoveEvent | None:
        st = self.settings
        track.last_seen = timestamp
        track.hidden = False
        if not track.confirmed:
            track.candidate.append(s)
            if _spread(track.candidate) > SETTLE_RADIUS:
                track.candidate = [s]
            if len(track.candidate) >= st.stable_frames:
                track.settle(track.candidate)
                track.confirmed = True
                return self._back(track, timestamp)
            return None
        here = track.position
        turned = abs(_angle_diff(s.heading, track.heading)) > HEADING_THRESHOLD
        if math.dist(here, (s.x, s.y)) <= st.move_threshold_in and not turned:
            track.candidate = []  # still where it stood (or back there)
            if track.count < st.max_average:
                track.add(s)
            else:  # keep a sliding weight: forget the oldest share
                keep = (st.max_average - 1) / track.count
                track.sum_x, track.sum_y = track.sum_x * keep, track.sum_y * keep
                track.sum_cos, track.sum_sin = track.sum_cos * keep, track.sum_sin * keep
                track.sum_sq *= keep
                track.count = st.max_average - 1
                track.add(s)
            return None
        # away from where it stood: settle somewhere new before reporting it
        last = track.candidate[-1] if track.candidate else None
        if last and math.dist((last.x, last.y), (s.x, s.y)) > SETTLE_RADIUS:
            track.candidate = []
        track.candidate.append(s)
        if len(track.candidate) < st.stable_frames:
            return None
        heading = track.heading
        track.settle(track.candidate)
        end = track.position
        if math.dist(here, end) <= st.move_threshold_in:  # turned in place, or came back
            if abs(_angle_diff(track.heading, heading)) <= HEADING_THRESHOLD:
                track.sum_x, track.sum_y = here[0] * track.count, here[1] * track.count
                track.sum_sq = (here[0] ** 2 + here[1] ** 2) * track.count
            return None
        return MoveEvent(track.id, here, end, math.dist(here, end), timestamp)

    def poses(self, timestamp: float) -> dict[int, MarkerPose]:
        """Every confirmed marker: settled position, flagged occluded when not seen this frame."""
        out = {}
        for marker_id, track in sorted(self._tracks.items()):
            if not track.confirmed:
                continue
            x, y = track.position
            sigma, heading_sigma = track.sigmas
            out[marker_id] = MarkerPose(marker_id, x, y, track.heading, occluded=track.last_seen < timestamp,
                                        last_seen=track.last_seen, moving=bool(track.candidate),
                                        sigma=sigma, heading_sigma=heading_sigma)
        return out

    def pending(self) -> list[int]:
        """Markers that need looking at again: new ones not yet confirmed, and ones settling."""
        return [i for i, t in self._tracks.items() if t.candidate or not t.confirmed]

    def drop(self, marker_id: int) -> None:
        """The marker is gone from the board (lifted, not covered): stop reporting it now; if it
        comes back somewhere else, that is a move from where it stood."""
        track = self._tracks.pop(marker_id, None)
        if track is not None and track.confirmed:
            self._gone[marker_id] = track.position

    def _back(self, track: _Track, timestamp: float) -> MoveEvent | None:
        """A marker confirmed again after it was gone: a move if it came back somewhere else."""
        start = self._gone.pop(track.id, None)
        end = track.position
        if start is None or math.dist(start, end) <= self.settings.move_threshold_in:
            return None
        return MoveEvent(track.id, start, end, math.dist(start, end), timestamp)

    def forget(self) -> None:
        self._tracks.clear()
        self._gone.clear()


def _angle_diff(a: float, b: float) -> float:
    return (a - b + 180.0) % 360.0 - 180.0


def _mean_point(sightings: list[Sighting]) -> Point:
    return (sum(s.x for s in sightings) / len(sightings), sum(s.y for s in sightings) / len(sightings))


def _spread(sightings: list[Sighting]) -> float:
    mx, my = _mean_point(sightings)
    return max(math.dist((mx, my), (s.x, s.y)) for s in sightings)
