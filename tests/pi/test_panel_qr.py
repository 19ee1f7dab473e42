"""A phone finds the panel: its addresses, a QR code in the terminal when the table starts, and a
printable QR page with the marker sheets. Every QR code is read back with OpenCV's QR decoder."""

from __future__ import annotations

import io
import json
import os
import pty
import select
import socket
import subprocess
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from table.cli import main
from table.live.panel_address import announce, lan_address, panel_urls, qr_text
from tests.ports import free_port

ROOT = Path(__file__).resolve().parents[2]
CONFIG_DIR = ROOT / "firmware_cfg"
# segno's compact terminal code: light modules are drawn, two rows a character (upper, lower)
BLOCKS = {"█": (255, 255), "▀": (255, 0), "▄": (0, 255), " ": (0, 0)}


def decode_text_qr(text: str) -> str:
    """Read a terminal QR code the way a phone reads the screen: as pixels."""
    rows = [line for line in text.splitlines() if line and set(line) <= set(BLOCKS)]
    if not rows:
        return ""
    width = max(len(r) for r in rows)
    image = np.zeros((2 * len(rows), width), np.uint8)
    for y, row in enumerate(rows):
        for x, char in enumerate(row.ljust(width, "█")):
            image[2 * y, x], image[2 * y + 1, x] = BLOCKS[char]
    big = cv2.resize(image, None, fx=8, fy=8, interpolation=cv2.INTER_NEAREST)
    return cv2.QRCodeDetector().detectAndDecode(big)[0]


def test_the_terminal_qr_code_reads_back_as_the_address():
    url = "http://192.168.1.23:8080/"
    assert decode_text_qr(qr_text(url)) == url


def test_without_a_terminal_only_the_addresses_are_printed():
    out = io.StringIO()
    urls = announce("10.0.0.5", 8080, out, qr=False)
    assert out.getvalue() == "Panel on the network: http://10.0.0.5:8080/\n" and urls == ["http://10.0.0.5:8080/"]


def test_panel_urls_as_another_device_types_them():
    assert panel_urls("0.0.0.0", 8080, hostname="smarttable", lan="192.168.1.23") == [
        "http://smarttable.local:8080/", "http://192.168.1.23:8080/"]
    assert panel_urls("0.0.0.0", 8080, hostname="smarttable.lan") == ["http://smarttable.local:8080/"]
    assert panel_urls("127.0.0.1", 9000) == ["http://localhost:9000/"]
    assert panel_urls("10.0.0.5", 8080) == ["http://10.0.0.5:8080/"]


def test_the_lan_address_is_one_of_this_machines():
    address = lan_address()
    if address is None:
        pytest.skip("this machine has no route to a network")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind((address, 0))  # only an address of this host can be bound


def test_markers_add_a_printable_qr_page_of_the_panel(tmp_path, capsys):
    config = tmp_path / "table.toml"
    config.write_text("[web]\nport = 8090\n")
    out = tmp_path / "sheet.png"
    assert main(["markers", str(out), "--ids", "10-11", "--no-corners", "--no-pointer", "--dpi", "150",
                 "--config", str(config), "--panel-url"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["pages"] == 2 and answer["panel_url"] == "http://smarttable.local:8090/"
    page = cv2.imread(answer["files"][-1], cv2.IMREAD_GRAYSCALE)
    assert cv2.QRCodeDetector().detectAndDecode(page)[0] == "http://smarttable.local:8090/"
    ys, xs = np.nonzero(page[: page.shape[0] * 2 // 3] < 128)  # the code sits in the top part
    dark = page[ys.min():, xs.min():]
    side_mm = (np.nonzero(dark[0] < 128)[0].max() + 1) / 150 * 25.4
    assert side_mm > 50, "a phone needs a code it can read from arm's length"
    assert main(["markers", str(tmp_path / "other.png"), "--ids", "10", "--no-corners", "--no-pointer",
                 "--dpi", "150", "--config", str(config), "--panel-url", "http://10.0.0.5:8090/"]) == 0
    other = json.loads(capsys.readouterr().out)
    last = cv2.imread(other["files"][-1], cv2.IMREAD_GRAYSCALE)
    assert cv2.QRCodeDetector().detectAndDecode(last)[0] == "http://10.0.0.5:8090/"


def test_run_prints_the_address_and_its_qr_code_in_a_terminal(tmp_path):
    """`run` in a terminal prints where the panel is and its QR code; stopped as a service is (SIGTERM),
    it exits 0. Read for as long as start-up takes (a loaded machine takes more than a few seconds)."""
    port = free_port("0.0.0.0")
    config = tmp_path / "table.toml"
    config.write_text(f'[web]\npin = "246813"\n[log]\npath = "game.sqlite3"\n'
                      f'[hardware]\npin_map = "{CONFIG_DIR}/pins-pi4.toml"\n'
                      f'led_layout = "{CONFIG_DIR}/leds/edge-strip.toml"\n')
    leader, follower = pty.openpty()
    table = subprocess.Popen([sys.executable, "-m", "table.cli", "run", "--demo", "--config", str(config),
                              "--host", "0.0.0.0", "--port", str(port)],
                             cwd=ROOT, stdout=subprocess.DEVNULL, stderr=follower, stdin=subprocess.DEVNULL)
    os.close(follower)
    output = b""
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and table.poll() is None:
            ready, _, _ = select.select([leader], [], [], 1.0)
            if ready:
                output += os.read(leader, 65536)
                text = output.decode("utf-8", "replace").replace("\r\n", "\n")
                if "Panel on the network: " in text and decode_text_qr(text):
                    break                                    # the address and a whole QR code
    finally:
        table.terminate()
        try:
            table.wait(timeout=60)
        finally:
            os.close(leader)
    text = output.decode("utf-8", "replace").replace("\r\n", "\n")
    assert table.returncode == 0, text
    announced = next(line for line in text.splitlines() if line.startswith("Panel on the network: "))
    urls = announced.removeprefix("Panel on the network: ").split()
    assert urls[0] == f"http://{socket.gethostname().split('.')[0]}.local:{port}/"
    assert decode_text_qr(text) == urls[-1]
