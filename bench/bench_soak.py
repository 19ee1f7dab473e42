"""Soak: simulated phones on every endpoint, SSE listeners and camera streams against the running demo
table (`smarttable run --demo`, a separate process, camera and all) for an hour (CI: two minutes).
Prints the table's RSS over time and request latency; the baseline is the table's own RSS after the
warm-up, measured in the same run.

    .venv/bin/python bench/bench_soak.py [--seconds 3600] [--pollers 12] [--sse 8] [--streams 4]
Exit status 1 when the table's RSS passes --max-rss-mb (300) or a request fails.
"""

from __future__ import annotations

import argparse
import http.client
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import demo_table
from demo_table import free_port, write_config

POLLED = ("/api/state", "/api/camera.jpg", "/api/log?after=0&limit=50", "/api/questions", "/api/rulesets",
          "/api/openapi.json", "/api/scenes", "/api/query/distance?arg=rifles-1&arg=raiders-1", "/")
POLL_EVERY_S = 0.5
WARM_UP_S = 10.0


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


class Phones:
    """Threads playing phones until `stop`; latencies and failures per path."""

    def __init__(self, port: int, paths: tuple[str, ...] = POLLED):
        self.port, self.paths = port, paths
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.latency: dict[str, list[float]] = {}
        self.failures: list[str] = []
        self.streamed = 0

    def _record(self, path: str, seconds: float | None, problem: str = "") -> None:
        with self.lock:
            if seconds is not None:
                self.latency.setdefault(path.split("?")[0], []).append(seconds)
            if problem:
                self.failures.append(f"{path}: {problem}")

    def poller(self, offset: int) -> None:
        """One phone (its own address: a table holds 16 connections per address) polling every path."""
        index = offset
        while not self.stop.is_set():
            path = self.paths[index % len(self.paths)]
            index += 1
            asked = time.monotonic()
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30,
                                                  source_address=(f"127.0.30.{1 + offset}", 0))
                conn.request("GET", path)
                reply = conn.getresponse()
                reply.read()
                conn.close()
                ok = reply.status == 200 or (path.startswith("/api/camera") and reply.status == 404)
                self._record(path, time.monotonic() - asked, "" if ok else f"status {reply.status}")
            except OSError as exc:
                self._record(path, None, str(exc))
            self.stop.wait(POLL_EVERY_S)

    def stream(self, path: str, source: str) -> None:
        """An SSE listener or an MJPEG viewer from `source` (a table serves 4 live connections per
        address): read for as long as the soak lasts (reconnect if cut)."""
        while not self.stop.is_set():
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30,
                                                  source_address=(source, 0))
                conn.request("GET", path)
                reply = conn.getresponse()
                if reply.status != 200:
                    self._record(path, None, f"status {reply.status}")
                    self.stop.wait(1.0)
                    continue
                while not self.stop.is_set():
                    chunk = reply.read1(65536)
                    if not chunk:
                        break
                    with self.lock:
                        self.streamed += len(chunk)
                conn.close()
            except OSError as exc:
                self._record(path, None, str(exc))
                self.stop.wait(1.0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3600.0)
    parser.add_argument("--pollers", type=int, default=12)
    parser.add_argument("--sse", type=int, default=8)
    parser.add_argument("--streams", type=int, default=4)
    parser.add_argument("--sample-s", type=float, default=0.0,
                        help="RSS sample interval (default: 1/12 of the run)")
    parser.add_argument("--max-rss-mb", type=float, default=300.0)
    parser.add_argument("--paths", nargs="+", default=list(POLLED), help="the paths the polling phones ask")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="smarttable-soak-"))
    port = free_port()
    table = demo_table.start(write_config(folder), port)
    try:
        phones = Phones(port, tuple(args.paths))
        threads = [threading.Thread(target=phones.poller, args=(i,), daemon=True)
                   for i in range(args.pollers)]
        threads += [threading.Thread(target=phones.stream, args=("/api/events", f"127.0.31.{1 + i}"),
                                     daemon=True) for i in range(args.sse)]
        threads += [threading.Thread(target=phones.stream, args=("/api/camera.mjpeg", f"127.0.32.{1 + i}"),
                                     daemon=True) for i in range(args.streams)]
        start = time.monotonic()
        for thread in threads:
            thread.start()
        sample_s = args.sample_s or max(args.seconds / 12, 5.0)
        time.sleep(min(WARM_UP_S, args.seconds / 4))
        baseline = rss_mb(table.pid)
        print(f"soak: {args.pollers} polling phones (every endpoint, one request each {POLL_EVERY_S} s), "
              f"{args.sse} SSE listeners, {args.streams} camera streams for {args.seconds:.0f} s")
        print(f"{'t (s)':>8} {'RSS (MB)':>9} {'x baseline':>10}")
        print(f"{time.monotonic() - start:8.0f} {baseline:9.1f} {1.0:10.2f}   (baseline, after warm-up)")
        peak = baseline
        while time.monotonic() - start < args.seconds:
            time.sleep(min(sample_s, max(0.0, args.seconds - (time.monotonic() - start))))
            rss = rss_mb(table.pid)
            peak = max(peak, rss)
            print(f"{time.monotonic() - start:8.0f} {rss:9.1f} {rss / baseline:10.2f}", flush=True)
        phones.stop.set()
        for thread in threads:
            thread.join(timeout=35)
    finally:
        demo_table.stop(table)
    print(f"{'path':<28} {'requests':>8} {'p50 ms':>8} {'p95 ms':>8}")
    everything = []
    for path, times in sorted(phones.latency.items()):
        everything += times
        p95 = statistics.quantiles(times, n=20)[-1] if len(times) > 1 else times[0]
        print(f"{path:<28} {len(times):8d} {statistics.median(times) * 1000:8.1f} {p95 * 1000:8.1f}")
    overall = statistics.quantiles(everything, n=20)[-1] if len(everything) > 1 else 0.0
    print(f"all requests: {len(everything)}, p95 {overall * 1000:.1f} ms; "
          f"streamed {phones.streamed / 1e6:.1f} MB; failures {len(phones.failures)}")
    print(f"RSS: baseline {baseline:.1f} MB, peak {peak:.1f} MB ({peak / baseline:.2f}x), "
          f"final {rss:.1f} MB; limit {args.max_rss_mb:.0f} MB")
    for failure in phones.failures[:10]:
        print(f"  failed: {failure}")
    return 1 if peak > args.max_rss_mb or phones.failures else 0


if __name__ == "__main__":
    sys.exit(main())
