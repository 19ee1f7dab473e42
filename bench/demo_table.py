"""The real demo table as a process, for the benches that attack it from outside (soak, concurrency, slow
clients): its config, a free port, the wait for its panel and its stop."""

from __future__ import annotations

import http.client
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parent.parent
PIN = "246813"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def write_config(folder: Path, extra: str = "") -> Path:
    """A table config in `folder`: the PIN, a game log there, Pi 4 pins, the edge strip, and `extra` TOML."""
    from table.config import CONFIG_DIR

    config = folder / "table.toml"
    config.write_text(f'[web]\npin = "{PIN}"\n[log]\npath = "game.sqlite3"\n{extra}'
                      f'[hardware]\npin_map = "{CONFIG_DIR}/pins-pi4.toml"\n'
                      f'led_layout = "{CONFIG_DIR}/leds/edge-strip.toml"\n')
    return config


def start(config: Path, port: int, stderr: IO[str] | int = subprocess.DEVNULL) -> subprocess.Popen[str]:
    """`smarttable run --demo` on 127.0.0.1:`port`, answering once its panel serves the camera's image."""
    table = subprocess.Popen([sys.executable, "-m", "table.cli", "run", "--demo", "--config", str(config),
                              "--host", "127.0.0.1", "--port", str(port)], cwd=ROOT,
                             stdout=subprocess.DEVNULL, stderr=stderr, text=True)
    deadline = time.monotonic() + 60.0
    while time.monotonic() < deadline:
        if table.poll() is not None:
            said = Path(stderr.name).read_text() if hasattr(stderr, "name") else ""
            raise SystemExit(f"the table exited ({table.returncode}): {said}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/api/camera.jpg")
            if conn.getresponse().status == 200:
                return table
        except OSError:
            pass
        time.sleep(0.5)
    table.kill()
    raise SystemExit("the table's panel never answered")


def stop(table: subprocess.Popen[str], timeout: float = 30.0) -> None:
    """SIGTERM, then SIGKILL if the table has not ended within `timeout`."""
    table.terminate()
    try:
        table.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        table.kill()
        table.wait()
