"""A frozen table in a real browser (issue 24): the table's process is stopped with SIGSTOP, as a Pi that
loses power or Wi-Fi looks to a phone (its TCP connections stay open, so nothing closes). The phone must
notice once nothing was heard for twice the heartbeat and live.js's minimum silence (never sooner), show
the same offline banner, dimmed board and disabled buttons as for a closed connection, end the requests
it waits on with a message, and come back by itself when the process goes on."""

from __future__ import annotations

import re
import time

from playwright.sync_api import expect

from tests.web.browser import ARTIFACTS, tap_model
from tests.web.table_process import running_table
from tests.web.test_browser_slow_table import MIN_SILENCE_S

HEARTBEAT_S = 1.0
SILENCE_S = max(2 * HEARTBEAT_S, MIN_SILENCE_S)     # what the page waits before calling the table offline
FROZEN_S = 20.0        # the shorter freeze: several reconnection attempts go unanswered


def test_a_frozen_table_is_noticed_and_the_phone_recovers_by_itself(phone, tmp_path):
    with running_table(tmp_path, heartbeat_s=HEARTBEAT_S) as table:
        phone.goto(table.url + "/")
        expect(phone.locator("[data-model]").first).to_be_visible(timeout=20000)
        expect(phone.locator("#live")).to_have_class(re.compile(r"\bon\b"))
        time.sleep(3 * HEARTBEAT_S)                     # a quiet table is not an offline one
        expect(phone.locator("#offline")).to_be_hidden()
        expect(phone.locator("#next-phase")).to_be_enabled()

        table.freeze()
        frozen_at = time.monotonic()
        tap_model(phone, "rifles-1")                    # its card's questions wait on a table that cannot answer
        expect(phone.locator("#offline")).to_be_visible(timeout=(SILENCE_S + 10) * 1000)
        noticed = time.monotonic() - frozen_at
        assert SILENCE_S - HEARTBEAT_S - 0.5 < noticed < SILENCE_S + 3.0, noticed   # and the machine's lag
        expect(phone.locator("#offline")).to_contain_text("Offline")
        expect(phone.locator("#next-phase")).to_be_disabled()
        expect(phone.locator("#live")).to_have_attribute("aria-label", re.compile("^offline"))
        assert float(phone.eval_on_selector("#board", "b => getComputedStyle(b).opacity")) < 0.6   # dimmed
        expect(phone.locator("#info")).to_contain_text("stopped answering")      # the card says why
        phone.screenshot(path=str(ARTIFACTS / "panel-390-frozen.png"))
        time.sleep(max(0.0, FROZEN_S - (time.monotonic() - frozen_at)))
        expect(phone.locator("#offline")).to_be_visible()

        table.resume()
        expect(phone.locator("#offline")).to_be_hidden(timeout=20000)    # by itself: no reload, no tap
        expect(phone.locator("#next-phase")).to_be_enabled()
        phase = table.post("/api/phase/advance")["result"]["phase"]
        expect(phone.locator("#turn-text")).to_contain_text(phase.capitalize(), timeout=10000)
