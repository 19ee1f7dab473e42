"""Fixtures for the club tests: a real Mosquitto, tables published to it, subscribers."""

from __future__ import annotations

import os

import pytest

from tests.club.mosquitto_broker import Mosquitto, find_mosquitto


@pytest.fixture
def broker(tmp_path):
    """A running Mosquitto on a free loopback port (stopped after the test)."""
    if find_mosquitto() is None:
        reason = "mosquitto is not installed (scripts/install-mosquitto.sh installs Debian's package)"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    made = Mosquitto(tmp_path / "broker")
    made.start()
    yield made
    made.stop()
