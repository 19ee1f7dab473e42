"""A command's bad argument is the caller's mistake (a QueryError naming the field, a 400 on the panel);
a TypeError inside a handler is a bug (it propagates: a 500 on the panel, logged), never dressed up as a
bad request. The bug is a real one: a rule system whose dice roller breaks."""

from __future__ import annotations

import logging
import random
from dataclasses import replace
from typing import Any

import pytest

from table.errors import QueryError
from table.registry import register, unregister
from table.rules.declarations import DiceField, DiceKind
from tests.rule_systems.toy_duel import ToyDuel
from web_ui import create_app

PIN = "4711"


def jammed(rng: random.Random, target: int) -> dict[str, Any]:
    """A roller with a bug: it adds the target to the list of dice."""
    dice = [rng.randint(1, 12)] + target      # type: ignore[operator]   # the bug under test
    return {"dice": dice}


class JammedDuel(ToyDuel):
    name = "jammed_duel"
    title = "Jammed duel"
    dice = (DiceKind("jam", "A broken roll", (DiceField("target", "Target", "integer", None, 7, 2, 12),), jammed),)


@pytest.fixture
def jammed_rules():
    register(JammedDuel)
    yield JammedDuel
    unregister(JammedDuel)


@pytest.fixture
def table(make_controller, scene, jammed_rules):
    return make_controller(scene=replace(scene, ruleset=jammed_rules.name))


@pytest.mark.parametrize(("name", "params", "field"), [
    ("select", {"colour": "red"}, "colour"),                    # no such parameter
    ("acknowledge", {}, "id"),                                  # a required one left out
    ("roll", {"kind": "dice", "colour": 3}, "colour"),          # no such field of the dice form
    ("roll", {"kind": "dice", "count": "many"}, "count"),       # a field of the wrong type
    ("roll", {"kind": "jam"}, "target"),                        # a required field left out
])
def test_a_bad_argument_is_a_query_error_naming_the_field(table, name, params, field):
    with pytest.raises(QueryError, match=rf"\b{field}\b"):
        table.command(name, **params)


def test_a_bad_argument_on_the_panel_is_a_400_naming_the_field(table, tmp_path):
    client = create_app(table, pin=PIN, data_dir=tmp_path / "data").test_client()
    reply = client.post("/api/roll", json={"kind": "jam", "target": "seven"}, headers={"X-Table-PIN": PIN})
    assert reply.status_code == 400 and reply.get_json()["field"] == "target"


def test_a_type_error_inside_a_handler_is_a_bug_not_a_bad_request(table, tmp_path, caplog):
    with pytest.raises(TypeError):
        table.command("roll", kind="jam", target=7)
    client = create_app(table, pin=PIN, data_dir=tmp_path / "data").test_client()
    with caplog.at_level(logging.ERROR):
        reply = client.post("/api/roll", json={"kind": "jam", "target": 7}, headers={"X-Table-PIN": PIN})
    assert reply.status_code == 500
    assert any(r.exc_info and r.exc_info[0] is TypeError for r in caplog.records)   # logged with its traceback
    table.command("roll", kind="dice", count=2)          # the table goes on answering
    assert table.state.last_roll["kind"] == "dice"
