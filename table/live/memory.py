"""Keeping the running table's memory flat: glibc gives each thread that allocates at the same time
as another an arena of its own (up to 8 per core) and rarely returns their free space, so a panel
serving phones from its 48 threads grew by ~100 MB an hour while its Python objects stayed the same
(bench/bench_soak.py). Two arenas keep it flat at no measurable cost in latency."""

from __future__ import annotations

import ctypes
import ctypes.util

M_ARENA_MAX = -8           # glibc's mallopt parameter number (malloc.h)
ARENAS = 2


def limit_malloc_arenas(arenas: int = ARENAS) -> bool:
    """Cap glibc's malloc arenas (call before the threads start); False where there is no glibc."""
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        libc = ctypes.CDLL(name)
        return bool(libc.mallopt(M_ARENA_MAX, arenas))
    except (OSError, AttributeError):        # not glibc (musl, macOS): nothing to cap
        return False
