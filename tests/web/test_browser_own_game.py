"""A player gets their own game onto the table from the phone (issue 23), in each rule system, on a real
sandbox table (`smarttable run --sandbox`, no file prepared) in Chromium at 390x844, everything by taps and
form fills: a new game; two units of two players built on Set-up > Army; each model given its marker by
putting the marker down on the sandbox's board (a player putting the miniature down) and answering the
panel's question; two terrain pieces drawn (hex systems: two hexes given a terrain by a tap); the two units
measured on the board. What the measure card shows must equal `smarttable query` on the scene the panel then
saves (the file the table wrote). Then the armies and the board are saved (army lists, a scenario), a second
new game is started on that scenario with those armies, and the table holds the same units, models and
terrain, each model back where its marker lies."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from table.hexgrid import HexLayout, line
from tests.inprocess import smarttable
from tests.web.browser import BOARD_TO_SCREEN, TO_SCREEN
from tests.web.engines import PHONE
from tests.web.setup_pages import HEX, MOVE, SET, add_unit, see, start_game
from tests.web.table_process import PIN, TableProcess, running_table

SYSTEMS = ["synaptik", "age_of_tyrants", "syniad", "hex_skirmish"]
# each unit: its player, its move stat, where its first marker goes down (inches) and which way it faces
UNITS = {"alpha": ("A", 5, (12.0, 30.0), -90.0), "bravo": ("B", 7, (34.0, 14.0), 90.0)}
FIRST_MARKER = {"alpha": 40, "bravo": 50}
# the terrain drawn: one piece across the line between the units, one away from it (traits: the first the
# system has of each list)
COVER = (("light_cover", "concealment", "heavy_cover", "difficult"), [(21, 20), (25, 20), (25, 24), (21, 24)], 2)
ROCKS = (("impassable", "heavy_cover", "difficult"), [(4, 4), (8, 4), (6, 8)], 0)
HEX_KINDS = (("forest", "town", "mountain"), ("town", "swamp", "water"))
# the sight answer's keys the card shows in rows of their own (app.js SIGHT_SHOWN), and "hexes" (drawn)
SIGHT_SHOWN = {"from", "to", "visible", "cover", "blocked_by", "line", "cover_from", "margin", "too_close_to_call",
               "could_be", "hexes"}
PLACE_KEYS = {"x", "y", "hex", "heading", "state", "sigma", "heading_sigma"}


def words(key: object) -> str:
    return str(key).replace("_", " ")


def fmt(n: object) -> str:
    """A number as the panel shows it (app.js `fmt`): whole, else two decimals."""
    if isinstance(n, int | float) and not isinstance(n, bool):
        return str(int(n)) if float(n).is_integer() else f"{n:.2f}"
    return str(n)


def in_words(value: object) -> str:
    """Any other fact of a sight answer as the card shows it (app.js `sightFacts`)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(f"[{','.join(map(str, x))}]" if isinstance(x, list) else json.dumps(x, separators=(",", ":"))
                         if isinstance(x, dict) else str(x) for x in value) or "none"
    if isinstance(value, dict):
        return json.dumps(value, separators=(",", ":"))
    return fmt(value)


def tap_board(page, svg: str, x: float, y: float) -> None:
    page.js("(id) => document.getElementById(id).scrollIntoView({ block: 'center' })", svg)
    page.tap_at(*page.js(BOARD_TO_SCREEN, [x, y, svg]))


def open_tab(page, hash_: str) -> None:
    """A tap on the tab (and the Set-up sub-tab, scrolled up to) for `hash_`, as a player goes there."""
    page.js("() => window.scrollTo(0, 0)")
    if hash_.startswith("#setup/"):
        if not page.js("() => location.hash.startsWith('#setup')"):
            page.tap("#tabs a[href='#setup/camera']")
        page.tap(f".subtabs a[href='{hash_}']")
    else:
        page.tap(f"#tabs a[href='{hash_}']")
    page.wait("(h) => location.hash === h", hash_)


def layout(scene: dict) -> HexLayout:
    grid = scene["hexgrid"]
    return HexLayout(grid["size"], grid["orientation"], tuple(grid["origin"]))


def spots(scene: dict, start: tuple[float, float], count: int) -> list[tuple[float, float]]:
    """Where a unit's markers go down: from `start`, 1.5" apart (hex systems: each at its hex's centre)."""
    points = [(start[0] + 1.5 * i, start[1]) for i in range(count)]
    if "hexgrid" not in scene:
        return points
    grid = layout(scene)
    return [tuple(round(v, 3) for v in grid.to_board(grid.to_hex(*p))) for p in points]


