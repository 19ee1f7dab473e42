"""waitress's server and channel with the table's limits on slow and greedy clients (docs/web.md).

waitress keeps every connection in one asyncore loop and serves requests on worker threads. Its own
limits (`channel_timeout`, `connection_limit`) let a client that trickles a byte every few seconds hold
its socket for ever, 500 of them lock everyone out, and a client that never reads pins a worker thread
and its output buffer. This module overrides waitress's documented extension points (the server's
`channel_class` and `maintenance`, the channel's `received` and its `add_channel`/`del_channel` hooks)
rather than replacing the server:

- a request must arrive whole within `request_timeout_s` of its first byte, else it is closed;
- one address holds at most `per_address` connections: more are answered 503 and closed at once;
- one address starts at most `requests_per_s` requests a second (`request_burst` at once): beyond
  that its connections are not read until it may go on, so a flood costs the table nothing;
- at the connection limit, a new connection takes the place of the one that has been sending its
  request longest (or idle longest), never one being answered;
- a response with unsent output that the client has not taken any of for `stall_timeout_s` is
  dropped, which frees its worker thread (waitress's `outbuf_high_watermark` bounds that output, and
  `send_buffer` the kernel's).
"""

from __future__ import annotations

import select
import socket
import time
from collections import Counter, OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from waitress.adjustments import Adjustments
from waitress.channel import HTTPChannel
from waitress.server import MultiSocketServer, TcpWSGIServer
from waitress.task import ThreadedTaskDispatcher


@dataclass(frozen=True)
class ClientLimits:
    """What one client may hold of the server (docs/web.md, "On a shared network")."""

    request_timeout_s: float = 10.0   # first byte of a request to its last (head and body)
    per_address: int = 16             # connections from one address (a browser opens up to 6)
    stall_timeout_s: float = 10.0     # output waiting with none of it taken by the client
    send_buffer: int = 64 * 1024      # the kernel's send buffer per connection (Linux doubles it)
    requests_per_s: float = 20.0      # requests one address may start, sustained (a phone loading the
    request_burst: int = 60           # panel sends some 30 at once, then a few a second)


class Pace:
    """A token bucket per address (kept for the `size` addresses seen last): may it start a request?"""

    def __init__(self, rate: float, burst: int, size: int = 4096) -> None:
        self.rate, self.burst, self.size = rate, burst, size
        self._tokens: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def _now(self, address: str, now: float) -> float:
        tokens, since = self._tokens.get(address, (float(self.burst), now))
        return min(float(self.burst), tokens + (now - since) * self.rate)

    def ready(self, address: str, now: float) -> bool:
        return self._now(address, now) >= 1.0

    def take(self, address: str, now: float) -> None:
        self._tokens[address] = (self._now(address, now) - 1.0, now)
        self._tokens.move_to_end(address)
        while len(self._tokens) > self.size:
            self._tokens.popitem(last=False)


LOOP_TICK_S = 0.1     # the loop's longest sleep (waitress: 1 s): a paced address goes on on time

_BUSY_BODY = (b'{"error": "too many connections from this address; try again in a few seconds", '
              b'"field": "path"}')
BUSY = (b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 5\r\n"
        b"Connection: close\r\nContent-Length: %d\r\n\r\n%s" % (len(_BUSY_BODY), _BUSY_BODY))


class TableChannel(HTTPChannel):
    """A connection: when its current request began, and its address counted on the server."""

    server: TableServer
    request_since: float | None = None     # time.time() of the current request's first byte
    counted = False

    def __init__(self, server: TableServer, sock: socket.socket, addr: Any, adj: Adjustments,
                 map: dict[int, Any] | None = None) -> None:
        super().__init__(server, sock, addr, adj, map)
        self.address = str(addr[0]) if isinstance(addr, tuple) else str(addr)
        if server.addresses[self.address] >= server.limits.per_address:
            try:                         # refused: it holds no share of its address (not counted)
                sock.send(BUSY)
            except OSError:
                pass
            self.will_close = True       # closed by the loop's next pass (see drop)
            return
        server.addresses[self.address] += 1
        self.counted = True

    def del_channel(self, map: Mapping[int, socket.socket] | None = None) -> None:
        if self.counted:
            self.counted = False
            self.server.addresses[self.address] -= 1
            if self.server.addresses[self.address] <= 0:
                del self.server.addresses[self.address]
        super().del_channel(map)

    def readable(self) -> bool:
        """waitress's, and not while this address has started all the requests its pace allows."""
        return bool(super().readable()) and self.server.pace.ready(self.address, time.time())

    def received(self, data: bytes) -> bool:
        if data and self.request is None:
            self.request_since = time.time()
            self.server.pace.take(self.address, self.request_since)
        done: bool = super().received(data)
        if self.request is None:            # every request in `data` arrived whole
            self.request_since = None
        return done

    def drop(self) -> None:
        """Close this connection from outside its own events: shut down now, closed by the loop's
        next pass (closing it here could hand its descriptor number, still in this pass's poll set, to
        a connection accepted meanwhile, which would then take its poll result). A shut-down socket
        polls as hung up even with a full send buffer, and the close wakes a worker waiting to write."""
        self.will_close = True
        try:
            if self.socket is not None:
                self.socket.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def receiving_for(self, now: float) -> float:
        """How long this connection has been sending a request not yet whole (0: none)."""
        return 0.0 if self.request_since is None or self.request is None else now - self.request_since


