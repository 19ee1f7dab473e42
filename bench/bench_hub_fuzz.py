"""The club's hub under a fuzzer (bench/hub_fuzz.py), the long form of tests/club/test_club_hub_fuzz.py.

A real Mosquitto, the hub (in this process, so its MQTT thread's own CPU time is read from
/proc/self/task), and `--tables` good tables on the table's real publishing path (its MQTT link over a
SQLite game log, committing `--events-per-s` events a second each). First `--seconds` without the fuzzer
(the baseline), then as long with it publishing as fast as the broker takes it. Measured: messages sent,
the hub's refusals by reason, failures in handling a message (must be 0: a failure is a fault found), the
good tables' events in the hub's store (must be all, once, unchanged), commit -> hub store latency p50 and
p95 with and without the fuzzer, and the hub's MQTT thread's CPU in both phases.

    .venv/bin/python bench/bench_hub_fuzz.py [--seeds 1 2 3] [--examples 200] [--seconds 20] [--tables 4]
Exit status 1 when a good table lost or gained an event, or handling a message failed.
"""

from __future__ import annotations

import argparse
import logging
import multiprocessing
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bench_club import SimController, demo_state, free_port, percentile, wait_port
from hub_fuzz import fuzz, publisher

from hub.listener import Hub
from hub.store import HubStore
from table.broker import parse_url


def thread_cpu(thread: threading.Thread | None) -> float:
    """CPU seconds a thread of this process has used (0 if it is gone)."""
    if thread is None or thread.native_id is None:
        return 0.0
    try:
        fields = Path(f"/proc/self/task/{thread.native_id}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Tables:
    """Good tables committing moves at `rate` a second each until stopped."""

    def __init__(self, url: str, folder: Path, count: int, rate: float):
        from table.live.commits import CommitFeed
        from table.live.mqtt_link import MqttLink, MqttSettings

        doc = demo_state()
        self.ids = [f"good-{n}" for n in range(count)]
        self.rate, self.stop = rate, threading.Event()
        self.models = [m["id"] for m in doc["scene"]["models"]]
        self.tables = []
        for table_id in self.ids:
            log = CommitFeed(folder / f"{table_id}.sqlite3")
            game = log.start_game(doc["ruleset"], {"kind": "game_start", "scene": doc["scene"]})
            sim = SimController(doc)
            link = MqttLink(sim, log, MqttSettings(parse_url(url), table_id, state_interval_s=0.5))
            link.start()
            self.tables.append((table_id, log, game, sim, link))
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        rng = random.Random(7)
        while not self.stop.wait(rng.expovariate(self.rate * len(self.tables))):
            _, log, game, sim, _ = rng.choice(self.tables)
            x, y = rng.uniform(0, 48), rng.uniform(0, 48)
            log.append(game, {"kind": "move", "model": rng.choice(self.models), "from": [x, y],
                              "to": [x + 1, y], "distance": 1.0})
            sim.change()

    def logged(self) -> dict[str, list[dict[str, Any]]]:
        return {table_id: log.since(0) for table_id, log, *_ in self.tables}

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)
        for _, log, _, _, link in self.tables:
            link.close()
            log.close()


def fuzzer(port: int, seeds: list[int], examples: int, good: tuple[str, ...], request_id: str,
           out: Any) -> None:
    """Child process: the fuzzer (hypothesis is CPU-hungry: here it takes no time from the hub's process)."""
    total: Counter[str] = Counter()
    messages = size = 0
    with publisher("127.0.0.1", port) as publish:
        for rng_seed in seeds:
            sent = fuzz(publish, examples=examples, rng_seed=rng_seed, prefix="smarttable", good=good,
                        request_id=request_id)
            messages, size = messages + sent.messages, size + sent.bytes
            total.update(sent.by_kind)
    out.put((messages, size, dict(total)))


