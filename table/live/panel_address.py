"""Where a phone opens the panel: the table's addresses on the network (its mDNS name, which
deploy/install-pi.sh announces through avahi, and its LAN address) and a QR code of one of them for
the terminal."""

from __future__ import annotations

import io
import socket
from typing import TextIO

import segno

ANY_HOST = ("0.0.0.0", "::", "")
LOCAL_HOSTS = ("127.0.0.1", "::1", "localhost")


def lan_address() -> str | None:
    """The address this machine reaches its network from (the default route's); None when offline.
    Connecting a UDP socket only picks the route: nothing is sent."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: any routable address will do
            address = probe.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") or address == "0.0.0.0" else address


def panel_urls(host: str, port: int, hostname: str | None = None, lan: str | None = None) -> list[str]:
    """The panel's URLs as another device would type them, the most stable first."""
    if host in LOCAL_HOSTS:
        return [f"http://localhost:{port}/"]
    if host not in ANY_HOST:
        return [f"http://{host}:{port}/"]
    name = (hostname or socket.gethostname()).split(".")[0]
    urls = [f"http://{name}.local:{port}/"]
    return urls + ([f"http://{lan}:{port}/"] if lan else [])


def qr_text(url: str) -> str:
    """The URL as a QR code in text: two modules a character (block characters, light on dark)."""
    out = io.StringIO()
    segno.make(url, error="m", micro=False).terminal(out=out, compact=True)
    return out.getvalue()


def announce(host: str, port: int, out: TextIO, *, qr: bool) -> list[str]:
    """Print where the panel is (and, when `qr`, a QR code of the address a phone can open now:
    the LAN address, else the mDNS name); returns the URLs."""
    urls = panel_urls(host, port, lan=lan_address() if host in ANY_HOST else None)
    print("Panel on the network: " + "  ".join(urls), file=out)
    if qr and host not in LOCAL_HOSTS:
        print(f"Scan to open {urls[-1]}", file=out)
        out.write(qr_text(urls[-1]))
    out.flush()
    return urls
