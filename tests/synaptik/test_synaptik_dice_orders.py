"""Dice pools (5+ succeeds, one reroll per die, d3 = d6 halved rounded up), order allowances,
Firing Line's extra attacks and the initiative roll-off and bag."""

import random
from collections import Counter

import pytest

from table.dice import Die, Pool, reroll, roll, roll_die, successes
from table.errors import QueryError
from table.rules.synaptik.orders import allowance, firing_line, initiative, order_name


def test_pool_parsing():
    assert Pool.parse("3d8+2d6").terms == ((3, 8), (2, 6))
    assert str(Pool.parse(" d10 + 2D6 ")) == "1d10+2d6"
    mistakes = [("3d7", "no d7"), ("3x8", "not like 3d8"), ("0d6", "rolls no dice"), ("", "not like")]
    for bad, message in mistakes:
        with pytest.raises(QueryError, match=message):
            Pool.parse(bad)


def test_same_seed_same_roll_and_faces_in_range():
    pool = Pool.parse("4d6+4d8+4d10+4d3")
    assert roll(pool, random.Random(7)) == roll(pool, random.Random(7))
    faces = Counter()
    rng = random.Random(1)
    for _ in range(300):
        for die in roll(pool, rng):
            faces[(die.sides, die.value)] += 1
    for sides, top in [(6, 6), (8, 8), (10, 10), (3, 3)]:
        seen = {v for (s, v) in faces if s == sides}
        assert seen == set(range(1, top + 1))


def test_d3_is_a_d6_halved_rounded_up():
    # the same random stream: d6 faces 1..6 become 1,1,2,2,3,3
    for seed in range(40):
        d6 = random.Random(seed).randint(1, 6)
        assert roll_die(3, random.Random(seed)) == -(-d6 // 2)


def test_five_or_more_succeeds_on_every_die_but_never_a_d3():
    dice = [Die(6, 5), Die(6, 4), Die(8, 8), Die(10, 5), Die(10, 4), Die(3, 3)]
    assert successes(dice, 5) == 3


def test_a_die_rerolls_at_most_once():
    rng = random.Random(3)
    dice = (Die(6, 1), Die(6, 6), Die(8, 2))
    once = reroll(dice, lambda d: d.value < 5, rng)
    assert [d.rerolled for d in once] == [True, False, True]
    assert once[1] == dice[1]
    twice = reroll(once, lambda d: True, rng)  # a second effect: already rerolled dice keep their value
    assert twice[0] == once[0] and twice[2] == once[2]
    assert twice[1].rerolled


def test_success_rate_is_about_right():
    rng = random.Random(11)
    dice = [d for _ in range(6) for d in roll(Pool.parse("500d6+500d10"), rng)]
    d6 = successes([d for d in dice if d.sides == 6], 5) / 3000
    d10 = successes([d for d in dice if d.sides == 10], 5) / 3000
    assert d6 == pytest.approx(2 / 6, abs=0.03) and d10 == pytest.approx(6 / 10, abs=0.03)
    with pytest.raises(QueryError, match="more than 1000 dice"):
        Pool.parse("600d6+600d8")


@pytest.mark.parametrize("order, expected", [("Maneuver", 12), ("charge", 12), ("Standard Orders", 6),
                                             ("regroup", 3), ("Firing Line", 0), ("emplace", 0)])
def test_movement_allowance_per_order(order, expected):
    assert allowance(order_name(order), 6) == expected


@pytest.mark.parametrize("models, wounds, reading, extra", [
    (1, [1], "beyond_first_ten", 1),  # one weapon profile gets a second attack
    (10, [1] * 10, "beyond_first_ten", 1),  # "more than 10 models": 10 is not more
    (11, [1] * 11, "beyond_first_ten", 2),
    (20, [1] * 20, "beyond_first_ten", 2),
    (21, [1] * 21, "beyond_first_ten", 3),
    (11, [1] * 11, "every_ten", 3),  # the other reading: 11 models = 2 started tens
    (3, [12, 25, 9], "beyond_first_ten", 1 + 1 + 2),  # 12 wounds -> 1, 25 -> 2, 9 -> 0
])
def test_firing_line_extra_attacks(models, wounds, reading, extra):
    assert firing_line(models, wounds, reading).total == extra


def test_initiative_is_seeded_alternates_and_empties_the_bags():
    bags = {"A": ["infantry", "infantry", "armour"], "B": ["infantry"]}
    first = initiative(bags, random.Random(5))
    assert first == initiative(bags, random.Random(5))
    final = first.rounds[-1]
    score = {p: sum(v >= 5 for v in values) for p, values in final.items()}
    assert score[first.winner] == max(score.values()) and list(score.values()).count(max(score.values())) == 1
    rolls = [values for r in first.rounds for values in r.values()]
    assert all(len(values) == 3 and all(1 <= v <= 8 for v in values) for values in rolls)
    players = [p for p, _ in first.draws]
    assert players[0] == first.winner
    assert sorted(t for p, t in first.draws if p == "A") == sorted(bags["A"])
    assert players.count("B") == 1 and players[:2] in (["A", "B"], ["B", "A"])
    winners = {initiative(bags, random.Random(seed)).winner for seed in range(30)}
    assert winners == {"A", "B"}