def clear_table(page, table: TableProcess) -> None:
    """The player takes the last game's models off the board (the sandbox starts with the demo's): once the
    camera sees none, no warning is left on the phone."""
    old = {m["id"] for m in table.get("/api/sandbox")["markers"]}
    assert old, "the sandbox starts with the demo's models on its board"
    table.wait_for(lambda s: {u["marker"] for u in s["status"]["unassigned"]} == old and
                   {w["id"].split(":")[-1] for w in s["warnings"] if w["kind"] == "unknown_marker"} == set(map(str, old)))
    page.wait("(n) => document.querySelectorAll('#alerts .alert').length === n", len(old))
    # a warning each at the top of the screen, stacked in a third of it: the page under them stays in reach
    top = page.js("() => { const r = document.getElementById('top').getBoundingClientRect(); "
                  "return [r.bottom, innerHeight, document.getElementById('alerts').scrollHeight]; }")
    assert top[0] <= 0.45 * top[1] < top[2], top
    for marker in old:
        table.post(f"/api/sandbox/markers/{marker}", method="DELETE")
    table.wait_for(lambda s: not s["status"]["unassigned"] and not s["warnings"])
    page.wait("() => !document.querySelector('#alerts .alert')")


def build_units(page, table: TableProcess, system: str) -> dict[str, list[str]]:
    """Two units of two players, each model given its marker by putting the marker down on the board and
    answering the panel's question. The units' model ids."""
    models = {}
    for unit, (player, speed, start, heading) in UNITS.items():
        add_unit(page, MOVE[system], unit, player, speed)
        see(page, "#unit-list", unit)
        state = table.wait_for(lambda s, u=unit: any(m["unit"] == u for m in s["scene"]["models"]))
        ids = [m["id"] for m in state["scene"]["models"] if m["unit"] == unit]
        for i, (model, (x, y)) in enumerate(zip(ids, spots(state["scene"], start, len(ids)), strict=True)):
            marker = FIRST_MARKER[unit] + i
            table.put(f"/api/sandbox/markers/{marker}", {"x": x, "y": y, "heading": heading})
            see(page, "#marker-question", f"Marker {marker}")
            page.wait("(m) => !!document.querySelector(`#marker-models button[data-model='${m}']`)", model)
            page.tap(f"#marker-models button[data-model='{model}']")
            table.wait_for(lambda s, m_=model, k=marker, p=(x, y): any(
                m["id"] == m_ and m.get("marker") == k and m.get("x") is not None
                and math.hypot(m["x"] - p[0], m["y"] - p[1]) < 0.2 for m in s["scene"]["models"]))
        models[unit] = ids
    page.wait("() => document.getElementById('marker-prompt').hidden")
    return models


def pick(offered: list[str], wanted: tuple[str, ...]) -> str:
    return next(w for w in wanted if w in offered)


