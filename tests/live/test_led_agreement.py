"""Property tests: on random scenes and every LED layout in firmware_cfg/leds/, the LEDs show what the
rule system answers (bench/led_agreement.py holds the checks and prints the shares over more scenes).

- each LED's colour is the band `band UNIT PROBE` gives for a probe model at the LED (or, within
  0.5" of a boundary, a band either side of it);
- each enemy model's marker is the band `band UNIT ENEMY [WEAPON]` gives;
- every visible sight line lights a connected chain of LEDs from end to end on a grid, at any pitch;
  a blocked one has a gap.
"""

from __future__ import annotations

import led_agreement as agree
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table.live.leds import load_layout, parse_layout

LAYOUTS = {path.stem: load_layout(path) for path in agree.LAYOUTS}
GRIDS = [path.stem for path in agree.LAYOUTS if agree.is_grid(path)]
def slow(examples: int) -> settings:
    return settings(max_examples=examples, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def test_every_shipped_layout_is_checked():
    assert set(LAYOUTS) == {"deployment-zones", "edge-strip", "under-board-grid"} and GRIDS


@pytest.mark.parametrize("ruleset", agree.RULESETS)
@pytest.mark.parametrize("name", sorted(LAYOUTS))
@slow(8)
@given(rng=st.randoms(use_true_random=False))
def test_each_led_shows_the_band_the_query_gives_at_its_position(name, ruleset, rng):
    tally = agree.check_bands(LAYOUTS[name], agree.random_state(rng, ruleset))
    assert tally.total > 0 and not tally.wrong, tally.wrong[:5]


@pytest.mark.parametrize("ruleset", agree.RULESETS)
@pytest.mark.parametrize("name", sorted(LAYOUTS))
@slow(20)
@given(rng=st.randoms(use_true_random=False))
def test_enemy_markers_match_band_for_every_enemy(name, ruleset, rng):
    tally = agree.check_markers(LAYOUTS[name], agree.random_state(rng, ruleset))
    assert tally.total > 0 and not tally.wrong, tally.wrong[:5]


@pytest.mark.parametrize("ruleset", agree.RULESETS)
@pytest.mark.parametrize("name", GRIDS)
@slow(25)
@given(rng=st.randoms(use_true_random=False))
def test_every_sight_line_is_a_chain_on_the_shipped_grids(name, ruleset, rng):
    tally = agree.check_chain(LAYOUTS[name], agree.random_state(rng, ruleset, target=True))
    assert tally.total == 1 and not tally.wrong, tally.wrong


@slow(25)
@given(rng=st.randoms(use_true_random=False), pitch=st.sampled_from([1.0, 1.25, 2.0, 3.0, 4.5, 6.0]))
def test_every_sight_line_is_a_chain_at_any_grid_pitch(rng, pitch):
    n = int(48 // pitch)
    layout = parse_layout({"grid": [{"origin": [pitch / 2, pitch / 2], "pitch": pitch, "columns": n,
                                     "rows": n, "serpentine": False}]}, f"grid-{pitch}.toml")
    tally = agree.check_chain(layout, agree.random_state(rng, "synaptik", target=True))
    assert tally.total == 1 and not tally.wrong, tally.wrong
