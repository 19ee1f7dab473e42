"""Run by test_bookmarks.py as a separate process: a controller on mock hardware taking dispute bookmarks as
fast as it can, printing each one's id once the table has answered; the test kills it with SIGKILL."""

from __future__ import annotations

import sys

from tests.live.live_fakes import scripted_table


def main(log_path: str) -> None:
    controller = scripted_table(log_path)
    print("started", flush=True)
    pairs = [("rifles-1", "raiders-1"), ("gunner-1", "sniper-1")]
    count = 0
    while True:
        a, b = pairs[count % len(pairs)]
        taken = controller.take_bookmark(a, b)["bookmark"]
        count += 1
        print(taken["id"], flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
