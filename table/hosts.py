"""The names the panel answers to, against DNS rebinding: a web page a player opens could point its
own domain at the table's address and reach the API from their phone, but the browser still sends
that domain as the Host header. The panel answers only for the table's own names (localhost, the
host name, its `.local` mDNS name, any in `[web] allowed_hosts`) and for IP addresses (a typed
address cannot be rebound)."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable


def default_names() -> set[str]:
    """localhost and this machine's host name, with and without `.local`, and its full name."""
    names = {"localhost"}
    host = socket.gethostname().lower().rstrip(".")
    if host:
        short = host.split(".")[0]
        names |= {host, short, f"{short}.local"}
        try:
            names.add(socket.getfqdn().lower().rstrip("."))
        except OSError:
            pass
    return names


def allowed_names(extra: Iterable[str] = ()) -> frozenset[str]:
    return frozenset(default_names() | {name.lower().rstrip(".") for name in extra})


def host_of(header: str) -> str:
    """The host part of a Host header, without its port or IPv6 brackets, lower case."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:].split("]", 1)[0]
    if header.count(":") == 1:
        header = header.split(":", 1)[0]
    return header.rstrip(".")


def host_allowed(header: str, names: frozenset[str]) -> bool:
    host = host_of(header)
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        return host in names
