"""The AprilTag C library's detector through ctypes, with the settings its Python wrapper hides.

apriltag-python (the AprilTag project's own wrapper, with wheels for x86-64 and aarch64) ships the C
library beside its module, but sets only decimation, blur, edge refinement and threads. The quad
thresholder's `min_white_black_diff` matters more here: the library segments every 4x4-pixel tile
whose neighbourhood spans that many grey levels (5 by default), so sensor noise and JPEG texture on
a plain surface become a field of blobs it must cluster and fit: 20-30 ms a photo where a contrast
floor makes it 4-5 ms, with the same markers read. This module drives the same shared library through
its public C API (apriltag.h, version 3): `apriltag_detector_create`, `apriltag_detector_add_family_bits`,
`apriltag_detector_detect`. The structures below are that header's.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from table.errors import ConfigError

FAMILIES = ("tag36h11", "tag36h10", "tag25h9", "tag16h5", "tagCircle21h7", "tagCircle49h12",
            "tagStandard41h12", "tagStandard52h13", "tagCustom48h12")


class _QuadThreshParams(ctypes.Structure):
    _fields_ = [("min_cluster_pixels", ctypes.c_int), ("max_nmaxima", ctypes.c_int),
                ("critical_rad", ctypes.c_float), ("cos_critical_rad", ctypes.c_float),
                ("max_line_fit_mse", ctypes.c_float), ("min_white_black_diff", ctypes.c_int),
                ("deglitch", ctypes.c_int)]


class _Detector(ctypes.Structure):
    # `refine_edges` and `debug` are bool in 3.2+ and int before: the offsets are the same either way
    _fields_ = [("nthreads", ctypes.c_int), ("quad_decimate", ctypes.c_float), ("quad_sigma", ctypes.c_float),
                ("refine_edges", ctypes.c_bool), ("decode_sharpening", ctypes.c_double),
                ("debug", ctypes.c_bool), ("qtp", _QuadThreshParams)]


class _Family(ctypes.Structure):
    # the head of apriltag_family_t: the fields read here
    _fields_ = [("ncodes", ctypes.c_uint32), ("codes", ctypes.c_void_p), ("width_at_border", ctypes.c_int),
                ("total_width", ctypes.c_int), ("reversed_border", ctypes.c_bool), ("nbits", ctypes.c_uint32)]


class _Image(ctypes.Structure):
    _fields_ = [("width", ctypes.c_int32), ("height", ctypes.c_int32), ("stride", ctypes.c_int32),
                ("buf", ctypes.POINTER(ctypes.c_uint8))]


class _Detection(ctypes.Structure):
    _fields_ = [("family", ctypes.c_void_p), ("id", ctypes.c_int), ("hamming", ctypes.c_int),
                ("decision_margin", ctypes.c_float), ("H", ctypes.c_void_p), ("c", ctypes.c_double * 2),
                ("p", (ctypes.c_double * 2) * 4)]


class _ZArray(ctypes.Structure):
    _fields_ = [("el_sz", ctypes.c_size_t), ("size", ctypes.c_int), ("alloc", ctypes.c_int),
                ("data", ctypes.c_void_p)]


@dataclass(frozen=True)
class TagRead:
    """One tag as the library reads it: corners (4, 2) in its order (left-bottom, right-bottom,
    right-top, left-top in the tag's frame) and pixel convention (pixel centres at +0.5)."""

    id: int
    hamming: int
    margin: float
    corners: np.ndarray


@cache
def _load() -> ctypes.CDLL:
    """The shared library apriltag-python ships, or the system's (Debian's libapriltag3)."""
    try:
        import apriltag

        shipped = sorted(Path(apriltag.__file__).parent.glob("libapriltag*.so*"))
    except ImportError:
        shipped = []
    name = str(shipped[0]) if shipped else ctypes.util.find_library("apriltag")
    if name is None:
        raise ConfigError("the AprilTag C library is missing: `pip install apriltag-python` "
                          "(or `apt install libapriltag3`)")
    lib = ctypes.CDLL(name)
    lib.apriltag_detector_create.restype = ctypes.POINTER(_Detector)
    lib.apriltag_detector_detect.restype = ctypes.POINTER(_ZArray)
    lib.apriltag_detector_detect.argtypes = [ctypes.POINTER(_Detector), ctypes.POINTER(_Image)]
    lib.apriltag_detector_add_family_bits.argtypes = [ctypes.POINTER(_Detector), ctypes.c_void_p,
                                                      ctypes.c_int]
    lib.apriltag_detections_destroy.argtypes = [ctypes.POINTER(_ZArray)]
    for family in FAMILIES:
        getattr(lib, f"{family}_create").restype = ctypes.c_void_p
        getattr(lib, f"{family}_destroy").argtypes = [ctypes.c_void_p]
    return lib


def _known(family: str) -> str:
    """The family, if the library knows it (ConfigError naming those it knows otherwise)."""
    if family not in FAMILIES:
        raise ConfigError(f"the AprilTag library has no family {family!r}; it knows {', '.join(FAMILIES)}")
    return family


def code_space(family: str) -> tuple[int, int]:
    """(codes, bits a code) of a family the library knows."""
    _known(family)
    lib = _load()
    pointer = getattr(lib, f"{family}_create")()
    try:
        made = ctypes.cast(pointer, ctypes.POINTER(_Family)).contents
        return int(made.ncodes), int(made.nbits)
    finally:
        getattr(lib, f"{family}_destroy")(pointer)


class Detector:
    """One family's detector: full resolution, no blur, edges refined, one thread, and segmentation
    only where a tile's neighbourhood spans `min_contrast` grey levels. Calls are serialised (the
    library's detector is not reentrant)."""

    def __init__(self, family: str, max_hamming: int, min_contrast: int):
        _known(family)
        self._lib = _load()
        self._td = self._lib.apriltag_detector_create()
        td = self._td.contents
        if (td.qtp.min_white_black_diff, td.qtp.min_cluster_pixels, td.qtp.max_nmaxima) != (5, 5, 10):
            raise ConfigError("the AprilTag C library is not the version 3 this table reads: "
                              "`pip install 'apriltag-python>=3.4.5,<4'`")
        td.nthreads, td.quad_decimate, td.quad_sigma, td.refine_edges = 1, 1.0, 0.0, True
        td.qtp.min_white_black_diff = min_contrast
        self._family = getattr(self._lib, f"{family}_create")()
        self._lib.apriltag_detector_add_family_bits(self._td, self._family, max_hamming)
        self._lock = threading.Lock()

    def detect(self, grey: np.ndarray) -> list[TagRead]:
        """Every tag the library reads in a 2-D uint8 image."""
        image = np.ascontiguousarray(grey, dtype=np.uint8)
        h, w = image.shape
        c_image = _Image(w, h, w, image.ctypes.data_as(ctypes.POINTER(ctypes.c_uint8)))
        with self._lock:
            found = self._lib.apriltag_detector_detect(self._td, ctypes.byref(c_image))
        try:
            array = found.contents
            pointers = ctypes.cast(array.data, ctypes.POINTER(ctypes.POINTER(_Detection)))
            out = []
            for k in range(array.size):
                d = pointers[k].contents
                out.append(TagRead(d.id, d.hamming, float(d.decision_margin),
                                   np.ctypeslib.as_array(d.p).astype(np.float64)))
            return out
        finally:
            self._lib.apriltag_detections_destroy(found)
