"""A Syniad game played on the live table: SyniadGame's phases, the camera's counter moves as
game actions, and after a combat the instructions and what the camera disagrees with."""

from __future__ import annotations

import pytest

from table.errors import QueryError
from table.hexgrid import HexLayout
from table.live.leds import LedLayout, grid
from table.rules.syniad.game import SyniadGame
from table.scene import load_scene
from tests.live.live_fakes import DATA, frame, move

SCENE = DATA / "syniad-combat.json"         # inf-1 (A, strength 7) at [1, 1], inf-2 (B, 5) at [3, 0]
GRID = LedLayout("grid-24", tuple(grid((0.75, 0.75), 1.5, 16, 16, serpentine=True)))


def centre(c, h):
    return HexLayout.from_spec(c.state.scene.hexgrid).to_board(h)


def syniad(c):
    return c.snapshot().phase["syniad"]


def test_a_combat_played_on_the_table(make_controller, pipeline):
    scene = load_scene(SCENE)
    c = make_controller(scene=scene, layout=GRID)
    view = syniad(c)
    assert (view["turn"], view["phase"], view["player"]) == (1, "movement", "A")
    assert view["mismatches"] == []
    # the camera sees inf-1's counter carried from [1, 1] to [2, 0], next to the enemy
    a0, a1 = centre(c, (1, 1)), centre(c, (2, 0))
    b0 = centre(c, (3, 0))
    pipeline.see({31: a1, 32: b0}, (move(31, a0, a1),))
    c.process(frame(1))
    counters = {u["unit"]: u for u in syniad(c)["units"]}
    assert counters["inf-1"]["hex"] == [2, 0] and counters["inf-1"]["status"] == "moved"
    assert [(a, args) for a, args in c.state.actions] == [("select_unit", ("inf-1",)), ("move", ((2, 0),))]
    c.command("advance_phase")
    assert (syniad(c)["phase"], c.snapshot().phase["phase"]) == ("combat", "combat")
    c.command("syniad", action="select_target", args=["3,0"])
    assert syniad(c)["details"]["eligible"] == ["inf-1"]
    c.command("syniad", action="add_attacker", args=["inf-1"])
    c.command("syniad", action="select_target", args=["3,0"])
    result = c.command("syniad", action="resolve")
    # the same game played straight on SyniadGame, with the game's seed, gives the same result
    game = SyniadGame.from_scene(scene, c.state.seed)
    game.select_unit("inf-1")
    game.move((2, 0))
    game.next_phase()
    game.select_target((3, 0))
    game.add_attacker("inf-1")
    game.select_target((3, 0))
    expected = game.resolve()
    assert result == expected
    view = syniad(c)
    assert view["instructions"] == expected["instructions"] and view["instructions"]
    # the counters still stand where they were: the mismatch list says what to move where
    assert view["mismatches"] == game.check_board({"a1": (2, 0), "b1": (3, 0)})
    assert {m["model"] for m in view["mismatches"]} == {"a1", "b1"}
    # the players follow the instructions; the camera sees it and the list empties
    retreat = next(i for i in expected["instructions"] if i["action"] == "retreat")["to"]
    b1 = centre(c, tuple(retreat))
    pipeline.see({31: b0, 32: b1}, (move(31, a1, b0), move(32, b0, b1)))
    c.process(frame(2))
    assert syniad(c)["mismatches"] == []


def test_illegal_actions_are_refused_and_undo_keeps_the_game_in_step(make_controller):
    c = make_controller(scene=load_scene(SCENE), layout=GRID)
    with pytest.raises(QueryError, match="combat phase"):
        c.command("syniad", action="select_target", args=["3,0"])
    with pytest.raises(QueryError, match="unknown action"):
        c.command("syniad", action="teleport", args=[])
    c.command("advance_phase")
    assert syniad(c)["phase"] == "combat"
    c.command("undo")
    assert syniad(c)["phase"] == "movement" and c.state.phase == "movement"
    assert not [e for e in c.gamelog.events(c.game) if e["kind"] == "syniad"]


def test_a_restarted_table_resumes_the_syniad_game(make_controller, pipeline, tmp_path):
    c = make_controller(scene=load_scene(SCENE), layout=GRID, log_path=tmp_path / "s.sqlite3")
    c.command("syniad", action="select_unit", args=["inf-1"])
    c.command("syniad", action="move", args=["2,0"])
    c.command("advance_phase")
    before = syniad(c)
    c.close()
    again = make_controller(scene=load_scene(SCENE), layout=GRID, log_path=tmp_path / "s.sqlite3")
    assert again.status["resumed"] and syniad(again) == before


def test_a_scene_syniad_cannot_play_leaves_the_table_running(make_controller, tmp_path):
    import json

    document = json.loads(SCENE.read_text())
    document["units"][1]["player"] = "A"             # one player: Syniad is a two-player game
    path = tmp_path / "one-player.json"
    path.write_text(json.dumps(document))
    c = make_controller(scene=load_scene(path), layout=GRID)
    assert "syniad" not in c.snapshot().phase
    with pytest.raises(QueryError, match="not a Syniad game"):
        c.command("syniad", action="resolve")
    c.command("select", id="inf-1")                  # the rest of the table still answers
    assert c.snapshot().selection["model"] == "a1"
