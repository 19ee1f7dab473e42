"""The table config: defaults, the shipped file, and one-line errors naming file and key."""

import pytest

from table.config import DEFAULT_CONFIG, default_config, load_config
from table.errors import ConfigError


def test_shipped_default_table_loads():
    config = load_config()
    assert config.source == DEFAULT_CONFIG.resolve()
    assert config.board.width == 48.0
    assert config.markers.dictionary == "DICT_APRILTAG_36h11"
    assert config.corners == {0: (1.5, 1.5), 1: (46.5, 1.5), 2: (46.5, 46.5), 3: (1.5, 46.5)}


def test_contract_example_is_a_valid_config(tmp_path):
    path = tmp_path / "t.toml"
    path.write_text("""
[board]
width = 48.0
height = 48.0

[markers]
dictionary = "DICT_4X4_50"
corner_size_mm = 50
model_size_mm = 15
model_height_mm = 0

[markers.corners]
"0" = [1.5, 1.5]
"1" = [46.5, 1.5]
"2" = [46.5, 46.5]
"3" = [1.5, 46.5]
""")
    config = load_config(path)
    assert config.markers.dictionary == "DICT_4X4_50"
    assert config.markers.model_size_mm == 15.0
    assert config.camera.source == "auto"  # defaults fill what the file leaves out


def test_defaults_without_a_file():
    assert default_config().web.port == 8080


@pytest.mark.parametrize("text, message", [
    ("[board]\nwidth = -4\n", "t.toml: board.width: must be greater than 0, got -4"),
    ("[board]\nwidth = 'wide'\n", "t.toml: board.width: expected a number, got 'wide'"),
    ("[board]\ndepth = 4\n", "t.toml: board.depth: unknown key"),
    ("[boards]\nwidth = 4\n", "t.toml: [boards]: unknown section"),
    ("[hardware]\nmock = 1\n", "t.toml: hardware.mock: expected true or false, got 1"),
    ("[camera]\nsource = 'webcam'\n", "t.toml: camera.source: must be one of"),
    ("[markers.corners]\n\"0\" = [1.5]\n", "t.toml: markers.corners.0: expected [x, y] in inches"),
    ("[markers.corners]\nnw = [1.5, 1.5]\n", "t.toml: markers.corners.nw: a marker id must be a whole number"),
    ("[board\nwidth = 4\n", "t.toml: invalid TOML"),
])
def test_mistakes_are_one_line_naming_file_and_key(tmp_path, text, message):
    path = tmp_path / "t.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="nope.toml: no such file"):
        load_config(tmp_path / "nope.toml")


def test_the_config_is_typed_and_frozen(tmp_path):
    """Sections are frozen dataclasses of typed values: a number is a float even when the file gives an
    integer, tables and arrays are read-only; a change is a new config (dataclasses.replace)."""
    import dataclasses

    path = tmp_path / "t.toml"
    path.write_text('[board]\nwidth = 72\n[web]\nallowed_hosts = ["table.club"]\n[markers.corners]\n"0" = [1, 2]\n')
    config = load_config(path)
    assert type(config.board.width) is float and config.board.width == 72.0
    assert type(config.web.port) is int and config.web.allowed_hosts == ("table.club",)
    assert config.markers.corners == {"0": (1.0, 2.0)} and config.corners == {0: (1.0, 2.0)}
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.board.width = 48.0
    with pytest.raises(TypeError):
        config.markers.corners["1"] = (3.0, 4.0)
    wider = dataclasses.replace(config, board=dataclasses.replace(config.board, width=96.0))
    assert (wider.board.width, config.board.width) == (96.0, 72.0)


def test_every_section_field_is_a_key_of_the_file_and_back():
    """The section classes are the one place keys meet fields: the defaults' config gives back every
    key's default, under the key's name, in the schema's order."""
    import dataclasses
    from collections.abc import Mapping

    from table.config import SCHEMA

    def as_toml(value):
        if isinstance(value, Mapping):
            return {k: as_toml(v) for k, v in value.items()}
        return [as_toml(v) for v in value] if isinstance(value, tuple) else value

    defaults = default_config()
    for section, keys in SCHEMA.items():
        typed = getattr(defaults, section)
        assert [f.name for f in dataclasses.fields(typed)] == list(keys), section
        for key, spec in keys.items():
            assert as_toml(getattr(typed, key)) == spec.default, f"{section}.{key}"
