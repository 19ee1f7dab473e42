"""Bytes on the air: what one phone receives per minute from the live table playing the demo game,
with whole states on every update (as before) and with patches (what the panel asks for now), both
listening to the same table in the same run.

    .venv/bin/python bench/bench_air.py [--seconds 60]
Prints bytes per minute for each and the ratio; exit status 1 if a patched phone ever held a state
that differs from the whole one at the same sequence number.
"""

from __future__ import annotations

import argparse
import http.client
import json
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from web_ui.sse import apply_patch

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Phone(threading.Thread):
    """One phone on /api/events: counts the bytes it receives and keeps the states it held by seq."""

    def __init__(self, port: int, path: str, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.port, self.path, self.stop = port, path, stop
        self.bytes = self.events = 0
        self.held: dict[int, dict] = {}

    def run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        conn.request("GET", self.path)
        response = conn.getresponse()
        state: dict | None = None
        while not self.stop.is_set():
            line = response.readline()
            if not line:
                break
            self.bytes += len(line)
            if line.startswith(b"data: "):
                message = json.loads(line[6:])
                self.events += 1
                state = message["state"] if "state" in message else apply_patch(state or {}, message)
                self.held[message["seq"]] = state
        conn.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    args = parser.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        table = subprocess.Popen([sys.executable, "-m", "table.cli", "run", "--demo", "--port", str(port),
                                  "--host", "127.0.0.1", "--log", str(Path(folder) / "game.sqlite3"),
                                  "--duration", str(args.seconds + 30)],
                                 cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    time.sleep(0.2)
            stop = threading.Event()
            whole, patched = Phone(port, "/api/events", stop), Phone(port, "/api/events?patch=1", stop)
            whole.start()
            patched.start()
            time.sleep(args.seconds)
            stop.set()
        finally:
            table.terminate()
            table.wait(timeout=20)
        whole.join(5)
        patched.join(5)
    per_min = 60.0 / args.seconds
    same = [seq for seq in patched.held if seq in whole.held]
    wrong = [seq for seq in same if {**patched.held[seq]} != whole.held[seq]]
    print(f"demo game, {args.seconds:.0f} s, one phone each way")
    print(f"whole states : {whole.bytes * per_min / 1024:8.1f} KiB/min  ({whole.events} events)")
    print(f"patches      : {patched.bytes * per_min / 1024:8.1f} KiB/min  ({patched.events} events)")
    if whole.bytes:
        print(f"ratio patches/whole: {patched.bytes / whole.bytes:.3f}")
    print(f"states compared at the same seq: {len(same)}, differing: {len(wrong)}")
    return 1 if wrong or not same else 0


if __name__ == "__main__":
    sys.exit(main())
