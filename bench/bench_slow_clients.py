"""Slow and greedy clients against the running demo table (`smarttable run --demo`, a separate process,
camera and all): issue 25's attacks, each against a baseline measured in the same run.

  slowloris  505 sockets, each sending one byte of a request head every 4 s (opened again as soon as
             the table closes one), from one address, then from 505; the p95 of a phone's GET /api/state
             before and during each attack.
  unread     40 SSE clients (one address each) that never read, while the table changes every 0.3 s;
             the table's RSS before them and every 30 s for 5 minutes, and whether a new phone still
             gets its stream at the end.
  questions  8 addresses with no PIN, 4 connections each, flooding los, report and charge for 30 s: the
             camera loop's frame rate, the p95 of a phone's GET /api/state and of its measure cards
             (distance, band and los at once, every 5 s), before and during the flood.
  pin        300 addresses each guessing a PIN once every 65 s (4.6 a second in all) for 5 minutes;
             every 20 s the owner's phone (a new address, showing the panel) sends the right PIN, trying
             again after each Retry-After as the panel does: how long until it gets in.

    .venv/bin/python bench/bench_slow_clients.py slowloris [--seconds 60] [--addresses 1 505]
    .venv/bin/python bench/bench_slow_clients.py unread [--seconds 300] [--clients 40]
    .venv/bin/python bench/bench_slow_clients.py questions [--seconds 30]
    .venv/bin/python bench/bench_slow_clients.py pin [--seconds 300]
Exit status 1 when a phone's request fails, (unread) the RSS grows by more than --max-growth-mb, or
(pin) the owner waits more than 10 s.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import demo_table
from demo_table import PIN, free_port, write_config

HEAD = b"GET /api/state HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + b"a" * 20000


def start_table(folder: Path) -> tuple[subprocess.Popen[str], int]:
    port = free_port()
    return demo_table.start(write_config(folder), port), port


def ask(port: int, path: str, source: str = "127.0.0.1", timeout: float = 30.0) -> tuple[int, float]:
    """GET `path` on a new connection: its status and how long it took (s)."""
    asked = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout, source_address=(source, 0))
    try:
        conn.request("GET", path)
        reply = conn.getresponse()
        reply.read()
        return reply.status, time.monotonic() - asked
    finally:
        conn.close()


def phone(port: int, seconds: float) -> tuple[list[float], int]:
    """A phone asking /api/state every 0.2 s for `seconds`: the latencies, and how many failed."""
    took, failed = [], 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            status, seconds_taken = ask(port, "/api/state")
            took.append(seconds_taken)
            failed += status != 200
        except OSError:
            failed += 1
        time.sleep(0.2)
    return took, failed


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) > 1 else (values or [0.0])[0]


def trickle(port: int, count: int, addresses: list[str], every_s: float, stop: threading.Event) -> list[int]:
    """Keep `count` sockets sending a byte of `HEAD` every `every_s`; returns [sockets reopened]."""
    socks: list[socket.socket | None] = [None] * count
    sent, reopened = [0] * count, [0]

    def opened(i: int) -> socket.socket | None:
        s = socket.socket()
        s.settimeout(2.0)
        try:
            s.bind((addresses[i % len(addresses)], 0))
            s.connect(("127.0.0.1", port))
        except OSError:
            s.close()
            return None
        s.setblocking(False)
        sent[i] = 0
        return s

    def run() -> None:
        while not stop.is_set():
            for i in range(count):
                s = socks[i]
                if s is not None:
                    try:
                        s.recv(1)                        # b"" (closed) or an answer: either way gone
                    except BlockingIOError:              # open and silent: trickle on
                        try:
                            s.send(HEAD[sent[i]:sent[i] + 1])
                            sent[i] += 1
                            continue
                        except OSError:
                            pass
                    except OSError:
                        pass
                    s.close()
                    reopened[0] += 1
                socks[i] = opened(i)
            stop.wait(every_s)
        for s in socks:
            if s is not None:
                s.close()

    threading.Thread(target=run, daemon=True).start()
    return reopened


def slowloris(port: int, seconds: float, address_counts: list[int]) -> int:
    base, base_failed = phone(port, min(seconds, 20.0))
    print(f"/api/state with no attack: p95 {p95(base) * 1000:.0f} ms ({len(base)} requests, "
          f"{base_failed} failed)")
    failures = base_failed
    for count in address_counts:
        stop = threading.Event()
        addresses = [f"127.{40 + i // 250}.1.{1 + i % 250}" for i in range(count)]
        reopened = trickle(port, 505, addresses, 4.0, stop)
        time.sleep(8.0)                                  # every socket is open and has trickled
        took, failed = phone(port, seconds)
        stop.set()
        failures += failed
        print(f"/api/state under 505 trickling sockets from {count} address(es): p95 "
              f"{p95(took) * 1000:.0f} ms (x{p95(took) / p95(base):.1f} the baseline), max "
              f"{max(took) * 1000:.0f} ms, {len(took)} requests, {failed} failed; the table let go of "
              f"{reopened[0]} attacking sockets")
        time.sleep(5.0)
    return 1 if failures else 0


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def connected(port: int, prefix: str) -> int:
    """How many connections the table on `port` holds open (its side) from addresses starting `prefix`."""
    out = subprocess.run(["ss", "-Htn", "state", "established", f"( sport = :{port} )"], capture_output=True,
                         text=True, check=False).stdout
    return sum(line.split()[3].startswith(prefix) for line in out.splitlines() if len(line.split()) >= 4)


def unread(port: int, pid: int, seconds: float, clients: int, max_growth_mb: float) -> int:
    stop = threading.Event()

    def changes() -> None:
        ids = ["rifles-1", "raiders-1", "gunner-1", "sniper-1"]
        n = 0
        while not stop.is_set():
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=("127.0.50.1", 0))
            conn.request("POST", "/api/select", body=json.dumps({"id": ids[n % len(ids)]}),
                         headers={"X-Table-PIN": PIN, "Content-Type": "application/json"})
            conn.getresponse().read()
            conn.close()
            n += 1
            stop.wait(0.3)

    threading.Thread(target=changes, daemon=True).start()
    time.sleep(10.0)
    control_s = min(60.0, seconds / 5)
    before = rss_mb(pid)
    time.sleep(control_s)                                # the table's own growth while it changes
    baseline = rss_mb(pid)
    print(f"the table changing every 0.3 s, no clients: RSS {before:.1f} -> {baseline:.1f} MB in "
          f"{control_s:.0f} s ({(baseline - before) / control_s * 60:+.1f} MB a minute)")
    sleepers = []
    for i in range(clients):                             # whole state events: the most a client can be sent
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.bind((f"127.0.51.{1 + i}", 0))
        s.connect(("127.0.0.1", port))
        s.sendall(b"GET /api/events HTTP/1.1\r\nHost: localhost\r\n\r\n")
        sleepers.append(s)
    print(f"then {clients} SSE clients that never read:")
    start, peak, rss = time.monotonic(), baseline, baseline
    print(f"{'t (s)':>6} {'RSS (MB)':>9} {'growth':>7} {'still connected':>16}")
    while time.monotonic() - start < seconds:
        time.sleep(min(30.0, seconds - (time.monotonic() - start)))
        rss = rss_mb(pid)
        peak = max(peak, rss)
        still = connected(port, "127.0.51.")
        print(f"{time.monotonic() - start:6.0f} {rss:9.1f} {rss - baseline:+7.1f} {still:16d}", flush=True)
    status, _ = ask(port, "/api/state", source="127.0.52.1")
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=("127.0.52.2", 0))
    conn.request("GET", "/api/events")
    stream_status = conn.getresponse().status
    conn.close()
    stop.set()
    for s in sleepers:
        s.close()
    print(f"after {seconds:.0f} s: RSS {rss:.1f} MB ({rss - baseline:+.1f} MB), peak {peak:.1f} MB; "
          f"a new phone: /api/state {status}, /api/events {stream_status}")
    return 0 if rss - baseline <= max_growth_mb and status == stream_status == 200 else 1


FLOOD = ["/api/query/los?arg=rifles-1&arg=raiders-1", "/api/query/report",
         "/api/query/charge?arg=raiders&arg=rifles"]
CARD = [f"/api/query/{q}?arg=rifles-1&arg=raiders-1" for q in ("distance", "band", "los")]


def frames(port: int) -> tuple[int, float]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=("127.0.80.9", 0))
    conn.request("GET", "/api/state")
    count = json.loads(conn.getresponse().read())["status"]["frames"]
    conn.close()
    return count, time.monotonic()


def card(port: int) -> tuple[float, list[str]]:
    """A phone's measure card: its questions at once, as the panel asks them (again after a 429 or 503:
    Retry-After is 1 s); how long until the last answer, and the ones that failed."""
    from concurrent.futures import ThreadPoolExecutor

    def answer(path: str) -> tuple[int, float]:
        for _ in range(2):                               # the panel asks again after a 429 or 503, twice
            status, took = ask(port, path, source="127.0.80.2")
            if status not in (429, 503):
                return status, took
            time.sleep(1.0)
        return ask(port, path, source="127.0.80.2")

    asked = time.monotonic()
    with ThreadPoolExecutor(len(CARD)) as pool:
        replies = list(pool.map(answer, CARD))
    failed = [f"{path.split('?')[0]} {status}" for path, (status, _) in zip(CARD, replies, strict=True)
              if status != 200]
    return time.monotonic() - asked, failed


def measured(port: int, seconds: float) -> tuple[float, list[float], list[float], list[str]]:
    """Over `seconds`: the camera loop's frames a second, a phone's /api/state latencies (every 0.5 s)
    and measure cards' times (every 5 s), and what failed."""
    (start_frames, start), states, cards, failed = frames(port), [], [], []
    end, next_card = start + seconds, start
    while time.monotonic() < end:
        try:
            status, took = ask(port, "/api/state", source="127.0.80.1")
            states.append(took)
            failed += [f"/api/state {status}"] if status != 200 else []
            if time.monotonic() >= next_card:
                took, problems = card(port)
                cards.append(took)
                failed += problems
                next_card += 5.0
        except OSError as exc:
            failed.append(str(exc))
        time.sleep(0.5)
    end_frames, end = frames(port)
    return (end_frames - start_frames) / (end - start), states, cards, failed


