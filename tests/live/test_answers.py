"""Typed answers: the selection the snapshot and the API show holds each of the rule system's answers
exactly as the rule system gives it (asked here of a rule system of its own, as `smarttable query` does)."""

from __future__ import annotations

from table.rules import get_ruleset
from table.scene import load_scene
from tests.live.live_fakes import DATA, frame, move

SELECTION_KEYS = {"model", "unit", "target", "bands", "band", "los", "distance", "reachable", "path", "template",
                  "deployment", "weapon", "weapons", "pointer", "last_roll", "ruler"}


def test_the_selection_holds_the_rule_systems_answers_unchanged(make_controller):
    c = make_controller()
    c.command("advance_phase")
    c.command("select", id="rifles-1")
    c.command("target", id="raiders")
    selection = c.snapshot().to_dict()["selection"]
    assert set(selection) == SELECTION_KEYS
    rules = get_ruleset(c.state.scene.ruleset)(c.state.scene, c.state.rulings)
    assert selection["los"] == rules.ask("los", ["rifles-1", "raiders"])
    assert selection["distance"] == rules.ask("distance", ["rifles-1", "raiders"])
    areas = rules.ask("bands", ["rifles"])
    assert selection["band"] == rules.ask("band", ["rifles", "raiders", areas["weapon"]])
    assert (selection["weapon"], selection["weapons"]) == (areas["weapon"], areas["weapons"])
    assert selection["bands"] == {m.id: rules.ask("band", ["rifles", m.id, areas["weapon"]])["band"]
                                  for m in c.state.scene.models if m.unit in ("raiders", "sniper")}


def test_a_hex_selection_counts_the_reachable_hexes_and_keeps_the_path(make_controller):
    scene = load_scene(DATA / "syniad-combat.json")
    c = make_controller(scene=scene)
    c.command("select", id="inf-1")
    c.command("destination", hex="2,1")
    selection = c.snapshot().to_dict()["selection"]
    rules = get_ruleset(scene.ruleset)(c.state.scene, c.state.rulings)
    unit = c.state.scene.model(c.state.selected).unit
    assert selection["reachable"] == len(rules.ask("moves", [unit])["reachable"]) > 0
    assert selection["path"] == rules.ask("path", [unit, "2,1"])


def test_warnings_are_typed_and_shown_as_before_after_a_restart_too(make_controller, pipeline, tmp_path):
    c = make_controller()
    pipeline.see({23: (38.0, 15.0)}, (move(23, (38.0, 6.0), (38.0, 15.0)),))
    c.process(frame(1))
    shown = c.snapshot().to_dict()["warnings"]
    assert [w.id for w in c.warnings.current] == [w["id"] for w in shown] == ["overmove:sniper-1:1"]
    assert shown[0] == {"id": "overmove:sniper-1:1", "kind": "overmove", "units": ["sniper"],
                        "acknowledged": False, "message": shown[0]["message"]}
    c.command("acknowledge", id="overmove:sniper-1:1")
    c.close()
    again = make_controller(log_path=tmp_path / "game.sqlite3")
    resumed = again.snapshot().to_dict()["warnings"]
    assert resumed == [{**shown[0], "acknowledged": True}]
