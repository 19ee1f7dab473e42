"""Counts per client address that fade with time: how much an address has done lately."""

from __future__ import annotations

from collections import OrderedDict


class Fading:
    """A count per address that fades (halves every `half_life_s`), kept for the `size` addresses seen
    last: how much an address has done lately, in O(1) memory per address."""

    def __init__(self, half_life_s: float, size: int = 65536) -> None:
        self.half_life_s, self.size = half_life_s, size
        self._counts: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def __contains__(self, key: str) -> bool:
        return key in self._counts

    def add(self, key: str, now: float, amount: float = 1.0) -> None:
        """Count `amount` more (less, if negative: never below 0) for `key` at `now`."""
        self._counts[key] = (max(0.0, self.score(key, now) + amount), now)
        self._counts.move_to_end(key)
        while len(self._counts) > self.size:
            self._counts.popitem(last=False)

    def score(self, key: str, now: float) -> float:
        count, since = self._counts.get(key, (0.0, now))
        return count * 0.5 ** ((now - since) / self.half_life_s)
