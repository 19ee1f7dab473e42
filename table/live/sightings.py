"""What the camera saw, kept between frames: each marker's last board position, when it was last seen
(and hidden then), how sure the tracker is of it, the models already placed, the pointer's pick and
the hex each model stands in. `observe` turns one observation into game events.

Written and read under the controller's lock (table/live/controller.py says who runs where).
"""

from __future__ import annotations

from dataclasses import replace

from table.hexgrid import Hex
from table.live.events import Destination, Event, Select
from table.live.hex_tracking import HexTracker
from table.live.live_games import LiveGames
from table.live.observe import move_events, pointed_model
from table.live.session import GameState
from table.live.sigmas import Sigmas, model_sigmas
from vision.types import Observation

Point = tuple[float, float]


class Sightings:
    """The camera's view of the board between frames, and the events it leads to."""

    def __init__(self, move_threshold_in: float, pointer_id: int) -> None:
        self.move_threshold_in = move_threshold_in
        self.pointer_id = pointer_id
        self.seen: dict[int, Point] = {}                      # marker -> board point, this frame
        self.pointer_pick: str | None = None                  # the model the pointer selected
        self._sighted: dict[int, tuple[float, bool]] = {}    # marker -> (last seen, occluded then)
        self._sigmas: dict[int, tuple[float, float]] = {}    # marker -> (sigma ", heading_sigma deg), rounded
        self._synced: set[int] = set()                        # markers seen once in this game
        self.hexes = HexTracker()

    def new_game(self) -> None:
        """A new game: every marker's first sighting counts again, the hex snapper starts afresh."""
        self._synced.clear()
        self.hexes.reset()

    def observe(self, state: GameState, obs: Observation, now: float,
                games: LiveGames) -> list[Event]:
        """Take in a calibrated observation; the game events it leads to: moves and first placements
        (snapped to hexes on a hex board, with the live game's own moves), the pointer's selection or
        a hex path's destination."""
        events = move_events(state, obs, self._synced, self.move_threshold_in)
        self.seen = {m: (p.x, p.y) for m, p in obs.markers.items()}
        self._sighted.update({m: (now, p.occluded) for m, p in obs.markers.items()})
        self._sigmas.update({m: (round(p.sigma, 3), round(p.heading_sigma, 1))
                             for m, p in obs.markers.items() if p.sigma > 0})
        snapper = self.hexes.snapper(state)
        found: list[Event] = []
        if snapper is not None:
            events = [replace(event, hex=snapper.snap(event.model, *event.to)) for event in events]
            found = games.camera_moves(state, events)
        found = [*events, *found]
        pointed = pointed_model(state, obs, self.pointer_id)
        if pointed is not None and pointed != self.pointer_pick and pointed != state.selected:
            found.append(Select(pointed, by="pointer"))
        elif pointed is None and snapper is not None and state.selected and self.pointer_id in obs.markers:
            pose = obs.markers[self.pointer_id]       # the pointer on an empty hex: the path's destination
            where = snapper.snap("pointer", pose.x, pose.y)
            if where != state.destination and not pose.occluded:
                found.append(Destination(where, by="pointer"))
        self.pointer_pick = pointed
        return found

    def sigmas(self, state: GameState) -> Sigmas:
        """Model id -> (sigma inches, heading_sigma degrees), for the models the tracker has measured."""
        return model_sigmas(state.markers(), self._sigmas)

    def model_states(self, state: GameState, now: float, timeout: float) -> dict[str, str]:
        """Model id -> tracked, occluded (hidden, or missing for under `timeout` seconds) or stale
        (missing longer, or never seen), for every model with a marker."""
        states = {}
        for marker, model in state.markers().items():
            seen_at, occluded = self._sighted.get(marker, (None, False))
            if seen_at is None or now - seen_at >= timeout:
                states[model] = "stale"
            elif marker not in self.seen or occluded:
                states[model] = "occluded"
            else:
                states[model] = "tracked"
        return states

    def observed_hexes(self, state: GameState, camera_started: bool) -> dict[str, Hex]:
        """Model id -> the hex the camera sees it in; before the camera's first frame, the game's."""
        return self.hexes.observed(state, self.seen if camera_started else None)
