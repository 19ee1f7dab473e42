"""Malformed config files (issue 11): one line naming the file and key, exit 2, from `run`, `doctor`
and `locate` alike; never a traceback, never a petabyte allocation or a port other than the one shown."""

from __future__ import annotations

import pytest

from table.cli import main as cli_main

CASES = [
    (b'[web]\nhost = "\xff\xfe"\n', "not UTF-8 text (byte 14): TOML files are UTF-8"),
    (b"[game]\nrulings = {a = " + b"[" * 3000 + b"]" * 3000 + b"}\n",
     "invalid TOML: arrays or tables nested too deep"),
    (b'[web]\nhost = "evil host;rm"\n', "web.host: expected an IP address or a host name, got 'evil host;rm'"),
    (b"[camera]\nwidth = 100000000\n", "camera.width: must be between 1 and 16384, got 100000000"),
    (b"[web]\nport = 99999\n", "web.port: must be between 1 and 65535, got 99999"),
    (b'[web]\npin = "1234"\n', "web.pin: must be at least 6 digits (or empty to generate one), got 4 character(s)"),
    (b"[markers.corners]\n\"0\" = [nan, 1.5]\n", "markers.corners.0[0]: must be a finite number"),
]


@pytest.mark.parametrize("text, message", CASES, ids=["utf8", "deep", "host", "camera", "port", "pin", "nan"])
def test_a_malformed_config_is_one_line_and_exit_2(tmp_path, capsys, text, message):
    config = tmp_path / "table.toml"
    config.write_bytes(text)
    photo = tmp_path / "photo.png"
    photo.write_bytes(b"")
    for command in (["run", "--demo", "--duration", "1"], ["doctor"], ["locate", str(photo)]):
        assert cli_main([*command, "--config", str(config)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert err == [f"smarttable {command[0]}: {config}: {message}"]
