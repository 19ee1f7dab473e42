"""One set of limits for every way in (issue 25: `cmd/roll` over MQTT took a 20 MB label where the panel
caps labels at 80 characters). Each bad command goes to a real table over a real Mosquitto and must be
refused naming the field the panel's 400 names for the same request, with nothing logged."""

from __future__ import annotations

import json

import pytest

from table.live import command_limits
from table.live.table_commands import COMMANDS
from tests.club.club_clients import PublishedTable, Recorder, publish_raw
from web_ui import create_app

PIN = "4711"
PIECE = {"id": "wood", "polygon": [[1, 1], [5, 1], [5, 5]], "traits": ["light_cover"]}


@pytest.fixture
def table(broker, tmp_path):
    made = PublishedTable(tmp_path, broker.url, table_id="t1")
    yield made
    made.close()


@pytest.fixture
def replies(broker):
    recorder = Recorder(broker.url, "smarttable/t1/reply/#")
    assert recorder.subscribed()
    yield recorder
    recorder.close()


def over_mqtt(broker, replies: Recorder, name: str, payload: bytes | str) -> dict:
    before = len(replies.payloads(f"reply/{name}"))
    publish_raw(broker.url, f"smarttable/t1/cmd/{name}", payload)
    assert replies.wait(lambda: len(replies.payloads(f"reply/{name}")) > before, 20)
    return json.loads(replies.payloads(f"reply/{name}")[before])


# command, its parameters over MQTT, the panel's route and body for the same request (None: the same), the
# field both name (the ruler's ends are `a`/`b` to the command, `from`/`to` to the panel)
CASES = [
    ("roll", {"kind": "dice", "count": 2, "sides": 6, "label": "x" * 81}, "/api/roll", None, "label"),
    ("roll", {"kind": "dice", "count": 2, "sides": 6, "label": 7}, "/api/roll", None, "label"),
    ("roll", {"kind": "pool", "d6": 2, "d8": 1, "colour": "red"}, "/api/roll", None, "colour"),
    ("roll", {"kind": "dice", "count": 2, "sides": 10**6}, "/api/roll", None, "sides"),
    ("roll", {"kind": ["dice"]}, "/api/roll", None, "kind"),
    ("select", {"id": "r" * 65}, "/api/select", None, "id"),
    ("select", {"id": 5}, "/api/select", None, "id"),
    ("target", {"id": {"unit": "raiders"}}, "/api/target", None, "id"),
    ("ruler", {"a": [0, 0], "b": [5000, 0]}, "/api/ruler", {"from": [0, 0], "to": [5000, 0]}, "b/to"),
    ("ruler", {"a": "rifles-1", "b": "5,1e9"}, "/api/ruler", {"from": "rifles-1", "to": [5, 1e9]}, "b/to"),
    ("weapon", {"weapon": "w" * 65}, "/api/weapon", None, "weapon"),
    ("assign_marker", {"model": "rifles-1", "marker": 5000}, "/api/roster/assign", None, "marker"),
    ("assign_marker", {"model": "rifles-1", "marker": "7"}, "/api/roster/assign", None, "marker"),
    ("settings", {"brightness": "0.5"}, "/api/settings", None, "brightness"),
    ("settings", {"brightness": True}, "/api/settings", None, "brightness"),
    ("set_terrain", {"terrain": [{**PIECE, "id": f"wood-{i}"} for i in range(201)]}, "/api/terrain", None, "terrain"),
    ("set_terrain", {"terrain": [{**PIECE, "polygon": [[1, 1]] * 101}]}, "/api/terrain", None, "terrain[0].polygon"),
    ("set_terrain", {"terrain": [{**PIECE, "colour": "red"}]}, "/api/terrain", None, "terrain[0].colour"),
    ("set_terrain", {"terrain": [{**PIECE, "polygon": [[1, 1], [500, 1], [5, 5]]}]}, "/api/terrain", None,
     "terrain[0].polygon[1]"),
]


@pytest.mark.parametrize("name, params, route, body, field", CASES, ids=[f"{c[0]}-{c[4]}-{i}" for i, c in enumerate(CASES)])
def test_a_command_over_mqtt_is_refused_as_the_panel_refuses_it(broker, table, replies, name, params, route, body,
                                                               field):
    field, _, http_field = field.partition("/")
    logged = table.logged_seqs()
    reply = over_mqtt(broker, replies, name, json.dumps(params))
    assert reply["ok"] is False and reply["error"].split(": ")[1] == field, reply
    assert table.logged_seqs() == logged                             # nothing stored
    client = create_app(table.controller, pin=PIN, data_dir=table.log_path.parent / "panel").test_client()
    method = client.put if route in ("/api/settings", "/api/terrain") else client.post
    answer = method(route, json=params if body is None else body, headers={"X-Table-PIN": PIN})
    assert 400 <= answer.status_code < 500 and answer.get_json()["field"] == (http_field or field), answer.get_json()


def test_the_same_roll_with_a_label_the_panel_takes_is_taken_over_mqtt(broker, table, replies):
    reply = over_mqtt(broker, replies, "roll", json.dumps({"kind": "dice", "count": 2, "sides": 6, "label": "x" * 80}))
    assert reply["ok"] is True and table.gamelog.since(0)[-1]["label"] == "x" * 80


def test_a_20_mb_label_is_refused_for_its_size_before_it_is_read(broker, table, replies):
    payload = json.dumps({"kind": "dice", "count": 2, "sides": 6, "label": "x" * 20_000_000})
    logged = table.logged_seqs()
    reply = over_mqtt(broker, replies, "roll", payload)
    assert reply == {"ok": False, "command": "roll",
                     "error": f"cmd/roll: payload: {len(payload)} bytes (at most {command_limits.MAX_PAYLOAD})"}
    assert table.logged_seqs() == logged


@pytest.mark.parametrize("payload, said", [
    ('{"id": ' * 10_000 + "1" + "}" * 10_000, "nested more than 64 deep"),
    ('{"kind": "dice", "count": NaN}', "NaN is not a JSON number"),
    ('{"kind": "dice", "count": ' + "9" * 5000 + "}", "not JSON"),
    ('{"request_id": ' + json.dumps("r" * 200) + "}", "request_id: expected a text of at most 128"),
    ('{"name": "x"}', "unknown parameter 'name'"),
])
def test_a_payload_that_is_not_strict_json_is_refused_with_a_reason(broker, table, replies, payload, said):
    reply = over_mqtt(broker, replies, "select", payload)
    assert reply["ok"] is False and said in reply["error"], reply


def test_every_command_with_parameters_has_its_limits():
    import inspect

    with_params = {run.__name__ for run in COMMANDS.values() if len(inspect.signature(run).parameters) > 1}
    assert with_params - {"roll"} <= set(command_limits.CHECKS)          # roll: its dice form (rolls.check)
    assert "game_action" in command_limits.CHECKS and "measure" in command_limits.CHECKS
