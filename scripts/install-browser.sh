#!/usr/bin/env bash
# Debian's Chromium for the panel's browser tests (never a downloaded browser build).
set -euo pipefail
command -v chromium >/dev/null 2>&1 && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null && apt-get install -y -qq chromium >/dev/null
else
  echo "install-browser: not root or no apt-get; install Debian's chromium package by hand" >&2
  exit 1
fi
