"""A long generated game for the replay's bench (and the test that checks the replay against a replay
from the start): the demo scene, then moves, selections, targets, measurements, phases, warnings raised,
acknowledged and cleared, and undos, in a seeded random mix, each checked to apply as the table would."""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any

from table.errors import TableError
from table.live.events import decode, encode
from table.live.session import Session, new_game
from table.scene import load_scene

DEMO = Path(__file__).resolve().parent.parent / "table" / "data" / "demo.json"
MIX = (("move", 50), ("select", 10), ("target", 8), ("measure", 10), ("phase", 4), ("warning", 6),
       ("acknowledge", 3), ("warning_cleared", 5), ("undo", 4))


def _event(rng: random.Random, session: Session, raised: list[str], kind: str) -> dict[str, Any] | None:
    state = session.state
    assert state is not None
    models = state.scene.models
    if kind == "move":
        model = rng.choice(models)
        x, y = model.position
        to = [round(min(47.0, max(1.0, v + rng.uniform(-6, 6))), 3) for v in (x, y)]
        return {"kind": "move", "model": model.id, "from": [x, y], "to": to,
                "distance": round(math.dist((x, y), to), 3), "heading": round(rng.uniform(-179, 180), 1)}
    if kind == "select":
        return {"kind": "select", "model": rng.choice(models).id}
    if kind == "target":
        return {"kind": "target", "target": rng.choice(models).id}
    if kind == "measure":
        a, b = rng.sample(list(models), 2)
        d = math.dist(a.position, b.position)
        return {"kind": "measure", "question": "distance", "args": [a.id, b.id],
                "answer": {"from": a.id, "to": b.id, "distance": round(d, 4), "method": "centre",
                           "interval": [round(d - 0.05, 4), round(d + 0.05, 4)], "too_close_to_call": False}}
    if kind == "phase":
        return {"kind": "phase"}
    if kind == "warning":
        wid = f"overmove:{rng.choice(models).id}:{len(raised) + 1}"
        raised.append(wid)
        return {"kind": "warning", "id": wid, "warning": "overmove", "message": f"{wid} moved too far",
                "units": []}
    if kind in ("acknowledge", "warning_cleared") and raised:
        wid = rng.choice(raised)
        if kind == "warning_cleared":
            raised.remove(wid)
        return {"kind": kind, "id": wid}
    if kind == "undo":
        return {"kind": "undo"}
    return None


def make_game(count: int = 1000, seed: int = 1) -> list[dict[str, Any]]:
    """`count` events, the first the game's start, each one the table could have logged after the others."""
    rng = random.Random(seed)
    session = Session()
    start = new_game(load_scene(DEMO), seed)
    events = [encode(start)]
    session.apply(start)
    raised: list[str] = []
    kinds, weights = zip(*MIX, strict=True)
    while len(events) < count:
        event = _event(rng, session, raised, rng.choices(kinds, weights)[0])
        if event is None:
            continue
        try:
            session.preview(decode(event))
        except TableError:              # nothing to undo, say: the table would refuse it too
            continue
        session.apply(decode(event))
        events.append(event)
    return events
