"""A club night on one machine: 40 simulated tables publishing into one Mosquitto and one hub.

Each simulated table is the real publishing path (the table's `MqttLink` over a `CommitFeed` game log
in SQLite) behind a stand-in controller whose state changes at 2 Hz (the demo scene's state
document) and which commits game events at a realistic rate (Poisson, `--events-per-s` per table).
The tables run in a few worker processes; the hub is `smarttable hub` in its own process; the broker
is Debian's Mosquitto on a free loopback port with a generated config.

Measured: events lost (in a table's log but not in the hub's store after the run: must be 0), the
latency from a table's commit to the hub's store (what the dashboard reads) p50/p95 (target p95 under
100 ms), the same latency at a bare C subscriber (`mosquitto_sub`) as the baseline of this run and the
hub's ratio to it, the hub's CPU share of one core, and the broker's and the hub's peak memory.

    .venv/bin/python bench/bench_club.py [--tables 40] [--seconds 30] [--workers 4]
Exit status 1 when an event is lost.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DRAIN_S = 15.0           # after the tables stop committing: time for the hub to have everything


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_port(port: int, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"bench_club: nothing listens on port {port}")


class SimController:
    """Stands in for the table controller where the MQTT link reads it: snapshot() and
    wait_for_change(); its state is the demo table's state document, changed on every call to
    `change()`."""

    def __init__(self, doc: dict[str, Any]):
        from table.snapshot import Snapshot

        self._cond = threading.Condition()
        self._doc = doc
        leds = tuple(tuple(c) for c in doc["leds"])
        self._snapshot = Snapshot(1, doc["status"], doc["ruleset"], doc["phase"], doc["scene"],
                                  tuple(doc["warnings"]), leds, doc["selection"], time.time())

    def change(self) -> None:
        from dataclasses import replace

        with self._cond:
            self._snapshot = replace(self._snapshot, seq=self._snapshot.seq + 1, timestamp=time.time())
            self._cond.notify_all()

    def snapshot(self) -> Any:
        with self._cond:
            return self._snapshot

    def wait_for_change(self, after_seq: int, timeout: float) -> Any:
        with self._cond:
            self._cond.wait_for(lambda: self._snapshot.seq > after_seq, timeout)
            return self._snapshot

    def command(self, name: str, **params: Any) -> dict[str, Any]:
        from table.errors import QueryError

        raise QueryError(f"the simulated table takes no command {name!r}")


def demo_state() -> dict[str, Any]:
    """The demo table's real state document (the controller on mock hardware, one selection)."""
    from table.config import load_config
    from table.hw import build_hardware
    from table.live.controller import TableController
    from table.live.gamelog import GameLog
    from table.live.leds import load_layout
    from table.live.run import DEMO_SCENE
    from table.scene import load_scene

    config = load_config()
    layout = load_layout(config.path("hardware", "led_layout"))
    hardware = build_hardware(config.hardware, config.path("hardware", "pin_map"), len(layout), mock=True)
    controller = TableController(config, hardware=hardware, layout=layout, log_=GameLog(":memory:"),
                                 pipeline=None, scene=load_scene(DEMO_SCENE), seed=3)
    try:
        controller.command("select", id="rifles")
        controller.command("target", id="raiders")
        return json.loads(json.dumps(controller.snapshot().to_dict()))
    finally:
        controller.close()


