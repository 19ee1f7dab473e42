"""A small controller for the panel's tests: the panel's protocol (table/panel_api.py) on a real scene
and rule system.

It keeps the game state (phase, selection, warnings, LEDs, log) in memory and publishes a new
Snapshot for every change, as the live table does; rolls use a seeded random generator.
"""

from __future__ import annotations

import io
import json
import random
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

from table.errors import QueryError
from table.live import markers
from table.rules import get_ruleset
from table.rules.base import Ruleset
from table.scene import parse_scene
from table.snapshot import Receipt, Snapshot

DATA = Path(__file__).resolve().parent.parent / "data" / "web"
PHASES = ["command", "movement", "shooting", "melee"]


def load_doc(name: str) -> dict[str, Any]:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


class FakeTable:
    """An in-memory table; `move()` and `warn()` let a test change the board as the camera would."""

    def __init__(self, scene: dict[str, Any], seed: int = 1, leds: int = 24):
        parse_scene(scene)
        self._cond = threading.Condition()
        self._rng = random.Random(seed)
        self._log: list[dict[str, Any]] = []
        self._scene = scene
        self._phase = {"turn": 1, "phase": PHASES[0], "player": "A", "phases": PHASES}
        self._warnings: list[dict[str, Any]] = []
        self._selection: dict[str, Any] = {}
        self._settings: dict[str, Any] = {"brightness": 0.5, "rulings": {}}
        self._leds = tuple((0, 0, 0) for _ in range(leds))
        self._snapshot = self._build(0)
        self.commands: list[tuple[str, dict[str, Any]]] = []
        self.on_rotate_pin: list[Callable[[], Any]] = []
        self.bookmarks = None                 # the fake keeps its log in memory: nowhere to keep bookmarks
        self.pins_shown: list[str] = []

    # ---------------------------------------------------------------- protocol

    def snapshot(self) -> Snapshot:
        return self._snapshot

    def wait_for_change(self, after_seq: int, timeout: float) -> Snapshot:
        with self._cond:
            self._cond.wait_for(lambda: self._snapshot.seq != after_seq, timeout)
            return self._snapshot

    def command(self, name: str, **params: Any) -> dict[str, Any]:
        self.commands.append((name, params))
        handler = getattr(self, f"_cmd_{name}", None)
        if handler is None:
            raise QueryError(f"unknown command {name!r}")
        result = handler(**params)
        self._publish()
        return result

    def change(self, name: str, params: Mapping[str, Any], key: str | None = None) -> Receipt:
        """Every change is saved at once here (an idempotency key is not kept)."""
        if name == "bookmark":
            return Receipt(self.take_bookmark(**params))
        return Receipt(self.command(name, **params))

    # ---------------------------------------------------------------- the rest of the panel's protocol

    def questions(self) -> tuple[Snapshot, Ruleset]:
        snapshot = self._snapshot
        rulings = snapshot.status.get("rulings")
        rules = get_ruleset(snapshot.ruleset)
        return snapshot, rules(parse_scene(snapshot.scene), rulings if isinstance(rulings, dict) else None)

    def replay_games(self) -> list[dict[str, Any]]:
        with self._cond:
            return [{"game": 1, "started": 0.0, "ruleset": self._snapshot.ruleset, "ended": None,
                     "events": len(self._log)}]

    def replay_steps(self, game: int | None = None) -> dict[str, Any]:
        with self._cond:
            return {"game": 1, "events": [{"seq": e["seq"], "ts": e["ts"], "kind": e["kind"], "summary": e["kind"]}
                                          for e in self._log]}

    def replay_at(self, seq: int) -> dict[str, Any] | None:
        return None            # the fake keeps no past boards: every event is "not in this game"

    def take_bookmark(self, a: str | None = None, b: str | None = None, ruler: bool = False) -> dict[str, Any]:
        raise QueryError("bookmark: this table keeps no bookmarks")

    def show_pin(self, pin: str) -> None:
        self.pins_shown.append(pin)

    def log_entries(self, after: int, limit: int) -> list[dict[str, Any]]:
        with self._cond:
            return [e for e in self._log if e["seq"] > after][:limit]

    def camera_jpeg(self) -> bytes:
        board = self._scene.get("board", {})
        w, h = float(board.get("width", 48)), float(board.get("height", 48))
        scale = 10
        image = Image.new("RGB", (int(w * scale) + 40, int(h * scale) + 40), (40, 60, 40))
        draw = ImageDraw.Draw(image)
        draw.rectangle([20, 20, 20 + w * scale, 20 + h * scale], outline=(0, 255, 255), width=3)
        for m in self._scene["models"]:
            if "x" in m:
                x, y = 20 + m["x"] * scale, 20 + m["y"] * scale
                draw.rectangle([x - 6, y - 6, x + 6, y + 6], outline=(255, 255, 0), width=2)
        out = io.BytesIO()
        image.save(out, "JPEG", quality=70)
        return out.getvalue()

    def marker_count(self, dictionary: str) -> int:
        return markers.marker_count(dictionary)

    def marker_cells(self, dictionary: str, marker_id: int) -> list[list[bool]]:
        return markers.marker_cells(dictionary, marker_id)

    # ---------------------------------------------------------------- test helpers

    def move(self, model_id: str, x: float, y: float) -> None:
        for m in self._scene["models"]:
            if m["id"] == model_id:
                m.update(x=x, y=y)
        self._record("move", model=model_id, to=[x, y])
        self._publish()

    def warn(self, warning_id: str, kind: str, message: str, units: list[str]) -> None:
        self._warnings.append({"id": warning_id, "kind": kind, "message": message, "units": units,
                               "acknowledged": False})
        self._publish()

    def bump(self) -> None:
        """Publish a new snapshot with nothing else changed (a camera tick)."""
        self._publish()

    # ---------------------------------------------------------------- commands

    def _cmd_advance_phase(self) -> dict[str, Any]:
        index = PHASES.index(self._phase["phase"]) + 1
        if index == len(PHASES):
            index = 0
            if self._phase["player"] == "A":
                self._phase["player"] = "B"
            else:
                self._phase.update(player="A", turn=self._phase["turn"] + 1)
        self._phase["phase"] = PHASES[index]
        self._record("phase", **{k: self._phase[k] for k in ("turn", "phase", "player")})
        return dict(self._phase)

    def _cmd_select(self, id: str) -> dict[str, Any]:  # noqa: A002 (the API's field name)
        self._check_id(id)
        self._selection = {"selected": id}
        return self._selection

    def _cmd_target(self, id: str) -> dict[str, Any]:  # noqa: A002
        self._check_id(id)
        if "selected" not in self._selection:
            raise QueryError("select a model or unit before picking a target")
        self._selection = {**self._selection, "target": id}
        return self._selection

    def _cmd_acknowledge(self, id: str) -> dict[str, Any]:  # noqa: A002
        for w in self._warnings:
            if w["id"] == id:
                w["acknowledged"] = True
                self._record("acknowledge", warning=id)
                return w
        raise QueryError(f"no warning {id!r}")

    def _cmd_set_terrain(self, terrain: list[dict[str, Any]]) -> dict[str, Any]:
        self._scene = {**self._scene, "terrain": terrain}
        self._record("terrain", pieces=len(terrain))
        return {"terrain": len(terrain)}

    def _cmd_assign_marker(self, model: str, marker: int) -> dict[str, Any]:
        for m in self._scene["models"]:
            if m.get("marker") == marker and m["id"] != model:
                raise QueryError(f"marker {marker} is already {m['id']}'s")
        for m in self._scene["models"]:
            if m["id"] == model:
                m["marker"] = marker
        self._record("assign", model=model, marker=marker)
        return {"model": model, "marker": marker}

    def _cmd_settings(self, **params: Any) -> dict[str, Any]:
        if "ruleset" in params:
            self._scene = {**self._scene, "ruleset": params["ruleset"]}
        self._settings.update({k: v for k, v in params.items() if k != "ruleset"})
        level = int(255 * self._settings["brightness"])
        self._leds = tuple((level, level // 2, 0) for _ in self._leds)
        return dict(self._settings)

    def _cmd_roll(self, kind: str, label: str = "", **params: Any) -> dict[str, Any]:
        if kind == "pool":
            result = self._pool(params)
        elif kind == "dice":
            rolls = [self._rng.randint(1, params["sides"]) for _ in range(params["count"])]
            result = {"dice": rolls, "total": sum(rolls)}
        else:
            raise QueryError(f"the test table does not roll {kind!r}")
        self._record("roll", roll=kind, label=label, **result)
        return result

    def _pool(self, params: dict[str, Any]) -> dict[str, Any]:
        dice = []
        for sides in (6, 8, 10):
            for _ in range(params[f"d{sides}"]):
                value = self._rng.randint(1, sides)
                rerolled = None
                if params["reroll"] == "failures" and value < 5:
                    rerolled, value = value, self._rng.randint(1, sides)
                dice.append({"sides": sides, "value": value, "rerolled_from": rerolled})
        return {"dice": dice, "successes": sum(1 for d in dice if d["value"] >= 5)}

    # ---------------------------------------------------------------- internals

    def _check_id(self, ident: str) -> None:
        get_ruleset(self._scene["ruleset"])(parse_scene(self._scene)).models_for(ident)

    def _record(self, kind: str, **data: Any) -> None:
        self._log.append({"seq": len(self._log) + 1, "ts": time.time(), "kind": kind, **data})

    def _build(self, seq: int) -> Snapshot:
        status = {"camera": "ok", "calibration": {"state": "calibrated", "error_in": 0.04},
                  "hardware": "mock", "rulings": self._settings["rulings"]}
        return Snapshot(seq=seq, status=status,
                        ruleset=self._scene["ruleset"], phase=dict(self._phase),
                        scene=json.loads(json.dumps(self._scene)),
                        warnings=tuple(dict(w) for w in self._warnings), leds=self._leds,
                        selection=dict(self._selection), timestamp=time.time())

    def _publish(self) -> None:
        with self._cond:
            self._snapshot = self._build(self._snapshot.seq + 1)
            self._cond.notify_all()
