"""Typed events: logs written before events were typed replay to the state the old table held, every
stored event reads back and writes out as it was stored, and a bad event names its field."""

from __future__ import annotations

import dataclasses
import json

import pytest

from table import strictjson
from table.cli import main as cli_main
from table.errors import TableError
from table.live.events import Roll, decode, encode
from table.live.session import replay
from table.live.state import Activation, GameState
from tests.inprocess import smarttable
from tests.live.live_fakes import DATA

OLD_LOGS = DATA / "old_logs"      # written by the table before events were typed (make_old_logs.py)
GAMES = ("synaptik", "syniad")
ENVELOPE = ("seq", "ts", "game")


def lines(name: str) -> list[dict]:
    return [strictjson.loads(line) for line in (OLD_LOGS / f"{name}.jsonl").read_text().splitlines()]


def summary(state: GameState) -> dict:
    """What a session holds after a game, as JSON (make_old_logs.py wrote the old table's the same way)."""
    def activation(a: Activation | None) -> list | None:
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


@pytest.mark.parametrize("name", GAMES)
def test_an_old_log_replays_to_the_state_the_old_table_held(name):
    expected = json.loads((OLD_LOGS / f"{name}.state.json").read_text())
    assert summary(replay(lines(name)).state) == expected


def test_the_old_logs_hold_every_kind_of_event():
    kinds = {e["kind"] for name in GAMES for e in lines(name)}
    assert kinds == {"game_start", "camera", "move", "warning", "warning_cleared", "phase", "select", "target",
                     "weapon", "measure", "roll", "ruler", "acknowledge", "marker", "terrain", "settings",
                     "confirm", "undo", "destination", "syniad"}


@pytest.mark.parametrize("name", GAMES)
def test_every_stored_event_writes_out_as_it_was_stored(name):
    for stored in lines(name):
        assert encode(decode(stored)) == {k: v for k, v in stored.items() if k not in ENVELOPE}


def test_a_replay_goes_on_from_a_checkpoint_and_leaves_it_as_it_was():
    events = lines("synaptik")
    checkpoint = replay(events[:12])
    at_twelve = checkpoint.state
    assert replay(events[12:], checkpoint).state == replay(events).state
    assert checkpoint.state is at_twelve


def test_an_old_log_replays_through_the_command_line(capsys):
    expected = json.loads((OLD_LOGS / "syniad.state.json").read_text())
    assert cli_main(["log", "replay", str(OLD_LOGS / "syniad.jsonl")]) == 0
    replayed = json.loads(capsys.readouterr().out)
    assert (replayed["phase"]["turn"], replayed["phase"]["step"]) == (expected["turn"], expected["step"])
    assert replayed["selection"]["model"] == expected["selected"]


@pytest.mark.parametrize("event, field", [
    ({"kind": "move", "model": "a", "from": [1.0], "to": [1.0, 2.0]}, "move.from: expected [x, y]"),
    ({"kind": "move", "model": "a", "from": [1.0, 2.0], "to": [1.0, "2"]}, "move.to[1]: expected a number"),
    ({"kind": "move", "from": [1.0, 2.0], "to": [1.0, 2.0]}, "move.model: expected a non-empty string"),
    ({"kind": "select", "model": 5}, "select.model: expected a non-empty string, got int"),
    ({"kind": "marker", "model": "m", "marker": "12"}, "marker.marker: expected an integer, got a string"),
    ({"kind": "ruler", "from": [1.0, 2.0], "to": "3,4"}, "ruler.to: expected an array, got a string"),
    ({"kind": "destination", "hex": [1.5, 2]}, "destination.hex[0]: expected an integer"),
    ({"kind": "measure", "question": "los", "args": ["a", 2]}, "measure.args[1]: expected a string"),
    ({"kind": "settings", "rulings": [1]}, "settings.rulings: expected an object, got an array"),
    ({"kind": "roll", "result": 6}, "roll.result: expected an object, got int"),
    ({"kind": "game_start", "scene": {"board": 3}}, "game_start.scene"),
    ({"kind": "bookmark", "question": "distance", "between": ["a", "b"]}, "bookmark.id: expected an integer"),
    ({"kind": "warp"}, "unknown event kind 'warp'"),
    ({"kind": 3}, "event.kind: expected a non-empty string, got int"),
])
def test_a_bad_event_names_its_field(event, field):
    with pytest.raises(TableError, match="^" + field.replace("[", r"\[").replace("]", r"\]")):
        decode(event)


def test_a_bad_event_in_an_exported_log_is_one_line_naming_it(tmp_path):
    events = lines("synaptik")[:5]
    events[4] = {**events[4], "to": [38.0, None]}
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps(e) + "\n" for e in events))
    done = smarttable("log", "replay", str(bad))
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "event 4: move.to[1]: expected a number, got null" in done.stderr


def test_an_event_cannot_be_changed_by_its_maker_or_its_readers():
    params = {"d6": 3, "reroll": "none"}
    result = {"dice": [4, 6, 1], "total": 11}
    rolled = Roll("pool", params, None, result)
    params["d6"], result["dice"][0] = 5, 1                     # the maker's dicts change afterwards
    assert encode(rolled)["params"] == {"d6": 3, "reroll": "none"} and rolled.result["dice"] == (4, 6, 1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        rolled.label = "volley"  # type: ignore[misc]
    with pytest.raises(TypeError):
        rolled.result["total"] = 12  # type: ignore[index]
    encode(rolled)["result"]["dice"].append(6)                 # a reader's copy is its own
    assert rolled.result["dice"] == (4, 6, 1)


def test_a_stored_event_the_old_table_wrote_lacks_nothing_it_needs():
    """An event only an old log holds (a roll with its result alone) still applies."""
    events = [*lines("synaptik")[:1], {"kind": "roll", "result": {"dice": [3, 5]}}]
    assert replay(events).state.last_roll == {"dice": [3, 5]}

