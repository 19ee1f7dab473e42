"""Marker families: what `[markers] dictionary` may name, and which detector reads each one.

A family is an OpenCV predefined dictionary (`DICT_4X4_50`, `DICT_6X6_250`, `DICT_APRILTAG_36h11`, ...)
or an AprilTag 3 family by the AprilTag library's own name (`tagStandard41h12`, `tagCustom48h12`,
`tagCircle21h7`, ...). Families the AprilTag C library knows are read by it (vision/apriltags.py),
the OpenCV dictionary names of the four AprilTag families included: their codes, ids and corner
order are the library's (tests/vision/test_families.py). The others are read by OpenCV's ArucoDetector.

To add an AprilTag 3 family: give its square (the cells across the quad the library finds, and
whether that square is light inside a dark ring) in `LIBRARY_ONLY`; the detector, the live passes and
the corner refinement follow from it.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2

from table.errors import ConfigError

# OpenCV dictionary -> the AprilTag library's family (the same codes, ids and corner order)
LIBRARY_NAMES = {"DICT_APRILTAG_16h5": "tag16h5", "DICT_APRILTAG_25h9": "tag25h9",
                 "DICT_APRILTAG_36h10": "tag36h10", "DICT_APRILTAG_36h11": "tag36h11"}
# AprilTag 3 families OpenCV does not know: (cells across the square the library finds, whether that
# square is light inside a dark ring: the library's width_at_border and reversed_border)
LIBRARY_ONLY = {"tagStandard41h12": (5, True), "tagCustom48h12": (6, True), "tagCircle21h7": (5, True)}


@dataclass(frozen=True)
class Family:
    """A marker family and how it is read."""

    name: str  # as the config names it
    library: str | None  # the AprilTag library's family; None: OpenCV reads it
    opencv: int | None  # the cv2.aruco predefined dictionary; None: the library only
    square_cells: int  # cells across the square the detectors find (an ArUco marker's black border)
    light_inside: bool = False  # that square is light inside a dark ring (AprilTag 3's layouts)

    def dictionary(self) -> cv2.aruco.Dictionary:
        """OpenCV's dictionary (ConfigError for a family only the AprilTag library knows)."""
        if self.opencv is None:
            raise ConfigError(f"marker family {self.name!r} is read by the AprilTag library only: "
                              "OpenCV has no dictionary for it")
        return cv2.aruco.getPredefinedDictionary(self.opencv)


def family(name: str) -> Family:
    """The family the config names (ConfigError naming the known ones for anything else)."""
    if name in LIBRARY_ONLY:
        cells, light = LIBRARY_ONLY[name]
        return Family(name, name, None, cells, light)
    code = getattr(cv2.aruco, name, None) if name.startswith("DICT_") else None
    if not isinstance(code, int):
        known = sorted(n for n in dir(cv2.aruco) if n.startswith("DICT_")) + sorted(LIBRARY_ONLY)
        raise ConfigError(f"unknown marker dictionary {name!r} (known: {', '.join(known)})")
    cells = cv2.aruco.getPredefinedDictionary(code).markerSize + 2
    return Family(name, LIBRARY_NAMES.get(name), code, cells)
