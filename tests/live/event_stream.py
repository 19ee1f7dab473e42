"""Run by test_gamelog.py as a separate process: a controller on mock hardware playing a stream of
commands as fast as it can, printing the state after each; the test kills it with SIGKILL."""

from __future__ import annotations

import sys

from table.live.controller import TableController
from tests.live.live_fakes import scripted_table

STREAM = [("advance_phase", {}), ("select", {"id": "rifles-1"}), ("roll", {"kind": "dice", "count": 3}),
          ("target", {"id": "raiders"}), ("advance_phase", {}), ("undo", {}), ("confirm", {}),
          ("advance_phase", {})]


def main(log_path: str) -> None:
    controller = scripted_table(log_path)
    print("resumed" if controller.status["resumed"] else "started", describe(controller), flush=True)
    count = 0
    while True:
        name, params = STREAM[count % len(STREAM)]
        controller.command(name, **params)
        count += 1
        print(count, describe(controller), flush=True)


def describe(controller: TableController) -> str:
    """The game state in one line: turn, phase step, selection, target."""
    state = controller.state
    return f"{state.turn} {state.step} {state.selected} {state.target}"


if __name__ == "__main__":
    main(sys.argv[1])
