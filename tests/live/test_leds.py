"""LED layouts (firmware_cfg/leds) and the highlight renderer."""

from __future__ import annotations

import pytest

from table.config import CONFIG_DIR
from table.errors import ConfigError
from table.live import highlight as hl
from table.live.leds import load_layout, parse_layout
from table.scene import HexGridSpec
from tests.live.live_fakes import DATA


def test_edge_strip_runs_round_the_board():
    layout = load_layout(CONFIG_DIR / "leds" / "edge-strip.toml")
    assert len(layout) == 292
    assert layout.positions[0] == (0.0, -0.5)
    assert layout.positions[72] == (48.0, -0.5)
    assert layout.positions[73] == (48.5, 0.0)
    assert layout.positions[-1] == (-0.5, 0.0)
    spacing = layout.positions[1][0] - layout.positions[0][0]
    assert spacing == pytest.approx(48 / 72, abs=1e-3)          # 0.667": a 60 LED/m strip is 0.656"


def test_under_board_grid_is_serpentine():
    layout = load_layout(CONFIG_DIR / "leds" / "under-board-grid.toml")
    assert len(layout) == 256
    assert layout.positions[0] == (1.5, 1.5)
    assert layout.positions[15] == (46.5, 1.5)
    assert layout.positions[16] == (46.5, 4.5)         # row 1 runs back
    assert layout.positions[31] == (1.5, 4.5)


def test_deployment_zone_strips():
    layout = load_layout(CONFIG_DIR / "leds" / "deployment-zones.toml")
    assert len(layout) == 146
    assert {y for _, y in layout.positions[:73]} == {12.0}
    assert {y for _, y in layout.positions[73:]} == {36.0}


def test_bad_layout_names_file_and_key():
    with pytest.raises(ConfigError, match=r"bad-layout.toml: segment\[0\].end: expected \[x, y\]"):
        load_layout(DATA / "bad-layout.toml")
    with pytest.raises(ConfigError, match="no such LED layout"):
        load_layout(DATA / "missing.toml")
    with pytest.raises(ConfigError, match="at least one"):
        parse_layout({"name": "empty"}, "x.toml")


LINE = parse_layout({"name": "line", "segment": [{"start": [0, 0], "end": [39, 0], "count": 40}]},
                    "line.toml")                      # one LED per inch along y = 0


RIFLE = ((0.0, 12.0, hl.VERMILLION), (12.0, 24.0, hl.YELLOW), (24.0, 36.0, hl.BLUE))


def test_band_colours_leds_by_distance_from_the_nearest_model():
    frame = hl.render(LINE, [hl.Bands(((((0.0, 0.0),), 0.0), (((2.0, 0.0),), 0.0)), RIFLE)])
    assert frame[13] == hl.VERMILLION           # 11" from the nearer model (x = 2)
    assert frame[15] == hl.YELLOW               # 13"
    assert frame[26] == hl.YELLOW               # 24": on the boundary, the nearer band
    assert frame[27] == hl.BLUE
    assert frame[39] == hl.OFF                  # 37" away: out of every band


def test_a_boundary_led_takes_the_nearer_band():
    # Synaptik's Rifle: hot 0-12", standard 12-24"; the rulings give a distance of exactly 12" to hot
    frame = hl.render(LINE, [hl.Bands(((((0.0, 0.0),), 0.0),), RIFLE)])
    assert frame[12] == hl.VERMILLION and frame[24] == hl.YELLOW and frame[36] == hl.BLUE
    farther = hl.render(LINE, [hl.Bands(((((0.0, 0.0),), 0.0),), RIFLE, nearer=False)])
    assert farther[12] == hl.YELLOW and farther[36] == hl.OFF


def test_bands_from_base_outlines_measure_to_the_nearest_edge():
    square = ((-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0))
    frame = hl.render(LINE, [hl.Bands(((square, 0.0),), ((0.0, 4.0, hl.VERMILLION), (4.0, 9.0, hl.ORANGE)))])
    assert frame[5] == hl.VERMILLION and frame[6] == hl.ORANGE and frame[10] == hl.ORANGE
    assert frame[11] == hl.OFF
    disc = hl.render(LINE, [hl.Bands(((((0.0, 0.0),), 1.0),), ((0.0, 4.0, hl.VERMILLION), (4.0, 9.0, hl.ORANGE)))])
    assert disc[5] == hl.VERMILLION and disc[6] == hl.ORANGE and disc[10] == hl.ORANGE and disc[11] == hl.OFF


def test_later_regions_paint_over_earlier_and_spot_hits_nearest_led():
    frame = hl.render(LINE, [hl.Area(((4, -1), (10, -1), (10, 1), (4, 1)), hl.ORANGE),
                             hl.Line((0, 5), (8, -5), hl.BLUISH_GREEN),
                             hl.Spot((30.4, 20.0), hl.WHITE)])
    assert frame[3] == hl.OFF and frame[5] == hl.ORANGE and frame[10] == hl.ORANGE
    assert frame[4] == hl.BLUISH_GREEN           # the line crosses y = 0 at x = 4
    assert frame[30] == hl.WHITE and frame.count(hl.WHITE) == 1


def test_hexes_light_leds_inside_the_cells():
    # pointy hexes of size 1: hex (1, 0) is centred at x = 1.732 and spans x 0.866-2.598 along y = 0
    grid = HexGridSpec(1.0, "pointy", (0.0, 0.0))
    frame = hl.render(LINE, [hl.Hexes(grid, frozenset({(1, 0)}), hl.BLUISH_GREEN)])
    assert [frame[i] == hl.BLUISH_GREEN for i in range(4)] == [False, True, True, False]


def test_palette_never_pairs_red_against_green_alone():
    # The three Synaptik bands differ in blue-yellow and in lightness, not only red-green.
    hot, standard, cold = (hl.BAND_COLOURS[b] for b in ("hot", "standard", "cold"))

    def lightness(c):
        return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]

    assert len({hot, standard, cold}) == 3
    assert lightness(standard) - lightness(hot) > 60 and lightness(hot) - lightness(cold) > 5
    assert cold[2] > cold[0] and standard[2] < standard[0]       # blue against yellow


@pytest.mark.parametrize(("a", "b"), [((33.84, 33.61), (9.12, 42.30)),      # ends past the last column's line
                                      ((10.0, 40.0), (38.0, 15.0)), ((4.5, 3.0), (43.5, 3.0)),
                                      ((-3.0, 20.0), (50.0, 21.0)), ((20.0, 20.0), (20.4, 20.2))])
def test_a_grid_line_is_a_chain_from_the_led_nearest_one_end_to_the_led_nearest_the_other(a, b):
    layout = load_layout(CONFIG_DIR / "leds" / "under-board-grid.toml")
    chain = [layout.positions[i] for i in layout.chain(a, b)]
    assert chain[0] == layout.positions[layout.nearest(a)] and chain[-1] == layout.positions[layout.nearest(b)]
    steps = [max(abs(p[0] - q[0]), abs(p[1] - q[1])) for p, q in zip(chain, chain[1:], strict=False)]
    assert all(step == 3.0 for step in steps)                  # each LED a grid step from the last
