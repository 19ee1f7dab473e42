"""Age of Tyrants `report` pairs, every enemy unit pair at once.

Same answers as asking `distance` and `los` pair by pair (`AgeOfTyrants.report_pair`): the closest
gap between the two units' bases, and the LOS of the closest pair of bases that see each other (ties
by the two ids), else of the closest pair. The gaps of all pairs of bases are worked out together,
their sight lines screened in one batch (`screen.screen`), and only pairs the batch cannot decide
go to the exact per-pair check.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from table.rules.age_of_tyrants.base import AotBase
from table.rules.age_of_tyrants.los import Sight
from table.rules.age_of_tyrants.profile import band_of
from table.rules.age_of_tyrants.screen import Screen, Screened, screen
from table.scene import Unit

FIRST_WAVE = 4  # pairs of bases per unit pair in the first batch


@dataclass(frozen=True)
class Tries:
    """Every unit pair's pairs of bases, closest first, end to end: unit pair p's are rows
    starts[p] .. starts[p] + counts[p] of viewers, targets and gaps."""

    viewers: np.ndarray
    targets: np.ndarray
    gaps: np.ndarray
    starts: np.ndarray
    counts: np.ndarray


class BatchReport(AotBase):
    """`report_pairs` for Age of Tyrants, worked out in one batch."""

    def report_pairs(self, pairs: list[tuple[Unit, Unit]]) -> list[dict[str, Any]]:
        if not pairs:
            return []
        sight = self.sight
        index, n = sight.index, len(sight.base_ids)
        members = {u.id: np.array([index[m.id] for m in self.bases(u.id)], dtype=int)
                   for u in self.units_on_table}
        rank = np.empty(n, dtype=int)
        rank[np.argsort(np.array(sight.base_ids, dtype=object))] = np.arange(n)
        # per unit pair: its pairs of bases (viewer, target, gap) in the order `los` tries them, all
        # unit pairs' worked out together
        slot = {uid: k for k, uid in enumerate(members)}
        everyone = np.concatenate(list(members.values()))
        size = np.array([len(m) for m in members.values()], dtype=int)
        begin = np.cumsum(size) - size
        ia = np.array([slot[ua.id] for ua, _ in pairs], dtype=int)
        ib = np.array([slot[ub.id] for _, ub in pairs], dtype=int)
        counts = size[ia] * size[ib]
        owner = np.repeat(np.arange(len(pairs)), counts)
        local = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
        width = size[ib][owner]
        viewers = everyone[begin[ia][owner] + local // width]
        targets = everyone[begin[ib][owner] + local % width]
        gaps = self._gaps(viewers, targets)
        order = np.lexsort((rank[targets], rank[viewers], gaps, owner))
        tries = Tries(viewers[order], targets[order], gaps[order], np.cumsum(counts) - counts, counts)
        chosen = self._walk(tries)
        sights = self._screened_sights([c for c in chosen if isinstance(c, tuple)])
        out = []
        for (ua, ub), first_gap, pick in zip(pairs, tries.gaps[tries.starts].tolist(), chosen, strict=True):
            seen = sights[pick[0], pick[1]] if isinstance(pick, tuple) else pick
            d = round(first_gap, 4)
            los = {"from": seen.viewer, "to": seen.target, **seen.to_dict()}
            out.append({"from": ua.id, "to": ub.id, "distance": d, "los": los, "band": band_of(d)})
        return out

    def _walk(self, tries: Tries) -> list[tuple[int, int, Screen, int] | Sight]:
        """Each unit pair's first pair of bases that see each other, else its first pair: as (viewer,
        target, screen, row) where a batch decided it, else the exact check's Sight.

        Most unit pairs see each other from their first few pairs of bases: the batch screens
        `FIRST_WAVE` of each, then all the rest of those still looking."""
        n = len(self.sight.base_ids)
        total = len(tries.starts)
        chosen: list[Any] = [None] * total
        first: list[Any] = [None] * total
        done = np.zeros(total, dtype=int)
        size: int | None = FIRST_WAVE
        while looking := [p for p, c in enumerate(chosen) if c is None]:
            at = np.array(looking, dtype=int)
            upto = tries.counts[at] if size is None else np.minimum(tries.counts[at], done[at] + size)
            many = upto - done[at]
            picks = np.repeat(tries.starts[at] + done[at], many) + (
                np.arange(int(many.sum())) - np.repeat(np.cumsum(many) - many, many))
            keys, back = np.unique(tries.viewers[picks] * n + tries.targets[picks], return_inverse=True)
            found = screen(self.sight, keys // n, keys % n, complete=size is not None)
            back = back.reshape(-1)
            edge = np.cumsum(many) - many
            for p, lo, hi, cut in zip(looking, done[at].tolist(), upto.tolist(), edge.tolist(), strict=True):
                s = int(tries.starts[p])
                viewers, targets = tries.viewers[s + lo:s + hi], tries.targets[s + lo:s + hi]
                row = back[cut:cut + hi - lo]
                if lo == 0:
                    first[p] = (int(viewers[0]), int(targets[0]), found, int(row[0]))
                chosen[p] = self._first_seen(viewers, targets, row, found)
                done[p] = hi
                if chosen[p] is None and hi >= tries.counts[p]:
                    chosen[p] = self._closest(*first[p])
            size = None
        return chosen

    def _first_seen(self, viewers: np.ndarray, targets: np.ndarray, rows: np.ndarray, found: Screen
                    ) -> tuple[int, int, Screen, int] | Sight | None:
        """The first of these pairs of bases that see each other (None: none does)."""
        standing = self.sight.standing
        decided, visible = found.decided, found.visible
        for v, t, k in zip(viewers.tolist(), targets.tolist(), rows.tolist(), strict=True):
            if decided[k]:
                if visible[k]:
                    return v, t, found, k
            elif (seen := self.los_between(standing[v], standing[t])).visible:
                return seen
        return None

    def _closest(self, v: int, t: int, found: Screen, k: int) -> tuple[int, int, Screen, int] | Sight:
        """The closest pair of bases, when none sees the other."""
        if found.decided[k] and not found.walked[k]:
            return v, t, found, k
        return self.los_between(self.sight.standing[v], self.sight.standing[t])

    def _gaps(self, viewers: np.ndarray, targets: np.ndarray) -> np.ndarray:
        """`gap` for pairs of standing bases; when both are round, edge to edge is the centre distance
        less both radii (as `edge_distance`), worked out in one numpy pass."""
        sight = self.sight
        if self.method == "edge" and not self.rulings["round_to"] and sight.round.all():
            c, r = sight.centres, sight.radii
            d = np.hypot(c[viewers, 0] - c[targets, 0], c[viewers, 1] - c[targets, 1])
            gaps: np.ndarray = np.maximum(0.0, d - r[viewers] - r[targets])
            return gaps
        ends = zip(viewers.tolist(), targets.tolist(), strict=True)
        return np.array([self.gap(sight.standing[a], sight.standing[b]) for a, b in ends], dtype=float)

    def _screened_sights(self, chosen: list[tuple[int, int, Screen, int]]) -> dict[tuple[int, int], Sight]:
        """The Sights batch-decided pairs stand for, their concealment depths worked out together."""
        standing = self.sight.standing
        todo = list({(v, t): (v, t, found, k) for v, t, found, k in chosen}.values())
        hiding = [(v, t) for v, t, found, k in todo if found.concealed[k]]
        found_depths = self.sight.concealment_many([standing[v] for v, _ in hiding],
                                                   [standing[t] for _, t in hiding])
        depths = dict(zip(hiding, found_depths, strict=True))
        got_all: dict[tuple[int, int], Screened] = {}
        for found in {id(f): f for _, _, f, _ in todo}.values():  # each batch's rows read at once
            mine = [(v, t, k) for v, t, f, k in todo if f is found]
            for (v, t, _), got in zip(mine, found.rows([k for _, _, k in mine]), strict=True):
                got_all[v, t] = got
        out = {}
        for v, t, _, _ in todo:
            ma, mb = standing[v], standing[t]
            if (ma.id, mb.id) not in self._sights:
                got = got_all[v, t]
                concealment = depths.get((v, t), ())
                blocked = [self.pieces[i].id for i in got.terrain] + [standing[i].id for i in got.bases]
                blocked += [c.terrain for c in concealment if c.hidden and c.terrain not in blocked]
                self._sights[ma.id, mb.id] = Sight(ma.id, mb.id, not blocked, tuple(blocked),
                                                   (ma.position, mb.position), got.elevated, concealment)
            out[v, t] = self._sights[ma.id, mb.id]
        return out
