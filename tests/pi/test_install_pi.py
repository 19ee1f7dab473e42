"""deploy/install-pi.sh, run for real with the system's commands stubbed at the command boundary:
fake apt-get, systemctl, raspi-config, usermod, hostname, sudo and python3 on PATH record their
calls (and keep the little state they need), every system path lives under SMARTTABLE_SYSROOT, and
the venv's python is the real interpreter except for pip. What it writes is checked with the table's
own loaders (config, pin map) and an XML parser (the avahi service)."""

from __future__ import annotations

import getpass
import os
import shutil
import stat
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from table.config import load_config
from table.hw.pinmap import load_pin_map

ROOT = Path(__file__).resolve().parents[2]
PI5 = "Raspberry Pi 5 Model B Rev 1.0\0"
PI4 = "Raspberry Pi 4 Model B Rev 1.4\0"

RECORD = 'echo "$(basename "$0") $*" >> "$CALLS"\n'
FAKES = {
    "sudo": RECORD + 'if [ "$1" = -u ]; then shift 2; fi\nexec "$@"\n',
    "apt-get": RECORD + 'exit "${FAKE_APT_EXIT:-0}"\n',
    "raspi-config": RECORD + 'if [ "$2" = do_hostname ]; then echo "$3" > "$STATE/hostname"; fi\n',
    "usermod": RECORD,
    "hostname": 'cat "$STATE/hostname"\n',
    "systemctl": RECORD + 'case "$1" in\n  is-enabled) [ -f "$STATE/enabled" ] ;;\n'
                          '  enable) touch "$STATE/enabled" ;;\nesac\n',
    "python3": RECORD + 'if [ "$1" = -I ]; then echo "$FAKE_SYSTEM_NUMPY"; exit 0; fi\n'
                        'if [ "$1 $2" = "-m venv" ]; then\n'
                        '  mkdir -p "${@: -1}/bin"\n'
                        '  printf \'%s\\n\' \'#!/bin/bash\' \'echo "venv-python $*" >> "$CALLS"\' '
                        '\'if [ "$1 $2" = "-m pip" ]; then exit 0; fi\' \'exec "$REAL_PYTHON" "$@"\' '
                        '> "${@: -1}/bin/python"\n'
                        '  chmod +x "${@: -1}/bin/python"\nfi\n',
}


@dataclass
class Pi:
    """A stand-in Raspberry Pi: a checkout, a sysroot, fake commands and their call log."""

    base: Path
    user: str
    env: dict[str, str] = field(default_factory=dict)

    @property
    def checkout(self) -> Path:
        return self.base / "home" / "smarttable"

    @property
    def sysroot(self) -> Path:
        return self.base / "root"

    @property
    def etc(self) -> Path:
        return self.sysroot / "etc" / "smarttable"

    @property
    def unit(self) -> Path:
        return self.sysroot / "etc" / "systemd" / "system" / "smarttable.service"

    @property
    def avahi(self) -> Path:
        return self.sysroot / "etc" / "avahi" / "services" / "smarttable.service"

    def install(self, *args: str, **env: str) -> subprocess.CompletedProcess:
        return subprocess.run(["bash", str(self.checkout / "deploy" / "install-pi.sh"), *args],
                              cwd=self.base, env={**self.env, **env}, capture_output=True, text=True,
                              timeout=120)

    def calls(self) -> list[str]:
        log = self.base / "calls.log"
        return log.read_text().splitlines() if log.exists() else []

    def first(self, prefix: str) -> int:
        """Position of the first call starting with prefix (not counting sudo's own lines)."""
        calls = [c for c in self.calls() if not c.startswith("sudo ")]
        return next(i for i, c in enumerate(calls) if c.startswith(prefix))


