"""Saved scenes in the table's data folder: the only place a request's name reaches the file system.

A name is a plain word (letters, digits, `-`, `_`); it becomes `<data>/scenes/<name>.json` and the
resolved path is checked to lie inside that folder.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path
from typing import Any

from table import strictjson
from table.errors import SceneError
from table.scene import parse_scene
from web_ui.errors import ApiError

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
SCENES = "scenes"


def scene_path(data_dir: Path, name: str) -> Path:
    if not NAME.match(name):
        raise ApiError(400, "name", "a scene name is 1-64 letters, digits, '-' or '_'")
    folder = (data_dir / SCENES).resolve()
    path = (folder / f"{name}.json").resolve()
    if path.parent != folder:
        raise ApiError(400, "name", "a scene name may not leave the scenes folder")
    return path


def list_scenes(data_dir: Path) -> list[str]:
    folder = data_dir / SCENES
    if not folder.is_dir():
        return []
    return sorted(p.stem for p in folder.glob("*.json") if NAME.match(p.stem))


def read_scene(data_dir: Path, name: str) -> dict[str, Any]:
    path = scene_path(data_dir, name)
    if not path.is_file():
        raise ApiError(404, "name", f"no saved scene {name!r}")
    try:
        return strictjson.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ApiError(409, "name", f"saved scene {name!r} cannot be read: {exc}") from None


def write_scene(data_dir: Path, name: str, document: dict[str, Any]) -> Path:
    """Validate and save atomically (write a temporary file, then rename)."""
    try:
        parse_scene(document, "scene")
    except SceneError as exc:
        raise ApiError(409, "scene", f"the table's scene is not valid: {exc}") from None
    path = scene_path(data_dir, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(strictjson.dumps(document, indent=2))
    os.replace(tmp, path)
    return path
