"""Position uncertainty carried into answers, in one place for every inch-measured rule system.

A model may carry `sigma` (inches, 1 sd of its position on each axis) and `heading_sigma` (degrees);
absent means exact, and then answers are untouched. With them:
- a distance gets `"interval": [lo, hi]`, the 95% interval d -/+ 1.96 sqrt(sa^2 + sb^2) (the two
  positions' errors along the line between them), clamped at 0;
- a question between two models or units (`band`, `distance`, ...) is asked again with the far side
  moved to each end of that interval along the line; where a verdict differs (a band, a bool, an id
  list) the answer says `"too_close_to_call": true` and `"could_be": {field: [at near end, at far end]}`;
- any other question (cohesion, melee, los, arc, charge, ...) is asked again on scenes with every
  position (and heading) drawn from its error (a fixed seed, so the same scene gives the same answer);
  a verdict that differs in at least 2.5% of them is too close to call, naming the other value seen;
- a sight line also gets its `"margin"`: how far (inches) the line between the two models or units must
  move sideways, both ends together, to change whether the target is seen (the clearance past the
  nearest blocker, or how deep into one it runs), or null when no shift up to 2" changes it.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from table.errors import TableError
from table.scene import Model, Scene

Z95 = 1.959963984540054  # two-sided 95% of a normal
SAMPLES = 120  # scenes drawn for a question without a single line to move along
TAIL = 0.025  # a verdict this likely or more is not ruled out (one side of 95%)
SEED = 15
MARGIN_LIMIT = 2.0  # inches: a sight line this far from changing is not near any threshold
MARGIN_STEP = 0.005  # the margin's precision, inches
SKIPPED = frozenset({"report"})  # the whole board (and questions that roll dice, which take a seed)
MEASURES = frozenset({"distance", "interval", "line", "from", "to", "seed", "method", "measure"})

Ask = Callable[[Scene, str, list[str]], Any]


def model_sigma(model: Model) -> float:
    return float(model.extra.get("sigma", 0.0))


def heading_sigma(model: Model) -> float:
    return float(model.extra.get("heading_sigma", 0.0))


def has_uncertainty(scene: Scene) -> bool:
    return any(model_sigma(m) > 0 or heading_sigma(m) > 0 for m in scene.models)


def distance_interval(distance: float, sigma_a: float, sigma_b: float) -> tuple[float, float]:
    """The 95% interval of a distance between two positions with these sigmas."""
    half = Z95 * math.hypot(sigma_a, sigma_b)
    return (max(0.0, distance - half), distance + half)


def verdicts(answer: Any, path: str = "") -> dict[str, Any]:
    """The answer's decisions by dotted path: every bool, string, integer and list of those, leaving
    out measured numbers and the fields that only name what was asked."""
    out: dict[str, Any] = {}
    if isinstance(answer, dict):
        for key, value in answer.items():
            if key not in MEASURES:
                out.update(verdicts(value, f"{path}.{key}" if path else str(key)))
    elif isinstance(answer, list):
        if all(isinstance(v, (str, bool, int)) and not isinstance(v, float) for v in answer):
            out[path] = tuple(answer)
        else:
            for i, value in enumerate(answer):
                out.update(verdicts(value, f"{path}[{i}]"))
    elif isinstance(answer, (str, bool, int)) and not isinstance(answer, float):
        out[path] = answer
    return out


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def moved(scene: Scene, ids: set[str], dx: float, dy: float) -> Scene:
    """The scene with the models in `ids` shifted by (dx, dy) inches."""
    models = tuple(replace(m, x=m.x + dx, y=m.y + dy) if m.id in ids and m.x is not None and m.y is not None
                   else m for m in scene.models)
    return replace(scene, models=models)


def jittered(scene: Scene, rng: np.random.Generator) -> Scene:
    """The scene with every uncertain position and heading drawn from its error."""
    models = []
    for m in scene.models:
        s, h = model_sigma(m), heading_sigma(m)
        if (s > 0 or h > 0) and m.x is not None and m.y is not None:
            dx, dy = rng.normal(0.0, s, 2) if s > 0 else (0.0, 0.0)
            dh = float(rng.normal(0.0, h)) if h > 0 else 0.0
            m = replace(m, x=m.x + float(dx), y=m.y + float(dy), heading=m.heading + dh)
        models.append(m)
    return replace(scene, models=tuple(models))


def annotate_pair(answer: dict[str, Any], scene: Scene, a: Model, b: Model, far_side: set[str],
                  name: str, args: list[str], ask: Ask) -> dict[str, Any]:
    """A two-sided answer with its interval, asked again at both ends of it."""
    s = math.hypot(model_sigma(a), model_sigma(b))
    if s == 0:
        return answer
    out = dict(answer)
    if isinstance(answer.get("distance"), (int, float)):
        lo, hi = distance_interval(float(answer["distance"]), model_sigma(a), model_sigma(b))
        out["interval"] = [round(lo, 4), round(hi, 4)]
    (ax, ay), (bx, by) = a.position, b.position
    length = math.dist((ax, ay), (bx, by))
    ux, uy = ((bx - ax) / length, (by - ay) / length) if length > 1e-9 else (1.0, 0.0)
    step = Z95 * s
    near = verdicts(ask(moved(scene, far_side, -ux * min(step, length), -uy * min(step, length)), name, args))
    far = verdicts(ask(moved(scene, far_side, ux * step, uy * step), name, args))
    exact = verdicts(answer)
    differ = {k: [_plain(near.get(k)), _plain(far.get(k))] for k in exact
              if near.get(k) != exact[k] or far.get(k) != exact[k]}
    return _flag(out, differ)


def annotate_sampled(answer: Any, scene: Scene, name: str, args: list[str], ask: Ask) -> Any:
    """Any other answer, asked again on scenes drawn from the positions' errors."""
    if not isinstance(answer, dict):
        return answer
    exact = verdicts(answer)
    rng = np.random.default_rng(SEED)
    seen: dict[str, Counter[Any]] = {k: Counter() for k in exact}
    for _ in range(SAMPLES):
        try:
            drawn = verdicts(ask(jittered(scene, rng), name, args))
        except TableError as exc:  # a drawn scene the question refuses (a model pushed off the board...)
            drawn = {k: f"refused: {exc}" for k in exact}
        for k in exact:
            seen[k][drawn.get(k)] += 1
    differ = {}
    for k, counts in seen.items():
        others = [(n, v) for v, n in counts.items() if v != exact[k]]
        if others and sum(n for n, _ in others) >= TAIL * SAMPLES:
            other = max(others, key=lambda nv: nv[0])[1]
            differ[k] = [_plain(exact[k]), _plain(other)]
    return _flag(dict(answer), differ)


