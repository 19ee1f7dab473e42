"""What a `smarttable query` costs the test suite: a new process (`python -m table.cli`, as tests used
to run every command) against `table.cli.main` called in-process (tests/inprocess.py), measured in the
same run, passes alternating. The in-process call answers the same JSON (checked on each pass).

Prints the median wall time of each, the ratio process / in-process, and what that is for the 61
process starts the suite no longer makes.

    .venv/bin/python bench/bench_cli.py [--repeats 7]
"""

from __future__ import annotations

import argparse
import io
import statistics
import subprocess
import sys
import time
from contextlib import redirect_stdout

from table.cli import main
from table.live.run import DEMO_SCENE

COMMAND = ["query", str(DEMO_SCENE), "distance", "rifles-1", "raiders-1"]
SAVED_STARTS = 61        # Python process starts the suite made before and no longer makes (78 -> 17, counted
                         # by a sitecustomize hook over a whole run, issue 14)


def in_process() -> tuple[float, str]:
    out = io.StringIO()
    start = time.perf_counter()
    with redirect_stdout(out):
        status = main(COMMAND)
    elapsed = time.perf_counter() - start
    assert status == 0
    return elapsed, out.getvalue()


def new_process() -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "table.cli", *COMMAND], capture_output=True, text=True,
                          check=True, timeout=120)
    return time.perf_counter() - start, done.stdout


def main_bench(repeats: int) -> None:
    in_process()                                   # the first call imports what a query needs
    inner, outer = [], []
    for _ in range(repeats):
        t_out, text_out = new_process()
        t_in, text_in = in_process()
        assert text_in == text_out, (text_in, text_out)
        outer.append(t_out)
        inner.append(t_in)
    a, b = statistics.median(outer), statistics.median(inner)
    print(f"smarttable {' '.join(COMMAND[:1] + ['DEMO'] + COMMAND[2:])}: {repeats} passes")
    print(f"  new process:  median {a * 1000:8.1f} ms")
    print(f"  in-process:   median {b * 1000:8.1f} ms")
    print(f"  ratio process / in-process: {a / b:.0f}x")
    print(f"  the {SAVED_STARTS} starts the suite no longer makes: {SAVED_STARTS * (a - b):.0f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    main_bench(parser.parse_args().repeats)
