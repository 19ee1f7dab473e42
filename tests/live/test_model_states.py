"""Each model's tracking state (tracked, occluded, stale) from the camera to the snapshot and the panel's API."""

from __future__ import annotations

from tests.live.live_fakes import frame
from vision.types import MarkerPose, Observation
from web_ui import create_app

PLACES = {10: (10.0, 40.0), 11: (10.9, 40.0), 12: (10.45, 40.78), 13: (30.0, 42.0),
          20: (12.0, 8.0), 21: (12.9, 8.0), 22: (12.45, 8.78), 23: (38.0, 6.0)}


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def see(pipeline, markers: dict[int, bool]) -> None:
    """The camera sees `markers` at their places (True: vision reports the marker occluded)."""
    poses = {m: MarkerPose(m, *PLACES[m], 0.0, occluded=hidden) for m, hidden in markers.items()}
    pipeline.observation = Observation(0.0, True, poses)


def states(snapshot) -> dict[str, str | None]:
    return {m["id"]: m.get("state") for m in snapshot.scene["models"]}


def test_models_are_tracked_occluded_then_stale(make_controller, pipeline, config):
    clock = Clock()
    c = make_controller(clock=clock)
    assert set(states(c.snapshot()).values()) == {None}        # no frame yet: nothing is claimed
    timeout = config.tracking.occlusion_timeout_s

    see(pipeline, {m: False for m in PLACES if m != 23} | {13: True})
    c.process(frame(1))
    first = states(c.snapshot())
    assert first["rifles-1"] == "tracked" and first["raiders-3"] == "tracked"
    assert first["gunner-1"] == "occluded"          # vision holds it from before, hidden by a hand
    assert first["sniper-1"] == "stale"             # never seen by the camera

    clock.now += timeout / 2
    see(pipeline, {m: False for m in PLACES if m not in (10, 23)})
    c.process(frame(2))
    second = states(c.snapshot())
    assert second["rifles-1"] == "occluded"         # missing for less than the occlusion timeout
    assert second["gunner-1"] == "tracked"

    clock.now += timeout / 2 + 0.1
    c.process(frame(3))
    third = states(c.snapshot())
    assert third["rifles-1"] == "stale" and third["rifles-2"] == "tracked"


def test_the_panel_api_serves_the_states(make_controller, pipeline, tmp_path):
    c = make_controller()
    see(pipeline, {10: False, 11: True})
    c.process(frame(1))
    client = create_app(c, pin="1234", data_dir=tmp_path / "data").test_client()
    models = {m["id"]: m["state"] for m in client.get("/api/state").get_json()["scene"]["models"]}
    assert (models["rifles-1"], models["rifles-2"], models["sniper-1"]) == ("tracked", "occluded", "stale")


def test_the_snapshot_carries_the_led_positions(make_controller, layout):
    snap = make_controller().snapshot()
    placed = snap.status["led_layout"]
    assert placed["name"] == layout.name and len(placed["positions"]) == len(snap.leds) == len(layout)
    assert placed["positions"][0] == list(layout.positions[0])