def questions_flood(port: int, seconds: float) -> int:
    fps, states, cards, failed = measured(port, seconds)
    print(f"no flood:          camera loop {fps:.1f} fps; /api/state p95 {p95(states) * 1000:.0f} ms; "
          f"a measure card p95 {p95(cards) * 1000:.0f} ms; failed: {failed or 'none'}")
    stop, statuses = threading.Event(), []

    def flood(source: str, k: int) -> None:
        while not stop.is_set():
            try:
                statuses.append(ask(port, FLOOD[k % len(FLOOD)], source=source)[0])
            except OSError:
                statuses.append(0)

    flooders = [threading.Thread(target=flood, args=(f"127.0.81.{1 + a}", k), daemon=True)
                for a in range(8) for k in range(4)]
    for thread in flooders:
        thread.start()
    time.sleep(3.0)
    fps_flood, states_flood, cards_flood, failed_flood = measured(port, seconds)
    stop.set()
    for thread in flooders:
        thread.join(timeout=35)
    print(f"8 flooding phones: camera loop {fps_flood:.1f} fps ({fps_flood / fps:.2f}x); /api/state p95 "
          f"{p95(states_flood) * 1000:.0f} ms ({p95(states_flood) / p95(states):.1f}x); a measure card p95 "
          f"{p95(cards_flood) * 1000:.0f} ms; failed: {failed_flood or 'none'}; the flood: "
          f"{statuses.count(200)} answered, {statuses.count(429)} 429, {statuses.count(503)} 503")
    return 1 if failed or failed_flood else 0


