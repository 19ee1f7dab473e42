"""For every test: the rule systems that live in the tests folder (tests/rule_systems/) are
registered before collection, as an installed rule system would be found by its entry point; and
Hypothesis judges examples, not the clock (a loaded 2-core machine running the suite in parallel
makes generation and single examples slow without anything being wrong), nor does Playwright's 5 s.
The live table's locks report to one lock-order checker for the whole run (tests/lockorder.py): a
test whose locks close a cycle in the order fails, naming it."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from playwright.sync_api import expect

from tests import lockorder

settings.register_profile("table", deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile("table")
# a browser assertion waits up to 15 s for what a player should see (Playwright's default is 5 s): the
# suite runs in parallel on a loaded 2-core machine; a page that never shows it still fails
expect.set_options(timeout=15_000)

RULE_SYSTEMS = Path(__file__).resolve().parent / "rule_systems"
LOCK_ORDER = lockorder.Tracker()


def pytest_configure(config: pytest.Config) -> None:
    for package in sorted(RULE_SYSTEMS.glob("*/__init__.py")):
        importlib.import_module(f"tests.rule_systems.{package.parent.name}")
    lockorder.locks.install(LOCK_ORDER)


@pytest.fixture(autouse=True)
def lock_order(request: pytest.FixtureRequest):
    """Fail the test whose locks closed a cycle, or took one out of the written order."""
    LOCK_ORDER.test = request.node.nodeid
    yield LOCK_ORDER
    fault = lockorder.new_faults(LOCK_ORDER)
    if fault:
        pytest.fail(fault, pytrace=False)
