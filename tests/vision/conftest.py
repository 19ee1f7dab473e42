"""Fixtures for the vision tests: the small board's config (the helpers are in `synthetic`)."""

from __future__ import annotations

import pytest

from table.config import load_config
from tests.vision.synthetic import SMALL_BOARD


@pytest.fixture(scope="session")
def config():
    return load_config(SMALL_BOARD)
