"""Every live slot taken (issue 25): a phone whose stream is refused with 429 shows the table offline,
tries again by itself with back-off, and is live as soon as a slot is free, with no reload and no tap
(before, a refused page never asked again until it was reloaded)."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

from tests.web.server import make_app
from tests.web.test_sse import Events


@pytest.fixture
def app(table, tmp_path):
    """The panel with one live slot, so one other client holding a stream fills it."""
    return make_app(table, tmp_path, max_streams=1)


def test_a_phone_refused_a_stream_gets_in_by_itself_once_a_slot_is_free(live, phone):
    holder = Events(live.url)
    holder.next()                                          # the only slot is taken
    refused: list[int] = []
    phone.on("response", lambda r: refused.append(r.status) if "/api/events" in r.url else None)
    phone.goto(live.url + "/")
    expect(phone.locator("[data-model]").first).to_be_visible(timeout=20000)   # /api/state still answers
    expect(phone.locator("#offline")).to_be_visible(timeout=10000)
    expect(phone.locator("#next-phase")).to_be_disabled()
    phone.wait_for_timeout(4000)                           # 1 s, then 2 s: it keeps asking
    assert refused.count(429) >= 2, refused

    holder.close()                                         # the slot is freed (the stream notices it)
    freed = time.monotonic()
    expect(phone.locator("#offline")).to_be_hidden(timeout=30000)
    expect(phone.locator("#live")).to_have_class(re.compile(r"\bon\b"))
    expect(phone.locator("#next-phase")).to_be_enabled()
    assert time.monotonic() - freed < 25                   # back-off at most 10 s (a quarter either way)