class TableServer(TcpWSGIServer):
    """waitress's TCP server with `ClientLimits` (see the module's docstring)."""

    channel_class = TableChannel

    def __init__(self, *args: Any, limits: ClientLimits, **kwargs: Any) -> None:
        self.limits = limits
        self.addresses: Counter[str] = Counter()
        self.pace = Pace(limits.requests_per_s, limits.request_burst)
        super().__init__(*args, **kwargs)

    def channels(self) -> list[TableChannel]:
        """Every open connection (types-waitress types `active_channels` as one channel)."""
        return list(cast("dict[int, TableChannel]", self.active_channels).values())

    def set_socket_options(self, conn: socket.socket) -> None:
        """waitress's (TCP_NODELAY), and a bounded kernel send buffer: a client that does not read
        costs little kernel memory and is seen to stall soon."""
        super().set_socket_options(conn)
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.limits.send_buffer)

    def maintenance(self, now: float) -> None:  # type: ignore[override]  # waitress passes time.time()
        """waitress's idle timeout, then: requests too slow to arrive and stalled responses closed."""
        super().maintenance(now)  # type: ignore[arg-type]
        for channel in self.channels():
            if channel.receiving_for(now) > self.limits.request_timeout_s:
                channel.drop()
            elif (channel.requests and channel.total_outbufs_len
                  and now - channel.last_activity > self.limits.stall_timeout_s):
                channel.drop()               # its worker, waiting to write, gets ClientDisconnected

    def readable(self) -> bool:
        """waitress's, after making room for a waiting connection one short of the limit (so that
        waitress never stops listening, and a phone is never queued behind a flood)."""
        if (self.accepting and len(self._map) >= self.adj.connection_limit - 1  # type: ignore[attr-defined]
                and self._someone_waiting()):
            self._shed(time.time())
        return bool(super().readable())

    def _someone_waiting(self) -> bool:
        """A connection waits in the listen queue (polls the listening socket without blocking)."""
        if self.socket is None:
            return False
        poller = select.poll()
        poller.register(self.socket, select.POLLIN)
        return bool(poller.poll(0))

    def _shed(self, now: float) -> None:
        """Make room: drop the connection sending its request longest, else the one idle longest
        (never one being answered)."""
        idle = [c for c in self.channels() if not c.requests]
        if idle and not any(c.will_close for c in idle):
            max(idle, key=lambda c: (c.receiving_for(now), now - c.last_activity)).drop()


def create_server(app: Any, *, limits: ClientLimits = ClientLimits(), **options: Any
                  ) -> TableServer | MultiSocketServer:
    """`waitress.create_server` for TCP with `TableServer`: one server per address it listens on
    (several for a host name with IPv4 and IPv6 addresses), one task dispatcher for all."""
    adj = Adjustments(**options)
    adj.asyncore_loop_timeout = LOOP_TICK_S          # type: ignore[assignment]  # waitress takes whole seconds
    dispatcher = ThreadedTaskDispatcher()
    dispatcher.set_thread_count(adj.threads)
    socket_map: dict[int, Any] = {}
    servers = [TableServer(app, socket_map, dispatcher=dispatcher, adj=adj, sockinfo=info, limits=limits)
               for info in adj.listen]
    if len(servers) == 1:
        return servers[0]
    listening = [(s.effective_host, s.effective_port) for s in servers]  # type: ignore[attr-defined]
    return MultiSocketServer(socket_map, adj, listening, dispatcher, servers[0].log_info)
