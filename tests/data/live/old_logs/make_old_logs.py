"""Writes the game logs in tests/data/live/old_logs/ with the table as it was before events were typed
(commit 46f7532), and each game's final state as that table's session held it. Not a test: run it
from a checkout of that commit to regenerate (`PYTHONPATH=OLD python OLD/../make_old_logs.py OUT`).

Every kind of event is in one of the two games: a Synaptik game (moves, placements, the pointer's
selection, warnings, the camera, every command) and a Syniad game (hex moves, the live game's actions
from the camera and from commands, a destination)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPWMPin

from table.config import default_config
from table.hexgrid import HexLayout
from table.live.controller import TableController
from table.live.gamelog import GameLog, export_jsonl
from table.live.leds import LedLayout, grid, load_layout
from table.scene import load_scene
from tests.live.live_fakes import DATA, DEMO_SCENE, ScriptedPipeline, frame, make_hardware, move


def summary(state) -> dict:
    """What a session holds after the game, as JSON (the test computes the same from a replay)."""
    def activation(a):
        return None if a is None else [a.unit, a.number, a.starts, a.factor, a.ends]
    doc = {"turn": state.turn, "step": state.step, "player_index": state.player_index,
           "selected": state.selected, "target": state.target, "activation": activation(state.activation),
           "finished": [activation(a) for a in state.finished], "activations": state.activations,
           "acknowledged": sorted(state.acknowledged), "markers": sorted(state.markers().items()), "brightness": state.brightness,
           "rulings": state.rulings, "last_roll": state.last_roll, "destination": state.destination,
           "seed": state.seed, "weapons": state.weapons, "actions": state.actions, "ruler": state.ruler,
           "ruleset": state.scene.ruleset, "terrain": [t.id for t in state.scene.terrain],
           "models": [[m.id, m.x, m.y, m.heading, m.hex] for m in state.scene.models]}
    return json.loads(json.dumps(doc))


def controller(out: Path, name: str, scene, layout, pipeline) -> TableController:
    config = default_config()
    factory = MockFactory(pin_class=MockPWMPin)
    Device.pin_factory = factory
    return TableController(config, hardware=make_hardware(config, layout, factory), layout=layout,
                           log_=GameLog(out / f"{name}.sqlite3"), pipeline=pipeline, scene=scene, seed=7)


def save(out: Path, name: str, c: TableController) -> None:
    with open(out / f"{name}.jsonl", "w", encoding="utf-8") as lines:
        export_jsonl(c.gamelog.events(c.game), lines)
    (out / f"{name}.state.json").write_text(json.dumps(summary(c.state), indent=1) + "\n")
    c.close()
    (out / f"{name}.sqlite3").unlink()


def synaptik_game(out: Path) -> None:
    config = default_config()
    pipeline = ScriptedPipeline()
    c = controller(out, "synaptik", load_scene(DEMO_SCENE), load_layout(config.path("hardware", "led_layout")),
                   pipeline)
    c.camera_status("ok", "")
    # first sightings: sniper-1 placed away from its scene position; marker 77 nobody knows
    pipeline.see({23: (38.0, 7.0), 77: (5.0, 5.0)})
    c.process(frame(1))
    pipeline.see({23: (38.0, 16.0), 77: (5.0, 5.0)}, (move(23, (38.0, 7.0), (38.0, 16.0)),))
    c.process(frame(2))
    c.command("advance_phase")
    c.command("select", id="rifles", order="maneuver")
    c.command("target", id="raiders")
    c.command("weapon", weapon="Rifle")
    c.command("measure", question="los", args=["rifles-1", "raiders-1"])
    c.command("roll", kind="pool", d6=3, d8=1, d10=0, reroll="none", label="volley")
    c.command("ruler", a="rifles-1", b="40,40")
    c.command("acknowledge", id=next(w["id"] for w in c.current_warnings()))
    c.command("assign_marker", model="gunner-1", marker=44)
    c.command("set_terrain", terrain=[{"id": "wall", "polygon": [[20, 30], [28, 30], [28, 31], [20, 31]],
                                       "height": 3, "traits": ["heavy_cover"]}])
    c.command("settings", rulings={}, brightness=0.5)
    c.command("confirm")
    pipeline.see({23: (38.0, 16.0), 500: (12.5, 8.5)})      # the pointer beside raiders-1
    c.process(frame(3))
    c.command("select", id="rifles-2")
    c.command("undo")
    c.command("ruler")
    c.camera_status("lost", "no frames for 5 s")
    save(out, "synaptik", c)


def syniad_game(out: Path) -> None:
    scene = load_scene(DATA / "syniad-combat.json")
    pipeline = ScriptedPipeline()
    c = controller(out, "syniad", scene, LedLayout("grid-24", tuple(grid((0.75, 0.75), 1.5, 16, 16,
                                                                          serpentine=True))), pipeline)
    hexes = HexLayout.from_spec(scene.hexgrid)
    a0, a1, b0 = hexes.to_board((1, 1)), hexes.to_board((2, 0)), hexes.to_board((3, 0))
    pipeline.see({31: a0, 32: b0})
    c.process(frame(1))
    pipeline.see({31: a1, 32: b0}, (move(31, a0, a1),))
    c.process(frame(2))
    c.command("select", id="inf-1")
    c.command("destination", hex="2,1")
    c.command("advance_phase")
    c.command("syniad", action="select_target", args=["3,0"])
    c.command("syniad", action="add_attacker", args=["inf-1"])
    c.command("syniad", action="select_target", args=["3,0"])
    c.command("syniad", action="resolve")
    save(out, "syniad", c)


if __name__ == "__main__":
    target = Path(sys.argv[1])
    synaptik_game(target)
    syniad_game(target)