def draw_terrain(page, table: TableProcess, models: dict[str, list[str]]) -> None:
    """Set-up > Terrain: two pieces drawn corner by corner (hex systems: two hexes given a terrain, one on
    the line between the units), saved to the table."""
    open_tab(page, "#setup/terrain")
    page.wait("() => !document.getElementById('hex-form').hidden || "
              "document.querySelectorAll('#traits input').length > 0")
    scene = table.get("/api/state")["scene"]
    if "hexgrid" in scene:
        grid = layout(scene)
        at = {m["id"]: tuple(m["hex"]) for m in scene["models"]}
        between = line(at[models["alpha"][0]], at[models["bravo"][0]])
        kinds = page.js("() => [...document.querySelectorAll('#hex-terrain option')].map((o) => o.value)")
        for hex_, wanted in zip((between[len(between) // 2], grid.to_hex(6, 6)), HEX_KINDS, strict=True):
            kind = pick(kinds, wanted)
            page.js(SET, ["#hex-terrain", kind])
            tap_board(page, "terrain-board", *grid.to_board(hex_))
            see(page, "#terrain-list", f"hex {hex_[0]},{hex_[1]} · {words(kind)}")
    else:
        traits = page.js("() => [...document.querySelectorAll('#traits input')].map((o) => o.value)")
        for name, (wanted, corners, height) in (("cover", COVER), ("rocks", ROCKS)):
            for x, y in corners:
                tap_board(page, "terrain-board", x, y)
            page.js(SET, ["#terrain-form input[name=id]", name])
            page.js(SET, ["#terrain-form input[name=height]", str(height)])
            page.tap(f"#traits input[value={pick(traits, wanted)}]")
            page.tap("#terrain-form button[type=submit]")
            see(page, "#terrain-list", name)
    page.tap("#save-terrain")
    page.wait_text("#toast", "Terrain saved")
    drawn = table.get("/api/state")["scene"]
    assert len(drawn["hexes"] if "hexgrid" in drawn else drawn["terrain"]) == 2


CARD_ROWS = """() => { const card = {};
  for (const dt of document.querySelectorAll('#info dl.kv > dt')) card[dt.textContent] = dt.nextElementSibling.textContent;
  return card; }"""


def measure_card(page, a: str, b: str) -> tuple[dict[str, str], dict[str, str]]:
    """The Board: tap model `a` (its unit's card, and in a hex system its reach drawn), then `b`: what the
    unit card showed, with the reach hexes drawn ("drawn reach"), and what the measure card shows, row by
    row ("distance": its big number)."""
    open_tab(page, "#board")
    page.wait("(m) => !!document.querySelector(`#board [data-model='${m}']`)", a)
    page.js("() => document.getElementById('board').scrollIntoView({ block: 'center' })")
    page.tap_at(*page.js(TO_SCREEN, a))
    page.wait_text("#info h3", a)
    page.wait("() => !!document.querySelector('#info dl.kv') && (!window.smarttable.questions.includes('moves')"
              " || [...document.querySelectorAll('#info dt')].some((d) => d.textContent === 'can reach'))")
    unit_card = page.js(CARD_ROWS)
    unit_card["drawn reach"] = page.js("() => document.querySelectorAll('#board polygon.reach').length")
    page.tap_at(*page.js(TO_SCREEN, b))
    page.wait_text("#info h3", f"{a} → {b}")
    page.wait("() => document.getElementById('distance')?.textContent.length > 0 && "
              "document.getElementById('charge')?.textContent !== 'working it out…'")
    return unit_card, {"distance": page.text("#distance"), **page.js(CARD_ROWS)}


def save_scene(page, folder: Path, name: str) -> Path:
    """Set-up > Terrain > Save scene: the file the table writes in its data folder."""
    open_tab(page, "#setup/terrain")
    page.js(SET, ["#scene-form input[name=name]", name])
    page.tap("#scene-form button")
    page.wait_text("#toast", f"Scene saved as {name}")
    return folder / "scenes" / f"{name}.json"


def query(scene: Path, question: str, *args: str) -> tuple[dict | None, str]:
    """`smarttable query SCENE QUESTION ARGS`: its answer, or None and the one line it said why not."""
    done = smarttable("query", str(scene), question, *args)
    if done.returncode == 0:
        return json.loads(done.stdout), ""
    assert done.returncode in (1, 2) and "Traceback" not in done.stderr, done.stderr
    return None, done.stderr.strip()


def assert_card_is_the_query(card: dict[str, str], scene: Path, a: str, b: str) -> None:
    """Each number and word on the card equals what `smarttable query` answers about the saved scene."""
    distance, why = query(scene, "distance", a, b)
    assert distance is not None, why
    unit = " hexes" if distance["method"] == "hex" else '"'
    shown = fmt(distance["distance"]) + unit
    if distance.get("interval"):
        low, high = distance["interval"]
        shown += f" ± {(high - low) / 2:.2f}{unit}"
    assert card["distance"] == shown

    band, why = query(scene, "band", a, b)
    if band is None:
        assert card["range band"].startswith("—"), (card, why)     # declined, with the reason on a tap
        assert card["range band"][1:].strip() in why
    else:
        assert card["range band"] == words(band["band"]) + (f" ({band['weapon']})" if band.get("weapon") else "")

    sight, why = query(scene, "los", a, b)
    assert sight is not None, why
    margin = sight.get("margin")
    verdict = "clear" if sight["visible"] else "blocked"
    if isinstance(margin, int | float):
        verdict += f" ({margin:.2f}\" {'to spare' if sight['visible'] else 'short of clear'})"
    assert card["line of sight"] == verdict
    assert card.get("blocked by", "") == ", ".join(sight.get("blocked_by") or [])
    cover = sight.get("cover") or {}
    assert card["cover"] == f"{cover.get('light', 0)} light · {cover.get('heavy', 0)} heavy"

    for key, value in sight.items():          # every other fact of the sight line, in words
        if key not in SIGHT_SHOWN:
            assert card[words(key)] == in_words(value), key
    for piece in sight.get("cover_from") or []:
        assert piece in card["cover from"]

    if "arc" in card:
        arc, why = query(scene, "arc", a, b)
        assert arc is not None, why
        assert card["arc"] == f"{'in' if arc['in_arc'] else 'outside'} the {arc['arc']}° arc " \
                              f"({fmt(arc['angle'])}° off facing)"


def assert_unit_cards_are_the_query(unit_card: dict, card: dict[str, str], scene: Path,
                                    units: tuple[str, str]) -> None:
    """The unit card's reach (hex systems) and the measure card's charge equal `smarttable query`'s."""
    if "can reach" in unit_card:
        moves, why = query(scene, "moves", units[0])
        assert moves is not None, why
        assert unit_card["can reach"] == f"{len(moves['reachable'])} hexes"
        assert unit_card["drawn reach"] == len(moves["reachable"]) > 0
    if "charge" in card:
        charge, why = query(scene, "charge", *units)
        assert charge is not None, why
        shown = (f"reaches with {charge['model']} ({fmt(charge['cost'])}\" of {fmt(charge['allowance'])}\")"
                 if charge["reachable"] else f"cannot reach ({fmt(charge['allowance'])}\" allowance)"
                 + ("; disordered if it tries" if charge.get("disorder_if_not") else ""))
        assert card["charge"] == shown + (" — too close to call" if charge.get("too_close_to_call") else "")


def save_armies_and_board(page, players: list[str]) -> None:
    """Set-up > Army: each player's army saved under army-<player>; Set-up > Terrain: the board as a
    scenario named board-1."""
    open_tab(page, "#setup/army")
    for player in players:
        page.wait("(p) => !!document.querySelector(`#army-player option[value='${p}']`)", player)
        page.js(SET, ["#army-player", player])
        page.js(SET, ["#army-save input[name=name]", f"army-{player}"])
        page.tap("#army-save button")
        page.wait("(n) => [...document.querySelectorAll('#army-saved option')].some((o) => o.value === n)",
                  f"army-{player}")
    open_tab(page, "#setup/terrain")
    page.js(SET, ["#scenario-form input[name=name]", "board-1"])
    page.tap("#scenario-form button")
    page.wait_text("#toast", "Scenario saved as board-1")


def start_saved_game(page, system: str, players: list[str]) -> None:
    """Set-up > Game: a new game of `system` on scenario board-1, each player with army-<player>."""
    open_tab(page, "#setup/game")
    page.wait("() => !!document.querySelector(\"#game-form select[name=scenario] option[value='board-1']\")")
    assert page.js("() => document.querySelector('#game-form select[name=ruleset]').value") == system
    page.js(SET, ["#game-form select[name=scenario]", "board-1"])
    for player in players:
        page.js(SET, [f"#game-armies select[data-player='{player}']", f"army-{player}"])
    page.tap("#game-form button[type=submit]")
    page.wait_text("#confirm-text", f"start a new {system} game")
    page.tap("#confirm-dialog button[value=ok]")
    page.wait("() => location.hash === '#setup/army'")          # where the panel goes once the game started


def without_places(models: list[dict]) -> list[dict]:
    return [{k: v for k, v in m.items() if k not in PLACE_KEYS} for m in models]


def placed(first: dict, second: dict) -> bool:
    """Every model of `second` stands where the same model stood in `first` (its marker is still there)."""
    where = {m["id"]: m for m in first["models"]}
    return len(second["models"]) == len(where) and all(
        m.get("x") is not None and math.hypot(m["x"] - where[m["id"]]["x"], m["y"] - where[m["id"]]["y"]) < 0.2
        for m in second["models"])


@pytest.mark.parametrize("engine", ["chromium"], indirect=True)
@pytest.mark.parametrize("system", SYSTEMS)
def test_a_players_own_game_from_the_phone(engine, tmp_path, system):
    with running_table(tmp_path, mode="--sandbox") as table:
        table.wait_for(lambda s: s["status"]["camera"] == "ok" and s["status"]["calibration"] == "ok")
        with engine.open(table.url + "/#setup/game", PHONE) as page:
            page.js("(pin) => localStorage.setItem('smarttable-pin', pin)", PIN)
            start_game(page, system)
            clear_table(page, table)
            page.wait(f"() => !!document.querySelector('#unit-form[data-system={system}] [data-field={MOVE[system]}]')")
            models = build_units(page, table, system)
            draw_terrain(page, table, models)
            a, b = models["alpha"][0], models["bravo"][0]
            unit_card, card = measure_card(page, a, b)
            scene = save_scene(page, tmp_path, "first")
            assert_card_is_the_query(card, scene, a, b)
            assert_unit_cards_are_the_query(unit_card, card, scene, ("alpha", "bravo"))

            first = table.get("/api/state")
            assert (system in HEX) == ("hexgrid" in first["scene"])
            players = first["scene"]["players"]
            save_armies_and_board(page, players)
            start_saved_game(page, system, players)
            second = table.wait_for(lambda s: s["status"]["game"] == first["status"]["game"] + 1
                                    and placed(first["scene"], s["scene"]))
            for key in ("board", "hexgrid", "players", "terrain", "hexes", "hexsides", "units"):
                assert second["scene"].get(key) == first["scene"].get(key), key
            assert without_places(second["scene"]["models"]) == without_places(first["scene"]["models"])
            assert {u["id"]: u["stats"][MOVE[system]] for u in second["scene"]["units"]} == \
                {unit: speed for unit, (_, speed, _, _) in UNITS.items()}
            assert page.errors() == []
