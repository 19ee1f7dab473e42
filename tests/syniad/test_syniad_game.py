"""The Syniad game object: phases, statuses, selection, stacks, combat flow, replay, the physical table."""

import pytest

from table.rules.syniad import IllegalAction, SyniadGame
from table.scene import load_scene
from tests.syniad.syniad_helpers import DATA, make_scene

T = (3, 3)


@pytest.fixture
def game():
    return SyniadGame.from_scene(load_scene(DATA / "movement.json"), seed=5)


def statuses(game):
    return {u: c.status for u, c in game.state.counters.items()}


def test_phase_order_and_turns(game):
    seen = []
    for _ in range(5):
        seen.append((game.turn, game.active, game.phase))
        game.next_phase()
    assert seen == [(1, "A", "movement"), (1, "A", "combat"), (1, "B", "movement"), (1, "B", "combat"),
                    (2, "A", "movement")]


def test_phase_start_makes_the_active_player_available_and_the_other_unavailable(game):
    s = statuses(game)
    assert s["a-inf"] == "available" and s["b-inf"] == "unavailable"
    game.next_phase()
    game.next_phase()
    s = statuses(game)
    assert s["a-inf"] == "unavailable" and s["b-inf"] == "available"
    assert game.state.counters["b-inf"].start == (4, 1)


def test_select_takes_the_top_of_the_stack_and_rotation_changes_it(game):
    assert game.state.stack((1, 2)) == ["a-inf", "a-art"]
    answer = game.select((1, 2))
    assert answer["unit"] == "a-art" and statuses(game)["a-art"] == "selected"
    assert {"hex": [0, 3], "cost": 1, "path": [[1, 2], [0, 3]]} in answer["reachable"]
    game.select((1, 2))  # clicking the selected unit again deselects it
    assert game.rotate((1, 2)) == ["a-art", "a-inf"]
    assert game.select((1, 2))["unit"] == "a-inf"


def test_move_then_select_again_returns_to_the_start(game):
    game.select_unit("a-inf")
    moved = game.move((3, 1))
    assert moved["cost"] == 2 and moved["path"] == [[1, 2], [2, 1], [3, 1]]
    assert statuses(game)["a-inf"] == "moved" and game.state.stack((3, 1)) == ["a-inf"]
    back = game.select((3, 1))
    assert back["returned_to"] == [1, 2]
    assert back["instructions"][0]["text"] == "move 1st Infantry to hex [1, 2]"
    assert statuses(game)["a-inf"] == "available" and game.state.stack((1, 2))[-1] == "a-inf"


@pytest.mark.parametrize("target, reason", [((4, 1), "cannot move"), ((2, 3), "cannot move"),
                                            ((0, 2), "cannot move"), ((5, 0), "cannot move")])
def test_illegal_destinations(game, target, reason):
    game.select_unit("a-inf")
    with pytest.raises(IllegalAction, match=reason):
        game.move(target)


def test_wrong_player_wrong_phase_and_empty_hex(game):
    with pytest.raises(IllegalAction, match="belongs to B"):
        game.select_unit("b-inf")
    with pytest.raises(IllegalAction, match="no units"):
        game.select((6, 0))
    with pytest.raises(IllegalAction, match="combat phase"):
        game.select_target((4, 1))
    with pytest.raises(IllegalAction, match="select a unit"):
        game.move((2, 1))


def combat_scene():
    return make_scene([("a1", "A", (4, 3), 3, 6), ("a2", "A", (3, 2), 3, 6), ("far", "A", (6, 0), 3, 6),
                       ("d", "B", T, 3, 3)])


def combat_game(seed=1):
    game = SyniadGame.from_scene(combat_scene(), seed=seed)
    game.next_phase()
    return game


def test_combat_flow_statuses_and_cancel():
    game = combat_game()
    assert game.action == "selectTarget"
    with pytest.raises(IllegalAction, match="no enemy"):
        game.select_target((4, 3))
    details = game.select_target(T)
    assert game.action == "selectAttacker" and details["eligible"] == ["a1", "a2"]
    with pytest.raises(IllegalAction, match="at least one"):
        game.select_target(T)
    with pytest.raises(IllegalAction, match="cannot attack"):
        game.add_attacker("far")
    details = game.add_attacker("a1")
    assert statuses(game)["a1"] == "attacking" and details["attacking_points"] == 12
    game.cancel()
    assert statuses(game)["a1"] == "available" and game.target is None and game.action == "selectTarget"


