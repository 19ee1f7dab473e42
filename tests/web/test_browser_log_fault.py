"""A game log that refuses a write (here: another process holds its lock, for real) is what a player
sees on the phone: the change is made and the phone says it is not saved yet, with the reason, a banner
says changes are not being saved, and it goes once the log takes writes again (the change stored once).
Real Chromium at a phone viewport."""

from __future__ import annotations

import subprocess
import sys

from playwright.sync_api import expect

from tests.live.test_log_faults import LOCKER
from tests.web.browser import ARTIFACTS, PHONE, needs_chromium
from tests.web.server import PIN, LiveServer, make_app
from tests.web.tables import demo_controller

pytestmark = needs_chromium


def test_a_locked_log_is_a_banner_and_a_refusal_on_the_phone(browser, tmp_path):
    controller = demo_controller(tmp_path)
    server = LiveServer(make_app(controller, tmp_path))
    context = browser.new_context(**PHONE)
    locker = None
    try:
        page = context.new_page()
        page.goto(server.url + "/")
        page.evaluate(f"localStorage.setItem('smarttable-pin', '{PIN}')")
        expect(page.locator("[data-model]").first).to_be_visible()
        expect(page.locator("#log-banner")).to_be_hidden()
        locker = subprocess.Popen([sys.executable, "-c", LOCKER, str(tmp_path / "game.sqlite3")],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert locker.stdout.readline().strip() == "locked"
        before = controller.state.phase
        page.click("#next-phase")
        page.click("#confirm-dialog button[value=ok]")
        expect(page.locator("#toast")).to_contain_text("Done, but not saved yet: game log: cannot write",
                                                       timeout=15000)
        assert controller.state.phase != before                     # made: the table shows the next phase
        banner = page.locator("#log-banner")
        expect(banner).to_be_visible(timeout=10000)
        expect(banner).to_contain_text("Changes are NOT being saved")
        assert banner.bounding_box()["y"] < 200                       # at the top, where a player looks
        page.screenshot(path=str(ARTIFACTS / "panel-390-log-fault.png"))
        locker.stdin.close()
        locker.wait(timeout=10)
        expect(banner).to_be_hidden(timeout=15000)                     # retried and stored: all clear
        assert controller.snapshot().status["log"] == "ok"
        assert [e["kind"] for e in controller.gamelog.events(controller.game)].count("phase") == 1
    finally:
        if locker is not None and locker.poll() is None:
            locker.kill()
        context.close()
        server.close()
        controller.close()
