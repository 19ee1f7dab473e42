"""The scripted demo game: a director moves markers on the synthetic camera's scene, places the
pointer token and presses the (mock) buttons, so `smarttable run --demo` shows a whole table at
work: selection, range bands, sight lines, warnings, phases and dice.

The script plays its game over and over until a player changes it: terrain, units, markers, rulings,
or another game started or resumed. Then the script stops where it is and the table is the player's
(its status says `demo: handed over`): restarting the script's game would throw away what they did,
and its moves would fight theirs.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from table.scene import Scene, scene_to_dict
from vision.synthetic_scene import SceneMarker, SyntheticScene

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Step:
    """One beat of the script: `action` is move, pointer, press, command or wait."""

    action: str
    args: Any = None
    pause_s: float = 2.0


# The demo game on table/data/demo.json (markers 10-13 player A, 20-23 player B).
SCRIPT: tuple[Step, ...] = (
    Step("wait", None, 3.0),
    Step("press", "next_phase"),                               # initiative -> activations (player A)
    Step("pointer", (9.0, 38.8)),                               # select rifles-1 by the pointer token
    Step("pointer", None, 0.5),
    Step("press", "measure"),                                  # target the next enemy unit: raiders
    Step("move", {10: (10.0, 35.0), 11: (10.9, 35.0), 12: (10.45, 35.78)}, 3.0),  # 5" advance
    Step("press", "measure"),                                  # target: sniper (through the bunker)
    Step("press", "confirm"),                                  # end the activation: player B's go
    Step("pointer", (36.8, 6.0)),                              # select sniper-1
    Step("pointer", None, 0.5),
    Step("move", {23: (38.0, 15.0)}, 3.0),                     # 9" move: more than its 6" allowance
    Step("press", "confirm"),                                  # acknowledge the warning
    Step("move", {22: (15.5, 9.0)}, 3.0),                      # a raider strays: out of cohesion
    Step("move", {22: (12.45, 8.78)}, 3.0),                     # and comes back
    Step("command", ("roll", {"kind": "pool", "d6": 3, "d8": 2, "d10": 0, "reroll": "none"})),
    Step("press", "next_phase"),                               # end of turn
    Step("press", "next_phase"),                               # turn 2
    Step("wait", None, 5.0),
)


def board_and_roster(scene: Scene) -> tuple[dict[str, Any], list[tuple[str, Any]]]:
    """A scene's board, terrain and units (its document without the models) and which marker each model has:
    what the script never changes."""
    doc = scene_to_dict(scene)
    return doc, [(m["id"], m.get("marker")) for m in doc.pop("models", [])]


def scripted(playing: Scene, script_scene: Scene) -> bool:
    """Whether the game on the table is the script's (a restarted demo resumes the log's game, which a
    player may have changed before: then it stays theirs)."""
    return board_and_roster(playing) == board_and_roster(script_scene)


class DemoDirector(threading.Thread):
    """Plays SCRIPT against a controller: scene changes go to `show_scene` (the synthetic camera)."""

    def __init__(self, controller: Any, scene: SyntheticScene, show_scene: Callable[[SyntheticScene], None],
                 pointer_id: int, script: tuple[Step, ...] = SCRIPT, loop: bool = True):
        super().__init__(name="demo", daemon=True)
        self.controller, self.scene, self.show_scene = controller, scene, show_scene
        self.start_scene, self.pointer_id, self.script, self.loop = scene, pointer_id, script, loop
        self.start_document = scene_to_dict(controller.state.scene)
        self.stopping = threading.Event()
        self.steps_done = 0
        self.own = self._players_part()
        controller.status["demo"] = "scripted"

    def stop(self) -> None:
        self.stopping.set()

    def _players_part(self) -> tuple[Any, ...]:
        """What only a player changes (never the script): the game, its board, units, markers, rulings."""
        state = self.controller.state
        return self.controller.game, *board_and_roster(state.scene), state.rulings

    def handed_over(self) -> bool:
        """True (and said so in the table's status) once a player has changed the game."""
        if self._players_part() == self.own:
            return False
        self.controller.status["demo"] = "handed over"
        log.info("demo: a player changed the game; the script stops, the table is theirs")
        return True

    def run(self) -> None:
        while not self.stopping.is_set():
            for step in self.script:
                if self.stopping.is_set() or self.handed_over():
                    return
                try:
                    self.play(step)
                except Exception as exc:  # the demo must not take the table down
                    log.warning("demo step %s failed: %s", step.action, exc)
                self.steps_done += 1
                self.stopping.wait(step.pause_s)
            if not self.loop:
                return
            # put the models back, let the camera settle on them, then start a fresh game there
            if self.handed_over():
                return
            self.scene = self.start_scene
            self.show_scene(self.scene)
            self.stopping.wait(3.0)
            if self.stopping.is_set() or self.handed_over():
                return
            self.controller.command("new_game", scene=self.start_document)
            self.own = self._players_part()

    def play(self, step: Step) -> None:
        if step.action == "move":
            for marker, (x, y) in step.args.items():
                self.scene = self.scene.with_marker(marker, x=x, y=y)
            self.show_scene(self.scene)
        elif step.action == "pointer":
            others = tuple(m for m in self.scene.markers if m.id != self.pointer_id)
            if step.args is not None:
                others += (SceneMarker(self.pointer_id, step.args[0], step.args[1], 0.0, 15.0),)
            self.scene = replace(self.scene, markers=others)
            self.show_scene(self.scene)
        elif step.action == "press":
            pin = self.controller.hw.buttons[step.args].pin
            pin.drive_low()
            pin.drive_high()
        elif step.action == "command":
            name, params = step.args
            self.controller.command(name, **params)
