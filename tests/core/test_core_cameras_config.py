"""`[[cameras]]`: several cameras, each a `[camera]` of its own plus the part of the board it sees."""


import pytest

from table.config import CONFIG_DIR, load_config
from table.errors import ConfigError
from tests.inprocess import smarttable


def write(tmp_path, text):
    path = tmp_path / "table.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_each_camera_is_a_config_of_its_own(tmp_path):
    config = load_config(write(tmp_path, """
[[cameras]]
source = "opencv"
index = 2
area = [0, 0, 40, 48]
[[cameras]]
source = "picamera2"
width = 1332
area = [32, 0, 72, 48]
"""))
    first, second = config.camera_configs()
    assert (first.camera.source, first.camera.index, first.camera.area) == ("opencv", 2, (0.0, 0.0, 40.0, 48.0))
    assert (second.camera.width, second.camera.height) == (1332, 1520)     # defaults filled in
    assert first.board == config.board and load_config().camera_configs() == []


@pytest.mark.parametrize("text, message", [
    ('[camera]\nindex = 1\n[[cameras]]\narea = [0, 0, 1, 1]\n', "cameras: give one [camera] or several [[cameras]]"),
    ('[[cameras]]\narea = [0, 0, 40, 48]\n[[cameras]]\nindex = 1\n', "cameras[1].area: each of several cameras needs"),
    ('[[cameras]]\narea = [40, 0, 30, 48]\n', "cameras[0].area: expected [x0, y0, x1, y1]"),
    ('[[cameras]]\nfocus = 3\n', "cameras[0].focus: unknown key"),
    ('cameras = 3\n', "cameras: expected [[cameras]] tables"),
])
def test_camera_mistakes_name_the_entry(tmp_path, text, message):
    with pytest.raises(ConfigError, match=r"table\.toml: " + message.replace("[", r"\[").replace("]", r"\]")):
        load_config(write(tmp_path, text))


def test_a_mistake_exits_2_with_one_line(tmp_path):
    path = write(tmp_path, '[[cameras]]\narea = "left"\n')
    done = smarttable("run", "--demo", "--no-web", "--config", str(path))
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "cameras[0].area: expected a list" in done.stderr or "cameras[0].area" in done.stderr


def test_the_two_camera_demo_config_loads():
    config = load_config(CONFIG_DIR / "demo-two-cameras.toml")
    areas = [c.camera.area for c in config.camera_configs()]
    assert config.board.width == 72.0 and areas == [(0.0, 0.0, 42.0, 48.0), (30.0, 0.0, 72.0, 48.0)]
