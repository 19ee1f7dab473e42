"""One sentence a player reads for each logged game event ("Raiders (raiders-1) moved 12.0\"."): the one
set of sentences for the replay's list of events (GET /api/replay) and the event shown, the panel's Log tab
(GET /api/log's `text`) and the club hub's list of recent events."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from table.scene import Scene

HIDDEN = frozenset({"seq", "ts", "time", "kind", "game", "scene"})   # never spelled out field by field


def _words(value: Any) -> str:
    return str("" if value is None else value).replace("_", " ")


def _value(value: Any) -> str:
    """A leftover field as short text: dice as their faces, nested parts one level deep."""
    if isinstance(value, list):
        return " ".join(_value(v["value"]) if isinstance(v, Mapping) and "value" in v else _value(v)
                        for v in value)
    if isinstance(value, Mapping):
        return _fields(value)
    if isinstance(value, float) and not value.is_integer():
        return f"{value:.2f}"
    return str(value)


def _fields(event: Mapping[str, Any]) -> str:
    return " · ".join(f"{_words(k)}: {_value(v)}" for k, v in event.items()
                      if k not in HIDDEN and v is not None and v != "")


def _mapping(value: Any) -> Mapping[str, Any]:
    """A field that should hold an object: itself, else nothing (a log of an older shape)."""
    return value if isinstance(value, Mapping) else {}


def _who(scene: Scene | None, model_id: Any) -> str:
    """A model as a player names it: its unit's name and the model's id."""
    if scene is not None:
        try:
            unit = scene.unit(scene.model(str(model_id)).unit)
        except KeyError:
            return str(model_id)
        if unit.name:
            return f"{unit.name} ({model_id})"
    return str(model_id)


def _warning(e: Mapping[str, Any], scene: Scene | None) -> str:
    """A warning by its id ("overmove:sniper-1:2"): its kind, and the models or units it names."""
    kind, *rest = str(e.get("id", "")).split(":")
    named = [_who(scene, part) if _is_model(scene, part) else _unit_name(scene, part)
             for part in rest if part and not part.isdigit()]
    return f"{_words(kind) or 'warning'}{' of ' + ', '.join(named) if named else ''}"


def _is_model(scene: Scene | None, name: str) -> bool:
    return scene is not None and any(m.id == name for m in scene.models)


def _unit_name(scene: Scene | None, name: str) -> str:
    """A unit as a player names it ("Rifle Squad"), else the word as it is."""
    if scene is not None:
        try:
            return scene.unit(name).name or name
        except KeyError:
            pass
    return name


def _distance(answer: Mapping[str, Any]) -> str:
    """A measured answer's distance with its 95% interval as ± the half-width (docs/uncertainty.md)."""
    distance = answer.get("distance")
    if not isinstance(distance, (int, float)):
        return ""
    unit = " hexes" if answer.get("method") == "hex" else '"'
    interval = answer.get("interval")
    spread = (f" ± {(interval[1] - interval[0]) / 2:.2f}{unit}"
              if isinstance(interval, list) and len(interval) == 2 else "")
    return f"{distance:.2f}{unit}{spread}"


def _measure(e: Mapping[str, Any], scene: Scene | None) -> str:
    answer = _mapping(e.get("answer"))
    parts = [_distance(answer)]
    if answer.get("band"):
        parts.append(_words(answer["band"]))
    if "visible" in answer:
        parts.append("in sight" if answer["visible"] else "sight blocked")
    if answer.get("too_close_to_call"):
        parts.append("too close to call")
    said = ", ".join(p for p in parts if p) or _fields(answer)
    return f"Measured {_words(e.get('question'))} {' → '.join(map(str, e.get('args', [])))}: {said}."


def _move(e: Mapping[str, Any], scene: Scene | None) -> str:
    what = "was placed" if e.get("placement") else f"moved {float(e.get('distance', 0)):.1f}\""
    where = e.get("to")
    at = f" to ({float(where[0]):.1f}, {float(where[1]):.1f})" if isinstance(where, list) else ""
    return f"{_who(scene, e.get('model'))} {what}{at}."


