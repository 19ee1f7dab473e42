"""Keeping the running table's memory flat: glibc gives each thread that allocates at the same time
as another an arena of its own (up to 8 per core) and rarely returns their free space, so a panel
serving phones from its 48 threads grew by ~100 MB an hour while its Python objects stayed the same
(bench/bench_soak.py). Two arenas keep it flat at no measurable cost in latency.

Big buffers (camera frames, renders, JPEGs: a few MB each) are the other half: glibc raises its mmap
threshold each time such a buffer is freed, after which they come from the heap and their pages stay
with the process. A fixed 1 MiB threshold keeps every big buffer mmapped and handed back when freed: the
soak's peak fell from 333 to 233 MB, the idle table from 250 to 163 MB."""

from __future__ import annotations

import ctypes
import ctypes.util

M_MMAP_THRESHOLD = -3      # glibc's mallopt parameter numbers (malloc.h)
M_ARENA_MAX = -8
ARENAS = 2
MMAP_THRESHOLD = 1 << 20   # bytes: anything this big is mmapped (and returned when freed)


def tune_malloc(arenas: int = ARENAS) -> bool:
    """Cap glibc's malloc arenas and fix its mmap threshold (call before the threads start); False
    where there is no glibc."""
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        libc = ctypes.CDLL(name)
        capped = bool(libc.mallopt(M_ARENA_MAX, arenas))
        return capped and bool(libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD))
    except (OSError, AttributeError):        # not glibc (musl, macOS): nothing to cap
        return False