def make_pi(base: Path, model: str | None = PI5, picamera2: str = "class Picamera2:\n    pass\n") -> Pi:
    user = "nobody" if os.geteuid() == 0 else getpass.getuser()
    pi = Pi(base, user)
    shutil.copytree(ROOT / "deploy", pi.checkout / "deploy")
    shutil.copytree(ROOT / "firmware_cfg", pi.checkout / "firmware_cfg")
    (pi.checkout / "table" / "data").mkdir(parents=True)
    shutil.copy(ROOT / "table" / "data" / "demo.json", pi.checkout / "table" / "data")
    if model is not None:
        (pi.sysroot / "proc" / "device-tree").mkdir(parents=True)
        (pi.sysroot / "proc" / "device-tree" / "model").write_text(model)
    bin_dir, state, site = base / "fakebin", base / "state", base / "site"
    for folder in (bin_dir, state, site / "picamera2"):
        folder.mkdir(parents=True)
    (state / "hostname").write_text("raspberrypi\n")
    (site / "picamera2" / "__init__.py").write_text(picamera2)  # what apt's python3-picamera2 provides
    for name, body in FAKES.items():
        path = bin_dir / name
        path.write_text("#!/bin/bash\n" + body)
        path.chmod(path.stat().st_mode | stat.S_IEXEC)
    pi.env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "HOME": str(base),
              "CALLS": str(base / "calls.log"), "STATE": str(state), "SMARTTABLE_SYSROOT": str(pi.sysroot),
              "SUDO_USER": user, "FAKE_SYSTEM_NUMPY": "1.24.2", "REAL_PYTHON": sys.executable,
              "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    return pi


def owner(path: Path) -> str:
    import pwd

    return pwd.getpwuid(path.stat().st_uid).pw_name


def test_a_fresh_pi5_is_set_up_in_order_and_the_service_left_for_after_doctor(tmp_path):
    pi = make_pi(tmp_path)
    done = pi.install()
    assert done.returncode == 0, done.stderr
    apt = next(c for c in pi.calls() if c.startswith("apt-get install"))
    for package in ("python3-picamera2", "python3-numpy", "python3-scipy", "python3-lgpio", "python3-spidev",
                    "avahi-daemon"):
        assert package in apt.split()
    assert "python3-rpi.gpio" not in apt
    # order: packages, the system's numpy read, venv, pip pinned to it, picamera2 loads, then the system
    steps = ["apt-get update", "apt-get install", "python3 -I", "python3 -m venv --system-site-packages",
             "venv-python -m pip install -q -c .venv/pi-constraints.txt -e .", "venv-python -c",
             "raspi-config nonint do_spi 0", f"usermod -aG gpio,spi,video {pi.user}",
             "raspi-config nonint do_hostname smarttable", "systemctl daemon-reload"]
    positions = [pi.first(step) for step in steps]
    assert positions == sorted(positions), list(zip(steps, positions, strict=True))
    # Bookworm's numpy 1.24: OpenCV pinned to what works with it, so pip downloads no wheel it then rejects
    assert (pi.checkout / ".venv" / "pi-constraints.txt").read_text() == \
        "numpy==1.24.2\nopencv-python-headless<4.12\n"
    assert "warning: the system's numpy 1.24.2 (Bookworm) limits pip to OpenCV 4.11" in done.stderr
    # the pi extra is not pip's to install, and the script says why (apt's spidev and lgpio are those modules)
    assert not any("[pi]" in c for c in pi.calls())
    script = (ROOT / "deploy" / "install-pi.sh").read_text()
    assert "`pi` extra (spidev, lgpio) is not installed by pip: apt's python3-spidev" in script
    assert "sudo apt-get install -y python3-venv" in "\n".join(pi.calls())
    # nothing enables or starts the service: the camera is free for doctor and calibrate-lens
    assert [c for c in pi.calls() if c.startswith("systemctl")] == [
        "systemctl daemon-reload", "systemctl is-enabled --quiet smarttable.service"]
    advice = done.stdout[done.stdout.index("Next, in this order"):]
    assert advice.index("doctor") < advice.index("calibrate-lens") < advice.index("systemctl enable")
    assert "http://smarttable.local:8080/" in advice

    config = load_config(pi.etc / "table.toml")
    pins = load_pin_map(config.path("hardware", "pin_map"))
    assert config.path("hardware", "pin_map").name == "pins-pi5.toml" and pins.factory == "lgpio"
    assert config.path("hardware", "led_layout").is_file() and config.path("game", "scene").is_file()
    assert config.path("log", "path") == pi.sysroot / "var" / "lib" / "smarttable" / "game.sqlite3"
    assert owner(pi.etc) == pi.user and owner(pi.sysroot / "var" / "lib" / "smarttable") == pi.user

    unit = pi.unit.read_text()
    assert "@" not in unit.replace("multi-user", "")
    assert f"ExecStart={pi.checkout}/.venv/bin/smarttable run --config {pi.etc}/table.toml" in unit
    assert f"User={pi.user}\n" in unit and "RestartPreventExitStatus=2\n" in unit
    service = ET.parse(pi.avahi).getroot().find("service")
    assert service.findtext("type") == "_http._tcp" and service.findtext("port") == "8080"