def _select(e: Mapping[str, Any], scene: Scene | None) -> str:
    if not e.get("model"):
        return "Selection cleared."
    return f"{_who(scene, e['model'])} selected{' by the ' + str(e['by']) if e.get('by') else ''}."


def _phase(e: Mapping[str, Any], scene: Scene | None) -> str:
    if not e.get("phase"):
        return "Next phase."
    turn = f", turn {e['turn']}" if e.get("turn") is not None else ""
    player = f", player {e['player']}" if e.get("player") is not None else ""
    return f"{_words(e['phase']).capitalize()} phase{turn}{player}."


def _roll(e: Mapping[str, Any], scene: Scene | None) -> str:
    result = e.get("result")
    faces = result.get("dice", result) if isinstance(result, Mapping) else result
    successes = result.get("successes") if isinstance(result, Mapping) else None
    return (f"Rolled {e.get('label') or _words(e.get('roll'))}: {_value(faces)}"
            f"{f' ({successes} successes)' if successes is not None else ''}.")


def _bookmark(e: Mapping[str, Any], scene: Scene | None) -> str:
    ends = " → ".join(str(x) if not isinstance(x, list) else f"({float(x[0]):.1f}, {float(x[1]):.1f})"
                      for x in e.get("between", []))
    close = ", too close to call" if e.get("too_close_to_call") else ""
    return f"Bookmark {e['id']}: {_words(e.get('question'))} {ends}, {e.get('text')}{close}."


def _game_start(e: Mapping[str, Any], scene: Scene | None) -> str:
    document = _mapping(e.get("scene"))
    return f"New game: {_words(document.get('ruleset'))}, {len(document.get('models', []))} models."


SENTENCES: dict[str, Callable[[Mapping[str, Any], Scene | None], str]] = {
    "game_start": _game_start,
    "phase": _phase,
    "move": _move,
    "select": _select,
    "target": lambda e, s: f"Target: {e['target']}." if e.get("target") else "Target cleared.",
    "destination": lambda e, s: (f"Path to hex [{e['hex'][0]}, {e['hex'][1]}]." if e.get("hex")
                                 else "Path cleared."),
    "roll": _roll,
    "measure": _measure,
    "bookmark": _bookmark,
    "warning": lambda e, s: f"Warning: {e.get('message') or _words(e.get('warning'))}.",
    "warning_cleared": lambda e, s: f"Warning cleared: {_warning(e, s)}.",
    "acknowledge": lambda e, s: f"Warning acknowledged: {_warning(e, s)}.",
    "camera": lambda e, s: f"Camera {e.get('status')}{': ' + str(e['detail']) if e.get('detail') else ''}.",
    "undo": lambda e, s: "The last change was taken back.",
    "confirm": lambda e, s: "Activation confirmed.",
    "terrain": lambda e, s: "Terrain changed: "
                            f"{', '.join(str(t.get('id')) for t in e.get('terrain', [])) or 'none'}.",
    "marker": lambda e, s: (f"Marker {e['marker']} assigned to {e.get('model')}."
                            if e.get("marker") is not None else f"Marker taken off {e.get('model')}."),
    "settings": lambda e, s: f"Settings changed: {_fields(e)}.",
    "weapon": lambda e, s: f"{e.get('unit')} shows {e.get('weapon') or 'its default weapon'}.",
    "ruler": lambda e, s: (f"Ruler from ({float(e['from'][0]):.1f}, {float(e['from'][1]):.1f}) to "
                           f"({float(e['to'][0]):.1f}, {float(e['to'][1]):.1f})."
                           if e.get("from") and e.get("to") else "Ruler cleared."),
}


def summary(event: Mapping[str, Any], scene: Scene | None = None) -> str:
    """The event in one sentence; `scene` (the game's at that point) names the units of the models it
    mentions. A kind without a sentence of its own (a rule system's game action) is told field by field."""
    write = SENTENCES.get(str(event.get("kind")))
    try:
        if write is not None:
            return write(event, scene)
    except (KeyError, TypeError, ValueError, IndexError):     # an event of an older shape: its fields
        pass
    return f"{_words(event.get('kind') or 'event').capitalize()}: {_fields(event)}"
