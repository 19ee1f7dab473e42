"""Red Blob Games' published test vectors (implementation.html codegen, lib.py `test_*`), in axial form."""

import pytest

from table.hexgrid import (
    EVEN,
    ODD,
    HexLayout,
    diagonal_neighbour,
    direction,
    distance,
    hex_add,
    hex_lerp,
    hex_round,
    hex_subtract,
    line,
    neighbour,
    qdoubled_from_axial,
    qdoubled_to_axial,
    qoffset_from_axial,
    qoffset_to_axial,
    rdoubled_from_axial,
    rdoubled_to_axial,
    roffset_from_axial,
    roffset_to_axial,
    rotate_left,
    rotate_right,
)


def test_hex_arithmetic():
    assert hex_add((1, -3), (3, -7)) == (4, -10)
    assert hex_subtract((1, -3), (3, -7)) == (-2, 4)


def test_hex_direction():
    assert direction(2) == (0, -1)


def test_hex_neighbour():
    assert neighbour((1, -2), 2) == (1, -3)


def test_hex_diagonal():
    assert diagonal_neighbour((1, -2), 3) == (-1, -1)


def test_hex_distance():
    assert distance((3, -7), (0, 0)) == 7


def test_hex_rotate_right():
    assert rotate_right((1, -3)) == (3, -2)


def test_hex_rotate_left():
    assert rotate_left((1, -3)) == (-2, -1)


def _blend(*weighted):
    return (sum(w * h[0] for w, h in weighted), sum(w * h[1] for w, h in weighted))


def test_hex_round():
    a, b, c = (0.0, 0.0), (1.0, -1.0), (0.0, -1.0)
    assert hex_round(*hex_lerp((0.0, 0.0), (10.0, -20.0), 0.5)) == (5, -10)
    assert hex_round(*hex_lerp(a, b, 0.499)) == hex_round(*a)
    assert hex_round(*hex_lerp(a, b, 0.501)) == hex_round(*b)
    assert hex_round(*_blend((0.4, a), (0.3, b), (0.3, c))) == hex_round(*a)
    assert hex_round(*_blend((0.3, a), (0.3, b), (0.4, c))) == hex_round(*c)


def test_hex_linedraw():
    assert line((0, 0), (1, -5)) == [(0, 0), (0, -1), (0, -2), (1, -3), (1, -4), (1, -5)]


@pytest.mark.parametrize("orientation", ["flat", "pointy"])
def test_layout_round_trip(orientation):
    # Red Blob Games' vector: size (10, 15), origin (35, 71), hex (3, 4, -7).
    layout = HexLayout(10.0, orientation, (35.0, 71.0), size_y=15.0)
    assert layout.to_hex(*layout.to_board((3, 4))) == (3, 4)


def test_offset_round_trip():
    a, b = (3, 4), (1, -3)
    for parity in (EVEN, ODD):
        assert qoffset_to_axial(parity, qoffset_from_axial(parity, a)) == a
        assert qoffset_from_axial(parity, qoffset_to_axial(parity, b)) == b
        assert roffset_to_axial(parity, roffset_from_axial(parity, a)) == a
        assert roffset_from_axial(parity, roffset_to_axial(parity, b)) == b


def test_offset_from_and_to_axial():
    assert qoffset_from_axial(EVEN, (1, 2)) == (1, 3)
    assert qoffset_from_axial(ODD, (1, 2)) == (1, 2)
    assert qoffset_to_axial(EVEN, (1, 3)) == (1, 2)
    assert qoffset_to_axial(ODD, (1, 2)) == (1, 2)


def test_offset_parity_must_be_even_or_odd():
    with pytest.raises(ValueError, match="EVEN"):
        qoffset_from_axial(0, (1, 2))


def test_doubled_round_trip():
    a, b = (3, 4), (1, -3)
    assert qdoubled_to_axial(qdoubled_from_axial(a)) == a
    assert qdoubled_from_axial(qdoubled_to_axial(b)) == b
    assert rdoubled_to_axial(rdoubled_from_axial(a)) == a
    assert rdoubled_from_axial(rdoubled_to_axial(b)) == b


def test_doubled_from_and_to_axial():
    assert qdoubled_from_axial((1, 2)) == (1, 5)
    assert rdoubled_from_axial((1, 2)) == (4, 2)
    assert qdoubled_to_axial((1, 5)) == (1, 2)
    assert rdoubled_to_axial((4, 2)) == (1, 2)