def worker(index: int, table_ids: list[str], url: str, folder: str, seconds: float, rate: float,
           doc: dict[str, Any], start_at: float, out: Any) -> None:
    """Child process: run these simulated tables for `seconds`, then report each log's seqs."""
    from table.broker import parse_url
    from table.live.commits import CommitFeed
    from table.live.mqtt_link import MqttLink, MqttSettings

    rng = random.Random(index)
    tables = []
    for table_id in table_ids:
        log = CommitFeed(Path(folder) / f"{table_id}.sqlite3")
        game = log.start_game(doc["ruleset"], {"kind": "game_start", "scene": doc["scene"]})
        sim = SimController(doc)
        link = MqttLink(sim, log, MqttSettings(parse_url(url), table_id, state_interval_s=0.5))
        tables.append((table_id, log, game, sim, link))
    for *_, link in tables:
        link.start()
    time.sleep(max(0.0, start_at - time.time()))
    end = time.monotonic() + seconds
    next_event = {t[0]: time.monotonic() + rng.expovariate(rate) for t in tables}
    next_state = time.monotonic()
    models = [m["id"] for m in doc["scene"]["models"]]
    while time.monotonic() < end:
        now = time.monotonic()
        for table_id, log, game, sim, _ in tables:
            if now >= next_event[table_id]:
                x, y = rng.uniform(0, 48), rng.uniform(0, 48)
                log.append(game, {"kind": "move", "model": rng.choice(models), "from": [x, y],
                                  "to": [x + 1.5, y], "distance": 1.5})
                sim.change()
                next_event[table_id] = now + rng.expovariate(rate)
        if now >= next_state:              # the state changes at 2 Hz (camera counters, models)
            for *_, sim, _ in tables:
                sim.change()
            next_state = now + 0.5
        time.sleep(0.005)
    time.sleep(DRAIN_S / 2)                # let the links send what is left before they stop
    for table_id, log, _, _, link in tables:
        link.close()
        out.put((table_id, [e["seq"] for e in log.since(0)]))
        log.close()


