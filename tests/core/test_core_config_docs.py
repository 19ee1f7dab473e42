"""docs/config.md documents every key the config schema accepts, and nothing it does not."""

import re
from pathlib import Path

from table.config import CAMERA_KEYS, SCHEMA

DOC = (Path(__file__).resolve().parents[2] / "docs" / "config.md").read_text(encoding="utf-8")


def documented() -> set[str]:
    keys: set[str] = set()
    section = None
    for line in DOC.splitlines():
        heading = re.match(r"## `\[\[?(\w+)\]\]?`", line)
        if heading:
            section = heading.group(1)
        elif section and line.startswith("| `"):
            for key in re.findall(r"`(\w+)`", line.split("|")[1]):
                keys.add(f"{section}.{key}")
    return keys


def test_every_schema_key_is_documented_and_no_other():
    schema = {f"{section}.{key}" for section, keys in {**SCHEMA, "cameras": CAMERA_KEYS}.items() for key in keys}
    assert documented() == schema
