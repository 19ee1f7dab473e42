"""A real Mosquitto broker for the club tests: a generated config on a free loopback port."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from tests.ports import free_port

__all__ = ["Mosquitto", "documented_acl", "find_mosquitto", "free_port", "secured"]


def find_mosquitto() -> str | None:
    return shutil.which("mosquitto") or shutil.which("mosquitto", path="/usr/sbin:/usr/local/sbin")


class Mosquitto:
    """One broker process; `stop()` and `start()` again restart it on the same port with its
    persisted sessions (persistence on, saved at a clean stop)."""

    def __init__(self, folder: Path, port: int | None = None, extra: str = ""):
        self.binary = find_mosquitto()
        assert self.binary, "mosquitto is not installed (scripts/install-mosquitto.sh)"
        self.folder, self.port = folder, port or free_port()
        folder.mkdir(parents=True, exist_ok=True)
        self.conf = folder / "mosquitto.conf"
        lines = [f"listener {self.port} 127.0.0.1", "persistence true",
                 f"persistence_location {folder}/", f"log_dest file {folder}/mosquitto.log",
                 "max_queued_messages 100000", "set_tcp_nodelay true"]
        if "allow_anonymous" not in extra:
            lines.append("allow_anonymous true")
        if os.geteuid() == 0:
            lines.append("user root")          # keep write access to the test's folder
        self.conf.write_text("\n".join(lines) + "\n" + extra, encoding="utf-8")
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self, timeout: float = 10.0) -> None:
        self.process = subprocess.Popen([str(self.binary), "-c", str(self.conf)], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                log = (self.folder / "mosquitto.log")
                raise RuntimeError(f"mosquitto exited: {log.read_text() if log.exists() else ''}")
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"mosquitto did not listen on port {self.port}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(10)
        self.process = None

    def kill(self) -> None:
        """Kill -9: the broker dies as on a power cut, with every session, queued and retained message
        since its last save (none before a clean stop) gone."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
        self.process = None

    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid


def documented_acl() -> str:
    """The ACL file docs/club.md gives, as the club would copy it."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "club.md").read_text(encoding="utf-8")
    block = doc.split("# /etc/mosquitto/smarttable.acl\n", 1)[1]
    return block.split("```", 1)[0]


def secured(folder: Path, users: tuple[str, ...]) -> Mosquitto:
    """A broker as docs/club.md sets one up: no anonymous clients, a password per user (`pw-USER`) and
    the documented ACL (not started)."""
    passwd = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "acl").write_text(documented_acl(), encoding="utf-8")
    passwords = folder / "passwd"
    passwords.touch()
    for user in users:
        subprocess.run([passwd, "-b", str(passwords), user, f"pw-{user}"], check=True, capture_output=True)
    return Mosquitto(folder / "broker", extra=f"allow_anonymous false\npassword_file {passwords}\n"
                                              f"acl_file {folder / 'acl'}\n")