def proc_stat(pid: int) -> tuple[float, int, int]:
    """(CPU seconds used, peak RSS kB, RSS kB) of a process."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    status = dict(line.split(":", 1) for line in lines if ":" in line)
    return cpu, int(status["VmHWM"].split()[0]), int(status["VmRSS"].split()[0])


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=40)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--events-per-s", type=float, default=0.5, help="events a table commits a second")
    args = parser.parse_args()
    mosquitto = shutil.which("mosquitto") or shutil.which("mosquitto", path="/usr/sbin")
    mosquitto_sub = shutil.which("mosquitto_sub")
    if not mosquitto or not mosquitto_sub:
        raise SystemExit("bench_club: needs Debian's mosquitto and mosquitto-clients "
                         "(scripts/install-mosquitto.sh)")
    folder = Path(tempfile.mkdtemp(prefix="bench-club-"))
    port, web = free_port(), free_port()
    conf = folder / "mosquitto.conf"
    conf.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\nset_tcp_nodelay true\n"
                    f"max_queued_messages 100000\n{'user root' if os.geteuid() == 0 else ''}\n")
    url = f"mqtt://127.0.0.1:{port}"
    broker = subprocess.Popen([mosquitto, "-c", str(conf)], stderr=subprocess.DEVNULL)
    wait_port(port)
    bare_out = (folder / "bare.txt").open("w")
    bare = subprocess.Popen([mosquitto_sub, "-p", str(port), "-q", "1", "-t", "smarttable/+/events",
                             "-F", "%U %p"], stdout=bare_out)
    states_out = (folder / "states.txt").open("w")
    states = subprocess.Popen([mosquitto_sub, "-p", str(port), "-t", "smarttable/+/state", "-F", "%U %l"],
                              stdout=states_out)
    hub = subprocess.Popen([sys.executable, "-m", "table.cli", "hub", "--mqtt", url, "--host", "127.0.0.1",
                            "--port", str(web), "--db", str(folder / "hub.sqlite3"),
                            "--client-id", "bench-hub"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    wait_port(web)
    doc = demo_state()
    ids = [f"t{n:02d}" for n in range(args.tables)]
    queue: Any = multiprocessing.get_context("spawn").Queue()
    start_at = time.time() + 3.0 + 0.15 * args.tables
    workers = [multiprocessing.get_context("spawn").Process(
        target=worker, args=(i, ids[i::args.workers], url, str(folder), args.seconds, args.events_per_s, doc,
                             start_at, queue)) for i in range(args.workers)]
    for process in workers:
        process.start()
    time.sleep(max(0.0, start_at - time.time()))
    polls: list[float] = []
    stop_polling = threading.Event()

    def dashboard() -> None:           # one dashboard open, reading every table once a second, as hub.js does
        while not stop_polling.wait(1.0):
            began = time.perf_counter()
            urllib.request.urlopen(f"http://127.0.0.1:{web}/api/tables", timeout=10).read()
            urllib.request.urlopen(f"http://127.0.0.1:{web}/api/events?limit=40", timeout=10).read()
            polls.append((time.perf_counter() - began) * 1000)

    poller = threading.Thread(target=dashboard, daemon=True)
    poller.start()
    hub_cpu0, _, _ = proc_stat(hub.pid)
    broker_cpu0, _, _ = proc_stat(broker.pid)
    wall0, wall_started = time.monotonic(), time.time()
    time.sleep(args.seconds)
    hub_cpu1, _, hub_rss = proc_stat(hub.pid)
    broker_cpu1, _, broker_rss = proc_stat(broker.pid)
    wall = time.monotonic() - wall0
    stop_polling.set()
    logs = dict(queue.get(timeout=120) for _ in ids)
    for process in workers:
        process.join(60)
    deadline = time.monotonic() + DRAIN_S
    db = sqlite3.connect(folder / "hub.sqlite3")

    def lost() -> int:
        held: dict[str, set[int]] = {}
        for table_id, seq in db.execute("SELECT table_id, seq FROM events"):
            held.setdefault(table_id, set()).add(seq)
        return sum(len(set(seqs) - held.get(t, set())) for t, seqs in logs.items())

    while lost() and time.monotonic() < deadline:
        time.sleep(0.5)
    missing = lost()
    listed = json.load(urllib.request.urlopen(f"http://127.0.0.1:{web}/api/tables", timeout=10))
    rows = db.execute("SELECT kind, ts, received FROM events WHERE kind = 'move'").fetchall()
    hub_ms = [(received - ts) * 1000 for _, ts, received in rows]
    _, hub_peak, _ = proc_stat(hub.pid)
    _, broker_peak, _ = proc_stat(broker.pid)
    for child in (hub, bare, states, broker):
        child.send_signal(signal.SIGTERM)
        child.wait(20)
    bare_out.close()
    states_out.close()
    stamps = [float(line.split()[0]) for line in (folder / "states.txt").read_text().splitlines()]
    state_rate = sum(1 for t in stamps if wall_started <= t <= wall_started + wall) / wall
    bare_ms = []
    for line in (folder / "bare.txt").read_text().splitlines():
        when, _, payload = line.partition(" ")
        event = json.loads(payload)
        if event.get("kind") == "move":
            bare_ms.append((float(when) - event["ts"]) * 1000)
    events = sum(len(s) for s in logs.values())
    p50, p95 = statistics.median(hub_ms), percentile(hub_ms, 0.95)
    b50, b95 = statistics.median(bare_ms), percentile(bare_ms, 0.95)
    print(f"club: {args.tables} tables, {args.seconds:.0f} s, state at 2 Hz, {args.events_per_s} events/s "
          f"a table, {args.workers} table processes; load average {os.getloadavg()[0]:.1f}")
    print(f"  events committed            {events} ({len(hub_ms)} moves timed)")
    print(f"  lost (must be 0)            {missing}")
    online = sum(t["online"] for t in listed["tables"])
    print(f"  tables the hub lists        {len(listed['tables'])} ({online} online after the tables stopped)")
    print(f"  commit -> hub store  p50    {p50:7.1f} ms   p95 {p95:7.1f} ms   (target p95 < 100 ms)")
    print(f"  commit -> mosquitto_sub p50 {b50:7.1f} ms   p95 {b95:7.1f} ms   (baseline, same run)")
    print(f"  hub / baseline              p50 x{p50 / b50:.2f}   p95 x{p95 / b95:.2f}")
    print(f"  hub CPU                     {100 * (hub_cpu1 - hub_cpu0) / wall:.1f}% of one core (a dashboard "
          f"polling every second: /api/tables + /api/events p50 {statistics.median(polls):.0f} ms)")
    print(f"  state messages              {state_rate:.0f} a second through the broker "
          f"({len(json.dumps(doc, separators=(',', ':'))) / 1024:.1f} kB each)")
    print(f"  broker CPU                  {100 * (broker_cpu1 - broker_cpu0) / wall:.1f}% of one core")
    print(f"  memory peak (RSS)           hub {hub_peak / 1024:.1f} MB (now {hub_rss / 1024:.1f}), "
          f"broker {broker_peak / 1024:.1f} MB (now {broker_rss / 1024:.1f})")
    shutil.rmtree(folder, ignore_errors=True)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
