"""Synaptik unit checks that only count distances: Cohesion, melee contact, range bands."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

EPS = 1e-9  # a distance this close to a limit is on it
COHESION_NEAR = 1.0
COHESION_FAR = 6.0
MELEE_RANGE = 1.0
OUT_OF_RANGE = "out_of_range"


def cohesion(ids: Sequence[str], dist: np.ndarray) -> list[str]:
    """The models out of Cohesion (none when the unit is coherent), from the unit's distance matrix.

    3+ models: each within 1" of at least 2 others, no two more than 6" apart; 2 models: within 1";
    1 model: always. A model short of 2 neighbours is out; then, while two models remain more than
    6" apart, the one with most such partners (ties: largest summed distance, then last) is out.
    """
    n = len(ids)
    if n <= 1:
        return []
    if n == 2:
        return [] if dist[0, 1] <= COHESION_NEAR + EPS else list(ids)
    close = (dist <= COHESION_NEAR + EPS) & ~np.eye(n, dtype=bool)
    out = set(np.flatnonzero(close.sum(axis=1) < 2).tolist())
    far = dist > COHESION_FAR + EPS
    while True:
        keep = np.array([k not in out for k in range(n)])
        partners = (far & keep[None, :] & keep[:, None]).sum(axis=1)
        if not partners.any():
            break
        spread = (dist * keep[None, :]).sum(axis=1)
        candidates = [k for k in range(n) if keep[k]]
        worst = max(candidates, key=lambda k: (partners[k], round(float(spread[k]), 6), k))
        out.add(worst)
    return [ids[k] for k in sorted(out)]


def melee_contacts(ids: Sequence[str], players: Sequence[str], dist: np.ndarray) -> dict[str, list[str]]:
    """Each model with an enemy model within 1" -> those enemies, in scene order."""
    players_arr = np.asarray(players)
    enemy = players_arr[:, None] != players_arr[None, :]
    contact = enemy & (dist <= MELEE_RANGE + EPS)
    return {ids[i]: [ids[j] for j in np.flatnonzero(contact[i]).tolist()]
            for i in range(len(ids)) if contact[i].any()}


def band_of(bands: Mapping[str, tuple[float, float]], distance: float, nearer: bool = True) -> str:
    """The range band a distance falls in; on a boundary, the nearer band (the one starting first),
    or with `nearer` false the farther one."""
    order = sorted(bands.items(), key=lambda kv: (kv[1][0], kv[1][1]), reverse=not nearer)
    for name, (lo, hi) in order:
        if lo - EPS <= distance <= hi + EPS:
            return name
    return OUT_OF_RANGE