def change(port: int, source: str, pin: str) -> tuple[int, float]:
    """POST a phase change with `pin` from `source`: the status and its Retry-After (0 without)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(source, 0))
    try:
        conn.request("POST", "/api/phase/advance", body="{}",
                     headers={"X-Table-PIN": pin, "Content-Type": "application/json"})
        reply = conn.getresponse()
        reply.read()
        return reply.status, float(reply.getheader("Retry-After") or 0)
    finally:
        conn.close()


def pin_attack(port: int, seconds: float) -> int:
    from concurrent.futures import ThreadPoolExecutor

    stop, statuses = threading.Event(), []
    guessers = [f"127.{60 + i // 250}.3.{1 + i % 250}" for i in range(300)]
    pool = ThreadPoolExecutor(max_workers=48)

    def guess() -> None:
        start, n = time.monotonic(), 0
        while not stop.is_set():
            pool.submit(lambda s=guessers[n % 300], k=n: statuses.append(change(port, s, f"{k:06d}")[0]))
            n += 1
            stop.wait(max(0.0, start + n * 65.0 / 300 - time.monotonic()))

    threading.Thread(target=guess, daemon=True).start()
    waits, start = [], time.monotonic()
    print("300 addresses guessing once every 65 s each; the owner's phone every 20 s:")
    for k in range(int(seconds // 20)):
        time.sleep(max(0.0, start + (k + 1) * 20 - time.monotonic()))
        owner = f"127.0.70.{1 + k}"
        panel = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(owner, 0))
        panel.request("GET", "/api/events")
        stream = panel.getresponse()                     # showing the panel (kept open)
        asked, tries = time.monotonic(), 0
        while time.monotonic() - asked < 60:
            status, retry = change(port, owner, PIN)
            tries += 1
            if status == 200:
                break
            time.sleep(retry or 1.0)
        waits.append(time.monotonic() - asked if status == 200 else float("inf"))
        print(f"  at {time.monotonic() - start:5.0f} s: in after {waits[-1]:.2f} s ({tries} tries)",
              flush=True)
        stream.close()
        panel.close()
    stop.set()
    pool.shutdown(wait=True)
    checked, refused = statuses.count(403), statuses.count(429)
    print(f"the owner's time to get in: median {statistics.median(waits):.2f} s, worst {max(waits):.2f} s; "
          f"guesses {len(statuses)}: {checked} checked ({checked / seconds:.2f} a second), {refused} refused")
    return 0 if max(waits) <= 10 else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("attack", choices=["slowloris", "unread", "questions", "pin"])
    parser.add_argument("--seconds", type=float, help="each attack's length (slowloris 60, unread 300)")
    parser.add_argument("--addresses", type=int, nargs="+", default=[1, 505])
    parser.add_argument("--clients", type=int, default=40)
    parser.add_argument("--max-growth-mb", type=float, default=30.0)
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(max(soft, 4096), hard), hard))
    print(f"load before: {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory(prefix="smarttable-slow-") as folder:
        table, port = start_table(Path(folder))
        try:
            if args.attack == "slowloris":
                code = slowloris(port, args.seconds or 60.0, args.addresses)
            elif args.attack == "questions":
                code = questions_flood(port, args.seconds or 30.0)
            elif args.attack == "pin":
                code = pin_attack(port, args.seconds or 300.0)
            else:
                code = unread(port, table.pid, args.seconds or 300.0, args.clients, args.max_growth_mb)
        finally:
            demo_table.stop(table)
    print(f"load after: {os.getloadavg()[0]:.2f} (1 min)")
    return code


if __name__ == "__main__":
    sys.exit(main())
