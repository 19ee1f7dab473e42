"""A free TCP port for a server a test starts (or names on a command line), picked below the kernel's
ephemeral range. bind(0) hands out ports from that range and so does every outgoing connection (a phone's
request, an MQTT client): with tests running in parallel, a port found free there can be some connection's
local port by the time the server binds it ("Address already in use"). Below the range a port is taken
only by asking for it."""

from __future__ import annotations

import random
import socket
from pathlib import Path

PORT_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")
LINUX_DEFAULT = 32768          # the range's first port when the kernel does not say
SPAN = 12000                   # ports below the range to pick from


def ephemeral_start() -> int:
    try:
        return int(PORT_RANGE.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return LINUX_DEFAULT


def free_port(host: str = "127.0.0.1") -> int:
    """A port nothing listens on at `host` now, at random below the ephemeral range (SystemRandom: the
    `random` module is reseeded alike in every worker by pytest-randomly)."""
    start = ephemeral_start()
    pick = random.SystemRandom()
    for _ in range(200):
        port = pick.randrange(max(1024, start - SPAN), start)
        with socket.socket() as probe:
            try:
                probe.bind((host, port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port below {start}")
