"""The LEDs' "too close to call" (docs/uncertainty.md): when the camera's error could put the target in either
of two range bands, the LEDs from the target towards the selected model run in a rhythm of two lit, one dark:
the nearer band's colour, the farther band's, then off. A clear sight line is solid and a blocked one dashed
(one lit, one dark), so the pattern reads without colour; the two colours name both bands."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from table.live import highlight as hl
from table.live.answers import Answers
from table.live.display import ask
from table.live.leds import LedLayout
from table.live.session import GameState
from table.live.sigmas import Sigmas, with_sigmas
from table.rules.base import Ruleset

REACH_IN = 3.0  # how far from the target the pattern runs (at least three LEDs)


@dataclass(frozen=True)
class CloseCall(hl.Line):
    """The pattern from the target (`a`) towards the selected model (`b`): `colour`, `other`, off, ..."""

    other: hl.RGB = hl.OFF

    def paint(self, layout: LedLayout, frame: np.ndarray) -> None:
        pts = layout.array()
        nearest = layout.nearest(self.a)
        line = sorted(layout.chain(self.a, self.b), key=lambda i: math.dist(pts[i], self.a))
        within = sum(1 for i in line if math.dist(pts[i], self.a) <= REACH_IN)
        chain = line[:max(3, within)]
        if len(chain) < 3:  # an edge strip far from the line: the LED nearest the target and its neighbours
            chain = sorted((i for i in (nearest, nearest + 1, nearest - 1) if 0 <= i < len(pts)),
                           key=lambda i: math.dist(pts[i], self.a))
        for k, led in enumerate(chain):
            frame[led] = (self.colour, self.other, hl.OFF)[k % 3]


def band_call(state: GameState, ruleset: Ruleset | None, answers: Answers, sigmas: Sigmas
              ) -> dict[str, Any] | None:
    """The band from the selected unit to the target asked with the camera's sigma, if it is too close
    to call; else None."""
    if ruleset is None or not sigmas or answers.unit is None or answers.target is None:
        return None
    weapon = answers.areas.weapon if answers.areas is not None else None
    sure = type(ruleset)(with_sigmas(ruleset.scene, sigmas), ruleset.rulings)
    answer = ask(sure, "band", answers.unit, answers.target, *((str(weapon),) if weapon else ()))
    if not isinstance(answer, dict) or not answer.get("too_close_to_call"):
        return None
    return answer


def regions(state: GameState, answers: Answers, call: dict[str, Any] | None) -> list[hl.Region]:
    """The pattern for a band too close to call, or nothing."""
    bands = (call or {}).get("could_be", {}).get("band")
    if not bands or answers.selected is None or answers.target is None:
        return []
    scene = state.scene
    selected = scene.model(answers.selected).position
    targets = [m for m in scene.models if m.id == answers.target] or list(scene.models_of(answers.target))
    if not targets:
        return []
    target = min(targets, key=lambda m: math.dist(m.position, selected))
    near, far = (hl.BAND_COLOURS.get(str(b), hl.GREY) for b in bands)
    return [CloseCall(target.position, selected, near, other=far)]
