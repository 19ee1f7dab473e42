"""SSE under load: 20 phones listening for 30 s while the table changes; does every update arrive,
and how much slower does /api/state get? Both measured in the same run against a baseline.

The panel runs in a child process (waitress on 127.0.0.1, the real table controller playing the demo
scene with mock hardware); this process is the phones. A "phone" posts a change (select) every 0.3 s,
which is slower than the SSE throttle (0.2 s), so every snapshot must reach every listener.

    .venv/bin/python bench/bench_sse.py [--clients 20] [--seconds 30]
Exit status 1 when an update is lost or the p95 ratio exceeds 3.
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PIN = "2468"
CHANGE_EVERY_S = 0.3
PROBE_EVERY_S = 0.025


def serve(folder: Path) -> None:
    """Child process: the demo table and its panel on 127.0.0.1, port printed on stdout."""
    from waitress.server import create_server

    from table.config import load_config
    from table.hw import build_hardware
    from table.live.controller import TableController
    from table.live.gamelog import GameLog
    from table.live.leds import load_layout
    from table.live.run import DEMO_SCENE
    from table.scene import load_scene
    from web_ui import create_app
    from web_ui.server import DEFAULT_THREADS

    config = load_config()
    layout = load_layout(config.path("hardware", "led_layout"))
    hardware = build_hardware(config.hardware, config.path("hardware", "pin_map"), len(layout), mock=True)
    controller = TableController(config, hardware=hardware, layout=layout,
                                 log_=GameLog(folder / "game.sqlite3"), pipeline=None,
                                 scene=load_scene(DEMO_SCENE), seed=1)
    app = create_app(controller, pin=PIN, data_dir=folder, sse_interval_s=config.web.sse_interval_s)
    server = create_server(app, host="127.0.0.1", port=0, threads=DEFAULT_THREADS)
    # waitress sets effective_port in BaseWSGIServer.__init__; types-waitress leaves it out
    print(f"PORT {server.effective_port}", flush=True)  # type: ignore[union-attr]
    server.run()


class Listener(threading.Thread):
    """One phone on /api/events from its own address (a table serves 4 streams per address), recording
    every state event's sequence number."""

    def __init__(self, port: int, stop: threading.Event, source: str):
        super().__init__(daemon=True)
        self.port, self.stop, self.source = port, stop, source
        self.seqs: list[int] = []

    def run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10, source_address=(self.source, 0))
        conn.request("GET", "/api/events")
        response = conn.getresponse()
        kind = b""
        while not self.stop.is_set():
            line = response.readline()
            if not line:
                break
            if line.startswith(b"event: "):
                kind = line[7:].strip()
            elif line.startswith(b"data: ") and kind == b"state":            # not a heartbeat
                self.seqs.append(json.loads(line[6:])["seq"])
        response.close()
        conn.close()


def probe(port: int, seconds: float) -> list[float]:
    """GET /api/state every PROBE_EVERY_S for `seconds`; latencies in milliseconds."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    times = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        start = time.perf_counter()
        conn.request("GET", "/api/state")
        response = conn.getresponse()
        response.read()
        assert response.status == 200
        times.append((time.perf_counter() - start) * 1000)
        time.sleep(PROBE_EVERY_S)
    conn.close()
    return times


def changer(port: int, seconds: float, published: list[int]) -> None:
    """Post a selection every CHANGE_EVERY_S (on a fixed schedule); keep each reply's seq."""
    ids = ["rifles-1", "raiders-1", "gunner-1", "sniper-1"]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    start = time.monotonic()
    for n in range(int(seconds / CHANGE_EVERY_S)):
        time.sleep(max(0.0, start + n * CHANGE_EVERY_S - time.monotonic()))
        conn.request("POST", "/api/select", body=json.dumps({"id": ids[n % len(ids)]}),
                     headers={"X-Table-PIN": PIN, "Content-Type": "application/json"})
        response = conn.getresponse()
        published.append(json.loads(response.read())["seq"])
    conn.close()


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[18]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--serve", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(Path(args.serve))
        return 0
    with tempfile.TemporaryDirectory() as folder:
        child = subprocess.Popen([sys.executable, __file__, "--serve", folder], cwd=ROOT,
                                 stdout=subprocess.PIPE, text=True)
        try:
            assert child.stdout is not None
            port = int(child.stdout.readline().split()[1])
            return measure(port, args.clients, args.seconds)
        finally:
            child.terminate()
            child.wait(timeout=10)


def measure(port: int, clients: int, seconds: float) -> int:
    probe(port, 1.0)                                           # warm up
    baseline = probe(port, min(seconds, 10.0))
    stop = threading.Event()
    listeners = [Listener(port, stop, f"127.0.20.{1 + i}") for i in range(clients)]
    for listener in listeners:
        listener.start()
    time.sleep(1.0)                                            # everyone has the first event
    published: list[int] = []
    writer = threading.Thread(target=changer, args=(port, seconds, published))
    writer.start()
    loaded = probe(port, seconds)
    writer.join()
    time.sleep(1.0)                                            # the last event arrives
    stop.set()
    lost = {i: sorted(set(published) - set(listener.seqs)) for i, listener in enumerate(listeners)}
    lost = {i: seqs for i, seqs in lost.items() if seqs}
    out_of_order = sum(listener.seqs != sorted(set(listener.seqs)) for listener in listeners)
    ratio = p95(loaded) / p95(baseline)
    report = {
        "clients": clients, "seconds": seconds, "updates": len(published),
        "events_received": sum(len(listener.seqs) for listener in listeners),
        "clients_losing_updates": len(lost), "clients_out_of_order": out_of_order,
        "state_p95_ms_no_clients": round(p95(baseline), 2), "state_p95_ms_under_load": round(p95(loaded), 2),
        "state_median_ms_no_clients": round(statistics.median(baseline), 2),
        "state_median_ms_under_load": round(statistics.median(loaded), 2),
        "p95_ratio": round(ratio, 2), "p95_ratio_limit": 3.0,
    }
    print(json.dumps(report, indent=2))
    return 0 if not lost and not out_of_order and ratio <= 3.0 else 1


if __name__ == "__main__":
    sys.exit(main())
