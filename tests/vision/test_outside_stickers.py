"""Issue 21 as the outside check runs it, at half scale: its own renderer (tests/vision/outside_render.py,
no code shared with the project's), the tiles `smarttable markers --tiles` writes, miniatures standing
on them, and `smarttable locate --config` with the config an outside user writes.

Half scale is faithful: the HQ camera binned to 2028x1520 at 825 mm over a 24"x24" board sees a
millimetre as the full camera does from 1.65 m over 4'x4' (2.35 px), and the board's corners at the
same angle, so models lean over their stickers as far. The full set-up is
bench/vision/bench_outside_stickers.py."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from table.config import load_config
from tests.vision.outside_check import check, corners_of, models_for, print_tiles, write_config
from tests.vision.outside_render import Camera, Renderer
from vision.locate import locate
from vision.pipeline import VisionPipeline
from vision.types import Frame

BOARD = (24.0, 24.0)
SIZE = (2028, 1520)
HEIGHT_MM = 825.0


@pytest.mark.parametrize(("base_mm", "model_mm", "count", "blur", "shadow", "ss"),
                         [(25.0, 30.0, 14, 0.75, 0.0, 4), (25.0, 0.0, 14, 0.75, 0.0, 4), (32.0, 34.0, 12, 0.75, 0.0, 4),
                          (40.0, 45.0, 10, 0.75, 0.0, 4), (25.0, 30.0, 14, 1.6, 0.0, 4), (25.0, 0.0, 14, 2.0, 0.0, 4),
                          (25.0, 30.0, 14, 0.75, 0.6, 4), (25.0, 30.0, 14, 0.0, 0.0, 1)],
                         ids=["25mm-30mm-models", "25mm-bare", "32mm-34mm-models", "40mm-45mm-models",
                              "25mm-30mm-models-blur-1.6px", "25mm-bare-blur-2px", "25mm-30mm-models-shadows",
                              "25mm-30mm-models-point-sampled"])
def test_models_standing_on_the_tiles_are_located_on_an_outside_render(tmp_path, base_mm, model_mm, count, blur,
                                                                      shadow, ss):
    """`blur`: the lens's softness, sigma in pixels of the frame (the same pixels a millimetre as the full
    set-up's). At 1.6 px the 25 mm sticker's 3.6 px code bands grey, and a lone white cell between black
    ones reads nearly half-way: read as sure or not at all, 5 of 14 models were located; as doubtful
    reads the code decodes through (erasures), all are. At 2 px the 2.6 px locator ring greys to about 20
    levels under the white beside it and reads lighter than the code's own black: with a first look that
    wanted 30 levels and cells scaled to the ring's black, no bare sticker was found. `shadow`: a lamp's
    light cast past each miniature darkens its base's top by that share, one side of the sticker: read
    against the sticker's own black and white only, 11 of 14 were located. `ss` 1: a renderer that samples
    the tiles once a pixel (no supersampling) through a lens with no softness, as a simple outside
    renderer may: stair-stepped edges, each cell's border off by up to half a pixel."""
    tiles, markers_toml = print_tiles(tmp_path, base_mm, count)
    renderer = Renderer(Camera.hq_6mm(SIZE, BOARD, HEIGHT_MM), BOARD, seed=7, ss=ss, blur_sigma=blur, shadow=shadow)
    models = models_for(BOARD, corners_of(BOARD), base_mm, model_mm, count, seed=int(base_mm + model_mm))
    rows, false, answer = check(tmp_path, renderer, tiles, markers_toml, models)
    assert answer["calibrated"]
    assert false == []
    misses = [(r.model.id, round(r.model.x, 2), round(r.model.y, 2), r.found, r.position, r.heading)
              for r in rows if not r.located]
    assert sum(r.located for r in rows) >= 0.98 * len(rows), misses


@pytest.mark.parametrize(("model_mm", "k1"), [(0.0, -0.1), (30.0, -0.1), (30.0, -0.2)],
                         ids=["bare", "30mm-models", "30mm-models-strong-barrel"])
