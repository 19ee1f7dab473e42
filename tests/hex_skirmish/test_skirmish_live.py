"""The live table's analysis: every unit's moves and every enemy pair's sight, equal to the public
questions' answers, and kept up to date move by move with the answers of a full recomputation."""

from __future__ import annotations

import random
from typing import Any

import pytest
from skirmish_scene import battlefield

from table.errors import QueryError
from table.rules.hex_skirmish import HexSkirmish
from table.rules.hex_skirmish.movement import unwind
from table.scene import parse_scene
from tests.hex_skirmish.skirmish_helpers import rules_for, scene_doc


def questions(rules: HexSkirmish, tracked: list[str]) -> dict[str, Any]:
    """The same answers through the public questions (moves, path, los)."""
    moves = {}
    for uid in sorted(tracked):
        mover = rules.mover(uid)
        _, before = mover.search(mover.allowance)
        reachable = rules.moves(uid)["reachable"]
        moves[uid] = [(tuple(s["hex"]), s["cost"], tuple(unwind(before, mover.start, tuple(s["hex"]))))
                      for s in reachable]
        for s in reachable[:3]:   # the path question gives the same cheapest path
            assert rules.path(uid, f"{s['hex'][0]},{s['hex'][1]}")["path"] == [list(h) for h in moves[uid][
                [tuple(x["hex"]) for x in reachable].index(tuple(s["hex"]))][2]]
    sight = {}
    present = rules.field.on_table()
    for a in present:
        for b in present:
            if a.player != b.player:
                seen = rules.los(a.id, b.id)
                sight[(a.id, b.id)] = (seen["visible"], seen["cover"]["heavy"], seen["cover"]["light"])
    return {"moves": moves, "sight": sight}


@pytest.mark.parametrize("scene,rulings", [
    ("battle.json", None),
    ("battle.json", {"vehicle_cover": "adjacent", "cover_hexsides": "target"}),
    ("vehicles.json", None),
    ("vehicles.json", {"dig_in_arc": "wide"}),
    ("wall.json", None),
])
def test_the_analysis_gives_the_questions_answers(scene, rulings):
    rules = rules_for(scene, rulings=rulings)
    analysis = rules.analysis()
    assert analysis.answers() == questions(rules, list(analysis.reaches))
    some = next(iter(analysis.reaches))
    assert analysis.reachable(some) == rules.moves(some)["reachable"]


def _fresh(doc: dict[str, Any], rulings: dict[str, Any] | None) -> HexSkirmish:
    return HexSkirmish(parse_scene(doc, "live"), rulings)


@pytest.mark.parametrize("seed,rulings", [(3, None), (4, {"vehicle_cover": "adjacent"})])
def test_after_every_move_the_answers_equal_a_full_recomputation(seed, rulings):
    doc = battlefield(seed, width=24.0, per_side=10)
    rules = _fresh(doc, rulings)
    analysis = rules.analysis()
    models = {m["id"]: m for m in doc["models"]}
    rng = random.Random(seed)
    for count in range(12):
        uid = rng.choice(sorted(u for u, r in analysis.reaches.items() if len(r.stops)))
        to = tuple(rng.choice(analysis.reachable(uid))["hex"])
        if count == 5:   # a vehicle turns as it moves
            uid = next(p.id for p in analysis.pieces if p.vehicle and len(analysis.reaches[p.id].stops))
            to, heading = tuple(analysis.reachable(uid)[0]["hex"]), 150.0
            models[uid]["heading"] = heading
            analysis.move(uid, to, heading)
        elif count == 8:  # a unit is taken off the table
            analysis.move(uid, None)
            doc["models"].remove(models.pop(uid))
            doc["units"] = [u for u in doc["units"] if u["id"] != uid]
        else:
            analysis.move(uid, to)
        if uid in models:
            models[uid]["hex"] = list(to)
        fresh = _fresh(doc, rulings)
        assert fresh.analysis().answers() == analysis.answers(), f"move {count}: {uid} -> {to}"
    assert questions(fresh, list(analysis.reaches)) == analysis.answers()


def test_an_enemy_moving_away_opens_its_hex_and_blocks_where_it_goes():
    rules = rules_for("battle.json")
    analysis = rules.analysis()
    assert (12, 5) not in {tuple(s["hex"]) for s in analysis.reachable("a5")}     # b6 stands there
    assert analysis.path("a5", (13, 4)) == [(12, 4), (13, 4)]
    analysis.move("b6", (13, 4))
    hexes = {tuple(s["hex"]): s["cost"] for s in analysis.reachable("a5")}
    assert hexes[(12, 5)] == 1 and (13, 4) not in hexes
    assert analysis.path("a5", (12, 5)) == [(12, 4), (12, 5)]
    assert analysis.path("a5", (40, 40)) is None
    moved = rules.with_model("b6", (13, 4), None)
    seen = moved.los("a1", "b6")
    assert analysis.sight("a1", "b6") == {"visible": seen["visible"], "cover": seen["cover"]}


@pytest.mark.parametrize("call,message", [
    (lambda a: a.move("nobody", (1, 1)), "not on the table"),
    (lambda a: a.move("a1", (60, 60)), "not on the board"),
    (lambda a: a.reachable("b8x"), "not on the table"),
    (lambda a: a.sight("a1", "a2"), "same side"),
])
def test_analysis_errors(call, message):
    with pytest.raises(QueryError, match=message):
        call(rules_for("battle.json").analysis())


def test_a_unit_of_several_models_is_not_moved_by_the_analysis():
    doc = scene_doc("battle.json")
    doc["models"].append({"id": "a1b", "unit": "a1", "hex": [2, 2]})
    analysis = HexSkirmish(parse_scene(doc)).analysis()
    with pytest.raises(QueryError, match="several models"):
        analysis.move("a1", (3, 3))
    with pytest.raises(QueryError, match="not tracked"):
        analysis.reachable("a1")


def test_refresh_after_a_unit_left_the_table_keeps_the_answers():
    analysis = rules_for("battle.json").analysis()
    analysis.move("b6", None)
    before = analysis.answers()
    assert not any("b6" in pair for pair in before["sight"]) and "b6" not in before["moves"]
    analysis.refresh()
    assert analysis.answers() == before
