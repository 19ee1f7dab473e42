#!/usr/bin/env bash
# Install the smart table on Raspberry Pi OS (Bookworm or later) on a Pi 4 or Pi 5.
# Run from the checkout as the user who will run the table (it asks sudo for what needs root):
#     bash deploy/install-pi.sh [--hostname NAME | --keep-hostname]
# In order, and safe to run again:
#  1. apt: picamera2, numpy, scipy (built for that numpy), lgpio, spidev, rpicam-apps, avahi-daemon.
#  2. .venv with --system-site-packages (it sees apt's picamera2, numpy, lgpio, spidev). pip installs the
#     table with numpy pinned to the system's: apt's picamera2 is built against that numpy and fails to
#     load beside any other ("numpy.dtype size changed", picamera2 issues 1088 and 1211). With Bookworm's
#     numpy 1.24 OpenCV is pinned below 4.12 too (4.12 and later need numpy 2): unpinned, pip downloads and
#     rejects five OpenCV wheels, about 180 MB, before it settles on 4.11. It ends by loading picamera2 as
#     the table does. The table's `pi` extra (spidev, lgpio) is not installed by pip: apt's python3-spidev
#     and python3-lgpio (step 1) are those modules, built against the Pi's own kernel headers and liblgpio,
#     and the venv sees them; pip would build the same modules again from source (needing swig and the C
#     headers), and would compete with apt's on every upgrade.
#  3. SPI on; the user in gpio, spi and video; /etc/smarttable owned by the user (calibrate-lens writes
#     lens.toml there, beside table.toml, written once); /var/lib/smarttable for the game log.
#  4. The host name (default smarttable, so phones open http://smarttable.local:PORT/) and an avahi
#     service file announcing the panel (Raspberry Pi OS runs avahi-daemon, the host's mDNS responder).
#  5. The systemd unit, installed but not enabled, so the camera stays free for `doctor` and
#     `calibrate-lens`; enable it after them. A re-run on a table whose service is enabled restarts it.
# SMARTTABLE_SYSROOT (tests only) stands in for / in every system path.
set -Eeuo pipefail
trap 'echo "install-pi: failed at line $LINENO: $BASH_COMMAND" >&2' ERR
cd "$(dirname "$0")/.."
ROOT="$(pwd)"
SYSROOT="${SMARTTABLE_SYSROOT:-}"
ETC="$SYSROOT/etc/smarttable"
CONFIG="$ETC/table.toml"
DATA="$SYSROOT/var/lib/smarttable"
UNIT="$SYSROOT/etc/systemd/system/smarttable.service"
AVAHI="$SYSROOT/etc/avahi/services/smarttable.service"
PORT=8080

die() { echo "install-pi: $*" >&2; trap - ERR; exit 1; }

NAME=smarttable
while [ $# -gt 0 ]; do
  case "$1" in
    --hostname) [ $# -ge 2 ] || die "--hostname needs a name"; NAME="$2"; shift 2 ;;
    --keep-hostname) NAME=""; shift ;;
    *) die "unknown option $1 (options: --hostname NAME, --keep-hostname)" ;;
  esac
done
if [ -n "$NAME" ] && ! [[ "$NAME" =~ ^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$ ]]; then
  die "--hostname $NAME: use lower-case letters, digits and inner hyphens (at most 63)"
fi

if ! grep -q "Raspberry Pi" "$SYSROOT/proc/device-tree/model" 2>/dev/null; then
  die "this is not a Raspberry Pi; on a laptop run: scripts/run-table.sh --demo"
fi
MODEL="$(tr -d '\0' <"$SYSROOT/proc/device-tree/model")"
case "$MODEL" in
  *"Raspberry Pi 5"*) PINS=pins-pi5.toml ;;
  *) PINS=pins-pi4.toml ;;
esac
RUN_USER="${SUDO_USER:-$(id -un)}"
[ "$RUN_USER" != root ] || die "run it as the user who will run the table, not as root"
RUN_GROUP="$(id -gn "$RUN_USER")"
as_user() { if [ "$(id -u)" = 0 ]; then sudo -u "$RUN_USER" "$@"; else "$@"; fi; }
echo "install-pi: $MODEL -> $PINS, the table runs as $RUN_USER"

# 1. system packages
sudo apt-get update
sudo apt-get install -y python3-venv python3-numpy python3-scipy python3-picamera2 python3-lgpio \
  python3-spidev rpicam-apps avahi-daemon

