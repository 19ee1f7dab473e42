"""Marker bit patterns from OpenCV's predefined dictionaries, for the panel's printable marker sheets."""

from __future__ import annotations

import cv2

from table.errors import ConfigError


def _dictionary(name: str) -> cv2.aruco.Dictionary:
    code = getattr(cv2.aruco, name, None)
    if not isinstance(code, int):
        raise ConfigError(f"unknown marker dictionary {name!r} in the config")
    return cv2.aruco.getPredefinedDictionary(code)


def marker_count(dictionary: str) -> int:
    """How many markers the named dictionary (e.g. DICT_4X4_50) holds."""
    return int(_dictionary(dictionary).bytesList.shape[0])


def marker_cells(dictionary: str, marker_id: int) -> list[list[bool]]:
    """The marker's cells including its black border, row by row; True is black."""
    d = _dictionary(dictionary)
    side = d.markerSize + 2
    image = cv2.aruco.generateImageMarker(d, marker_id, side)
    return [[bool(image[r, c] < 128) for c in range(side)] for r in range(side)]
