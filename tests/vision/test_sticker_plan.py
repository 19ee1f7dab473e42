"""`plan-camera --base-mm --model-height-mm` against what the detector finds on renders of models
standing on ring stickers at the centre, edges and corners of the board (tests/vision/test_sticker.py's
half set-up: the same pixels a millimetre and angles as the HQ camera at 1.65 m over 48"): where
the plan says the sticker reads everywhere, every model is located; where it says a model that wide
hides the ring, not all are. And the command from the outside."""

from __future__ import annotations

import json
import math
import re
from dataclasses import replace

import numpy as np
import pytest

from table.cli import main
from tests.vision.outside_check import BASE_TOP_MM, FIRST_ID, check, corners_of, models_for, print_tiles
from tests.vision.outside_render import Camera, Model, Renderer
from tests.vision.test_sticker import BOARD, HEIGHT_MM, PLACES, SIZE, _render, _setup
from vision.camera import PinholeCamera
from vision.cameras import camera_model
from vision.locate import locate
from vision.model_shadow import Barrel, Post, cavalry, hidden, on_foot
from vision.planner import Setup
from vision.sticker import Sticker, sticker_image
from vision.sticker_plan import Base, standing, sticker_plan
from vision.synthetic import Tile
from vision.synthetic_scene import SceneMarker, on_solid_bases


def located_share(config, base_mm: float, width_mm: float | None, camera_mm: float = HEIGHT_MM) -> float:
    """The share of models (typical for the base, or `width_mm` wide) located within 0.05" and 3 degrees."""
    cam = PinholeCamera.from_model(camera_model("hq-6mm"), SIZE, BOARD, height_mm=camera_mm)
    flat = tuple(SceneMarker(10 + i, x, y, 33.0 * i - 170.0) for i, (x, y) in enumerate(PLACES))
    models = tuple(on_solid_bases((m,), base_mm=base_mm, seed=i + 7)[0] for i, m in enumerate(flat))
    if width_mm is not None:
        models = tuple(replace(m, figures=tuple(replace(f, radius_mm=width_mm / 2) for f in m.figures))
                       for m in models)
    tiles = {m.id: Tile(sticker_image(m.id, Sticker(base_mm), 300), Sticker(base_mm).diameter_mm) for m in models}
    result = locate(_render(cam, config, models, tiles), _setup(config, cam, {f"{base_mm:g}": "10-20"}))
    truth = {m.id: m for m in models}
    assert all(m.id in truth for m in result.markers)  # never a false id
    good = [m for m in result.markers if math.dist((m.x, m.y), (truth[m.id].x, truth[m.id].y)) <= 0.05
            and abs((m.heading - truth[m.id].heading + 180) % 360 - 180) <= 3.0]
    return len(good) / len(models)


HALF = Setup(camera_model("hq-6mm"), HEIGHT_MM, BOARD, 15.0, SIZE)


def plan(setup: Setup, base: str, height_mm: float | None, width_mm: float | None, kind: str | None = None) -> dict:
    b = Base.parse(base)
    return sticker_plan(setup, b, standing(b, kind, height_mm, width_mm))


def test_where_the_plan_says_the_sticker_reads_everywhere_every_model_is_located(config):
    p = plan(HALF, "25", 30.0, None)
    assert p["sticker_reading"] == "reliable" and p["sticker_board_share"] == 1.0
    assert p["sticker"]["diameter_mm"] == 22.0
    assert located_share(config, 25.0, None) == 1.0