def _flag(answer: dict[str, Any], differ: dict[str, list[Any]]) -> dict[str, Any]:
    answer["too_close_to_call"] = bool(differ)
    if differ:
        answer["could_be"] = differ
    return answer


def sideways_margin(scene: Scene, a: Model, b: Model, ids: set[str], field: str, name: str, args: list[str],
                    ask: Ask) -> float | None:
    """The smallest sideways shift (inches, either side) of the models in `ids`, across the line from a
    to b, that changes the answer's `field`; None when no shift up to MARGIN_LIMIT does."""
    (ax, ay), (bx, by) = a.position, b.position
    length = math.dist((ax, ay), (bx, by))
    if length < 1e-9:
        return None
    nx, ny = (ay - by) / length, (bx - ax) / length

    def value(shift: float) -> Any:
        try:
            answer = ask(moved(scene, ids, nx * shift, ny * shift), name, args)
        except TableError as exc:  # shifted off the board or onto something the question refuses
            return f"refused: {exc}"
        return answer.get(field) if isinstance(answer, dict) else None

    exact = value(0.0)
    found: list[float] = []
    for side in (1.0, -1.0):
        inside, step = 0.0, MARGIN_STEP
        while step <= MARGIN_LIMIT and value(side * step) == exact:
            inside, step = step, min(2 * step, MARGIN_LIMIT) if step < MARGIN_LIMIT else 2 * step
        if step > MARGIN_LIMIT:
            continue
        outside = step
        while outside - inside > MARGIN_STEP:
            middle = (inside + outside) / 2
            inside, outside = (middle, outside) if value(side * middle) == exact else (inside, middle)
        found.append((inside + outside) / 2)
    return round(min(found), 3) if found else None
