"""Saved scenes, army lists and scenarios in the table's data folder: the only place a request's name
reaches the file system.

A name is a plain word (letters, digits, `-`, `_`); a kind's file is `<data>/<kind>/<name>.json`
(`scenes`, `armies`, `scenarios`) and the resolved path is checked to lie inside that folder. Each file
is checked by its format's reader before it is written and when it is read back.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from table import strictjson
from table.errors import QueryError, SceneError
from table.rules.setups import parse_army, parse_scenario
from table.scene import parse_scene
from web_ui.errors import ApiError

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
SCENES, ARMIES, SCENARIOS = "scenes", "armies", "scenarios"
WORDS = {SCENES: "scene", ARMIES: "army list", SCENARIOS: "scenario"}
CHECKS: dict[str, Callable[[Any, str], Any]] = {SCENES: parse_scene, ARMIES: parse_army,
                                                SCENARIOS: parse_scenario}


def path_of(data_dir: Path, kind: str, name: str) -> Path:
    if not NAME.match(name):
        raise ApiError(400, "name", f"a {WORDS[kind]} name is 1-64 letters, digits, '-' or '_'")
    folder = (data_dir / kind).resolve()
    path = (folder / f"{name}.json").resolve()
    if path.parent != folder:
        raise ApiError(400, "name", f"a {WORDS[kind]} name may not leave its folder")
    return path


def names(data_dir: Path, kind: str) -> list[str]:
    folder = data_dir / kind
    if not folder.is_dir():
        return []
    return sorted(p.stem for p in folder.glob("*.json") if NAME.match(p.stem))


def read(data_dir: Path, kind: str, name: str) -> dict[str, Any]:
    """A saved file, checked (404 naming `name` if there is none, 409 if it no longer reads)."""
    path = path_of(data_dir, kind, name)
    if not path.is_file():
        raise ApiError(404, "name", f"no saved {WORDS[kind]} {name!r}")
    try:
        document: dict[str, Any] = strictjson.loads(path.read_text(encoding="utf-8"))
        CHECKS[kind](document, f"{kind}/{name}.json")
    except (OSError, ValueError) as exc:
        raise ApiError(409, "name", f"saved {WORDS[kind]} {name!r} cannot be read: {exc}") from None
    return document


def write(data_dir: Path, kind: str, name: str, document: dict[str, Any], field: str) -> Path:
    """Check and save atomically (a temporary file, then a rename); a bad document is a 400 naming
    `field` and the place in it."""
    try:
        CHECKS[kind](document, "")
    except (SceneError, QueryError) as exc:
        raise ApiError(400, field, str(exc)) from None
    path = path_of(data_dir, kind, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(strictjson.dumps(document, indent=2))
    os.replace(tmp, path)
    return path


def delete(data_dir: Path, kind: str, name: str) -> None:
    path = path_of(data_dir, kind, name)
    if not path.is_file():
        raise ApiError(404, "name", f"no saved {WORDS[kind]} {name!r}")
    path.unlink()


def list_scenes(data_dir: Path) -> list[str]:
    return names(data_dir, SCENES)


def read_scene(data_dir: Path, name: str) -> dict[str, Any]:
    return read(data_dir, SCENES, name)


def write_scene(data_dir: Path, name: str, document: dict[str, Any]) -> Path:
    """The table's own scene, saved (a scene the table holds that does not check is a 409)."""
    try:
        parse_scene(document, "scene")
    except SceneError as exc:
        raise ApiError(409, "scene", f"the table's scene is not valid: {exc}") from None
    return write(data_dir, SCENES, name, document, "scene")
