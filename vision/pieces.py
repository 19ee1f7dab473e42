"""Detection piece by piece within a deadline, with one corner refinement for all that was found.

`MarkerDetector.detect` refines each call's markers on its own; refining costs about as much per
call as finding markers in a small region does, so the budgeted passes search their pieces first
and refine everything found in one go.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

import numpy as np

from vision.budget import Deadline
from vision.changes import Box
from vision.detect import Detection, MarkerDetector


class PieceDetector(MarkerDetector):
    """A MarkerDetector that also searches a list of pieces until a deadline (`detect_pieces`)."""

    def detect_pieces(self, grey: np.ndarray, pieces: Iterable[Box], deadline: Deadline,
                      also: Callable[[np.ndarray, Box], None] | None = None
                      ) -> tuple[list[Detection], list[np.ndarray], list[Box]]:
        """(markers, rejected quads, the pieces searched): the pieces in order (taken from the
        iterable only when there is time) while the deadline allows, the first always; a marker
        found in two overlapping pieces counts once. `also` is more work on each piece searched (the
        ring-sticker search: vision/sticker_search.py), which keeps to the same deadline itself."""
        quads: list[np.ndarray] = []
        ids: list[int] = []
        rejects: list[np.ndarray] = []
        searched: list[Box] = []
        todo = iter(pieces)
        while deadline.left():
            piece = next(todo, None)
            if piece is None:
                break
            searched.append(piece)
            x0, y0, w, h = piece
            found, got, rejected = self.search(grey[y0:y0 + h, x0:x0 + w])
            shift = np.array([x0, y0], np.float32)
            for quad, marker_id in zip(found, got, strict=True):
                quad = quad + shift
                if not _seen(quad, marker_id, quads, ids):
                    quads.append(quad)
                    ids.append(marker_id)
            rejects += [q + shift for q in rejected]
            if also is not None:
                also(grey, piece)
        return self._finish(grey, quads, ids), rejects, searched


def _seen(quad: np.ndarray, marker_id: int, quads: list[np.ndarray], ids: list[int]) -> bool:
    """Whether the same marker (id, centre within half a side) is already among `quads`."""
    centre = quad.mean(axis=0)
    side = float(np.linalg.norm(quad[0] - quad[1]))
    return any(i == marker_id and math.dist(q.mean(axis=0), centre) < 0.5 * side
               for q, i in zip(quads, ids, strict=True))
