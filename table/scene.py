"""Scene files (`smarttable-scene/1`): load, validate with JSON-path errors, and save.

A scene is one moment of a game: the board, its terrain, the units and where their models stand.
The dataclasses here are plain values; rule systems read them, they never change them in place.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from table import registry
from table.cached import cached_property
from table.errors import SceneError
from table.files import read_capped
from table.jsoncheck import JsonReader, kind_of
from table.scene_rules import (
    MAX_HEXES,
    MAX_TERRAIN,
    MAX_VERTICES,
    MIN_HEX_SIZE,
    MODEL_STATES,
    crossing_problem,
    hex_count,
    known_keys,
    model_limit,
)

FORMAT = "smarttable-scene/1"
TERRAIN_TRAITS = frozenset({
    "light_cover", "heavy_cover", "difficult", "impassable", "road", "elevated", "flat",
    "defensible", "shelter", "concealment", "fordable", "water", "wreckage",
})
HEX_TERRAIN = frozenset({"clear", "town", "mountain", "forest", "swamp", "desert", "water"})
HEXSIDE_FEATURES = frozenset({"river", "soft_cover", "hard_cover"})
BASE_SHAPES = ("circle", "oval", "rect")

Hex = tuple[int, int]
Keys = dict[str, frozenset[str]]
_SCENE_PARTS = frozenset({"format", "ruleset", "board", "hexgrid", "terrain", "hexes", "hexsides", "units",
                          "models", "players"})  # the rest of the top level is kept in Scene.extra


@dataclass(frozen=True)
class Base:
    """A model's base in millimetres; width runs across the facing, depth along it."""

    shape: str = "circle"
    width_mm: float = 25.0
    depth_mm: float = 25.0

    def to_dict(self) -> dict[str, Any]:
        if self.shape == "circle":
            return {"shape": "circle", "diameter_mm": self.width_mm}
        return {"shape": self.shape, "width_mm": self.width_mm, "depth_mm": self.depth_mm}


@dataclass(frozen=True)
class Board:
    width: float = 48.0
    height: float = 48.0


@dataclass(frozen=True)
class HexGridSpec:
    """How a hex grid lies on the board (contract: size is centre-to-corner in inches)."""

    size: float = 1.0
    orientation: str = "flat"
    origin: tuple[float, float] = (0.0, 0.0)


@dataclass(frozen=True)
class Terrain:
    id: str
    polygon: tuple[tuple[float, float], ...]
    height: float = 0.0
    traits: frozenset[str] = frozenset()

    def has(self, trait: str) -> bool:
        return trait in self.traits


@dataclass(frozen=True)
class HexTerrain:
    hex: Hex
    terrain: str = "clear"
    road: bool = False


@dataclass(frozen=True)
class Hexside:
    between: tuple[Hex, Hex]
    feature: str


