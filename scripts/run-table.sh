#!/usr/bin/env bash
# Quick start: set up and run the table (the simulated table when no camera is attached).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/smarttable run "$@"
