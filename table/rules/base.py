"""The rule-system base class: what a system declares about itself, and the `@question` decorator.

A rule system is one package `table/rules/<system>/` whose class declares, the way python-chess
declares a variant: its `name`, `aliases` and `title`; its ruling `options` (typed, so the panel's
settings form is generated from them); its turn `phases`; its `dice` (kinds and forms); how the live
table shows it (`pairwise_bands`, `deployment`, `shows_template`, `live_game`); its
`extra_scene_keys`; and its `rulings_page`. Each public question is a method marked
`@question("name")` taking the command line's positional arguments as strings (plus keyword options
such as `seed`); `Ruleset.ask` binds them and turns a wrong call into a QueryError. Classes are found by
name through `table.registry` (entry points in the group `smarttable.rulesets`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from difflib import get_close_matches
from typing import Any, ClassVar, TypeVar, cast

from table import registry
from table.errors import QueryError
from table.rules.declarations import Deployment, DiceKind, LiveGame, Phase
from table.rules.options import Option
from table.rules.profiles import TerrainKinds, UnitProfile
from table.scene import TERRAIN_TRAITS, HexGridSpec, Model, Scene, Unit

F = TypeVar("F", bound=Callable[..., Any])


def question(name: str, by_distance: bool = False, margin: str | None = None) -> Callable[[F], F]:
    """Mark a method as the answer to `smarttable query SCENE <name> ...`.

    How table/uncertainty.py treats the answer when models carry `sigma`:
    `by_distance`: the answer turns on how far apart its first two arguments (models or units) stand, so
    it is asked again at both ends of that distance's 95% interval rather than on many drawn scenes (an
    answer with a `distance` field is taken so anyway);
    `margin`: the answer field (a sight line's `visible`) whose margin in inches the answer gives: how far
    the line between its first two arguments must move sideways to change it."""

    def mark(method: F) -> F:
        method.__question__ = name  # type: ignore[attr-defined]
        method.__by_distance__ = by_distance  # type: ignore[attr-defined]
        method.__margin__ = margin  # type: ignore[attr-defined]
        return method

    return mark


register = registry.register


def get_ruleset(name: str) -> type[Ruleset]:
    """The rule system called `name` (or an alias of it), loaded on first use."""
    return cast("type[Ruleset]", registry.find(name))


def all_rulesets() -> list[type[Ruleset]]:
    """Every installed or registered rule system, by name."""
    return cast("list[type[Ruleset]]", registry.every())


class Ruleset:
    """Answers a rule system's questions about one scene, and declares what the table needs to know.

    Subclasses must set `name` (the scene's `ruleset` value) and may set every other class attribute
    below; they add `@question` methods. `rulings` merges the options' defaults with the given values,
    each checked by its option. Override `shows_template` if a unit's attacks have a template.
    """

    name: ClassVar[str] = ""
    aliases: ClassVar[tuple[str, ...]] = ()
    title: ClassVar[str] = ""
    rulings_page: ClassVar[str] = ""                  # docs/rules/<page>.md: rule text and readings
    rule_text: ClassVar[str] = ""                     # the rule text it quotes (a file in shared/rules/)
    options: ClassVar[tuple[Option, ...]] = ()         # the ruling options players may switch
    phases: ClassVar[tuple[Phase, ...]] = (("play", None),)
    order_factors: ClassVar[Mapping[str, float]] = {}  # an order -> its unit's movement allowance factor
    dice: ClassVar[tuple[DiceKind, ...]] = ()          # what the panel rolls (besides plain dice)
    # `band UNIT MODEL` depends on those models alone (the distance between their bases and the unit's
    # weapons), not on where any other model stands: the live table keeps band answers per placement
    # of those models and asks again only when one of them moved
    pairwise_bands: ClassVar[bool] = False
    deployment: ClassVar[Deployment | None] = None     # how the live table shows deployment zones
    live_game: ClassVar[type[LiveGame] | None] = None  # a game the live table keeps in step (see LiveGame)
    panel_script: ClassVar[str | None] = None         # a JS module in the package: the panel's game view
    # the scene keys this rule system reads beyond the contract's, by place ("scene", "unit", "weapon",
    # "model"); a scene for it may use these and no others (see table.scene_rules)
    extra_scene_keys: ClassVar[Mapping[str, frozenset[str]]] = {}
    # the fields of a unit, its weapons and its models (the panel's army builder is generated from them)
    unit_profile: ClassVar[UnitProfile] = UnitProfile()
    # the terrain it reads: polygon pieces' traits (inch systems), hex terrain and hexside features
    terrain_kinds: ClassVar[TerrainKinds] = TerrainKinds(traits=tuple(sorted(TERRAIN_TRAITS)))
    # top-level scene keys that belong to the board (deployment zones, objectives): a scenario keeps them
    scenario_keys: ClassVar[frozenset[str]] = frozenset()
    # the grid an empty board of this system gets (None: no grid)
    default_hexgrid: ClassVar[HexGridSpec | None] = None

    def __init__(self, scene: Scene, rulings: Mapping[str, Any] | None = None):
        given = dict(rulings or {})
        unknown = set(given) - set(self.default_rulings())
        if unknown:
            known = list(self.default_rulings())
            hints = [f"{name} (did you mean {close[0]}?)" if (close := get_close_matches(name, known, 1))
                     else name for name in sorted(unknown)]
            raise QueryError(f"unknown ruling option(s) for {self.name}: {', '.join(hints)} "
                             f"(known: {', '.join(known)})")
        for option in self.options:
            if option.name in given:
                option.check(given[option.name])
        self.scene = scene
        self.rulings: dict[str, Any] = {**self.default_rulings(), **given}

    @classmethod
    def default_rulings(cls) -> dict[str, Any]:
        """Every ruling option's default value."""
        return {o.name: o.default for o in cls.options}

    @classmethod
    def declaration(cls) -> dict[str, Any]:
        """What the class declares, as JSON (the panel's forms are generated from it)."""
        return {"name": cls.name, "title": cls.title or cls.name, "rulings": cls.default_rulings(),
                "options": [o.to_json() for o in cls.options], "phases": [p for p, _ in cls.phases],
                "rolls": [d.kind for d in cls.dice] + ["dice"], "dice": [d.to_json() for d in cls.dice],
                "rulings_page": cls.rulings_page, "rule_text": cls.rule_text,
                "panel": cls.panel_script is not None, "orders": list(cls.order_factors),
                "units": cls.unit_profile.to_json(), "terrain": cls.terrain_kinds.to_json(),
                "scenario_keys": sorted(cls.scenario_keys),
                "hexgrid": None if cls.default_hexgrid is None else {
                    "size": cls.default_hexgrid.size, "orientation": cls.default_hexgrid.orientation,
                    "origin": list(cls.default_hexgrid.origin)}}

    @classmethod
    def empty_scene(cls, width: float = 48.0, height: float = 48.0) -> dict[str, Any]:
        """An empty board of this system as a scene document (its grid, if it plays on one)."""
        doc: dict[str, Any] = {"format": "smarttable-scene/1", "ruleset": cls.name,
                               "board": {"width": width, "height": height}}
        if cls.default_hexgrid is not None:
            grid = cls.default_hexgrid
            doc["hexgrid"] = {"size": grid.size, "orientation": grid.orientation, "origin": list(grid.origin)}
        return doc

    def check_unit(self, unit_id: str) -> None:
        """The rule system's own checks of one unit of the scene (QueryError with its message), after its
        fields have been checked against `unit_profile`; a subclass reads the unit as its engine does."""

    def shows_template(self, unit: Unit) -> bool:
        """Whether the live table draws an attack template over this unit's target."""
        return False

    # ------------------------------------------------------------ questions

    @classmethod
    def questions(cls) -> dict[str, str]:
        """Question name -> method name, for every `@question` method of the class."""
        found: dict[str, str] = {}
        for klass in reversed(cls.__mro__):
            for attr, value in vars(klass).items():
                name = getattr(value, "__question__", None)
                if name:
                    found[name] = attr
        return found

    def ask(self, name: str, args: list[str], **options: Any) -> Any:
        """Answer question `name` with positional string arguments and keyword options."""
        table = self.questions()
        if name not in table:
            raise QueryError(f"{self.name} does not answer {name!r} (it answers: {', '.join(sorted(table))})")
        method = getattr(self, table[name])
        signature = inspect.signature(method)
        accepted = {k: v for k, v in options.items()
                    if v is not None and k in signature.parameters}
        try:
            bound = signature.bind(*args, **accepted)
        except TypeError:
            usage = " ".join(p.name.upper() if p.default is inspect.Parameter.empty else f"[{p.name.upper()}]"
                             for p in signature.parameters.values()
                             if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
            raise QueryError(f"usage: query SCENE {name} {usage}".rstrip()) from None
        return method(*bound.args, **bound.kwargs)

    # ------------------------------------------------------------ ids

    def unit(self, unit_id: str) -> Unit:
        try:
            return self.scene.unit(unit_id)
        except KeyError:
            raise QueryError(f"no unit {unit_id!r} in the scene") from None

    def model(self, model_id: str) -> Model:
        try:
            return self.scene.model(model_id)
        except KeyError:
            raise QueryError(f"no model {model_id!r} in the scene") from None

    def models_for(self, ident: str) -> tuple[Model, ...]:
        """The models an id names: one model, or every model of a unit."""
        for model in self.scene.models:
            if model.id == ident:
                return (model,)
        if any(u.id == ident for u in self.scene.units):
            models = self.scene.models_of(ident)
            if not models:
                raise QueryError(f"unit {ident!r} has no models on the table")
            return models
        raise QueryError(f"no model or unit {ident!r} in the scene")
