#!/usr/bin/env bash
# Create .venv and install the table into it (idempotent). Usage: scripts/setup.sh [dev]
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv --help >/dev/null 2>&1 || { echo "setup: python3 with venv is needed (apt-get install python3-venv)" >&2; exit 1; }
[ -x .venv/bin/python ] || python3 -m venv .venv
stamp=".venv/.installed-$(cat pyproject.toml | sha1sum | cut -c1-12)-${1:-run}"
if [ ! -f "$stamp" ]; then
  .venv/bin/python -m pip install -q --upgrade pip
  if [ "${1:-}" = dev ]; then .venv/bin/python -m pip install -q -e '.[dev]'; else .venv/bin/python -m pip install -q -e .; fi
  touch "$stamp"
fi
