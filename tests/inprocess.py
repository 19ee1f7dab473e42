"""The `smarttable` command run in the test's own process: the same `table.cli.main` the console script
calls, its stdout and stderr captured and its exit status taken from the return value or a SystemExit
(argparse's usage errors and --version), shaped as the CompletedProcess a subprocess run gives. A process
start costs 0.6-2 s; tests that need a real process (the console script, signals, kill -9, start-up,
a server) still start one."""

from __future__ import annotations

import io
import subprocess
from contextlib import redirect_stderr, redirect_stdout

from table.cli import main


def exit_status(exc: SystemExit) -> tuple[int, str]:
    """The status a process would exit with for this SystemExit, and what Python would print for it."""
    if exc.code is None:
        return 0, ""
    if isinstance(exc.code, int):
        return exc.code, ""
    return 1, f"{exc.code}\n"


def smarttable(*args: str) -> subprocess.CompletedProcess[str]:
    """Run `smarttable ARGS` in-process: the exit status, stdout and stderr as a process would give them."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            status = main(list(args))
        except SystemExit as exc:
            status, message = exit_status(exc)
            err.write(message)
    return subprocess.CompletedProcess(["smarttable", *args], status, out.getvalue(), err.getvalue())