def latencies(hub: Hub, ids: list[str], since: float, until: float) -> list[float]:
    """Commit -> hub store (ms) of the moves committed in [since, until)."""
    return [(e["received"] - e["ts"]) * 1000 for t in ids for e in hub.store.events(t, limit=100000)
            if e["kind"] == "move" and since <= e["ts"] < until]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--examples", type=int, default=200, help="batches of messages per seed")
    parser.add_argument("--seconds", type=float, default=20.0, help="the baseline's (the fuzz takes its own)")
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--events-per-s", type=float, default=2.0, help="events a good table commits a s")
    args = parser.parse_args()
    logging.getLogger("hub").setLevel(logging.ERROR)        # the hub logs what it refuses; counted below
    mosquitto = shutil.which("mosquitto") or shutil.which("mosquitto", path="/usr/sbin")
    if not mosquitto:
        raise SystemExit("bench_hub_fuzz: needs Debian's mosquitto (scripts/install-mosquitto.sh)")
    folder = Path(tempfile.mkdtemp(prefix="bench-hub-fuzz-"))
    port = free_port()
    conf = folder / "mosquitto.conf"
    conf.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\nmax_queued_messages 100000\n"
                    f"{'user root' if os.geteuid() == 0 else ''}\n")
    broker = subprocess.Popen([mosquitto, "-c", str(conf)], stderr=subprocess.DEVNULL)
    wait_port(port)
    url = f"mqtt://127.0.0.1:{port}"
    hub = Hub(HubStore(folder / "hub.sqlite3"), parse_url(url), client_id="bench-fuzzed-hub")
    hub.start()
    assert hub.connected.wait(10)
    tables = Tables(url, folder, args.tables, args.events_per_s)
    try:
        network = next(t for t in threading.enumerate() if t.name.startswith("paho-mqtt-client-bench-fuzzed"))
        base0, cpu0 = time.time(), thread_cpu(network)
        time.sleep(args.seconds)
        base1, cpu1 = time.time(), thread_cpu(network)
        messages0 = hub.health.messages
        spawn = multiprocessing.get_context("spawn")
        queue: Any = spawn.Queue()
        child = spawn.Process(target=fuzzer, args=(port, args.seeds, args.examples, tuple(tables.ids),
                                                   hub.request_id, queue))
        child.start()
        sent_messages, sent_bytes, sent_all = queue.get()
        child.join(30)
        fuzz1, cpu2 = time.time(), thread_cpu(network)
        time.sleep(3.0)                                  # the last events reach the hub
        handled = hub.health.messages - messages0
        tables.stop.set()
        time.sleep(2.0)
        logged = tables.logged()
        wrong = 0
        for table_id, events in logged.items():
            stored = [{k: v for k, v in e.items() if k not in ("table", "received")}
                      for e in hub.store.events(table_id, limit=100000)]
            if stored != events:
                wrong += 1
                seqs = [e["seq"] for e in events]
                got = [e["seq"] for e in stored]
                first = next((i for i, (a, b) in enumerate(zip(stored, events, strict=False)) if a != b),
                             None)
                print(f"  {table_id}: logged {len(seqs)} (last {seqs[-3:]}), stored {len(got)} "
                      f"(last {got[-3:]}); first difference at {first}")
        refused: Counter[str] = Counter()
        for view in list(hub.views.values()):
            refused.update(view.faults.to_json()["by_reason"])
        base = latencies(hub, tables.ids, base0, base1)
        during = latencies(hub, tables.ids, base1, fuzz1)
        fuzz_s = fuzz1 - base1
        print(f"hub fuzz: seeds {args.seeds}, {args.examples} batches each, {args.tables} good tables at "
              f"{args.events_per_s} events/s; load average {os.getloadavg()[0]:.1f} (uptime: "
              f"{subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()})")
        print(f"  messages sent               {sent_messages} ({sent_bytes / 1e6:.1f} MB) in {fuzz_s:.1f} s: "
              f"{dict(sent_all)}")
        print(f"  messages the hub handled    {handled} ({handled / fuzz_s:.0f} a second)")
        print(f"  refused, by reason          {sum(refused.values())}: {dict(refused.most_common())}")
        print(f"  ignored                     {dict(hub.health.ignored)}")
        print(f"  failures (must be 0)        {hub.health.failures} {hub.health.last_failure or ''}")
        print(f"  good tables wrong (must be 0) {wrong} of {len(logged)} "
              f"({sum(map(len, logged.values()))} events)")
        print(f"  tables the hub knows        {len(hub.views)}")
        print(f"  commit -> store, baseline   p50 {statistics.median(base):6.1f} ms  p95 "
              f"{percentile(base, 0.95):6.1f} ms  ({len(base)} moves)")
        print(f"  commit -> store, fuzzed     p50 {statistics.median(during):6.1f} ms  p95 "
              f"{percentile(during, 0.95):6.1f} ms  ({len(during)} moves)")
        print(f"  hub MQTT thread CPU         baseline {100 * (cpu1 - cpu0) / (base1 - base0):.1f}% of one "
              f"core, fuzzed {100 * (cpu2 - cpu1) / fuzz_s:.1f}%")
        return 1 if wrong or hub.health.failures else 0
    finally:
        tables.close()
        hub.close()
        hub.store.close()
        broker.terminate()
        broker.wait(10)
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
