"""How sure the camera is of each model (docs/uncertainty.md), laid onto a scene for the answers that carry
it: the live table keeps each marker's `sigma` and `heading_sigma` from the tracker, not in the game log's
scene (they change with every frame the model stays still)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from table.scene import Scene

Sigmas = dict[str, tuple[float, float]]  # model id -> (sigma inches, heading_sigma degrees)


def model_sigmas(roster: Mapping[int, str], by_marker: Mapping[int, tuple[float, float]]) -> Sigmas:
    """Each rostered model's sigmas, from its marker's."""
    return {model: by_marker[marker] for marker, model in roster.items() if marker in by_marker}


def with_sigmas(scene: Scene, sigmas: Sigmas) -> Scene:
    """The scene with each model's sigmas set (models without stay exact)."""
    if not sigmas:
        return scene
    models = tuple(replace(m, extra={**m.extra, "sigma": sigmas[m.id][0], "heading_sigma": sigmas[m.id][1]})
                   if m.id in sigmas else m for m in scene.models)
    return replace(scene, models=models)