def test_ring_stickers_show_the_table_its_lens(tmp_path, model_mm, k1):
    """A real lens bends the board (k1 -0.1: a 6 mm lens's barrel). With only ring stickers and the four
    corner markers in view the table assumed a lens without distortion and put every model 0.12-0.3" off;
    now each sticker's locator ring serves the lens fit as a circle of known size (the axes of the ellipse
    its outer edge fits, `sticker_read.lens_square`) and every model is within 0.05\". Through k1 -0.2 two
    of 14 stickers under models were not read until they were read again through the lens."""
    tiles, markers_toml = print_tiles(tmp_path, 25.0, 14)
    renderer = Renderer(Camera.hq_6mm(SIZE, BOARD, HEIGHT_MM), BOARD, seed=7, k1=k1)
    models = models_for(BOARD, corners_of(BOARD), 25.0, model_mm, 14, seed=int(25 + model_mm))
    rows, false, answer = check(tmp_path, renderer, tiles, markers_toml, models)
    assert answer["lens"] == "estimated" and answer["lens_estimate"]["k1"] == pytest.approx(k1, abs=0.2 * -k1)
    assert false == []
    assert all(r.located for r in rows), [(r.model.id, r.position) for r in rows if not r.located]


def test_a_square_on_hq_frame_corrects_the_stickers_parallax_from_the_cameras_own_lens(tmp_path):
    """Square on, nothing in the view shows the focal length; a 2028x1520 frame is the HQ camera's
    (binned), so its 6 mm lens's focal length sets the camera's height, and with it how far a sticker
    3 mm up is moved towards the camera's foot: a 90-degree lens guessed instead put bare stickers up
    to 0.045" off towards the board's corners (bench_outside_stickers.py)."""
    tiles, markers_toml = print_tiles(tmp_path, 25.0, 14)
    models = models_for(BOARD, corners_of(BOARD), 25.0, 0.0, 14, seed=3)
    renderer = Renderer(Camera.hq_6mm(SIZE, BOARD, HEIGHT_MM), BOARD, seed=4)
    rows, _, answer = check(tmp_path, renderer, tiles, markers_toml, models)
    assert answer["lens_estimate"]["focal_px"] == pytest.approx(6.0 / 0.00155 / 2, rel=0.01)
    assert max(r.position for r in rows) < 0.01


def test_cavalry_on_oval_bases_is_located_at_least_as_often_as_measured(tmp_path):
    """A rider on a horse along a 60x35 mm oval, the ring for 35 mm under it (outside_render.cavalry):
    the horse's 11 mm body hides the code fore and aft and, leaning out, much of the locator ring
    beside the flanks' visible code. 60 models over 6 renders: 58 located with the runner-up id taken
    among the ten in use (`ringcode.decode`'s `among`), 52 against all 96 ids, 41 with the ring's shadow
    taken as the code's. Issue 21's 98% is not reached on this base at full scale (docs/vision.md)."""
    tiles, markers_toml = print_tiles(tmp_path, 35.0, 10)
    located = 0
    for seed in range(1, 7):
        models = models_for(BOARD, corners_of(BOARD), 35.0, 50.0, 10, seed, length_mm=60.0)
        renderer = Renderer(Camera.hq_6mm(SIZE, BOARD, HEIGHT_MM), BOARD, seed=seed)
        rows, false, _ = check(tmp_path, renderer, tiles, markers_toml, models)
        assert false == []
        located += sum(r.located for r in rows)
    assert located >= 58


@pytest.mark.parametrize(("base_mm", "model_mm", "length_mm", "measured"),
                         [(35.0, 50.0, 60.0, 19), (25.0, 30.0, 0.0, 21)], ids=["cavalry", "25mm-30mm-models"])
