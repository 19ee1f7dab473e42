"""Concurrency soak (issue 25): every kind of command, new games, frames, commits, reports and reads at
once against the running demo table (`smarttable run --demo`, a separate process, on a real Mosquitto),
then SIGTERM. Asserts progress: the camera's frames and the snapshot's seq keep advancing, every command
answers within --bound-s, and SIGTERM ends the process.

- phones (--writers threads) POST or PUT every write the panel has (phase, select, target, ruler, weapon,
  roll, undo, terrain, roster, settings, acknowledge, bookmark), each with the PIN;
- the club (MQTT, one client) sends `cmd/new_game` every --new-game-s (the demo scene, and every other
  time a scene of its own, so the worker makes a new situation report) and `cmd/measure`, `cmd/confirm`;
- the demo camera keeps moving models (frames, moves committed), the demo script starts games too;
- readers (--readers threads) ask state, log, replay, questions, queries and camera.jpg, and --sse
  streams listen.

    .venv/bin/python bench/bench_concurrency.py [--seconds 300] [--writers 4] [--readers 3] [--sse 2]

Prints commands and new games per second, the longest command wait and the longest the camera's frames
(or the snapshot) stood still; exit status 1 when a command did not answer within --bound-s, answered a
5xx (not a question's 503 with Retry-After: the questions' queue refusing when full or slow, as documented),
had a traceback on the table's stderr, the frames or the snapshot stopped for --bound-s, or SIGTERM did not
end the table within 30 s.
The suite runs the short form (tests/live/test_soak.py).
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import demo_table
from demo_table import PIN, ROOT, free_port, write_config

TABLE_ID = "soak"
MODELS = ("rifles-1", "rifles-2", "gunner-1", "raiders-1", "raiders-2", "sniper-1")
READS = ("/api/state", "/api/log?after=0&limit=50", "/api/replay", "/api/questions", "/api/camera.jpg",
         "/api/query/distance?arg=rifles-1&arg=raiders-1", "/api/query/los?arg=rifles-1&arg=sniper-1",
         "/api/bookmarks")
Write = tuple[str, str, dict[str, Any]]          # method, path, body


def writes(worker: int) -> Iterator[Write]:
    """Every write the panel makes, over and over, from a different model for each worker."""
    for turn in itertools.count(worker):
        a, b = MODELS[turn % len(MODELS)], MODELS[(turn + 3) % len(MODELS)]
        yield "POST", "/api/select", {"id": a}
        yield "POST", "/api/target", {"id": b}
        yield "POST", "/api/weapon", {"weapon": None}
        yield "POST", "/api/roll", {"kind": "dice", "count": 1 + turn % 4, "sides": 6}
        yield "POST", "/api/ruler", {"from": a, "to": [10.0 + turn % 20, 12.0]}
        yield "POST", "/api/bookmarks", {"a": a, "b": b}
        yield "POST", "/api/ruler", {"from": None}
        yield "POST", "/api/phase/advance", {}
        yield "PUT", "/api/settings", {"brightness": round(0.2 + (turn % 8) / 10, 1)}
        yield "PUT", "/api/terrain", {"terrain": [
            {"id": "wood", "polygon": [[18, 20], [26, 20], [26, 27 + turn % 3], [18, 27]], "height": 3.0,
             "traits": ["light_cover"]}]}
        yield "POST", "/api/roster/assign", {"model": a, "marker": 40 + turn % 8}
        yield "POST", "/api/undo", {}
        yield "POST", "/api/warnings/{warning}/acknowledge", {}


class Soak:
    """The clients, what they measured, and what went wrong."""

    def __init__(self, port: int, bound_s: float) -> None:
        self.port, self.bound_s = port, bound_s
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.commands = 0                       # answered (2xx, or a 4xx refusal of the table's state)
        self.games = 0
        self.reads = 0
        self.busy = 0                           # questions refused 503 'busy, try again' (Retry-After)
        self.events = 0                         # SSE snapshots received
        self.longest = (0.0, "")                # the longest command wait, and which
        self.statuses: dict[int, int] = {}
        self.failures: list[str] = []
        self.warning = ""                       # a warning id to acknowledge, from the newest state

    def fail(self, problem: str) -> None:
        with self.lock:
            self.failures.append(problem)

    def _took(self, what: str, seconds: float) -> None:
        with self.lock:
            if seconds > self.longest[0]:
                self.longest = (seconds, what)
        if seconds > self.bound_s:
            self.fail(f"{what}: answered after {seconds:.1f} s (bound {self.bound_s:g} s)")

    def request(self, conn: http.client.HTTPConnection, method: str, path: str, body: Any = None
                ) -> tuple[int, bytes]:
        headers = {"X-Table-PIN": PIN}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        conn.request(method, path, data, headers)
        reply = conn.getresponse()
        if reply.status == 503 and path.startswith("/api/query/") and reply.getheader("Retry-After"):
            with self.lock:               # the questions' queue full or too slow: a refusal it documents
                self.busy += 1
            return 429, reply.read()
        return reply.status, reply.read()

    def writer(self, worker: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.bound_s + 20)
        for method, path, body in writes(worker):
            if self.stop.is_set():
                return
            path = path.format(warning=self.warning or "none")
            asked = time.monotonic()
            try:
                status, _ = self.request(conn, method, path, body)
            except OSError as exc:
                self.fail(f"{method} {path}: {exc}")
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.bound_s + 20)
                self.stop.wait(0.5)
                continue
            self._took(f"{method} {path}", time.monotonic() - asked)
            with self.lock:
                self.commands += 1
                self.statuses[status] = self.statuses.get(status, 0) + 1
            if status >= 500:
                self.fail(f"{method} {path}: status {status}")

    def reader(self, worker: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.bound_s + 20)
        for index in itertools.count(worker):
            if self.stop.is_set():
                return
            path = READS[index % len(READS)]
            asked = time.monotonic()
            try:
                status, body = self.request(conn, "GET", path)
            except OSError as exc:
                self.fail(f"GET {path}: {exc}")
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.bound_s + 20)
                continue
            self._took(f"GET {path}", time.monotonic() - asked)
            if status >= 500:
                self.fail(f"GET {path}: status {status}")
            if path == "/api/state" and status == 200:
                warnings = json.loads(body).get("warnings", [])
                self.warning = warnings[-1]["id"] if warnings else ""
            with self.lock:
                self.reads += 1
            self.stop.wait(0.05)

    def listener(self) -> None:
        """An SSE stream: count the snapshots it is sent (reconnect if cut)."""
        while not self.stop.is_set():
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.bound_s + 20)
                conn.request("GET", "/api/events")
                reply = conn.getresponse()
                while not self.stop.is_set():
                    line = reply.readline()
                    if not line:
                        break
                    if line.startswith(b"data:"):
                        with self.lock:
                            self.events += 1
                conn.close()
            except OSError as exc:
                if not self.stop.is_set():
                    self.fail(f"GET /api/events: {exc}")
                    self.stop.wait(1.0)


class Club:
    """One MQTT client sending the table commands, each after the one before answered (by its request_id)."""

    def __init__(self, soak: Soak, broker_port: int, new_game_s: float) -> None:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        self.soak, self.new_game_s = soak, new_game_s
        self.asked: dict[str, tuple[str, float, threading.Event]] = {}     # request_id -> command, when, done
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="soak-club")
        self.client.on_message = self._on_message
        self.client.connect("127.0.0.1", broker_port)
        self.client.subscribe(f"smarttable/{TABLE_ID}/reply/+", qos=1)
        self.client.loop_start()
        scene = json.loads((ROOT / "table" / "data" / "demo.json").read_text())
        other = json.loads(json.dumps(scene))
        other["terrain"][0]["polygon"][2] = [27, 28]        # another scene: a new situation report
        self.scenes = [None, other]

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        reply = json.loads(message.payload)
        asked = self.asked.get(reply.get("request_id", ""))
        if asked is None:
            return
        name, when, done = asked
        self.soak._took(f"mqtt cmd/{name}", time.monotonic() - when)
        with self.soak.lock:
            self.soak.commands += 1
            if name == "new_game" and reply.get("ok"):
                self.soak.games += 1
        if not reply.get("ok") and name == "new_game":
            self.soak.fail(f"cmd/new_game: {reply.get('error')}")
        done.set()

    def call(self, name: str, params: dict[str, Any]) -> None:
        request_id = f"{name}-{time.monotonic_ns()}"
        done = threading.Event()
        self.asked[request_id] = (name, time.monotonic(), done)
        payload = json.dumps({**params, "request_id": request_id})
        self.client.publish(f"smarttable/{TABLE_ID}/cmd/{name}", payload, qos=1)
        if not done.wait(self.soak.bound_s + 5):
            self.soak.fail(f"mqtt cmd/{name}: no answer in {self.soak.bound_s + 5:g} s")
        self.asked.pop(request_id, None)

    def run(self) -> None:
        for turn in itertools.count():
            if self.soak.stop.wait(self.new_game_s):
                return
            scene = self.scenes[turn % 2]
            self.call("new_game", {} if scene is None else {"scene": scene})
            self.call("measure", {"question": "distance", "args": ["rifles-1", "raiders-1"]})
            self.call("confirm", {})

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


class Progress:
    """Reads the snapshot twice a second: the longest time its frames (and its seq) stood still."""

    def __init__(self, soak: Soak) -> None:
        self.soak = soak
        self.frames = self.seq = -1
        self.frames_at = self.seq_at = time.monotonic()
        self.still = {"frames": 0.0, "seq": 0.0}
        self.first_frames = self.last_frames = 0

    def run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.soak.port, timeout=self.soak.bound_s + 20)
        while not self.soak.stop.wait(0.5):
            try:
                status, body = self.soak.request(conn, "GET", "/api/state")
            except OSError as exc:
                self.soak.fail(f"progress: GET /api/state: {exc}")
                conn = http.client.HTTPConnection("127.0.0.1", self.soak.port, timeout=self.soak.bound_s + 20)
                continue
            if status != 200:
                continue
            state = json.loads(body)
            now = time.monotonic()
            frames, seq = state["status"]["frames"], state["seq"]
            if self.frames < 0:
                self.first_frames = frames
            if frames != self.frames:
                self.frames, self.frames_at = frames, now
            if seq != self.seq:
                self.seq, self.seq_at = seq, now
            self.last_frames = frames
            self.still["frames"] = max(self.still["frames"], now - self.frames_at)
            self.still["seq"] = max(self.still["seq"], now - self.seq_at)
            for what, stood in self.still.items():
                if stood > self.soak.bound_s and f"{what} stopped" not in " ".join(self.soak.failures):
                    self.soak.fail(f"{what} stopped: unchanged for {stood:.1f} s")


def start_broker(folder: Path) -> tuple[subprocess.Popen[bytes], int]:
    binary = shutil.which("mosquitto") or shutil.which("mosquitto", path="/usr/sbin:/usr/local/sbin")
    if binary is None:
        raise SystemExit("mosquitto is not installed (scripts/install-mosquitto.sh)")
    port = free_port()
    conf = folder / "mosquitto.conf"
    conf.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\nmax_queued_messages 100000\n"
                    + ("user root\n" if os.geteuid() == 0 else ""))
    broker = subprocess.Popen([binary, "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return broker, port
        except OSError:
            time.sleep(0.05)
    broker.kill()
    raise SystemExit("mosquitto did not listen")


def threads_of(targets: list[Callable[[], None]]) -> list[threading.Thread]:
    return [threading.Thread(target=target, daemon=True) for target in targets]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=300.0)
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--readers", type=int, default=3)
    parser.add_argument("--sse", type=int, default=2)
    parser.add_argument("--new-game-s", type=float, default=0.3, help="a new game over MQTT this often")
    parser.add_argument("--bound-s", type=float, default=20.0, help="every command answers within this")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="smarttable-concurrency-"))
    broker, broker_port = start_broker(folder)
    mqtt = f'[mqtt]\nurl = "mqtt://127.0.0.1:{broker_port}"\ntable_id = "{TABLE_ID}"\n'
    config = write_config(folder, mqtt)
    port = free_port()
    stderr = (folder / "table.stderr").open("w")           # read at the end (a pipe could fill and block it)
    table = demo_table.start(config, port, stderr)
    exited = None
    try:
        soak = Soak(port, args.bound_s)
        club = Club(soak, broker_port, args.new_game_s)
        progress = Progress(soak)
        clients = threads_of([lambda i=i: soak.writer(i) for i in range(args.writers)]
                             + [lambda i=i: soak.reader(i) for i in range(args.readers)]
                             + [soak.listener] * args.sse + [club.run, progress.run])
        print(f"concurrency soak: {args.writers} writing phones (every write), {args.readers} readers, "
              f"{args.sse} SSE streams, a new game over MQTT every {args.new_game_s:g} s, the demo camera; "
              f"{args.seconds:.0f} s; every command within {args.bound_s:g} s", flush=True)
        started = time.monotonic()
        for thread in clients:
            thread.start()
        time.sleep(args.seconds)
        soak.stop.set()
        deadline = time.monotonic() + args.bound_s + 25     # a client waiting longer waits on a frozen table
        for thread in clients:
            thread.join(timeout=max(0.0, deadline - time.monotonic()))
        elapsed = time.monotonic() - started
        club.close()
        stuck = [t for t in clients if t.is_alive()]
        if stuck:
            soak.fail(f"{len(stuck)} client(s) still waiting for the table after the soak")
        table.send_signal(signal.SIGTERM)
        asked = time.monotonic()
        try:
            exited = table.wait(timeout=30)
            print(f"SIGTERM: the table exited with status {exited} after {time.monotonic() - asked:.1f} s")
        except subprocess.TimeoutExpired:
            soak.fail("SIGTERM did not end the table within 30 s")
    finally:
        if table.poll() is None:
            table.kill()
            table.wait()
        broker.terminate()
        broker.wait(10)
        stderr.close()
    load = os.getloadavg()
    frames = progress.last_frames - progress.first_frames
    print(f"commands answered: {soak.commands} ({soak.commands / elapsed:.1f}/s), new games {soak.games} "
          f"({soak.games / elapsed:.2f}/s), reads {soak.reads} ({soak.reads / elapsed:.1f}/s; {soak.busy} "
          f"questions refused busy, with Retry-After), SSE snapshots {soak.events}")
    print(f"longest command wait: {soak.longest[0] * 1000:.0f} ms ({soak.longest[1]})")
    print(f"frames: {frames} ({frames / elapsed:.1f}/s); longest still: frames "
          f"{progress.still['frames']:.1f} s, snapshot seq {progress.still['seq']:.1f} s")
    print(f"statuses: {dict(sorted(soak.statuses.items()))}; "
          f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    tracebacks = (folder / "table.stderr").read_text().count("Traceback")
    if tracebacks:
        soak.fail(f"the table's stderr has {tracebacks} traceback(s): {folder / 'table.stderr'}")
    for failure in soak.failures[:20]:
        print(f"  failed: {failure}")
    if soak.failures:
        print(f"FAILED: {len(soak.failures)} problem(s)")
    return 1 if soak.failures or exited is None else 0


if __name__ == "__main__":
    sys.exit(main())
