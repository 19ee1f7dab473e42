"""The hub's web side over real sockets, with the panel's checks: a port in use is one line and exit 2,
and the dashboard answers only to this machine's names and addresses (DNS rebinding)."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time

import pytest

from hub.listener import Hub
from hub.store import HubStore
from hub.web import create_hub_app, create_server
from table.broker import parse_url
from tests.inprocess import smarttable
from tests.ports import free_port


def test_the_hub_on_a_port_in_use_exits_2_with_one_line(tmp_path):
    port = free_port()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", port))
        taken.listen()
        done = smarttable("hub", "--mqtt", "mqtt://127.0.0.1:1", "--host", "127.0.0.1", "--port", str(port),
                          "--db", str(tmp_path / "hub.sqlite3"))
    assert done.returncode == 2, done.stderr
    assert done.stderr == (f"smarttable hub: --port: cannot listen on 127.0.0.1:{port} (Address already in use): "
                           "is another hub running?\n")


@pytest.fixture
def served(tmp_path):
    hub = Hub(HubStore(tmp_path / "hub.sqlite3"), parse_url("mqtt://127.0.0.1:1"))     # never started
    server = create_server(create_hub_app(hub, ["club-hub.example"]), "127.0.0.1", 0)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    yield server.effective_port
    from waitress import wasyncore

    server.task_dispatcher.shutdown(timeout=5)
    wasyncore.close_all(server._map)          # as tests/web/test_shared_network.py stops its server
    thread.join(5)
    hub.store.close()


def get(port: int, path: str, host: str) -> tuple[int, dict | str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path, headers={"Host": host})
        reply = conn.getresponse()
        text = reply.read().decode()
        return reply.status, json.loads(text) if reply.headers.get("Content-Type", "").startswith(
            "application/json") else text
    finally:
        conn.close()


@pytest.mark.parametrize("path", ["/", "/api/tables", "/tables/t1", "/api/events"])
def test_the_dashboard_refuses_a_foreign_host_name(served, path):
    status, body = get(served, path, "evil.example")
    assert status == 403 and body["field"] == "Host" and "evil.example" in body["error"]
    assert "--allowed-host" in body["error"]


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1", "LOCALHOST:8090", "[::1]:8090", "club-hub.example",
                                  socket.gethostname()])
def test_the_dashboard_answers_to_its_own_names_and_addresses(served, host):
    status, body = get(served, "/api/tables", host)
    assert status == 200 and body["connected"] is False and body["listener"]["alive"] is False


def test_the_dashboard_has_the_panels_limits_on_greedy_clients(served):
    """One address holding 16 connections (web_ui/channels.py ClientLimits.per_address) gets a 503 for the
    next, as on the panel, and the dashboard still answers once it lets them go."""
    held = [socket.create_connection(("127.0.0.1", served), 5) for _ in range(16)]
    try:
        time.sleep(0.5)
        status, body = get(served, "/api/tables", "localhost")
        assert status == 503 and "too many connections" in body["error"]
    finally:
        for sock in held:
            sock.close()
    deadline = time.monotonic() + 10
    while get(served, "/api/tables", "localhost")[0] != 200 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert get(served, "/api/tables", "localhost")[0] == 200
