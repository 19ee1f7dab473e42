"""The real table in a process of its own (`smarttable run --demo`, camera, LEDs and panel), for tests
that do to it what only a process allows: freeze it with SIGSTOP, let it go on with SIGCONT."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from table.config import CONFIG_DIR
from tests.ports import free_port

ROOT = Path(__file__).resolve().parents[2]
PIN = "246813"


@dataclass
class TableProcess:
    process: subprocess.Popen[str]
    url: str

    def freeze(self) -> None:
        """SIGSTOP: the process keeps its sockets (the kernel still accepts connections) but answers
        nothing, as a table whose Pi lost power or Wi-Fi looks to a phone."""
        os.kill(self.process.pid, signal.SIGSTOP)

    def resume(self) -> None:
        if self.process.poll() is None:          # a test may have ended it (SIGTERM) already
            os.kill(self.process.pid, signal.SIGCONT)

    def post(self, path: str, body: dict | None = None, method: str = "POST") -> dict:
        request = urllib.request.Request(self.url + path, data=json.dumps(body or {}).encode(), method=method,
                                         headers={"X-Table-PIN": PIN, "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as reply:
            return json.load(reply)

    def put(self, path: str, body: dict | None = None) -> dict:
        return self.post(path, body, "PUT")

    def get(self, path: str) -> dict:
        with urllib.request.urlopen(self.url + path, timeout=30) as reply:
            return json.load(reply)

    def wait_for(self, check: Callable[[dict], bool], timeout: float = 120.0) -> dict:
        """The table's state (GET /api/state) once `check` holds for it (AssertionError after `timeout`)."""
        deadline = time.monotonic() + timeout
        while True:
            state = self.get("/api/state")
            if check(state):
                return state
            assert time.monotonic() < deadline, \
                f"the table never got there: {({k: v for k, v in state['status'].items() if k != 'led_layout'})}"
            time.sleep(0.5)


@contextmanager
def running_table(folder: Path, *, heartbeat_s: float = 1.0, mode: str = "--demo") -> Iterator[TableProcess]:
    """The demo table (`mode` "--sandbox": the sandbox) serving its panel on 127.0.0.1 with `[web]
    heartbeat_s`, until the block ends (resumed if frozen, then SIGTERM)."""
    port = free_port()
    config = folder / "table.toml"
    config.write_text(f'[web]\npin = "{PIN}"\nheartbeat_s = {heartbeat_s}\n[log]\npath = "game.sqlite3"\n'
                      f'[hardware]\npin_map = "{CONFIG_DIR}/pins-pi4.toml"\n'
                      f'led_layout = "{CONFIG_DIR}/leds/edge-strip.toml"\n')
    process = subprocess.Popen([sys.executable, "-m", "table.cli", "run", mode, "--config", str(config),
                                "--host", "127.0.0.1", "--port", str(port)], cwd=ROOT,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    table = TableProcess(process, f"http://127.0.0.1:{port}")
    try:
        deadline = time.monotonic() + 90
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"the table exited: {process.stderr.read() if process.stderr else ''}")
            try:
                with urllib.request.urlopen(table.url + "/api/state", timeout=5) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                if time.monotonic() > deadline:
                    raise
            time.sleep(0.3)
        yield table
    finally:
        table.resume()
        process.terminate()
        try:
            process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