# 2. the venv, on the system's numpy
SYSTEM_NUMPY="$(python3 -I -c 'import numpy; print(numpy.__version__)')"
if [ "${SYSTEM_NUMPY%%.*}" = 1 ]; then
  echo "install-pi: warning: the system's numpy $SYSTEM_NUMPY (Bookworm) limits pip to OpenCV 4.11, whose" \
    "marker detection is weaker in hard cases (motion blur, a stray corner marker) than the OpenCV 5 the" \
    "tests use; Raspberry Pi OS Trixie (numpy 2) gets OpenCV 5" >&2
fi
[ -x .venv/bin/python ] || as_user python3 -m venv --system-site-packages .venv
{ echo "numpy==$SYSTEM_NUMPY"
  if [ "${SYSTEM_NUMPY%%.*}" = 1 ]; then echo "opencv-python-headless<4.12"; fi   # the last for numpy 1
} | as_user tee .venv/pi-constraints.txt >/dev/null
as_user .venv/bin/python -m pip install -q --upgrade pip
as_user .venv/bin/python -m pip install -q -c .venv/pi-constraints.txt -e .
table_python() {  # run Python in the venv; a TableError is its one line and exit 1
  as_user .venv/bin/python -c "import sys
from table.errors import TableError
try:
$1
except TableError as exc:
    sys.exit(f'install-pi: {exc}')" "${@:2}"
}
table_python "    from vision.picamera import load_picamera2; load_picamera2()" \
  || die "the Pi camera library does not load in .venv (above); nothing was enabled"

# 3. SPI, groups, folders, the config
sudo raspi-config nonint do_spi 0                         # /dev/spidev0.0 for the LED strip
sudo usermod -aG gpio,spi,video "$RUN_USER"
sudo install -d -o "$RUN_USER" -g "$RUN_GROUP" -m 0755 "$DATA" "$ETC"
if [ ! -f "$CONFIG" ]; then
  as_user tee "$CONFIG" >/dev/null <<TOML
# This table's config: firmware_cfg/table.toml's keys (docs/config.md), with paths for this Pi.
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
# intrinsics = "lens.toml"   # after: smarttable calibrate-lens capture --config $CONFIG

[game]
scene = "$ROOT/table/data/demo.json"   # the scene a new game starts from

[hardware]
pin_map = "$ROOT/firmware_cfg/$PINS"
led_layout = "$ROOT/firmware_cfg/leds/edge-strip.toml"
strip = "spi"
supply_amps = 4.0        # the 5 V supply feeding the strip: caps the LEDs' current at 80% of it

[web]
port = $PORT             # also announced by avahi: re-run deploy/install-pi.sh after changing it

[log]
path = "$DATA/game.sqlite3"
TOML
  echo "install-pi: wrote $CONFIG"
fi
PORT="$(table_python "    from table.config import load_config; print(load_config(sys.argv[1]).web.port)" \
  "$CONFIG")" || die "fix $CONFIG (above), then run this again"

# 4. found on the network: the host name and the panel's avahi service
if [ -n "$NAME" ] && [ "$(hostname)" != "$NAME" ]; then
  sudo raspi-config nonint do_hostname "$NAME"
  echo "install-pi: host name set to $NAME (after the reboot)"
fi
HOST="${NAME:-$(hostname)}"
sudo install -d "$(dirname "$AVAHI")"
sudo tee "$AVAHI" >/dev/null <<XML
<?xml version="1.0" standalone='no'?>
<!DOCTYPE service-group SYSTEM "avahi-service.dtd">
<!-- written by deploy/install-pi.sh: the smart table's web panel -->
<service-group>
  <name replace-wildcards="yes">Smart table on %h</name>
  <service>
    <type>_http._tcp</type>
    <port>$PORT</port>
    <txt-record>path=/</txt-record>
  </service>
</service-group>
XML

# 5. the service: installed, enabled by the user after doctor and calibrate-lens
sudo install -d "$(dirname "$UNIT")"
sed -e "s|@ROOT@|$ROOT|g" -e "s|@USER@|$RUN_USER|g" -e "s|@CONFIG@|$CONFIG|g" deploy/smarttable.service \
  | sudo tee "$UNIT" >/dev/null
sudo systemctl daemon-reload
if systemctl is-enabled --quiet smarttable.service 2>/dev/null; then
  sudo systemctl restart smarttable.service
  echo "install-pi: done; the table's service was enabled, so it restarted on this install."
  exit 0
fi
cat <<EOF
install-pi: done. The service is installed but not enabled. Next, in this order:
  sudo reboot                    # SPI, the new groups and the host name take effect
  .venv/bin/smarttable doctor --config $CONFIG
  .venv/bin/smarttable calibrate-lens capture --config $CONFIG   # writes $ETC/lens.toml
  sudo systemctl enable --now smarttable                           # start it, and at every boot
The panel is then http://$HOST.local:$PORT/ (smarttable markers --panel-url prints its QR code).
EOF
