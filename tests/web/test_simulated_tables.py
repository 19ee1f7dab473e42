"""What a player changes on a simulated table stays (issue 23), each through a real `smarttable run`
process: on `run --demo` a terrain piece put through the API outlives the script's restart time (the
script hands the table over instead of starting its game again); on `run --sandbox` nothing is
scripted, a marker put down on the sandbox's board moves its model there through the camera, and a
model moved through the API stays where it was put (the camera then sees it there)."""

from __future__ import annotations

import math
import time

from tests.web.table_process import TableProcess, running_table

DEMO_S = 60.0          # the "still there 60 seconds later"; the old script restarted every ~45 s
FRAMES_SEEN = 30       # frames the camera must have taken since a change before it is judged


def model(state: dict, ident: str) -> dict:
    return next(m for m in state["scene"]["models"] if m["id"] == ident)


def near(m: dict, x: float, y: float, within: float = 0.1) -> bool:
    return m.get("x") is not None and math.hypot(m["x"] - x, m["y"] - y) <= within


def watching(table: TableProcess) -> dict:
    """The table once its camera is calibrated and tracking."""
    return table.wait_for(lambda s: s["status"]["camera"] == "ok" and s["status"]["calibration"] == "ok"
                          and s["status"]["frames"] > 5)


def after_frames(table: TableProcess, frames: int) -> dict:
    """The state once the camera has taken `frames` more frames (it has looked again, many times)."""
    start = table.get("/api/state")["status"]["frames"]
    return table.wait_for(lambda s: s["status"]["frames"] >= start + frames)


def test_demo_keeps_terrain_put_through_the_api(tmp_path):
    piece = {"id": "crates-1", "polygon": [[20, 20], [23, 20], [23, 23], [20, 23]], "height": 1.5,
             "traits": ["light_cover"]}
    with running_table(tmp_path) as table:
        start = watching(table)
        assert start["status"]["demo"] == "scripted"
        terrain = [*start["scene"]["terrain"], piece]
        table.put("/api/terrain", {"terrain": terrain})
        put_at = time.monotonic()
        handed = table.wait_for(lambda s: s["status"]["demo"] == "handed over")
        assert piece["id"] in [t["id"] for t in handed["scene"]["terrain"]]
        while time.monotonic() - put_at < DEMO_S:
            state = table.get("/api/state")
            assert [t["id"] for t in state["scene"]["terrain"]] == [t["id"] for t in terrain], \
                f"{time.monotonic() - put_at:.0f} s after it was put"
            time.sleep(2.0)
        games = table.get("/api/games")
        assert [g["game"] for g in games["games"]] == [start["status"]["game"]]   # no restart
        last = table.get("/api/state")
        assert last["scene"]["terrain"] == handed["scene"]["terrain"]
        assert last["status"]["game"] == start["status"]["game"] and not last["status"]["game_over"]


def test_sandbox_keeps_models_where_they_are_put(tmp_path):
    with running_table(tmp_path, mode="--sandbox") as table:
        start = watching(table)
        assert start["status"]["sandbox"] is True and "demo" not in start["status"]
        rifle = model(start, "rifles-1")
        marker = rifle["marker"]
        # a hand moves the miniature on the sandbox's board: the camera moves the model there
        table.put(f"/api/sandbox/markers/{marker}", {"x": 30.0, "y": 20.0, "heading": 0.0})
        moved = table.wait_for(lambda s: near(model(s, "rifles-1"), 30.0, 20.0))
        assert abs(model(moved, "rifles-1")["heading"]) < 3.0
        # the panel moves the model (its unit's models, one of them elsewhere): it stays there
        models = [{k: v for k, v in m.items() if k not in ("state", "sigma", "heading_sigma")}
                  for m in moved["scene"]["models"] if m["unit"] == rifle["unit"]]
        for m in models:
            if m["id"] == "rifles-1":
                m.update(x=20.0, y=12.0)
        table.put(f"/api/units/{rifle['unit']}", {"models": models})
        carried = table.wait_for(lambda s: any(m["id"] == marker and near(m, 20.0, 12.0, 0.01)
                                                for m in table.get("/api/sandbox")["markers"]))
        assert near(model(carried, "rifles-1"), 20.0, 12.0, 0.05)         # its marker carried after it
        for _ in range(3):          # the camera has looked again and again: the model is still there
            state = after_frames(table, FRAMES_SEEN)
            rifle_now = model(state, "rifles-1")
            assert near(rifle_now, 20.0, 12.0, 0.05), rifle_now
            assert rifle_now["state"] == "tracked"
        # nothing scripted: every other model is where it started, the game is the first
        for m in start["scene"]["models"]:
            if m["unit"] != rifle["unit"]:
                assert near(model(state, m["id"]), m["x"], m["y"], 0.05)
        assert (state["phase"]["phase"], state["phase"]["turn"]) == (start["phase"]["phase"], start["phase"]["turn"])
        assert state["status"]["game"] == start["status"]["game"]
        # where the camera itself sees the marker: the model let go of it, it is a marker in view
        loose = [{k: v for k, v in m.items() if k != "marker"} if m["id"] == "rifles-1" else m for m in models]
        table.put(f"/api/units/{rifle['unit']}", {"models": loose})
        seen = table.wait_for(lambda s: any(u["marker"] == marker for u in s["status"]["unassigned"]))
        assert near(next(u for u in seen["status"]["unassigned"] if u["marker"] == marker), 20.0, 12.0, 0.15)
        table.put(f"/api/units/{rifle['unit']}", {"models": models})
    with running_table(tmp_path, mode="--sandbox") as table:      # started again: nothing thrown away
        again = after_frames(table, FRAMES_SEEN)
        assert near(model(again, "rifles-1"), 20.0, 12.0, 0.05) and model(again, "rifles-1")["marker"] == marker
        for m in start["scene"]["models"]:
            if m["unit"] != rifle["unit"]:
                assert near(model(again, m["id"]), m["x"], m["y"], 0.05)


def test_a_handed_over_demo_stays_the_players_after_a_restart(tmp_path):
    """Restarted on its log, a demo a player had changed resumes their game as they left it: the script does
    not start over it, and the camera sees the models where they stood, not where the script begins."""
    piece = {"id": "crates-1", "polygon": [[20, 20], [23, 20], [23, 23], [20, 23]], "height": 1.5,
             "traits": ["light_cover"]}
    with running_table(tmp_path) as table:
        start = watching(table)
        table.put("/api/terrain", {"terrain": [*start["scene"]["terrain"], piece]})
        left = table.wait_for(lambda s: s["status"]["demo"] == "handed over")
        time.sleep(3.0)                                     # the camera settles where the script left them
        left = table.get("/api/state")
    with running_table(tmp_path) as table:
        again = watching(table)
        assert again["status"]["demo"] == "handed over"
        assert again["status"]["game"] == left["status"]["game"]
        assert piece["id"] in [t["id"] for t in again["scene"]["terrain"]]
        since = time.monotonic()
        while time.monotonic() - since < 25.0:              # the script's first moves come within 10 s
            state = after_frames(table, 5)
            for m in left["scene"]["models"]:
                if m.get("x") is not None:
                    assert near(model(state, m["id"]), m["x"], m["y"], 0.3), (m["id"], model(state, m["id"]))
            assert state["status"]["demo"] == "handed over" and state["status"]["game"] == left["status"]["game"]