def test_where_the_plan_says_the_model_hides_the_ring_models_are_not_reliably_located(config):
    """A 13 mm-wide model on a 25 mm base covers the locator ring's outer edge (13.2 mm across; the plan
    wants its outermost tenth to show, 13.0 mm). Fewer than the 98% the issue asks for are located (9 of
    11). The bigger base the plan advises reads every one."""
    p = plan(HALF, "25", 30.0, 13.0)
    assert p["sticker_reading"] == "unreliable" and p["sticker_board_share"] == 0.0
    assert p["sticker_read_share"]["board"] == 0.0
    assert located_share(config, 25.0, 13.0) < 0.98
    assert any(a.startswith("28.5 mm bases:") for a in p["sticker_advice"])
    assert "covers the locator ring's outer edge" in p["sticker_advice"][0]
    assert plan(HALF, "28.5", 30.0, 13.0)["sticker_reading"] == "reliable"
    assert located_share(config, 28.5, 13.0) == 1.0


def test_a_model_wider_than_the_white_middle_reads_while_the_rings_outer_edge_shows(config):
    """A 12.5 mm-wide model on a 25 mm base covers the white middle (11 mm) and the inner part of the
    ring, not its outer edge: the plan says it reads everywhere, and every one is located."""
    p = plan(HALF, "25", 30.0, 12.5)
    assert p["sticker_reading"] == "reliable" and p["sticker_board_share"] == 1.0
    assert located_share(config, 25.0, 12.5) == 1.0


def test_where_the_plan_says_the_bands_are_thin_some_models_are_lost(config):
    """The half set-up's camera raised to 1.45 m: the code's bands 2.06 px wide (at 1.4 m, 2.13 px, the
    reader that takes the cells' black and white from the cells themselves locates all 11)."""
    p = plan(replace(HALF, height_mm=1450.0), "25", 30.0, None)
    assert p["sticker_reading"] == "marginal" and 2.0 <= p["sticker_band_px"] < 3.0
    assert 0.5 <= located_share(config, 25.0, None, 1450.0) < 0.98


