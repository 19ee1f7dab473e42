"""A frozen table in WebKit and Firefox (issue 24), as tests/web/test_browser_frozen.py does in Chromium:
the real table's process stopped with SIGSTOP for 20 s, then let go. Each engine must notice once nothing
was heard for twice the heartbeat and live.js's minimum silence, show the offline banner, dimmed board and disabled buttons, say on a tapped model's
card that the table stopped answering, and come back by itself."""

from __future__ import annotations

import time

import pytest

from tests.web.browser import ARTIFACTS, TO_SCREEN
from tests.web.table_process import running_table
from tests.web.test_browser_frozen import FROZEN_S, HEARTBEAT_S, SILENCE_S

OFFLINE = "() => document.body.classList.contains('offline')"
ONLINE = "() => !document.body.classList.contains('offline')"


@pytest.mark.parametrize("engine", ["webkit", "firefox"], indirect=True)
def test_a_frozen_table_is_noticed_and_the_phone_recovers_by_itself(engine, tmp_path):
    with running_table(tmp_path, heartbeat_s=HEARTBEAT_S) as table, engine.open(table.url + "/") as page:
        page.wait("() => document.querySelector('[data-model]') && "
                  "document.getElementById('live').classList.contains('on')", timeout=30)
        time.sleep(3 * HEARTBEAT_S)                           # a quiet table is not an offline one
        assert not page.js(OFFLINE)
        assert not page.js("() => document.getElementById('next-phase').disabled")

        table.freeze()
        frozen_at = time.monotonic()
        page.tap_at(*page.js(TO_SCREEN, "rifles-1"))          # its card's questions wait on a frozen table
        page.wait(OFFLINE, timeout=SILENCE_S + 10)
        noticed = time.monotonic() - frozen_at
        assert SILENCE_S - HEARTBEAT_S - 0.5 < noticed < SILENCE_S + 4.0, f"{page.engine}: offline at {noticed:.1f} s"
        page.wait_text("#offline", "Offline")
        assert page.js("() => document.getElementById('next-phase').disabled")
        assert page.js("() => document.getElementById('live').getAttribute('aria-label')").startswith("offline")
        assert float(page.js("() => getComputedStyle(document.getElementById('board')).opacity")) < 0.6
        page.wait_text("#info", "stopped answering")
        page.screenshot(ARTIFACTS / f"panel-390-frozen-{page.engine}.png")
        time.sleep(max(0.0, FROZEN_S - (time.monotonic() - frozen_at)))
        assert page.js(OFFLINE)

        table.resume()
        page.wait(ONLINE, timeout=25)                         # by itself: no reload, no tap
        assert not page.js("() => document.getElementById('next-phase').disabled")
        phase = table.post("/api/phase/advance")["result"]["phase"]
        page.wait_text("#turn-text", phase.capitalize())
