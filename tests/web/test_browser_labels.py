"""Every label on the board is readable (about 12 px type), no two overlap and none is cut at the edge of
what shows of the board (web_ui/static/js/labels.js), in Chromium, WebKit and Firefox at 390 and 320 px:
the demo Synaptik board with a unit's range bands and a ruler laid across the wood, whole and zoomed in,
and the hex skirmish board with a unit's move costs. Boxes are what each engine draws (getBoundingClientRect)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.web.browser import ARTIFACTS, TO_SCREEN
from tests.web.engines import NARROW, PHONE
from tests.web.server import LiveServer, make_app
from tests.web.tables import demo_controller

DATA = Path(__file__).resolve().parents[1] / "data"
SIZES = [PHONE, NARROW]
KINDS = {"ulabel": "unit", "tlabel": "terrain", "cost": "cost", "band-label": "band", "ruler-label": "ruler",
         "zone-label": "zone"}

# Every label drawn on the board: its kind (its class), text, whether it shows, its box in viewport pixels;
# and the part of the board on screen (the board's corners, within the drawing's own box).
LABELS = """(classes) => {
  const svg = document.getElementById("board"), m = svg.getScreenCTM(), b = window.smarttable.state.scene.board;
  const at = (x, y) => { const p = svg.createSVGPoint(); p.x = x; p.y = y; return p.matrixTransform(m); };
  const a = at(0, 0), z = at(b.width, b.height), s = svg.getBoundingClientRect();
  const labels = [...svg.querySelectorAll("text")].flatMap((t) => {
    const kind = classes.find((c) => t.classList.contains(c));
    if (!kind) return [];
    const r = t.getBoundingClientRect();
    return [{ kind, text: t.textContent, shown: getComputedStyle(t).visibility !== "hidden" && r.width > 0,
              box: [r.left, r.top, r.right, r.bottom] }];
  });
  return { labels, view: [Math.max(a.x, s.left), Math.max(a.y, s.top), Math.min(z.x, s.right), Math.min(z.y, s.bottom)] };
}"""


@pytest.fixture
def served(tmp_path, request):
    controller = demo_controller(tmp_path, scene=request.param) if request.param else demo_controller(tmp_path)
    server = LiveServer(make_app(controller, tmp_path))
    yield controller, server
    server.close()
    controller.close()


def labels(page) -> tuple[list[dict], list[float]]:
    """The labels that show, each checked readable, apart from every other and inside the board on screen."""
    page.js("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))")
    found = page.js(LABELS, ["cost", "ulabel", "tlabel", "band-label", "ruler-label", "zone-label"])
    view = found["view"]
    on_screen = [lab for lab in found["labels"] if lab["shown"]
                 and lab["box"][2] > view[0] and lab["box"][0] < view[2] and lab["box"][3] > view[1] and lab["box"][1] < view[3]]
    for lab in on_screen:
        x0, y0, x1, y1 = lab["box"]
        assert y1 - y0 >= 11, (page.engine, "too small to read", lab)
        assert x0 >= view[0] - 1 and y0 >= view[1] - 1 and x1 <= view[2] + 1 and y1 <= view[3] + 1, \
            (page.engine, "cut at the edge", lab, view)
    for i, a in enumerate(on_screen):
        for b in on_screen[i + 1:]:
            across = min(a["box"][2], b["box"][2]) - max(a["box"][0], b["box"][0])
            down = min(a["box"][3], b["box"][3]) - max(a["box"][1], b["box"][1])
            assert across <= 1 or down <= 1, (page.engine, "overlap", a, b)
    return found["labels"], view


def shown(found: list[dict], kind: str) -> list[str]:
    return [lab["text"] for lab in found if lab["kind"] == kind and lab["shown"]]


@pytest.mark.parametrize("served", [None], indirect=True, ids=["synaptik"])
@pytest.mark.parametrize("size", SIZES, ids=["390", "320"])
def test_board_labels_with_bands_and_a_ruler_never_overlap(engine, served, size):
    controller, server = served
    scene = controller.snapshot().scene
    wood = next(t for t in scene["terrain"] if t["id"] == "wood")
    cx = sum(p[0] for p in wood["polygon"]) / 4
    cy = sum(p[1] for p in wood["polygon"]) / 4
    controller.command("ruler", a=[cx - 8, cy + 0.5], b=[cx + 8, cy + 0.5])    # its distance over "wood 3""
    with engine.open(server.url + "/", size) as page:
        page.wait("() => Boolean(document.querySelector('[data-model]') && document.querySelector('#board .ruler-label'))")
        page.tap_at(*page.js(TO_SCREEN, "rifles-1"))
        bands = controller.ruleset().ask("bands", ["rifles"])["bands"]
        page.wait("(n) => document.querySelectorAll('#board text.band-label').length === n", len(bands))
        found, _ = labels(page)
        page.screenshot(ARTIFACTS / f"labels-{size[0]}-synaptik-{page.engine}.png")
        names = {u["id"]: f"{u['name']} · {u['player']}" for u in scene["units"]}
        assert sorted(shown(found, "ulabel")) == sorted(names.values())       # every unit named
        assert shown(found, "ruler-label") == [f"{16.0:.2f}\""]
        assert sorted(shown(found, "band-label")) == sorted(f"{b['band']} {b['to']:g}\"" for b in bands)
        assert shown(found, "tlabel")

        page.js("() => window.smarttable.zoom.to(10.45, 40.4, 16)")              # zoomed in on the rifles
        page.wait("() => !document.getElementById('zoom-reset').hidden")
        found, _ = labels(page)
        assert names["rifles"] in shown(found, "ulabel")
        page.screenshot(ARTIFACTS / f"labels-{size[0]}-synaptik-zoomed-{page.engine}.png")


@pytest.mark.parametrize("served", [DATA / "hex_skirmish" / "battle.json"], indirect=True, ids=["hex"])
@pytest.mark.parametrize("size", SIZES, ids=["390", "320"])
def test_hex_board_labels_with_move_costs_never_overlap(engine, served, size):
    controller, server = served
    scene = controller.snapshot().scene
    moves = controller.ruleset().ask("moves", ["b4"])["reachable"]
    with engine.open(server.url + "/", size) as page:
        page.wait("() => Boolean(document.querySelector('[data-model]'))")
        page.tap_at(*page.js(TO_SCREEN, "b4"))                                  # the Walker, among its squad
        page.wait("(n) => document.querySelectorAll('#board text.cost').length === n", len(moves))
        found, _ = labels(page)
        page.screenshot(ARTIFACTS / f"labels-{size[0]}-hex-{page.engine}.png")
        board = scene["board"]
        on_board = {m["unit"] for m in scene["models"] if 0 <= m["x"] <= board["width"] and 0 <= m["y"] <= board["height"]}
        assert len(on_board) < len(scene["units"])                            # two stand off its bottom edge
        names = sorted(f"{u['name']} · {u['player']}" for u in scene["units"] if u["id"] in on_board)
        assert sorted(shown(found, "ulabel")) == names                       # "Scout · B" whole at the edge
        costs = shown(found, "cost")
        assert len(costs) >= len(moves) / 2, (page.engine, len(costs), len(moves))   # hidden only under a name
