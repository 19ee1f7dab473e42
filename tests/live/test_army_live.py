"""The live table builds a game: a unit added with no marker, its model placed on the table (the camera
sees a marker nobody has, the snapshot offers it), the marker assigned, and the model then stands where
the camera sees it; the log replays all of it after a restart."""

from __future__ import annotations

from table.live.gamelog import GameLog
from tests.live.live_fakes import frame, move


def test_a_placed_model_is_offered_assigned_and_then_stands_where_the_camera_sees_it(make_controller, pipeline,
                                                                                      tmp_path):
    c = make_controller()
    c.command("add_unit", unit={"id": "scouts", "player": "A", "stats": {"movement": 7}}, count=2)
    staged = c.state.scene.model("scouts-1").position
    pipeline.see({10: (10.0, 40.0), 61: (20.0, 30.0), 500: (30.0, 30.0), 0: (1.5, 1.5)})
    c.process(frame(1))
    assert c.snapshot().status["unassigned"] == ({"marker": 61, "x": 20.0, "y": 30.0},)
    c.command("assign_marker", model="scouts-1", marker=61)
    assert c.state.scene.model("scouts-1").position == staged          # not seen since the assignment
    c.process(frame(2))
    assert c.state.scene.model("scouts-1").position == (20.0, 30.0)
    snap = c.snapshot()
    assert snap.status["unassigned"] == ()
    assert next(m for m in snap.scene["models"] if m["id"] == "scouts-1")["marker"] == 61
    c.close()
    again = make_controller(log_path=tmp_path / "game.sqlite3")          # the same log: the game resumes
    model = again.state.scene.model("scouts-1")
    assert (model.marker, model.position) == (61, (20.0, 30.0))
    assert [u.id for u in again.state.scene.units][-1] == "scouts"


def test_removing_a_unit_is_logged_and_replays(make_controller, tmp_path):
    c = make_controller()
    c.command("select", id="raiders-1")
    c.command("remove_unit", id="raiders")
    assert c.state.selected is None and "raiders" not in {u.id for u in c.state.scene.units}
    kinds = [e["kind"] for e in GameLog(tmp_path / "game.sqlite3").events(c.game)]
    assert kinds[-1] == "unit"
    c.close()
    again = make_controller(log_path=tmp_path / "game.sqlite3")
    assert [u.id for u in again.state.scene.units] == ["rifles", "gunner", "sniper"]


def test_an_ended_game_takes_no_moves_and_a_restart_starts_afresh(make_controller, pipeline, tmp_path):
    c = make_controller()
    played = c.game
    c.command("end_game")
    pipeline.see({10: (20.0, 20.0)}, (move(10, (10.0, 40.0), (20.0, 20.0)),))
    c.process(frame(1))
    assert c.state.scene.model("rifles-1").position == (10.0, 40.0)
    assert [e["kind"] for e in c.gamelog.events(played)][-1] == "game_end"
    c.close()
    again = make_controller(log_path=tmp_path / "game.sqlite3")       # nothing to resume: the scene starts
    assert again.game == played + 1 and not again.state.over
    again.command("resume_game", game=played)
    assert again.game == played and not again.state.over
    assert [g["ended"] is None for g in again.gamelog.games()] == [True, False]
