"""LED layouts (firmware_cfg/leds) and the highlight renderer."""

from __future__ import annotations

import pytest
from live_fakes import DATA

from table.config import CONFIG_DIR
from table.errors import ConfigError
from table.live import highlight as hl
from table.live.leds import LedLayout, load_layout, parse_layout
from table.scene import HexGridSpec


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


LINE = LedLayout("line", tuple((float(x), 0.0) for x in range(0, 40)))   # one LED per inch along y = 0


def test_band_colours_leds_by_distance_from_the_nearest_model():
    frame = hl.render(LINE, [hl.Band(((0.0, 0.0), (2.0, 0.0)), 0, 12, hl.VERMILLION),
                             hl.Band(((0.0, 0.0), (2.0, 0.0)), 12, 24, hl.YELLOW),
                             hl.Band(((0.0, 0.0), (2.0, 0.0)), 24, 36, hl.BLUE)])
    assert frame[13] == hl.VERMILLION           # 11" from the nearer model (x = 2)
    assert frame[14] == hl.YELLOW               # 12": a band is [inner, outer)
    assert frame[26] == hl.BLUE
    assert frame[38] == hl.OFF                  # 36" away: out of every band


def test_later_regions_paint_over_earlier_and_spot_hits_nearest_led():
    frame = hl.render(LINE, [hl.Area(((4, -1), (10, -1), (10, 1), (4, 1)), hl.ORANGE),
                             hl.Line((0, 5), (8, -5), hl.BLUISH_GREEN, width=0.5),
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
