"""The rule-system base class, its registry, and the `@question` decorator.

A rule system is a small subclass with class-level metadata (`name`, `aliases`, `title`), found by
name as python-chess finds a variant. Each public question is a method marked `@question("name")`
taking the command line's positional arguments as strings (plus keyword options such as `seed`);
`Ruleset.ask` binds them and turns a wrong call into a QueryError.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, TypeVar

from table.errors import QueryError
from table.scene import Model, Scene, Unit
from table.scene_rules import declare_scene_keys

F = TypeVar("F", bound=Callable[..., Any])

_REGISTRY: dict[str, type[Ruleset]] = {}


def question(name: str) -> Callable[[F], F]:
    """Mark a method as the answer to `smarttable query SCENE <name> ...`."""

    def mark(method: F) -> F:
        method.__question__ = name  # type: ignore[attr-defined]
        return method

    return mark


def register(cls: type[Ruleset]) -> type[Ruleset]:
    """Class decorator: make a rule system findable by its name and aliases."""
    for key in (cls.name, *cls.aliases):
        _REGISTRY[key] = cls
        declare_scene_keys(key, cls.extra_scene_keys)
    return cls


def get_ruleset(name: str) -> type[Ruleset]:
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted({c.name for c in _REGISTRY.values()}))
        raise QueryError(f"unknown rule system {name!r} (known: {known})") from None


def all_rulesets() -> list[type[Ruleset]]:
    return sorted({c for c in _REGISTRY.values()}, key=lambda c: c.name)


class Ruleset:
    """Answers a rule system's questions about one scene.

    Subclasses must set `name` (the scene's `ruleset` value) and may set `aliases`, `title`,
    `default_rulings`, `extra_scene_keys`; they add `@question` methods. `rulings` merges the defaults
    with options.
    """

    name: ClassVar[str] = ""
    aliases: ClassVar[tuple[str, ...]] = ()
    title: ClassVar[str] = ""
    default_rulings: ClassVar[Mapping[str, Any]] = {}
    # the scene keys this rule system reads beyond the contract's, by place ("scene", "unit", "weapon",
    # "model"); a scene for it may use these and no others (see table.scene_rules)
    extra_scene_keys: ClassVar[Mapping[str, frozenset[str]]] = {}

    def __init__(self, scene: Scene, rulings: Mapping[str, Any] | None = None):
        unknown = set(rulings or {}) - set(self.default_rulings)
        if unknown:
            raise QueryError(f"unknown ruling option(s) for {self.name}: {', '.join(sorted(unknown))}")
        self.scene = scene
        self.rulings: dict[str, Any] = {**self.default_rulings, **(rulings or {})}

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
