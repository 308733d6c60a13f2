"""The raw-move layout of :mod:`exochess.rawmove`: every generator keeps to the declared shapes.

Random games of every registered game are walked; in each position reached, every
tuple of the full and of the capture generator must have a declared :class:`Shape`,
split into actions that rebuild its move, and play and undo cleanly.
"""

from __future__ import annotations

import random

import pytest

from exochess import Board, all_variants
from exochess.rawmove import (
    CHANGES,
    MORE,
    ONE_REMOVAL,
    RELOCATION_AND_VICTIM,
    TRIPLE,
    VICTIMS,
    RawMove,
    Shape,
    make_raw,
    shape,
    split_actions,
    to_move,
)
from tests.helpers import random_walk

VARIANTS = [v.name for v in all_variants()]
GAMES_PER_VARIANT = 12
PLIES = 80


def check_raw(board: Board, raw: RawMove) -> Shape:
    """Assert everything a raw move of ``board`` promises; return its shape."""
    found = shape(raw)  # raises ValueError naming the fault
    steps = split_actions(raw)
    assert tuple(action for action, _ in steps) == to_move(raw).actions
    assert sum((changes for _, changes in steps), ()) == raw[CHANGES:]
    # The first triple of each action finds on the board what it says was there before (for
    # chains, after the earlier actions are played).
    squares = list(board.squares)
    for _, changes in steps:
        for i in range(0, len(changes), TRIPLE):
            assert squares[changes[i]] == changes[i + 1], (to_move(raw), changes)
            squares[changes[i]] = changes[i + 2]
    return found


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_generated_tuple_has_a_declared_shape(variant: str) -> None:
    rng = random.Random(f"rawmove {variant}")
    seen: dict[Shape, int] = dict.fromkeys(Shape, 0)
    for _ in range(GAMES_PER_VARIANT):
        # Walk forward at random, then check each position of the game on the way back.
        board = random_walk(variant, rng, PLIES)
        while True:
            moves = board.raw_moves()
            for raw in moves:
                seen[check_raw(board, raw)] += 1
            captures = board.variant.generate_captures(board) if moves else []
            assert sorted(map(repr, captures)) == sorted(repr(m) for m in moves if m[VICTIMS])
            for raw in captures:
                check_raw(board, raw)
            if not board.ply():
                break
            board.pop_raw()
    assert seen[Shape.RELOCATION] > 0


def test_positions_with_every_shape() -> None:
    """Chains, removals and multi-victim moves in positions found by random games."""
    chain = Board("interweave", fen="rbnkknbr/pp3ppp/4p3/N3p3/5P2/P3P1p1/P1P2PP1/RB1KKNBR w - 000000")
    raws = {str(to_move(raw)): raw for raw in chain.raw_moves()}
    assert shape(raws["f1xh5(g3),h5xd5(e5)"]) is Shape.CHAIN
    remover = Board("interweave", fen="1bnkk1br/1p4pp/4p1p1/7N/P4P2/P3PP1R/P1B2P2/R2KKrB1 w - 010010")
    withdrawal = [raw for raw in remover.raw_moves() if str(to_move(raw)) == "g1@(f1)"]
    assert [shape(raw) for raw in withdrawal] == [Shape.REMOVAL]
    archer = Board("fugue", fen="Pl1ksaui/1p2p1p1/2qp1Pp1/3p1pP1/8/3P4/wP1WPPP1/IUASKQLp b")
    shots = [raw for raw in archer.raw_moves() if str(to_move(raw)) == "f8@f6"]
    assert [(len(raw), shape(raw)) for raw in shots] == [(ONE_REMOVAL, Shape.REMOVAL)]
    leaper = Board("fugue", fen="Pl1ksa1i/1p2p1pu/2qp1P2/3p1pP1/4p3/P2P4/w2WPPP1/IUASKQLp w")
    leaps = [raw for raw in leaper.raw_moves() if str(to_move(raw)) == "b1xb6(b7)"]
    assert [(len(raw), shape(raw)) for raw in leaps] == [
        (RELOCATION_AND_VICTIM, Shape.RELOCATION_AND_VICTIMS)
    ]
    fan = Board(
        "rebelfury", fen="1dcghmxjgcdf/aaaaaaaaaaaa/12/12/12/12/12/12/F11/12/AAAAAAAAAAfA/1DCGHMXJGCDF w"
    )
    strikes = [raw for raw in fan.raw_moves() if str(to_move(raw)) == "a4xa10(a11,b11)"]
    assert [shape(raw) for raw in strikes] == [Shape.RELOCATION_AND_VICTIMS]


@pytest.mark.parametrize(
    ("raw", "fault"),
    [
        ((0, 16, "-", (), None, None, None, None, 0, 5, 0, 16), "whole (square, before, after) triples"),
        ((0, 16, "-", (), None, None, None, None), "at least 11 fields"),
        ((0, 16, "?", (), None, None, None, None, 0, 5, 0, 16, 0, 5), "the kind '?'"),
        (("a1", 16, "-", (), None, None, None, None, 0, 5, 0, 16, 0, 5), "'a1' is not a square index"),
        ((0, 16, "x", (999,), None, None, None, None, 0, 5, 0, 16, 0, 5), "999 is not a square index"),
        ((0, 16, "x", (16,), None, None, None, None, 0, 5, 0, 16, 0, 5), "victim a2 is not emptied"),
        ((0, 16, "-", (), "q", None, None, None, 0, 5, 0, 16, 0, 5), "the promotion 'q'"),
        ((0, 16, "-", (), None, None, None, None, 0, 5, 0, 16, 0, 5, 16, 5, 0), "changes twice"),
        ((0, 16, "-", (), None, None, None, None, 0, 5, 0, 16, 5, 5), "changes nothing"),
        ((0, 0, "@", (), None, None, None, None, 16, -1, 0), "only removes its victims"),
        ((0, 16, "x", (), None, None, None, None, 0, 5, 0, 16, 0, 5, 32, -2, 0), "without being victims"),
        ((0, 16, "x", (32, 16), None, None, None, None, 0, 5, 0, 16, -1, 5, 32, -2, 0), "canonical order"),
        ((0, 16, "-", (), None, None, None, None, 16, 0, 5, 0, 5, 0), "origin's triple"),
        ((0, 16, "-", (), None, None, None, "", 0, 5, 0, 16, 0, 5), "tags"),
        ((0, 16, "-", (), None, None, (), None, 0, 5, 0, 16, 0, 5), "further actions"),
        (
            (0, 16, "x", (16,), None, None, ((16, 32, "x", (), None),), None, 0, 5, 0, 16, -1, 5),
            "further action has 6 fields",
        ),
    ],
)
def test_undeclared_shapes_are_refused_with_a_reason(raw: RawMove, fault: str) -> None:
    with pytest.raises(ValueError, match=fault.replace("(", r"\(").replace(")", r"\)")):
        shape(raw)


def test_split_actions_of_a_single_action_keeps_every_change() -> None:
    raw = make_raw(0, 16, "x", (0, 5, 0, 16, -2, 5), victims=(16,))
    [(action, changes)] = split_actions(raw)
    assert str(action) == "a1xa2" and changes == raw[CHANGES:]
    assert raw[MORE] is None
