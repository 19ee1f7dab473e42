"""The incremental analysis gives exactly the answers of a full recomputation, and recomputes less."""

import random

import pytest

from table.rules.syniad import combat
from table.rules.syniad.analysis import SyniadAnalysis
from table.rules.syniad.game import SyniadGame
from table.rules.syniad.sight import BlockingGrid, sight, visible_many
from table.rules.syniad.state import SyniadState
from tests.syniad.syniad_helpers import random_scene, reference_moves


@pytest.mark.parametrize("seed", range(6))
def test_incremental_updates_equal_a_full_recomputation(seed):
    rng = random.Random(seed)
    state = SyniadState.from_scene(random_scene(seed, n_units=24, board=(20.0, 16.0)))
    analysis = SyniadAnalysis(state)
    total_redone = 0
    for step in range(40):
        on_map = [u for u, c in state.counters.items() if c.hex is not None]
        uid = rng.choice(on_map)
        c = state.counters[uid]
        if step % 13 == 12:
            to = None  # eliminated
        else:
            reach = analysis.reach(uid).reachable(state.smap)
            to = rng.choice(reach)[0] if reach else c.hex
        total_redone += analysis.move(uid, to)
        if step % 7 == 3 and c.hex is not None:
            analysis.rotate(c.hex)
        fresh = SyniadAnalysis(state, follow=False)
        assert analysis.answers() == fresh.answers(), f"step {step}: {uid} -> {to}"
    for uid in analysis.reaches:
        assert dict(analysis.reach(uid).reachable(state.smap)) == reference_moves(state, uid)
    assert total_redone < 40 * len(analysis.reaches) / 2


def test_the_analysis_follows_a_game_through_moves_returns_and_combats():
    rng = random.Random(11)
    game = SyniadGame(SyniadState.from_scene(random_scene(3, n_units=24, board=(20.0, 16.0))), seed=11)
    analysis = SyniadAnalysis(game.state)
    combats = 0
    for _ in range(8):  # phases
        if game.phase == "movement":
            mine = [u for u, c in game.state.counters.items() if c.player == game.active and c.hex]
            for uid in rng.sample(mine, min(5, len(mine))):
                answer = game.select_unit(uid)
                if answer["status"] == "selected" and answer["reachable"]:
                    game.move(tuple(rng.choice(answer["reachable"])["hex"]))
                    if rng.random() < 0.3:
                        game.select_unit(uid)  # moved: back to its starting hex
                elif answer["status"] == "selected":
                    game.select_unit(uid)
                assert analysis.answers() == SyniadAnalysis(game.state, follow=False).answers()
        else:
            for target, attackers in list(analysis.attackers.items()):
                if game.state.owner(target) != game.active and attackers:
                    ready = combat.eligible_attackers(game.state, target, game.active)
                    if ready and game.state.stacks.get(target):
                        game.select_target(target)
                        for uid in ready:
                            game.add_attacker(uid)
                        game.resolve()
                        combats += 1
                        assert analysis.answers() == SyniadAnalysis(game.state, follow=False).answers()
        game.next_phase()
    assert combats > 0


def test_batched_sight_equals_single_lines():
    rng = random.Random(4)
    hexes = [(q, r) for q in range(-3, 15) for r in range(-8, 12)]
    blocking = set(rng.sample(hexes, 60))
    grid = BlockingGrid(hexes, blocking)
    pairs = [(rng.choice(hexes), rng.choice(hexes)) for _ in range(400)] + [((2, 2), (2, 2))]
    batch = visible_many(pairs, grid).tolist()
    assert batch == [sight(a, b, blocking)["visible"] for a, b in pairs]
    assert False in batch and True in batch


def test_sight_is_blocked_only_between_the_ends():
    line_ = sight((0, 0), (3, 0), {(0, 0), (3, 0)})
    assert line_["visible"] and line_["hexes"] == [(0, 0), (1, 0), (2, 0), (3, 0)]
    assert sight((0, 0), (3, 0), {(2, 0)}) == {"visible": False, "hexes": [(0, 0), (1, 0), (2, 0), (3, 0)],
                                              "blocked_by": [(2, 0)]}
