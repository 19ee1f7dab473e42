#!/usr/bin/env bash
# Debian's Mosquitto for the club tests (tests/club start their own broker on a free loopback port; the
# package's own service is not needed and is left stopped), and mosquitto_sub for bench/bench_club.py.
set -euo pipefail
{ command -v mosquitto || [ -x /usr/sbin/mosquitto ]; } >/dev/null 2>&1 && command -v mosquitto_sub >/dev/null && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null && apt-get install -y -qq mosquitto mosquitto-clients >/dev/null
  if command -v systemctl >/dev/null 2>&1; then systemctl disable --now mosquitto >/dev/null 2>&1 || true; fi
else
  echo "install-mosquitto: not root or no apt-get; install Debian's mosquitto package by hand" >&2
  exit 1
fi