def test_a_pi4_gets_its_pin_map_and_both_maps_use_lgpio(tmp_path):
    pi = make_pi(tmp_path, PI4)
    pi.env["FAKE_SYSTEM_NUMPY"] = "2.2.4"  # Raspberry Pi OS Trixie's
    done = pi.install()
    assert done.returncode == 0, done.stderr
    assert (pi.checkout / ".venv" / "pi-constraints.txt").read_text() == "numpy==2.2.4\n"
    assert "warning" not in done.stderr
    config = load_config(pi.etc / "table.toml")
    assert config.path("hardware", "pin_map").name == "pins-pi4.toml"
    for name in ("pins-pi4.toml", "pins-pi5.toml"):
        assert load_pin_map(ROOT / "firmware_cfg" / name).factory == "lgpio"


def test_running_it_again_keeps_the_config_and_restarts_an_enabled_service(tmp_path):
    pi = make_pi(tmp_path)
    assert pi.install().returncode == 0
    config = pi.etc / "table.toml"
    edited = config.read_text().replace("port = 8080", "port = 8090") + "# my table\n"
    config.write_text(edited)
    unit = pi.unit.read_text()
    done = pi.install()
    assert done.returncode == 0, done.stderr
    assert config.read_text() == edited and pi.unit.read_text() == unit
    assert ET.parse(pi.avahi).getroot().find("service").findtext("port") == "8090"
    calls = pi.calls()
    assert sum(c.startswith("python3 -m venv") for c in calls) == 1
    assert sum("do_hostname" in c for c in calls if not c.startswith("sudo")) == 1  # already smarttable
    assert not any("restart" in c for c in calls)
    subprocess.run(["systemctl", "enable", "--now", "smarttable"], env=pi.env, check=True)  # the user, later
    done = pi.install()
    assert done.returncode == 0, done.stderr
    assert pi.calls()[-1] == "systemctl restart smarttable.service"
    assert "sudo systemctl restart smarttable.service" in pi.calls()


def test_a_failing_step_stops_with_one_line_and_a_rerun_finishes(tmp_path):
    pi = make_pi(tmp_path)
    done = pi.install(FAKE_APT_EXIT="100")
    assert done.returncode == 100
    assert done.stderr.strip().splitlines()[-1].startswith("install-pi: failed at line ")
    assert "apt-get update" in done.stderr.strip().splitlines()[-1]
    assert not (pi.checkout / ".venv").exists() and not pi.unit.exists() and not pi.etc.exists()
    done = pi.install()
    assert done.returncode == 0, done.stderr
    assert pi.unit.exists()


def test_a_picamera2_that_cannot_load_stops_the_install_before_the_service(tmp_path):
    pi = make_pi(tmp_path, picamera2="import numpy\nraise ValueError('numpy.dtype size changed, may "
                                     "indicate binary incompatibility. Expected 96 from C header, got 88')\n")
    done = pi.install()
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines[-2].startswith("install-pi: picamera2 is installed but cannot load: ValueError: numpy.dtype")
    assert "nothing was enabled" in lines[-1]
    assert not pi.unit.exists() and not (pi.etc / "table.toml").exists()
    assert not any(c.startswith("raspi-config") for c in pi.calls())


def test_not_a_pi_or_a_bad_host_name_is_one_line_before_any_change(tmp_path):
    laptop = make_pi(tmp_path / "laptop", model=None)
    done = laptop.install()
    assert done.returncode == 1 and "not a Raspberry Pi" in done.stderr and not laptop.calls()
    pi = make_pi(tmp_path / "pi")
    done = pi.install("--hostname", "My_Table")
    assert done.returncode == 1 and done.stderr.count("\n") == 1 and "--hostname My_Table" in done.stderr
    assert not pi.calls()


def test_keep_hostname_leaves_the_name_and_points_at_it(tmp_path):
    pi = make_pi(tmp_path)
    done = pi.install("--keep-hostname")
    assert done.returncode == 0, done.stderr
    assert not any("do_hostname" in c for c in pi.calls())
    assert "http://raspberrypi.local:8080/" in done.stdout


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root: the script refuses only root itself")
def test_it_refuses_to_set_the_table_up_for_root(tmp_path):
    pi = make_pi(tmp_path)
    env = {k: v for k, v in pi.env.items() if k != "SUDO_USER"}
    done = subprocess.run(["bash", str(pi.checkout / "deploy" / "install-pi.sh")], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "not as root" in done.stderr and not pi.calls()
