"""The snapshot is immutable all the way down: a reader cannot change what another reader, the panel or
the table sees, neither through the snapshot nor through the copy `to_dict` hands it."""

from __future__ import annotations

import json

import pytest

from table.snapshot import Snapshot
from tests.live.live_fakes import frame, move
from web_ui import create_app

PIN = "246813"


@pytest.fixture
def table(make_controller, pipeline):
    """A table with a selection, a target, a warning and the camera's tracking state in its snapshot."""
    c = make_controller()
    pipeline.see({23: (38.0, 15.0), 77: (5.0, 5.0)}, (move(23, (38.0, 6.0), (38.0, 15.0)),))
    c.process(frame(1))
    c.command("select", id="rifles-1")
    c.command("target", id="raiders")
    return c


def served(client) -> dict:
    return json.loads(client.get("/api/state").get_data(as_text=True))


def test_a_reader_cannot_change_what_another_reader_sees(table, tmp_path):
    client = create_app(table, pin=PIN, data_dir=tmp_path / "data").test_client()
    before = served(client)
    snap = table.snapshot()
    assert snap.warnings and snap.selection["bands"] and snap.scene["models"][0]["state"]
    attempts = [
        lambda: snap.scene["models"][0].__setitem__("x", 99.0),
        lambda: snap.scene.__setitem__("models", ()),
        lambda: snap.scene["models"].append({"id": "ghost"}),
        lambda: snap.status.__setitem__("camera", "ok"),
        lambda: snap.phase.__setitem__("turn", 9),
        lambda: snap.selection["bands"].__setitem__("raiders-1", "hot"),
        lambda: snap.warnings[0].__setitem__("acknowledged", True),
        lambda: snap.warnings[0]["units"].append("rifles"),
        lambda: snap.status["led_layout"]["positions"].append([0.0, 0.0]),
    ]
    for attempt in attempts:
        with pytest.raises((TypeError, AttributeError)):
            attempt()
    mine = snap.to_dict()                       # a plain copy this reader may change at will
    mine["scene"]["models"][0]["x"] = 99.0
    mine["warnings"][0]["units"].append("ghost")
    mine["status"]["led_layout"]["positions"].clear()
    assert table.snapshot().to_dict() == snap.to_dict() == before == served(client)


def test_what_a_maker_passes_in_is_copied(table):
    status = {"camera": "ok", "counts": [1, 2]}
    warning = {"id": "w", "units": ["a"]}
    snap = Snapshot(1, status, "synaptik", {"turn": 1}, {"models": [{"id": "m", "x": 1.0}]}, (warning,))
    status["counts"].append(3)
    warning["units"].append("b")
    assert snap.to_dict()["status"]["counts"] == [1, 2] and snap.to_dict()["warnings"][0]["units"] == ["a"]


def test_the_api_serves_the_same_json_as_before(table, tmp_path):
    """Frozen parts read as JSON the way plain ones did: objects, arrays, the LED frame as arrays."""
    client = create_app(table, pin=PIN, data_dir=tmp_path / "data").test_client()
    doc = served(client)
    assert isinstance(doc["scene"]["models"], list) and isinstance(doc["leds"][0], list)
    assert doc["selection"]["model"] == "rifles-1" and doc["selection"]["target"] == "raiders"
    assert [w["id"] for w in doc["warnings"]] == [w["id"] for w in table.snapshot().warnings]
