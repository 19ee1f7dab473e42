"""The hub's dashboard in a real headless Chromium (Debian's, driven by Playwright), served by
waitress, watching real tables through a real Mosquitto: what a club organiser sees."""

from __future__ import annotations

import json
import shutil
import threading
import time
from pathlib import Path

import pytest
import waitress
from playwright.sync_api import expect, sync_playwright

from hub.listener import Hub
from hub.store import HubStore
from hub.web import create_hub_app
from table.broker import parse_url
from tests.club.club_clients import PublishedTable, publish_raw

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason="Debian's chromium is not installed (apt-get install chromium)")


def test_the_dashboard_shows_every_table_and_a_board_of_each(broker, tmp_path):
    tables = {tid: PublishedTable(tmp_path, broker.url, table_id=tid, state_interval_s=0.2) for tid in ("t1", "t2")}
    hub = Hub(HubStore(tmp_path / "hub.sqlite3"), parse_url(broker.url), client_id="hub-dash")
    hub.start()
    server = waitress.create_server(create_hub_app(hub), host="127.0.0.1", port=0, threads=4)
    threading.Thread(target=server.run, daemon=True).start()
    url = f"http://127.0.0.1:{server.effective_port}"
    try:
        tables["t1"].controller.command("select", id="rifles")
        tables["t1"].controller.command("roll", kind="dice", count=2, sides=6)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and not all(
                (hub.state(t) or {}).get("seq") == tables[t].controller.snapshot().seq for t in tables):
            time.sleep(0.1)
        tables["t2"].close()                                  # t2 stops: the dashboard says offline
        publish_raw(broker.url, "smarttable/junk/events", "[" * 100_000)          # garbage, refused
        fake = {**tables["t1"].gamelog.since(0)[0], "kind": "phase"}          # a fake for a seq the hub holds
        del fake["scene"]
        publish_raw(broker.url, "smarttable/t1/events", json.dumps(fake))
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page(viewport={"width": 1100, "height": 800})
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(url + "/")
            one, two = page.locator('[data-table="t1"]'), page.locator('[data-table="t2"]')
            expect(one).to_contain_text("online")
            expect(one).to_contain_text("synaptik")
            expect(one).to_contain_text("player A")
            expect(one).to_contain_text("player B")
            expect(two).to_have_class("card offline")
            expect(page.locator("#whose")).to_have_text("1 of 3 tables online")
            expect(page.locator('[data-table="junk"]')).to_contain_text("refused 1 message (last: not_json: ")
            expect(one).to_contain_text("1 seq came again with a different event (the first kept): #1")
            expect(page.locator("#events")).to_contain_text("t1#3 Rolled dice: ")       # the table's sentence
            one.click()
            page.wait_for_url(url + "/tables/t1")
            models = tables["t1"].controller.snapshot().scene["models"]
            expect(page.locator("#board g.model")).to_have_count(len(models))
            expect(page.locator("#whose")).to_contain_text("online")
            expect(page.locator("#events")).to_contain_text("rifles-1 selected")
            page.screenshot(path=str(tmp_path / "board.png"))
            browser.close()
        assert errors == []
    finally:
        server.close()
        hub.close()
        hub.store.close()
        tables["t1"].close()
