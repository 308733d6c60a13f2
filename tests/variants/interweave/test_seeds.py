"""The diagrams of the Interweave seed page and a cross-check against the reference generator."""

from __future__ import annotations

import random

import pytest

from exochess import Board, square_name
from exochess.rawmove import to_move
from exochess.variants.interweave import Interweave
from tests.variants.interweave import reference

# (placement as printed on the page, piece letter shown, capturing?, marked squares)
DIAGRAMS = [
    ("8/8/4b3/3nK3/8/8/8/8", "K", False, "d6,f6,f4,d4"),
    ("8/8/4b3/3nK3/8/8/8/8", "K", True, "c5,e7"),
    ("8/8/5p2/8/8/8/1R3p2/8", "R", False, "a1,c1,d2,a3,b4,c3,d4,e5,b6,b8"),
    ("8/1p6/8/8/8/8/1R4p1/8", "R", True, "b6,f2"),
    ("8/p7/5p2/8/8/1P/8/N5p1", "N", False, "e3,c1,e1,a3,a5,b2,c3,d4,e5"),
    ("8/8/8/8/p7/8/2p5/N6b", "N", True, "e3,a5,a7"),
    ("8/8/8/4p3/4Bp2/8/8/8", "B", True, "e5,f4"),
    ("8/8/3P4/8/8/8/1P6/8", "P", False, "a3,c3,d4,e7,c7"),
    ("8/Nr5R/2rP3n/2N5/7b/4b2P/4P3/8", "P", True, "c7,e4,h5"),
]


def marked(board: Board, letter: str, captures: bool) -> set[str]:
    """Squares a diagram marks: where White's pieces of one type go (the Remover: whom it removes)."""
    variant = board.variant
    assert isinstance(variant, Interweave)
    code = variant.codes[letter]
    if captures:
        actions = [m.actions[0] for m in board.legal_moves if m.is_capture()]
    else:
        actions = [to_move(raw).actions[0] for raw in variant.quiet_moves(board)]
    out: set[str] = set()
    for a in actions:
        if board.squares[a.from_square] != code:
            continue
        if a.kind == "@":
            out.update(square_name(v) for v in a.victims)
        else:
            out.add(square_name(a.to_square))
    return out


@pytest.mark.parametrize(("placement", "letter", "captures", "squares"), DIAGRAMS)
def test_seed_diagram(placement: str, letter: str, captures: bool, squares: str) -> None:
    board = Board("interweave", fen=f"{placement} w")
    assert marked(board, letter, captures) == set(squares.split(","))


def test_seed_initial_position() -> None:
    assert Board("interweave", fen="rbnkknbr/pppppppp/8/8/8/8/PPPPPPPP/RBNKKNBR w").fen() == (
        Interweave.starting_fen
    )


def test_seed_colour_binding() -> None:
    """Every piece ends on its starting colour and every capture takes a piece of the other colour."""
    rng = random.Random(5)
    for _ in range(20):
        board = Board("interweave")
        for _ in range(60):
            moves = board.raw_moves()
            if not moves:
                break
            raw = rng.choice(moves)
            for action in to_move(raw).actions:
                colour = (action.from_square + (action.from_square >> 4)) & 1
                assert (action.to_square + (action.to_square >> 4)) & 1 == colour
                for v in action.victims:
                    assert (v + (v >> 4)) & 1 != colour
            board.push_raw(raw)


def fast_turns(board: Board) -> dict[str, str]:
    out = {}
    for raw in board.raw_moves():
        board.push_raw(raw)
        out[str(to_move(raw))] = board.fen()
        board.pop_raw()
    return out


@pytest.mark.parametrize("seed", range(6))
def test_agrees_with_the_reference_generator(seed: int) -> None:
    rng = random.Random(seed)
    starts = [
        Interweave.starting_fen,
        "8/Nr5R/2rP3n/2N5/7b/4b2P/4P3/kk3KK1 w - 000000",
        "3kk3/2P5/4P3/8/8/8/8/3KK3 w - 100000",
        "rb2k1b1/p4p2/1k6/2P5/3r1p1N/1PP1B3/PP2K3/RB2K2N w - 100020",
        "rbnkknbr/pppppppp/8/8/8/8/PPPPPPPP/RBNKKNBR w - 9[10]9[10]9[11]",
    ]
    for _ in range(4):
        board = Board("interweave", fen=rng.choice(starts))
        for _ in range(80):
            if board.outcome() is not None:
                break
            assert fast_turns(board) == reference.legal_turns(board.fen()), board.fen()
            moves = list(board.raw_moves())
            rng.shuffle(moves)
            for raw in moves:  # prefer turns that keep the game going, to reach later phases
                board.push_raw(raw)
                if board.outcome() is None or raw is moves[-1]:
                    break
                board.pop_raw()
