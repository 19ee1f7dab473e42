"""Reading still images for the commands, with errors a user can act on."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from table.errors import TableError


class ImageError(TableError, ValueError):
    """An image file is missing or cannot be decoded."""


def read_image(path: str | Path) -> np.ndarray:
    """A greyscale image from a file (PNG, JPEG, TIFF, ...)."""
    path = Path(path)
    if not path.is_file():
        raise ImageError(f"{path}: no such image file")
    image = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
    if image is None:
        raise ImageError(f"{path}: not a readable image (PNG, JPEG, BMP or TIFF)")
    return image