def test_plan_camera_adds_the_sticker_to_the_cameras_plan(capsys):
    args = ["plan-camera", "--camera", "hq-6mm", "--height-mm", "1650"]
    assert main(args) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main([*args, "--model-height-mm", "30", "--base-mm", "25"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {k: out[k] for k in plain} == plain  # every key plan-camera printed before, unchanged
    assert out["sticker"]["kind"] == "ring" and out["sticker"]["base_mm"] == 25.0
    assert out["sticker_reading"] == "reliable" and out["model_height_mm"] == 30.0
    # the lens blur 25 mm stickers read to from 1.65 m, as locate measures and warns (tests/vision/test_focus.py)
    assert 1.5 <= out["sticker_blur_limit_px"] <= 1.8
    # the same camera capturing a quarter of the pixels: the code's bands too thin to read
    assert main([*args, "--base-mm", "25", "--resolution", "2028x1520"]) == 0
    low = json.loads(capsys.readouterr().out)
    assert low["sticker_reading"] == "unreliable" and low["sticker_band_px"] < 2.0
    said = low["sticker_advice"][0]
    assert "bands are 1.8 px wide" in said and "at least 1615 mm up" in said and "use 40 mm bases" in said


def _plan_json(capsys, *args: str) -> dict:
    assert main(["plan-camera", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_thin_bands_are_advised_only_set_ups_that_see_the_board_and_read_them(capsys):
    """Each set-up the band advice names, planned again, sees the whole board with bands of 2.5 px or
    more. At 2028x1520 no height does both (the board needs 1615 mm, where 25 mm bands are 1.8 px): it
    names 40 mm bases there (it used to say "lower the camera to 1195 mm", where the board is out of
    view). From 2400 mm at full resolution it names the heights that do."""
    high = _plan_json(capsys, "--camera", "hq-6mm", "--height-mm", "2400", "--base-mm", "25")
    assert high["sticker_band_px"] < 2.5
    lowest, top = map(int, re.search(r"hang the camera at (\d+)-(\d+) mm", high["sticker_advice"][0]).groups())
    for height in (lowest, top):
        there = _plan_json(capsys, "--camera", "hq-6mm", "--height-mm", str(height), "--base-mm", "25")
        assert there["whole_board"] and there["sticker_band_px"] >= 2.5, height
    assert not _plan_json(capsys, "--camera", "hq-6mm", "--height-mm", str(lowest - 10), "--base-mm", "25")["whole_board"]
    assert _plan_json(capsys, "--camera", "hq-6mm", "--height-mm", str(top + 10), "--base-mm", "25")["sticker_band_px"] < 2.5
    binned = ["--camera", "hq-6mm", "--resolution", "2028x1520"]
    low = _plan_json(capsys, *binned, "--height-mm", "1650", "--base-mm", "25")
    needed = int(re.search(r"at least (\d+) mm up", low["sticker_advice"][0]).group(1))
    bigger = re.search(r"use ([\d.]+) mm bases", low["sticker_advice"][0]).group(1)
    there = _plan_json(capsys, *binned, "--height-mm", str(needed), "--base-mm", bigger)
    assert there["whole_board"] and there["sticker_band_px"] >= 2.5
    assert _plan_json(capsys, *binned, "--height-mm", str(needed), "--base-mm", "25")["sticker_band_px"] < 2.5
    # a 16:9 camera whose halves of the board each read from lower down: two cameras
    wide = _plan_json(capsys, "--camera", "cm3", "--resolution", "2304x1296", "--height-mm", "1650", "--base-mm", "25")
    low2, top2 = map(int, re.search(r"two cameras at (\d+)-(\d+) mm", wide["sticker_advice"][0]).groups())
    for height in (low2, top2):
        half = _plan_json(capsys, "--camera", "cm3", "--resolution", "2304x1296", "--board", "24x48",
                          "--height-mm", str(height), "--base-mm", "25")
        assert half["whole_board"] and half["sticker_band_px"] >= 2.5, height



def test_the_base_the_band_advice_names_reads_on_the_outside_render(capsys, tmp_path):
    """The world behind the advice: the HQ camera binned to 2028x1520, hung where the advice says the board
    needs it (48" board), renders 30 mm models on 25 mm stickers and 45 mm models on the 40 mm bases it
    names (2 renders of 20 each). Measured: 25 mm 35 of 40 located, 40 mm 40 of 40; 0 false ids."""
    low = _plan_json(capsys, "--camera", "hq-6mm", "--resolution", "2028x1520", "--height-mm", "1650",
                     "--base-mm", "25")
    needed = int(re.search(r"at least (\d+) mm up", low["sticker_advice"][0]).group(1))
    bigger = float(re.search(r"use ([\d.]+) mm bases", low["sticker_advice"][0]).group(1))
    board = (48.0, 48.0)
    camera = Camera.hq_6mm((2028, 1520), board, float(needed))
    located = {}
    for base_mm, model_mm, body_mm in ((25.0, 30.0, 5.0), (bigger, 45.0, 8.0)):
        folder = tmp_path / f"{base_mm:g}"
        folder.mkdir()
        tiles, markers_toml = print_tiles(folder, base_mm, 20)
        rows = []
        for seed in (0, 1):
            models = models_for(board, corners_of(board), base_mm, model_mm, 20, seed + 3, body_mm)
            got, false, _ = check(folder, Renderer(camera, board, seed), tiles, markers_toml, models)
            assert false == []
            rows += got
        located[base_mm] = sum(r.located for r in rows) / len(rows)
    assert located[bigger] >= 0.98 > located[25.0], located

def _cavalry_places(board: tuple[float, float], reach_in: float) -> tuple[list, list]:
    """(places well within `reach_in` of the board's centre: 4 and 8 round two circles, 8 places in the
    board's corners, beyond 12.5 inches)."""
    cx, cy = board[0] / 2, board[1] / 2
    inner = [(cx + r * math.cos(a), cy + r * math.sin(a)) for r, n, turn in ((0.45 * reach_in, 4, 0.3),
                                                                               (0.9 * reach_in, 8, 0.0))
             for a in (turn + 2 * math.pi * k / n for k in range(n))]
    w, h = board
    outer = [(1.5, 5.0), (5.0, 1.5), (w - 1.5, 5.0), (w - 5.0, 1.5), (1.5, h - 5.0), (5.0, h - 1.5),
             (w - 1.5, h - 5.0), (w - 5.0, h - 1.5)]
    return inner, outer


def test_cavalry_reads_where_the_plan_says_and_less_in_the_corners(tmp_path):
    """`--base-mm 60x35`: a rider on a horse along the oval, the ring for 35 mm. The plan says it reads
    reliably only in the middle of the board. On the outside render (its own horse and rider,
    tests/vision/outside_render.py), 3 renders: within the plan's reach 35 of 36 located (the miss 6.0"
    out, at its edge); in the corners (12.6" out) 19 of 24 (79%), no fewer than the plan expects in their
    region (8-16", 63%: the plan is the cautious side)."""
    p = plan(HALF, "60x35", None, None)
    assert (p["model"], p["model_height_mm"], p["model_width_mm"]) == ("cavalry", 50.0, 11.0)
    assert p["sticker"]["base_mm"] == 35.0 and p["sticker"]["base"] == "60x35"
    assert p["sticker_reading"] == "marginal" and 0 < p["sticker_board_share"] < 0.5
    assert any(a.startswith("75x42 mm bases") for a in p["sticker_advice"])
    reach = p["sticker_reads_within_in"]
    inner, outer = _cavalry_places(BOARD, reach)
    tiles, markers_toml = print_tiles(tmp_path, 35.0, len(inner) + len(outer))
    located_in = located_out = 0
    for seed in (1, 2, 3):
        models = [Model(FIRST_ID + k, x, y, (seed * 97 + k * 53) % 360 - 180.0, 35.0, 50.0, BASE_TOP_MM,
                        seed * 1000 + k, 0.0, 60.0) for k, (x, y) in enumerate(inner + outer)]
        renderer = Renderer(Camera.hq_6mm(SIZE, BOARD, HEIGHT_MM), BOARD, seed=seed)
        rows, false, _ = check(tmp_path, renderer, tiles, markers_toml, models)
        assert false == []
        located_in += sum(r.located for r in rows[:len(inner)])
        located_out += sum(r.located for r in rows[len(inner):])
    assert located_in >= 35
    assert located_out < 0.98 * 3 * len(outer)
    assert located_out / (3 * len(outer)) >= p["sticker_read_share"]["8-16in"]  # the corners' region


def test_plan_camera_takes_an_oval_and_the_model(capsys):
    args = ["plan-camera", "--camera", "hq-6mm", "--height-mm", "1650"]
    assert main([*args, "--base-mm", "60x35"]) == 0
    oval = json.loads(capsys.readouterr().out)
    assert oval["model"] == "cavalry" and oval["sticker"]["base_mm"] == 35.0
    assert oval["sticker_reading"] == "marginal" and 8 < oval["sticker_reads_within_in"] < 24
    assert oval["sticker_read_share"]["0-8in"] == 1.0 > oval["sticker_read_share"]["24in+"]
    assert main([*args, "--base-mm", "35x60", "--model", "foot"]) == 0  # either way round; a figure on foot
    foot = json.loads(capsys.readouterr().out)
    assert foot["model"] == "foot" and foot["sticker_reading"] == "reliable"
    assert main([*args, "--base-mm", "75x42", "--height-mm", "2600"]) == 0
    assert json.loads(capsys.readouterr().out)["sticker_reading"] == "reliable"


@pytest.mark.parametrize("extra, message", [
    (["--base-mm", "15"], "--base-mm 15: ring stickers need a base"),
    (["--model-height-mm", "30"], "need --base-mm"),
    (["--model", "cavalry"], "need --base-mm"),
    (["--base-mm", "60x"], "--base-mm '60x': expected a round base's mm (25) or an oval's LxW (60x35)"),
    (["--base-mm", "60x15"], "--base-mm 60x15: ring stickers need a base"),
    (["--base-mm", "25", "--model-height-mm", "-3"], "--model-height-mm -3: must be more than 0"),
])
def test_bad_sticker_options_are_one_line(capsys, extra, message):
    assert main(["plan-camera", "--camera", "hq-6mm", "--height-mm", "1650", *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1


def _inside(model, xyz: np.ndarray) -> np.ndarray:
    """Brute force: which points (N, 3) lie inside one of the model's solids."""
    x, y, z = xyz.T
    out = np.zeros(len(xyz), bool)
    for part in model:
        if isinstance(part, Post):
            out |= (np.hypot(x - part.x, y - part.y) <= part.radius) & (z >= part.bottom) & (z <= part.top)
        elif isinstance(part, Barrel):
            out |= (np.hypot(y, z - part.height) <= part.radius) & (x >= part.back) & (x <= part.front)
        else:
            out |= ((x >= part.back) & (x <= part.front) & (np.abs(y) <= part.half_width) & (z >= part.bottom)
                    & (z <= part.top))
    return out


@pytest.mark.parametrize("model", [cavalry(), on_foot(30.0, 10.0)], ids=["cavalry", "on-foot"])
def test_a_sticker_point_is_hidden_where_its_ray_to_the_camera_passes_through_the_model(model):
    """`model_shadow.hidden` against stepping along each ray in 0.02 mm steps: the same points hidden, but
    for rays that only graze a solid (within a step of its surface)."""
    rng = np.random.default_rng(2)
    points = rng.uniform(-20, 20, (400, 2))
    camera = np.array([600.0, -350.0, 1647.0])
    got = hidden(model, points, camera)
    t = np.linspace(0, 60.0 / camera[2], 3000)  # up to 60 mm, above every solid
    rays = points[:, None, :] + t[None, :, None] * (camera[:2] - points)[:, None, :]
    along = np.concatenate([rays, np.broadcast_to((t * camera[2])[None, :, None], (len(points), len(t), 1))], axis=2)
    brute = _inside(model, along.reshape(-1, 3)).reshape(len(points), len(t)).any(axis=1)
    assert got.sum() > 40 and (~got).sum() > 40  # both kinds of ray tried
    assert (got != brute).sum() <= 2


def _posed(tmp_path, pose: str, footprint_mm: float) -> tuple[int, int]:
    """(located, false ids) of 30 mm models on 25 mm bases in a pose, at the half set-up's 11 places
    (centre, edges, corners), 2 renders, through the outside check."""
    tiles, markers_toml = print_tiles(tmp_path, 25.0, len(PLACES))
    located = false_ids = 0
    for seed in (1, 2):
        models = [Model(FIRST_ID + k, x, y, (seed * 71 + k * 37) % 360 - 180.0, 25.0, 30.0, BASE_TOP_MM,
                        seed * 1000 + k, pose=pose, footprint_mm=footprint_mm)
                  for k, (x, y) in enumerate(PLACES)]
        renderer = Renderer(Camera.hq_6mm(SIZE, BOARD, HEIGHT_MM), BOARD, seed=seed)
        rows, false, _ = check(tmp_path, renderer, tiles, markers_toml, models)
        located += sum(r.located for r in rows)
        false_ids += len(false)
    return located, false_ids


def test_feet_may_stride_across_the_ring_and_a_solid_footprint_must_leave_its_outer_edge(tmp_path):
    """A 25 mm sticker's white middle is 11 mm across and its locator ring's outer edge 13.2 mm. Legs
    striding across the ring hide two short arcs of it: located all the same. A cloak down to the base
    (or a model's own moulded base) hides the ring all round: it still reads while the ring's outer edge
    shows (13 mm), and not once it is covered (16 mm: none of 22 measured); never as a wrong id."""
    assert _posed(tmp_path, "stride", 14.0) == (22, 0)
    assert _posed(tmp_path, "cloak", 13.0) == (22, 0)
    located, false_ids = _posed(tmp_path, "cloak", 16.0)
    assert located <= 2 and false_ids == 0