def test_stickers_the_config_does_not_name_are_not_read_as_ones_it_does(tmp_path, base_mm, model_mm, length_mm,
                                                                        measured):
    """The reader weighs a code against the ids the config uses at that size; a sticker it does not name
    (another army's, a spare) whose code fits best stays itself and is dropped, never turned into one it
    names. 14 models over 3 renders, the config naming the first 7: no other id reported, none misplaced,
    and of the 21 named as many located as measured (full scale, 40 models of which 20 named, 3 renders
    each: 0 false ids; located, cavalry 54 of 60, 25 mm at 1.6 px of blur 60 of 60)."""
    tiles, markers_toml = print_tiles(tmp_path, base_mm, 14)
    named = markers_toml.replace('"10-23"', '"10-16"')
    assert named != markers_toml
    located = 0
    for seed in range(1, 4):
        models = models_for(BOARD, corners_of(BOARD), base_mm, model_mm, 14, seed, length_mm=length_mm)
        renderer = Renderer(Camera.hq_6mm(SIZE, BOARD, HEIGHT_MM), BOARD, seed=seed)
        rows, false, _ = check(tmp_path, renderer, tiles, named, models)
        assert false == []
        assert all(r.position < 0.05 for r in rows if r.found), [r for r in rows if r.found and r.position >= 0.05]
        assert not any(r.found for r in rows if r.model.id > 16)
        located += sum(r.located for r in rows)
    assert located >= measured


def test_the_live_table_learns_its_lens_from_ring_stickers_as_models_move(tmp_path):
    """With only ring stickers and the corner markers in view, the live table's lens learner takes each
    sticker's ring square (`lens_square`) at every place a model came to rest, as it takes a printed
    marker's corners: over three placements of 14 models it refits (it skipped stickers, and never did),
    its fit counts more stickers than the first frame's, and the last frame read through the lens it
    learnt puts every model within 0.05"."""
    tiles, markers_toml = print_tiles(tmp_path, 25.0, 14)
    config = load_config(write_config(tmp_path / "outside.toml", markers_toml, BOARD, corners_of(BOARD)))
    renderer = Renderer(Camera.hq_6mm(SIZE, BOARD, HEIGHT_MM), BOARD, seed=7, k1=-0.1)
    pipeline = VisionPipeline(config)
    time = 0.0
    first = None
    for seed in (7, 8, 9):  # every model picked up and put down somewhere else
        models = models_for(BOARD, corners_of(BOARD), 25.0, 30.0, 14, seed=seed)
        image = cv2.imdecode(np.frombuffer(renderer.render(corners_of(BOARD), models, tiles), np.uint8),
                             cv2.IMREAD_COLOR)
        for _ in range(12):
            time += 0.1
            pipeline.process(Frame(image, time, round(time * 10)))
            first = first or pipeline.calibration
    assert first is not None and first.lens_fit is not None
    learnt = pipeline.calibration
    assert pipeline.stats.lens_fits >= 1 and learnt.lens == "estimated"
    assert learnt.lens_fit is not None and learnt.lens_fit.markers > first.lens_fit.markers
    found = {m.id: m for m in locate(image, pipeline.setup, calibration=learnt).markers}
    off = {m.id: math.dist((m.x, m.y), (found[m.id].x, found[m.id].y)) for m in models if m.id in found}
    assert len(off) == len(models) and max(off.values()) < 0.05, off


def test_a_dim_print_under_a_soft_lens_is_located_at_least_as_often_as_measured(tmp_path):
    """A dim room: the print shows white at 150 and black at 40 (not 235 and 28), and the lens is soft
    (1.6 px). Under 30 mm models the 25 mm sticker's thin locator ring then shows only 22-29 grey levels
    against the white beside it: with fits that wanted 30, 36 of 42 models over 3 renders were
    located; with `sticker_read.RING_CONTRAST` 20, 40, and no false ids either way (full scale,
    bench_outside_stickers.py --light 150,40 --blur 1.6: 100 -> 114 of 120)."""
    tiles, markers_toml = print_tiles(tmp_path, 25.0, 14)
    located = 0
    for seed in range(1, 4):
        models = models_for(BOARD, corners_of(BOARD), 25.0, 30.0, 14, seed)
        renderer = Renderer(Camera.hq_6mm(SIZE, BOARD, HEIGHT_MM), BOARD, seed=seed, blur_sigma=1.6, paper=150.0,
                            ink=40.0)
        rows, false, _ = check(tmp_path, renderer, tiles, markers_toml, models)
        assert false == []
        located += sum(r.located for r in rows)
    assert located >= 40
