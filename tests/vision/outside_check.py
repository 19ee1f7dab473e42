"""What an outside check of issue 21 does, step by step, through the command line only: print the tiles
(`smarttable markers DIR --tiles`), render a board with its own renderer (tests/vision/outside_render.py),
write a config from `markers_toml`, [board], [markers.corners] and `model_height_mm`, run
`smarttable locate IMAGE --config TOML`, and score the answer against the truth."""

from __future__ import annotations

import contextlib
import io
import json
import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from table.cli import main
from tests.vision.outside_render import Model, Renderer, Tile, spread

POSITION_OK, HEADING_OK = 0.05, 3.0  # inches, degrees: the "located"
FIRST_ID, COUNT = 10, 40
BASE_TOP_MM = 3.0


def _run(args: list[str]) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(args)
    assert code == 0, f"smarttable {' '.join(args)} exited {code}"
    return json.loads(out.getvalue())


def print_tiles(folder: Path, base_mm: float, count: int = COUNT) -> tuple[dict[int, Tile], str]:
    """`smarttable markers FOLDER --tiles` for ids FIRST_ID.., read back as the outside check reads them:
    (id -> tile, markers_toml)."""
    ids = f"{FIRST_ID}-{FIRST_ID + count - 1}"
    _run(["markers", str(folder), "--tiles", "--ids", ids, "--base-mm", f"{base_mm:g}"])
    doc = json.loads((folder / "tiles.json").read_text())
    tiles = {int(k): Tile(cv2.imread(str(folder / t["file"]), cv2.IMREAD_UNCHANGED), float(t["side_mm"]))
             for k, t in doc["tiles"].items()}
    return tiles, doc["markers_toml"]


def corners_of(board_in: tuple[float, float], inset_in: float = 1.5) -> dict[int, tuple[float, float]]:
    w, h = board_in
    return {0: (inset_in, inset_in), 1: (w - inset_in, inset_in), 2: (w - inset_in, h - inset_in),
            3: (inset_in, h - inset_in)}


def write_config(path: Path, markers_toml: str, board_in: tuple[float, float],
                 corners: dict[int, tuple[float, float]], base_top_mm: float = BASE_TOP_MM) -> Path:
    """The config an outside user writes: [board], the tiles' [markers] keys, the bases' height, the corners."""
    lines = ["[board]", f"width = {board_in[0]}", f"height = {board_in[1]}", "", "[markers]",
             markers_toml.rstrip("\n"), f"model_height_mm = {base_top_mm:g}", "", "[markers.corners]"]
    lines += [f'"{k}" = [{x}, {y}]' for k, (x, y) in corners.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


@dataclass(frozen=True)
class Row:
    """One true model against what `locate` said."""

    model: Model
    found: bool
    position: float = math.nan
    heading: float = math.nan

    @property
    def located(self) -> bool:
        return self.found and self.position <= POSITION_OK and self.heading <= HEADING_OK


def score(models: list[Model], answer: dict) -> tuple[list[Row], list[int]]:
    """(a row per model, the ids `locate` reported that no model has)."""
    got = {m["id"]: m for m in answer["markers"]}
    rows = []
    for m in models:
        r = got.get(m.id)
        if r is None:
            rows.append(Row(m, False))
        else:
            turn = abs((r["heading"] - m.heading + 180) % 360 - 180)
            rows.append(Row(m, True, math.dist((r["x"], r["y"]), (m.x, m.y)), turn))
    truth = {m.id for m in models}
    return rows, sorted(i for i in got if i not in truth)


def models_for(board_in: tuple[float, float], corners: dict[int, tuple[float, float]], base_mm: float,
               model_mm: float, count: int, seed: int, body_mm: float = 0.0, length_mm: float = 0.0,
               stand: bool = False, pose: str = "upright", footprint_mm: float = 0.0) -> list[Model]:
    """`count` models spread over the board, random headings and poses (`model_mm` 0: bare stickers; a body
    `body_mm` in radius, 0 the renderer's own scaling; `length_mm`: oval bases that long, cavalry; with
    `stand`, rectangular stands of 6 mm figures; `pose` and `footprint_mm`: see Model)."""
    rng = np.random.default_rng(seed)
    places = spread(count, board_in, corners, rng, apart_in=max(2.6, 2.2 * base_mm / 25.4, 1.3 * length_mm / 25.4))
    return [Model(FIRST_ID + k, x, y, round(float(rng.uniform(-180, 180)), 2), base_mm, model_mm, BASE_TOP_MM,
                  seed * 1000 + k, body_mm, length_mm, stand, pose, footprint_mm) for k, (x, y) in enumerate(places)]


def check(folder: Path, renderer: Renderer, tiles: dict[int, Tile], markers_toml: str, models: list[Model]
          ) -> tuple[list[Row], list[int], dict]:
    """Render, write the config, run `smarttable locate`, score: (rows, false ids, the answer)."""
    board_in = renderer.board_in
    corners = corners_of(board_in)
    image = folder / f"board-{renderer.seed}.jpg"
    image.write_bytes(renderer.render(corners, models, tiles))
    config = write_config(folder / "outside.toml", markers_toml, board_in, corners)
    answer = _run(["locate", str(image), "--config", str(config)])
    rows, false = score(models, answer)
    return rows, false, answer
