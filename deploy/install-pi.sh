#!/usr/bin/env bash
# Install the smart table on Raspberry Pi OS (Bookworm or later) on a Pi 4 or Pi 5.
# Run from the checkout as the user who will run the table:   bash deploy/install-pi.sh
# It installs apt packages (picamera2, lgpio, spidev), makes .venv with --system-site-packages
# (so the venv sees apt's picamera2), enables SPI, adds the user to gpio/spi/video, writes
# /etc/smarttable/table.toml (once) and installs the systemd service. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$(pwd)"
RUN_USER="${SUDO_USER:-$(id -un)}"
CONFIG=/etc/smarttable/table.toml
DATA=/var/lib/smarttable

if ! grep -q "Raspberry Pi" /proc/device-tree/model 2>/dev/null; then
  echo "install-pi: this is not a Raspberry Pi; on a laptop run: scripts/run-table.sh --demo" >&2
  exit 1
fi
MODEL="$(tr -d '\0' </proc/device-tree/model)"
case "$MODEL" in
  *"Raspberry Pi 5"*) PINS=pins-pi5.toml ;;
  *) PINS=pins-pi4.toml ;;
esac
echo "install-pi: $MODEL -> $PINS"

sudo apt-get update
sudo apt-get install -y python3-venv python3-picamera2 python3-lgpio python3-spidev \
  rpicam-apps

[ -x .venv/bin/python ] || python3 -m venv --system-site-packages .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e .

sudo raspi-config nonint do_spi 0                         # /dev/spidev0.0 for the LED strip
sudo usermod -aG gpio,spi,video "$RUN_USER"
sudo install -d -o "$RUN_USER" -g "$RUN_USER" "$DATA"

if [ ! -f "$CONFIG" ]; then
  sudo install -d /etc/smarttable
  sudo tee "$CONFIG" >/dev/null <<TOML
# This table's config: firmware_cfg/table.toml's keys, with paths for this Pi.
[board]
width = 48.0
height = 48.0

[markers]
dictionary = "DICT_APRILTAG_36h11"
corner_size_mm = 50
model_size_mm = 15

[markers.corners]
"0" = [1.5, 1.5]
"1" = [46.5, 1.5]
"2" = [46.5, 46.5]
"3" = [1.5, 46.5]

[camera]
source = "auto"          # the Pi camera, else a USB camera

[game]
ruleset = "synaptik"
scene = "$ROOT/table/data/demo-synaptik.json"   # the scene a new game starts from

[hardware]
pin_map = "$ROOT/firmware_cfg/$PINS"
led_layout = "$ROOT/firmware_cfg/leds/edge-strip.toml"
strip = "spi"
supply_amps = 4.0        # the 5 V supply feeding the strip: caps the LEDs' current at 80% of it

[log]
path = "$DATA/game.sqlite3"
TOML
  echo "install-pi: wrote $CONFIG"
fi

sed -e "s|@ROOT@|$ROOT|g" -e "s|@USER@|$RUN_USER|g" -e "s|@CONFIG@|$CONFIG|g" deploy/smarttable.service \
  | sudo tee /etc/systemd/system/smarttable.service >/dev/null
sudo systemctl daemon-reload
sudo systemctl enable smarttable.service

echo "install-pi: done. Reboot once (SPI and the new groups take effect), then:"
echo "  .venv/bin/smarttable doctor --config $CONFIG     # what is missing, and how to fix it"
echo "  sudo systemctl start smarttable; journalctl -u smarttable -f"
