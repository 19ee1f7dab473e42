#!/usr/bin/env bash
# Quick start: set up and run every test (and the linter and the type checker). Fails when any test fails.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh dev
# Chromium, WebKit and Firefox for the browser tests. Under CI an engine that could not be installed fails the
# run (and its browser tests); locally they skip, saying why.
if ! bash scripts/install-browser.sh; then
  if [ "${CI:-}" = true ]; then echo "run-tests: the browser engines could not be installed" >&2; exit 1; fi
  echo "run-tests: the browser engines could not be installed; browser tests will say why they skip"
fi
bash scripts/install-mosquitto.sh || echo "run-tests: Mosquitto could not be installed; the club tests will say why they skip"
.venv/bin/ruff check .
.venv/bin/mypy   # the rooms and strictness are set in pyproject.toml ([tool.mypy])
# Four workers (pytest-xdist), whatever the cores: much of the suite waits (browsers, servers, brokers,
# timers), so on a 2-core machine four overlap it: 260 s against 321 s with two, quiet, same clone.
# worksteal: each worker takes a run of the collection (so mostly whole files: a module's Chromium and
# rendered boards made once) and an idle one takes over the rest of another's. Not loadfile: it keys tests
# by node id, and schemathesis gives all of a test's API operations one id, so it ran 2 of test_schema's 46.
# `-n 0` after it runs everything in this process.
.venv/bin/python -m pytest -n 4 --dist worksteal "$@"
# The whole run (no pytest arguments, as CI) ends with two minutes of phones on every endpoint against
# the running demo table: it fails if the table's memory passes 300 MB or a request fails (issue 11).
if [ "$#" -eq 0 ]; then
  .venv/bin/python bench/bench_soak.py --seconds 120 --max-rss-mb 300
fi
