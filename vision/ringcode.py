"""The ring sticker's code: 31 cells round the ring, each one of four symbols (two printed bits, an inner
and an outer band), a cyclic BCH code over GF(4) of length 31, dimension 6 and distance at least 15.

Cyclic: every rotation of a codeword is a codeword, so a sticker read from any angle decodes to a
codeword, and the rotation that makes it its id's representative is the sticker's facing. Any two
codewords (another id, or the same id turned by any number of cells) differ in at least 15 of the
31 cells, so a sticker still decodes with up to 14 cells hidden (a model leaning over it, an arm),
and one whose visible cells fit two codewords nearly as well is refused rather than guessed.

The roots of the generator are alpha^i for i in the cyclotomic cosets of 1, 3, 5, 7 and 11 (under
multiplication by 4 mod 31), alpha of order 31 in GF(1024): i = 1..14 are consecutive roots, hence
distance >= 15 (the BCH bound); 4^6 = 4096 codewords, 132 orbits of 31 rotations besides the four
constant words. Ids are the orbits that keep changing round the ring (no run of more than three equal
cells: every arc of four cells shows a cell edge, which the facing is measured from), sorted.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np

CELLS = 31
DISTANCE = 15
_PRIMITIVE_10 = 0b10000001001  # x^10 + x^3 + 1, primitive over GF(2): GF(1024)
_COSETS = (1, 3, 5, 7, 11)
MAX_RUN = 3


def _gf1024() -> tuple[list[int], list[int]]:
    """(exp, log) tables of GF(1024) built from the primitive polynomial."""
    exp, log = [0] * 2046, [0] * 1024
    x = 1
    for i in range(1023):
        exp[i] = exp[i + 1023] = x
        log[x] = i
        x <<= 1
        if x & 1024:
            x ^= _PRIMITIVE_10
    return exp, log


def _mul(a: int, b: int, exp: list[int], log: list[int]) -> int:
    return 0 if a == 0 or b == 0 else exp[log[a] + log[b]]


def generator() -> list[int]:
    """The generator polynomial's coefficients over GF(4) (lowest degree first), symbols 0-3 with
    1 the unit and 2 a primitive cube root of unity (3 = 2 + 1)."""
    exp, log = _gf1024()
    omega = exp[341]  # GF(4) inside GF(1024): {0, 1, b^341, b^682}
    to_gf4 = {0: 0, 1: 1, omega: 2, _mul(omega, omega, exp, log): 3}
    poly = [1]
    for c in _COSETS:
        coset, j = set(), c
        while j not in coset:
            coset.add(j)
            j = j * 4 % CELLS
        for j in coset:  # multiply by (x - alpha^j), alpha = b^33
            root = exp[33 * j % 1023]
            out = [0] * (len(poly) + 1)
            for i, a in enumerate(poly):
                out[i + 1] ^= a
                out[i] ^= _mul(a, root, exp, log)
            poly = out
    return [to_gf4[a] for a in poly]


_GF4_MUL = np.array([[0, 0, 0, 0], [0, 1, 2, 3], [0, 2, 3, 1], [0, 3, 1, 2]], np.uint8)


@cache
def codewords() -> np.ndarray:
    """All 4096 codewords, (4096, 31) symbols 0-3."""
    g = np.array(generator(), np.uint8)
    k = CELLS - (len(g) - 1)
    messages = np.array(np.meshgrid(*[np.arange(4)] * k, indexing="ij"), np.uint8).reshape(k, -1).T
    words = np.zeros((len(messages), CELLS), np.uint8)
    for i in range(k):  # m(x) g(x): XOR is GF(4)'s addition
        words[:, i:i + len(g)] ^= _GF4_MUL[messages[:, i:i + 1], g[None, :]]
    return words


def longest_run(words: np.ndarray) -> np.ndarray:
    """The longest run of equal cells round the ring (cyclic) of each word, (N, 31) -> (N,)."""
    same = np.concatenate([words, words], axis=1)
    same = same[:, 1:] == same[:, :-1]
    run = np.zeros(len(words), int)
    best = np.zeros(len(words), int)
    for j in range(same.shape[1]):
        run = np.where(same[:, j], run + 1, 0)
        best = np.maximum(best, run)
    return np.minimum(best + 1, CELLS)


@cache
def codebook() -> np.ndarray:
    """The ids' codewords, (M, 31): one representative (the least rotation, read as a base-4 number
    with cell 0 its first digit) of each orbit with no run longer than MAX_RUN, sorted; row i is id
    i as printed (cell 0 at the facing)."""
    words = codewords()
    words = words[(words != words[:, :1]).any(axis=1)]  # not the constant words
    place = 4 ** np.arange(CELLS - 1, -1, -1, dtype=np.uint64)
    turned = np.stack([np.roll(words, -k, axis=1) for k in range(CELLS)], axis=1)  # (N, 31 turns, 31)
    values = (turned.astype(np.uint64) * place).sum(axis=2)
    least = np.unique(values.min(axis=1))
    reps = ((least[:, None] // place[None, :]) % 4).astype(np.uint8)
    return reps[longest_run(reps) <= MAX_RUN]


@cache
def _rotations() -> np.ndarray:
    """(M * 31, 31): every id at every turn; row id * 31 + k is id's word turned k cells (cell j
    of the sticker seen where cell j + k is printed... see `decode`)."""
    book = codebook()
    return np.stack([np.roll(book, k, axis=1) for k in range(CELLS)], axis=1).reshape(-1, CELLS)


@cache
def _flat_rotations() -> np.ndarray:
    """`_rotations()` as indices into a (4 symbols, 31 cells) array raveled: symbol * 31 + cell."""
    return _rotations() * CELLS + np.arange(CELLS)


def ids() -> int:
    """How many ids the code has."""
    return len(codebook())


def decode(soft: np.ndarray, among: Sequence[int] | None = None) -> tuple[int, int, float, float] | None:
    """(id, turn, mismatch, runner-up mismatch) for soft reads of the two bands, (2, 31): per band
    (inner, outer) and cell, +1 surely white, -1 surely black, 0 unknown (hidden, or greyed by blur:
    an erasure). A cell's mismatch with a symbol is the larger of its bands' reads on the wrong side
    of what the symbol prints there (a sure read against it 1, a doubtful one a little, an erasure
    nothing), so sure reads count cells as a hard decision does; the codeword turned `turn` cells
    (printed cell j seen at position j + turn) with the least summed mismatch, and the least of any
    other id or turn. With `among` (the ids in use) the runner-up is the least of the others among
    them, when the best of every id is one of them (a read that fits an id not in use best stays that
    id, for the caller to drop). None when nothing is read."""
    s = np.asarray(soft, np.float64)
    if not np.any(s):
        return None
    symbol = np.arange(4)[:, None]
    black = np.stack([(symbol >> 1) & 1, symbol & 1], axis=1)  # (4 symbols, 2 bands, 1)
    wrong = np.where(black == 1, np.maximum(s, 0), np.maximum(-s, 0)).max(axis=1)  # (4 symbols, 31 cells)
    cost = wrong.ravel()[_flat_rotations()].sum(axis=1)
    used = sorted({i for i in among if 0 <= i < len(cost) // CELLS}) if among is not None else []
    if int(np.argmin(cost)) // CELLS in used:
        rows = (np.asarray(used)[:, None] * CELLS + np.arange(CELLS)).ravel()
        return _least_two(cost[rows], rows)
    return _least_two(cost, np.arange(len(cost)))


def _least_two(cost: np.ndarray, rows: np.ndarray) -> tuple[int, int, float, float]:
    """(id, turn, mismatch, runner-up mismatch) of the least of `cost` (rows of `_rotations()`)."""
    two = np.argpartition(cost, 1)[:2]  # the least and the next: no full sort of every id and turn
    best, second = (int(two[0]), int(two[1])) if cost[two[0]] <= cost[two[1]] else (int(two[1]), int(two[0]))
    row = int(rows[best])
    return row // CELLS, row % CELLS, float(cost[best]), float(cost[second])


def margins(visible: np.ndarray, among: Sequence[int]) -> np.ndarray:
    """For each id of `among`, printed and read without error on the `visible` cells (31,) bool only: in
    how many of those cells the nearest other codeword among them (another id, or the same id turned)
    differs; what `decode`'s runner-up mismatch would be (what the planner asks of a model's shadow)."""
    used = np.asarray(sorted(set(among)))
    words = codebook()[used][:, visible]  # (n, v): each id as printed, turn 0
    others = _rotations().reshape(-1, CELLS, CELLS)[used][:, :, visible]  # (n, 31 turns, v)
    apart = (words[:, None, None, :] != others[None]).sum(axis=3)  # (n ids read, n ids, 31 turns)
    apart[np.arange(len(used)), np.arange(len(used)), 0] = CELLS + 1  # not itself
    return apart.min(axis=(1, 2))
