"""The evaluation of each game: mobility counted as documented, colour symmetry."""

from __future__ import annotations

import random

import pytest

from exochess import Board
from exochess.engine.evaluate import Evaluator, evaluator_for
from exochess.engine.evaluate.base import slide_mobility, slide_tables
from exochess.geometry import parse_square
from exochess_lab.match import parse_player
from tests.helpers import game_names, random_walk

VARIANTS = game_names()


def extra(board: Board) -> str:
    """What follows the side to move in the game's starting FEN (Interweave: no en passant,
    empty reserves; the other games: nothing)."""
    fields = board.variant.starting_fen.split()[2:]
    return "".join(" " + field for field in fields)


def mobility_only(board: Board) -> int:
    """What mobility adds to the dynamic term at 1 cp per unit (White's point of view), whatever
    the game's own weight."""
    with_it = parse_player("level=8,mobility=1").evaluator(board)
    without = parse_player("level=8,mobility=0").evaluator(board)
    return with_it.dynamic(board) - without.dynamic(board)


def mirrored(board: Board) -> Board:
    """The position with the colours swapped and the board turned upside down."""
    rows = board.fen().split()[0].split("/")
    placement = "/".join(row.swapcase() for row in reversed(rows))
    side = "b" if board.turn else "w"
    return Board(board.variant.name, fen=f"{placement} {side}{extra(board)}")


def test_slide_mobility_stops_at_the_first_piece() -> None:
    board = Board("fugue", fen="8/8/8/8/1p1Q2P1/8/8/8 w")
    tables = slide_tables(board.geometry.size, board.geometry.rays)
    # From d4: 27 squares on an empty board; the pawn on b4 hides b4 and a4, the one on g4 g4 and h4.
    assert slide_mobility(board.squares, [parse_square("d4")], tables) == 23


def test_fugue_mobility_counts_open_directions_of_free_sliders() -> None:
    # The White Queen on a1 has three open directions; the Black Long Leaper on h8 has two
    # of its three neighbours taken.  Kings and pawns do not count.
    board = Board("fugue", fen="6pl/7p/8/8/8/8/8/Q6K w")
    assert mobility_only(board) == 3 - 1


def test_fugue_mobility_of_a_frozen_piece_is_zero() -> None:
    free = Board("fugue", fen="8/8/8/8/3Q4/8/8/7i w")
    frozen = Board("fugue", fen="8/8/8/8/3Q4/4i3/8/8 w")
    assert mobility_only(free) == 8 - 3  # the Immobilizer in the corner: 3 directions
    assert mobility_only(frozen) == -7  # the Queen frozen; seven free next to the Immobilizer


def test_interweave_mobility_counts_diagonal_slides() -> None:
    # The Leaper on d4 slides diagonally to 13 squares on an empty board; the pawn on f6
    # hides f6, g7 and h8.  Kings and pawns do not count.
    board = Board("interweave", fen="8/8/5p2/8/3N4/8/8/8 w - 000000")
    assert mobility_only(board) == 10


def test_rebelfury_mobility_skips_gazers_and_petrified_pieces() -> None:
    # A Dragon in the corner with its three neighbours empty, out of the Gorgon's lines (the
    # Gorgon's own lines count as gaze cells, not as mobility).
    board = Board("rebelfury", fen="10g1/12/12/12/12/12/12/12/12/12/12/D11 w")
    assert mobility_only(board) == 3
    # The same Dragon in the Gorgon's gaze is petrified: no mobility.
    board = Board("rebelfury", fen="12/12/12/12/12/12/12/12/12/12/12/D5g5 w")
    assert mobility_only(board) == 0


@pytest.mark.generic
@pytest.mark.parametrize("variant", VARIANTS)
def test_dynamic_term_is_colour_symmetric(variant: str) -> None:
    start = Board(variant)
    evaluators: list[Evaluator] = [evaluator_for(start.variant), parse_player("mobility=3").evaluator(start)]
    rng = random.Random(5)
    checked = 0
    for _ in range(12):
        board = random_walk(variant, rng, rng.randint(6, 40))
        if board.outcome() is not None:
            continue
        for ev in evaluators:
            assert ev.dynamic(mirrored(board)) == -ev.dynamic(board), board.fen()
        checked += 1
    assert checked >= 6
