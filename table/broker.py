"""Where a table or the hub meets the club's MQTT broker: the broker URL and the topic layout.

Both sides read this one description (docs/club.md): under `<prefix>/<table_id>/` a table publishes
`available` (retained, `offline` as its last will), `state` (retained), `events` (QoS 1) and
`reply/<name>`, and listens on `cmd/<name>`. Pure: no network here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from table.errors import ConfigError

DEFAULT_PORTS = {"mqtt": 1883, "mqtts": 8883}
NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
PREFIX = re.compile(r"[A-Za-z0-9_-]{1,64}(/[A-Za-z0-9_-]{1,64})*")


@dataclass(frozen=True)
class Broker:
    """A broker address: `mqtt://[user[:password]@]host[:port]` or `mqtts://...` (TLS)."""

    host: str
    port: int
    tls: bool = False
    username: str = ""
    password: str = ""

    def __repr__(self) -> str:      # never print the password
        scheme = "mqtts" if self.tls else "mqtt"
        user = f"{self.username}@" if self.username else ""
        return f"Broker({scheme}://{user}{self.host}:{self.port})"


def parse_url(url: str, where: str = "mqtt.url") -> Broker:
    """A Broker from its URL; a ConfigError naming `where` if it is not one."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise ConfigError(f"{where}: {exc} in {url!r}") from None
    if parts.scheme not in DEFAULT_PORTS:
        raise ConfigError(f"{where}: expected mqtt://host[:port] or mqtts://host[:port], got {url!r}")
    if not parts.hostname:
        raise ConfigError(f"{where}: no host in {url!r}")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ConfigError(f"{where}: a broker URL has no path or query, got {url!r}")
    return Broker(parts.hostname, port or DEFAULT_PORTS[parts.scheme], parts.scheme == "mqtts",
                  unquote(parts.username or ""), unquote(parts.password or ""))


def check_table_id(table_id: str, where: str = "mqtt.table_id") -> str:
    if not NAME.fullmatch(table_id):
        raise ConfigError(f"{where}: expected 1-64 letters, digits, '-' or '_', got {table_id!r}")
    return table_id


def check_prefix(prefix: str, where: str = "mqtt.topic_prefix") -> str:
    if not PREFIX.fullmatch(prefix):
        raise ConfigError(f"{where}: expected words of letters, digits, '-' or '_' joined by '/', "
                          f"got {prefix!r}")
    return prefix


@dataclass(frozen=True)
class Topics:
    """One table's topics."""

    prefix: str
    table_id: str

    @property
    def base(self) -> str:
        return f"{self.prefix}/{self.table_id}"

    @property
    def available(self) -> str:
        return f"{self.base}/available"

    @property
    def state(self) -> str:
        return f"{self.base}/state"

    @property
    def events(self) -> str:
        return f"{self.base}/events"

    def cmd(self, name: str) -> str:
        return f"{self.base}/cmd/{name}"

    def reply(self, name: str) -> str:
        return f"{self.base}/reply/{name}"


def split_topic(prefix: str, topic: str) -> tuple[str, str] | None:
    """(table_id, rest) of a topic under `prefix` (rest: "available", "state", "events",
    "reply/NAME"...), or None for a topic that is not a table's."""
    head = prefix + "/"
    if not topic.startswith(head):
        return None
    table_id, _, rest = topic[len(head):].partition("/")
    return (table_id, rest) if NAME.fullmatch(table_id) and rest else None
