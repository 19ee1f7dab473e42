"""A bookmark's answers in the panel's own words (its measure card, web_ui/static/js/app.js `measure`):
"31.26" ± 0.03"", "measured centre to centre", "range band: standard", "line of sight: clear", "blocked by:
crag", "cover: 1 light · 0 heavy", "cover from: bunker". Never a JSON object in a judge's table."""

from __future__ import annotations

from typing import Any

from table.live.bookmark_store import answer_text

SIGHT_SHOWN = {"from", "to", "visible", "cover", "blocked_by", "line", "cover_from", "margin",
               "too_close_to_call", "could_be", "hexes"}
METHOD = {"edge": "edge to edge", "hex": "in hexes", "centre": "centre to centre"}


def words(key: Any) -> str:
    return str(key).replace("_", " ")


def fmt(value: Any) -> str:
    """A value as the panel prints it: whole numbers as they are, others to 2 places, lists and objects as
    words."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}" if value.is_integer() else f"{value:.2f}"
    if isinstance(value, list):
        return ", ".join(f"[{', '.join(fmt(v) for v in x)}]" if isinstance(x, list) else fmt(x)
                         for x in value) or "none"
    if isinstance(value, dict):
        return "; ".join(f"{words(k)} {fmt(v)}" for k, v in value.items()) or "none"
    return "—" if value is None else str(value)


def cover_words(scene: dict[str, Any], cover_from: list[Any]) -> str:
    """What gives cover (overlays.js `coverWords`): a piece's id, a hexside, a unit in the way."""
    units = {u["id"]: u for u in scene.get("units", [])}
    said = []
    for c in cover_from:
        if not isinstance(c, dict):
            said.append(str(c))
            continue
        grade = f" ({c['cover']})" if c.get("cover") else ""
        if c.get("kind") == "hexside" and len(c.get("between", [])) == 2:
            a, b = c["between"]
            side: dict[str, Any] = next((h for h in scene.get("hexsides", [])
                         if sorted(map(list, h["between"])) == sorted([list(a), list(b)])), {})
            said.append(f"{words(side.get('feature', 'cover'))} hexside between [{fmt(list(a))[1:-1]}] and "
                        f"[{fmt(list(b))[1:-1]}]{grade}")
        elif c.get("unit"):
            kind = f"{words(c['kind'])} " if c.get("kind") else ""
            said.append(f"{kind}{units.get(c['unit'], {}).get('name', c['unit'])} ({c['unit']}){grade}")
        else:
            said.append(f"{words(c.get('kind', 'cover'))}{grade}")
    return "; ".join(said)


def _sight(los: dict[str, Any], scene: dict[str, Any]) -> list[tuple[str, str]]:
    margin = los.get("margin")
    seen = "clear" if los.get("visible") else "blocked"
    if isinstance(margin, (int, float)):
        seen += f' ({margin:.2f}" {"to spare" if los.get("visible") else "short of clear"})'
    rows = [("line of sight", seen)]
    if los.get("blocked_by"):
        rows.append(("blocked by", ", ".join(map(str, los["blocked_by"]))))
    cover = los.get("cover") or {}
    rows.append(("cover", f"{cover.get('light', 0)} light · {cover.get('heavy', 0)} heavy"))
    if los.get("cover_from"):
        rows.append(("cover from", cover_words(scene, los["cover_from"])))
    rows += [(words(k), fmt(v)) for k, v in los.items() if k not in SIGHT_SHOWN]
    return rows


def answer_rows(measurement: dict[str, Any], scene: dict[str, Any]) -> list[tuple[str, str]]:
    """The measure card's rows for a bookmark's answers, in the card's order."""
    answers = measurement.get("answers", {})
    rows: list[tuple[str, str]] = []
    distance = answers.get("distance")
    if isinstance(distance, dict) and "declined" not in distance:
        rows += [("distance", answer_text(measurement)),
                 ("measured", METHOD.get(str(distance.get("method")), words(distance.get("method", ""))))]
    for question, answer in answers.items():
        if question == "distance" and isinstance(answer, dict) and "declined" not in answer:
            continue
        if isinstance(answer, dict) and "declined" in answer:
            rows.append((words(question), f"— ({answer['declined']})"))
        elif question == "band" and isinstance(answer, dict):
            weapon = f" ({answer['weapon']})" if answer.get("weapon") else ""
            rows.append(("range band", f"{words(answer.get('band'))}{weapon}"))
        elif question == "arc" and isinstance(answer, dict):
            side = "in" if answer.get("in_arc") else "outside"
            off = f"{fmt(answer.get('angle'))}° off facing"
            rows.append(("arc", f"{side} the {fmt(answer.get('arc'))}° arc ({off})"))
        elif question == "los" and isinstance(answer, dict):
            rows += _sight(answer, scene)
        else:
            rows.append((words(question), fmt(answer)))
    return rows