@dataclass(frozen=True)
class Weapon:
    name: str
    bands: dict[str, tuple[float, float]] = field(default_factory=dict)
    range: tuple[int, int] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Unit:
    id: str
    player: str
    name: str = ""
    stats: dict[str, Any] = field(default_factory=dict)
    weapons: tuple[Weapon, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Model:
    id: str
    unit: str
    x: float | None = None
    y: float | None = None
    heading: float = 0.0
    marker: int | None = None
    base: Base = Base()
    height: float = 0.0
    size: float | None = None
    hex: Hex | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def position(self) -> tuple[float, float]:
        if self.x is None or self.y is None:
            raise SceneError(f"model {self.id!r} has a hex but no board position")
        return (self.x, self.y)


@dataclass(frozen=True)
class Scene:
    ruleset: str
    board: Board = Board()
    hexgrid: HexGridSpec | None = None
    terrain: tuple[Terrain, ...] = ()
    hexes: tuple[HexTerrain, ...] = ()
    hexsides: tuple[Hexside, ...] = ()
    units: tuple[Unit, ...] = ()
    models: tuple[Model, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)
    players: tuple[str, ...] = ()         # the players in turn order (none given: the units' players, sorted)

    @cached_property
    def _by_id(self) -> tuple[dict[str, Unit], dict[str, Model], dict[str, tuple[Model, ...]]]:
        """Units and models by id, and each unit's models (worked out once: a scene is a value)."""
        members: dict[str, list[Model]] = {}
        for m in self.models:
            members.setdefault(m.unit, []).append(m)
        return ({u.id: u for u in reversed(self.units)}, {m.id: m for m in reversed(self.models)},
                {k: tuple(v) for k, v in members.items()})

    def unit(self, unit_id: str) -> Unit:
        return self._by_id[0][unit_id]

    def model(self, model_id: str) -> Model:
        return self._by_id[1][model_id]

    def models_of(self, unit_id: str) -> tuple[Model, ...]:
        return self._by_id[2].get(unit_id, ())

    def model_size(self, model: Model) -> float:
        """A model's size: its own, else its unit's `stats.size`, else 1."""
        if model.size is not None:
            return model.size
        return float(self.unit(model.unit).stats.get("size", 1))

    def with_models(self, models: tuple[Model, ...]) -> Scene:
        return replace(self, models=models)


# ---------------------------------------------------------------- parsing


def _unique(reader: JsonReader, items: list[Any], path: str) -> None:
    seen: set[str] = set()
    for index, item in enumerate(items):
        if item.id in seen:
            raise reader.fail(f"{path}[{index}].id", f"duplicate id {item.id!r}")
        seen.add(item.id)


def _base(r: JsonReader, value: Any, path: str, keys: Keys) -> Base:
    data = r.obj(value, path)
    r.keys(data, path, keys["base"])
    shape = data.get("shape", "circle")
    if shape not in BASE_SHAPES:
        raise r.fail(f"{path}.shape", f"unknown shape {shape!r} (expected one of {', '.join(BASE_SHAPES)})")
    if shape == "circle":
        if "diameter_mm" not in data:
            raise r.fail(f"{path}.diameter_mm", "missing (a circle base needs diameter_mm)")
        diameter = r.number(data["diameter_mm"], f"{path}.diameter_mm", positive=True)
        return Base("circle", diameter, diameter)
    for key in ("width_mm", "depth_mm"):
        if key not in data:
            raise r.fail(f"{path}.{key}", f"missing (a {shape} base needs width_mm and depth_mm)")
    return Base(shape, r.number(data["width_mm"], f"{path}.width_mm", positive=True),
                r.number(data["depth_mm"], f"{path}.depth_mm", positive=True))


def _terrain(r: JsonReader, value: Any, path: str, keys: Keys) -> Terrain:
    data = r.obj(value, path)
    r.keys(data, path, keys["terrain"])
    points = r.array(data.get("polygon"), f"{path}.polygon")
    if len(points) < 3:
        raise r.fail(f"{path}.polygon", f"a polygon needs at least 3 points, got {len(points)}")
    if len(points) > MAX_VERTICES:
        raise r.fail(f"{path}.polygon", f"at most {MAX_VERTICES} points, got {len(points)}")
    polygon = tuple(r.point(p, f"{path}.polygon[{i}]") for i, p in enumerate(points))
    problem = crossing_problem(polygon)
    if problem:
        raise r.fail(f"{path}.polygon", problem)
    traits = r.array(data.get("traits", []), f"{path}.traits")
    for i, trait in enumerate(traits):
        r.choice(trait, f"{path}.traits[{i}]", TERRAIN_TRAITS, "trait")
    return Terrain(r.string(data.get("id"), f"{path}.id"), polygon,
                   r.number(data.get("height", 0.0), f"{path}.height", minimum=0), frozenset(traits))


def _weapon(r: JsonReader, value: Any, path: str, keys: Keys) -> Weapon:
    data = dict(r.obj(value, path))
    r.keys(data, path, keys["weapon"])
    name = r.string(data.pop("name", None), f"{path}.name")
    bands: dict[str, tuple[float, float]] = {}
    for band, span in r.obj(data.pop("bands", {}), f"{path}.bands").items():
        lo, hi = r.point(span, f"{path}.bands.{band}")
        if hi < lo:
            raise r.fail(f"{path}.bands.{band}", f"range ends before it starts ({lo} > {hi})")
        bands[band] = (lo, hi)
    reach = None
    if "range" in data:
        items = r.array(data.pop("range"), f"{path}.range")
        if len(items) != 2:
            raise r.fail(f"{path}.range", "expected [optimal, maximum]")
        reach = (r.integer(items[0], f"{path}.range[0]"), r.integer(items[1], f"{path}.range[1]"))
    return Weapon(name, bands, reach, data)


def _unit(r: JsonReader, value: Any, path: str, keys: Keys) -> Unit:
    data = dict(r.obj(value, path))
    r.keys(data, path, keys["unit"])
    unit_id = r.string(data.pop("id", None), f"{path}.id")
    player = data.pop("player", None)
    if isinstance(player, int) and not isinstance(player, bool):
        player = str(player)
    player = r.string(player, f"{path}.player")
    name = data.pop("name", unit_id)
    stats = r.obj(data.pop("stats", {}), f"{path}.stats")
    weapons = tuple(_weapon(r, w, f"{path}.weapons[{i}]", keys)
                    for i, w in enumerate(r.array(data.pop("weapons", []), f"{path}.weapons")))
    return Unit(unit_id, player, str(name), dict(stats), weapons, data)


def _model(r: JsonReader, value: Any, path: str, units: set[str], grid: HexGridSpec | None,
           keys: Keys) -> Model:
    data = dict(r.obj(value, path))
    r.keys(data, path, keys["model"])
    if "state" in data and data["state"] not in MODEL_STATES:
        raise r.fail(f"{path}.state", f"expected one of {', '.join(MODEL_STATES)}, got {data['state']!r}")
    for key in ("sigma", "heading_sigma"):  # how sure the position (inches) and heading (degrees) are
        if key in data:
            data[key] = r.number(data[key], f"{path}.{key}", minimum=0)
    model_id = r.string(data.pop("id", None), f"{path}.id")
    unit = r.string(data.pop("unit", None), f"{path}.unit")
    if unit not in units:
        raise r.fail(f"{path}.unit", f"no unit {unit!r}")
    hex_ = r.hex(data.pop("hex"), f"{path}.hex") if "hex" in data else None
    if "x" in data or "y" in data or hex_ is None:
        for key in ("x", "y"):
            if key not in data:
                raise r.fail(f"{path}.{key}", "missing (give x and y, or hex)")
        x = r.number(data.pop("x"), f"{path}.x")
        y = r.number(data.pop("y"), f"{path}.y")
    else:
        if grid is None:
            raise r.fail(f"{path}.hex", "a model placed by hex needs the scene's hexgrid")
        from table.hexgrid import HexLayout  # local: the hex grid is only needed for hex scenes

        x, y = HexLayout.from_spec(grid).to_board(hex_)
    heading = r.number(data.pop("heading", 0.0), f"{path}.heading")
    heading = ((heading + 180.0) % 360.0) - 180.0
    if heading == -180.0:
        heading = 180.0
    marker = data.pop("marker", None)
    if marker is not None:
        marker = r.integer(marker, f"{path}.marker")
        if marker < 0:
            raise r.fail(f"{path}.marker", f"must be at least 0, got {marker}")
    base = _base(r, data.pop("base"), f"{path}.base", keys) if "base" in data else Base()
    height = r.number(data.pop("height", 0.0), f"{path}.height", minimum=0)
    size = r.number(data.pop("size"), f"{path}.size", minimum=0) if "size" in data else None
    return Model(model_id, unit, x, y, heading, marker, base, height, size, hex_, data)


def parse_scene(document: Any, source: str = "") -> Scene:
    """Validate a scene document (already parsed JSON) and build a Scene."""
    r = JsonReader(source)
    data = r.obj(document, "$")
    if data.get("format") != FORMAT:
        raise r.fail("format", f"expected {FORMAT!r}, got {data.get('format')!r}")
    ruleset = data.get("ruleset")
    known = registry.names()
    if ruleset not in known:
        raise r.fail("ruleset", f"unknown rule system {ruleset!r} (expected one of {', '.join(known)})")
    keys = known_keys(ruleset)
    r.keys(data, "$", keys["scene"])
    board_data = r.obj(data.get("board", {}), "board")
    r.keys(board_data, "board", keys["board"])
    board = Board(r.number(board_data.get("width", 48.0), "board.width", positive=True),
                  r.number(board_data.get("height", 48.0), "board.height", positive=True))
    grid = None
    if data.get("hexgrid") is not None:
        g = r.obj(data["hexgrid"], "hexgrid")
        r.keys(g, "hexgrid", keys["hexgrid"])
        orientation = g.get("orientation", "flat")
        if orientation not in ("flat", "pointy"):
            raise r.fail("hexgrid.orientation", f"expected 'flat' or 'pointy', got {orientation!r}")
        origin = r.point(g.get("origin", [0.0, 0.0]), "hexgrid.origin")
        size = r.number(g.get("size", 1.0), "hexgrid.size", minimum=MIN_HEX_SIZE)
        if hex_count(board.width, board.height, size) > MAX_HEXES:
            raise r.fail("hexgrid.size", f"{size:g}\" hexes lay over {MAX_HEXES} hexes on a {board.width:g}\""
                                         f"x{board.height:g}\" board (too many to work with)")
        grid = HexGridSpec(size, orientation, origin)
    terrain_data = r.array(data.get("terrain", []), "terrain")
    if len(terrain_data) > MAX_TERRAIN:
        raise r.fail("terrain", f"at most {MAX_TERRAIN} terrain pieces, got {len(terrain_data)}")
    terrain = tuple(_terrain(r, t, f"terrain[{i}]", keys) for i, t in enumerate(terrain_data))
    _unique(r, list(terrain), "terrain")
    hexes = []
    hex_data = r.array(data.get("hexes", []), "hexes")
    if len(hex_data) > MAX_HEXES:
        raise r.fail("hexes", f"at most {MAX_HEXES} hexes, got {len(hex_data)}")
    for i, h in enumerate(hex_data):
        h = r.obj(h, f"hexes[{i}]")
        r.keys(h, f"hexes[{i}]", keys["hexes"])
        kind = r.choice(h.get("terrain", "clear"), f"hexes[{i}].terrain", HEX_TERRAIN, "hex terrain")
        road = h.get("road", False)
        if not isinstance(road, bool):
            raise r.fail(f"hexes[{i}].road", f"expected true or false, got {kind_of(road)}")
        hexes.append(HexTerrain(r.hex(h.get("hex"), f"hexes[{i}].hex"), kind, road))
    hexsides = []
    side_data = r.array(data.get("hexsides", []), "hexsides")
    if len(side_data) > 3 * MAX_HEXES:
        raise r.fail("hexsides", f"at most {3 * MAX_HEXES} hexsides, got {len(side_data)}")
    for i, s in enumerate(side_data):
        s = r.obj(s, f"hexsides[{i}]")
        r.keys(s, f"hexsides[{i}]", keys["hexsides"])
        pair = r.array(s.get("between"), f"hexsides[{i}].between")
        if len(pair) != 2:
            raise r.fail(f"hexsides[{i}].between", "expected two hexes")
        a, b = (r.hex(h, f"hexsides[{i}].between[{j}]") for j, h in enumerate(pair))
        if (abs(a[0] - b[0]) + abs(a[1] - b[1]) + abs(a[0] + a[1] - b[0] - b[1])) != 2:
            raise r.fail(f"hexsides[{i}].between", f"hexes {list(a)} and {list(b)} are not neighbours")
        feature = r.choice(s.get("feature"), f"hexsides[{i}].feature", HEXSIDE_FEATURES, "hexside feature")
        hexsides.append(Hexside((a, b), feature))
    units = tuple(_unit(r, u, f"units[{i}]", keys)
                  for i, u in enumerate(r.array(data.get("units", []), "units")))
    _unique(r, list(units), "units")
    players = _players(r, data.get("players"), units)
    unit_ids = {u.id for u in units}
    model_data = r.array(data.get("models", []), "models")
    most = model_limit(board.width, board.height)
    if len(model_data) > most:
        raise r.fail("models", f"{len(model_data)} models are more than a {board.width:g}\""
                               f"x{board.height:g}\" board holds (at most {most})")
    models = tuple(_model(r, m, f"models[{i}]", unit_ids, grid, keys) for i, m in enumerate(model_data))
    _unique(r, list(models), "models")
    extra = {k: v for k, v in data.items() if k not in _SCENE_PARTS}
    return Scene(ruleset, board, grid, terrain, tuple(hexes), tuple(hexsides), units, models, extra, players)


def _players(r: JsonReader, value: Any, units: tuple[Unit, ...]) -> tuple[str, ...]:
    """The scene's `players` (names in turn order; optional): each unit's player must be one of them."""
    if value is None:
        return ()
    names = tuple(r.string(p, f"players[{i}]") for i, p in enumerate(r.array(value, "players")))
    if len(set(names)) != len(names):
        raise r.fail("players", f"a player is named twice: {list(names)}")
    for i, unit in enumerate(units):
        if unit.player not in names:
            raise r.fail(f"units[{i}].player",
                         f"{unit.player!r} is not one of the players ({', '.join(names)})")
    return names


def load_scene(path: str | Path) -> Scene:
    """Read and validate a scene file; every failure is a SceneError naming the file."""
    path = Path(path)
    data = read_capped(path, "file", SceneError)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SceneError(f"{path}: not UTF-8 text (byte {exc.start}): a scene file is UTF-8 JSON") from None
    return parse_scene(read_json(text, str(path)), str(path))


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def read_json(text: str, source: str) -> Any:
    """Strict JSON: no NaN or Infinity, no integer past Python's digit limit, no nesting past the stack."""
    try:
        return json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise SceneError(f"{source}: line {exc.lineno} column {exc.colno}: invalid JSON: {exc.msg}") from None
    except RecursionError:
        raise SceneError(f"{source}: invalid JSON: nested too deeply") from None
    except ValueError as exc:  # NaN/Infinity, or an integer of thousands of digits
        message = str(exc)
        if "digits" in message:
            message = f"an integer of more than {sys.get_int_max_str_digits()} digits"
        raise SceneError(f"{source}: invalid JSON: {message}") from None


# ---------------------------------------------------------------- saving


def scene_to_dict(scene: Scene) -> dict[str, Any]:
    """The scene as a JSON document that `parse_scene` reads back to an equal Scene."""
    doc: dict[str, Any] = {"format": FORMAT, "ruleset": scene.ruleset,
                           "board": {"width": scene.board.width, "height": scene.board.height}}
    if scene.hexgrid is not None:
        g = scene.hexgrid
        doc["hexgrid"] = {"size": g.size, "orientation": g.orientation, "origin": list(g.origin)}
    doc["terrain"] = [{"id": t.id, "polygon": [list(p) for p in t.polygon], "height": t.height,
                       "traits": sorted(t.traits)} for t in scene.terrain]
    doc["hexes"] = [{"hex": list(h.hex), "terrain": h.terrain, "road": h.road} for h in scene.hexes]
    doc["hexsides"] = [{"between": [list(s.between[0]), list(s.between[1])], "feature": s.feature}
                       for s in scene.hexsides]
    doc["units"] = [_unit_to_dict(u) for u in scene.units]
    doc["models"] = [_model_to_dict(m) for m in scene.models]
    if scene.players:
        doc["players"] = list(scene.players)
    doc.update(scene.extra)
    return doc


def _unit_to_dict(unit: Unit) -> dict[str, Any]:
    weapons = []
    for w in unit.weapons:
        wd: dict[str, Any] = {"name": w.name}
        if w.bands:
            wd["bands"] = {k: list(v) for k, v in w.bands.items()}
        if w.range is not None:
            wd["range"] = list(w.range)
        wd.update(w.extra)
        weapons.append(wd)
    return {"id": unit.id, "player": unit.player, "name": unit.name, "stats": dict(unit.stats),
            "weapons": weapons, **unit.extra}


def _model_to_dict(model: Model) -> dict[str, Any]:
    doc: dict[str, Any] = {"id": model.id, "unit": model.unit}
    if model.hex is not None:
        doc["hex"] = list(model.hex)
    doc.update({"x": model.x, "y": model.y, "heading": model.heading, "base": model.base.to_dict(),
                "height": model.height})
    if model.marker is not None:
        doc["marker"] = model.marker
    if model.size is not None:
        doc["size"] = model.size
    doc.update(model.extra)
    return doc


def save_scene(scene: Scene, path: str | Path) -> None:
    """Write the scene atomically (a temporary file renamed over the target)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(scene_to_dict(scene), indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)