def test_resolve_sets_attacked_and_lists_instructions():
    game = combat_game(seed=2)
    game.select_target(T)
    game.add_attacker("a1")
    game.add_attacker("a2")
    assert game.select_target(T)["action"] == "resolveAttack"
    result = game.resolve()
    assert result["attacking_points"] == 24 and result["defending_points"] == 3
    assert result["winner"] == "attacker"
    survivors = [u for u in ("a1", "a2") if not game.state.counters[u].eliminated]
    assert all(statuses(game)[u] == "attacked" for u in survivors)
    texts = [i["text"] for i in result["instructions"]]
    for uid in result["pursuit"]:
        assert f"move {uid} to hex [3, 3]" in texts
    if result["retreat"]["units"]:
        assert f"retreat d to hex {result['retreat']['hex']}" in texts
    else:
        assert "remove d" in texts


def test_attacked_units_cannot_attack_again():
    scene = make_scene([("a1", "A", (4, 3), 3, 6), ("a2", "A", (3, 2), 3, 6), ("d", "B", T, 3, 3),
                        ("d2", "B", (3, 4), 3, 3)])
    game = SyniadGame.from_scene(scene, seed=2)
    game.next_phase()
    game.select_target(T)
    game.add_attacker("a2")
    result = game.resolve()
    assert result["pursuit"] == ["a2"]  # a2 now stands next to d2 as well as a1
    assert game.select_target((3, 4))["eligible"] == ["a1"]
    with pytest.raises(IllegalAction, match="cannot attack"):
        game.add_attacker("a2")


def test_replay_from_the_log_rebuilds_the_same_game():
    game = combat_game(seed=9)
    game.select_target(T)
    game.add_attacker("a1")
    game.resolve()
    game.next_phase()
    again = SyniadGame.replay(combat_scene(), 9, game.log)
    assert again.status() == game.status() and again.last_result == game.last_result


def test_the_board_check_names_every_mismatch():
    game = combat_game(seed=2)
    game.select_target(T)
    game.add_attacker("a1")
    game.add_attacker("a2")
    result = game.resolve()
    expected = game.expected_positions()
    assert game.check_board(expected) == []
    observed = {"m-d": (3, 3), "m-a1": (4, 3), "m-a2": (3, 2), "m-far": (6, 0), "m-x": (1, 1)}
    problems = {p["model"]: p for p in game.check_board(observed)}
    assert problems["m-x"]["text"] == "model 'm-x' is not a Syniad counter in this game"
    for uid in result["pursuit"]:
        assert problems[f"m-{uid}"]["expected"] == [3, 3]
        assert "move it to hex [3, 3]" in problems[f"m-{uid}"]["text"]
    assert "m-far" not in problems
    missing = game.check_board({k: v for k, v in expected.items() if k != "m-far"})
    assert missing == [{"unit": "far", "model": "m-far", "expected": [6, 0], "observed": None,
                        "text": "far is missing: put it on hex [6, 0]"}]


def test_the_board_check_does_not_call_counters_under_a_seen_stack_missing():
    # "Natural array order: index 0 = bottom of stack, last index = top of stack": the camera sees the
    # top counter of a stack; the ones under it are where the game says while the top is seen there
    game = SyniadGame.from_scene(make_scene([("low", "A", (2, 2), 3, 6), ("mid", "A", (2, 2), 3, 6),
                                             ("top", "A", (2, 2), 3, 6), ("d", "B", T, 3, 3)]))
    assert game.state.stacks[(2, 2)] == ["low", "mid", "top"]
    assert game.check_board({"m-top": (2, 2), "m-d": T}) == []
    assert game.check_board({"m-mid": (2, 2), "m-d": T}) == [
        {"unit": "top", "model": "m-top", "expected": [2, 2], "observed": None,
         "text": "top is missing: put it on hex [2, 2]"}]
    # the top taken off to another hex: the camera should now see the counter under it
    moved = {p["model"] for p in game.check_board({"m-top": (3, 3), "m-d": T})}
    assert moved == {"m-top", "m-mid", "m-low"}
    assert {p["model"] for p in game.check_board({"m-d": T})} == {"m-top", "m-mid", "m-low"}
