"""What the camera saw, as game events: moves reported by the tracker, first placements of models
(a marker's first sighting where the scene did not have it), and the pointer token's selection.
Pure functions of the game state and one observation."""

from __future__ import annotations

import math

from table.live.events import Move
from table.live.session import GameState
from table.scene import Model
from vision.types import Observation

POINTER_REACH_IN = 2.0     # a pointer marker this close to a model's centre selects it


def _point(point: tuple[float, float]) -> tuple[float, float]:
    """A board position as logged: inches to the thousandth (tracking is good to about 0.01")."""
    return round(point[0], 3), round(point[1], 3)


def move_events(state: GameState, obs: Observation, synced: set[int],
                threshold: float) -> list[Move]:
    """Move events for the roster's markers; `synced` (updated here) holds the markers already seen once."""
    bound = state.markers()
    events: list[Move] = []
    moved = set()
    for move in obs.moves:
        if move.id in bound:
            pose = obs.markers.get(move.id)
            events.append(Move(bound[move.id], _point(move.start), _point(move.end), round(move.distance, 3),
                               round(pose.heading, 1) if pose else None))
            moved.add(move.id)
    for marker, pose in obs.markers.items():
        if marker in bound and marker not in synced and not pose.occluded:
            synced.add(marker)
            model = state.scene.model(bound[marker])
            distance = math.hypot(pose.x - model.position[0], pose.y - model.position[1])
            if marker not in moved and distance > threshold:
                events.append(Move(model.id, _point(model.position), _point((pose.x, pose.y)),
                                   round(distance, 3), round(pose.heading, 1), placement=True))
    return events


def pointed_model(state: GameState, obs: Observation, pointer_id: int) -> str | None:
    """The model the pointer token stands beside (within POINTER_REACH_IN of its centre), if any."""
    pose = obs.markers.get(pointer_id)
    if pose is None or pose.occluded or not state.scene.models:
        return None
    def reach(model: Model) -> float:
        return math.hypot(model.position[0] - pose.x, model.position[1] - pose.y)

    nearest = min(state.scene.models, key=reach)
    return nearest.id if reach(nearest) <= POINTER_REACH_IN else None
