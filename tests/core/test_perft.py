"""Perft suites of every game (``tests/variants/<game>/perft.txt``): the correctness contract."""

from __future__ import annotations

import pytest

from exochess import Board
from exochess.perft import divide, perft
from tests.helpers import perft_files, read_perft_file

CASES = [
    pytest.param(*case, id=f"{path.parent.name}-{i}")
    for path in perft_files()
    for i, case in enumerate(read_perft_file(path))
]


@pytest.mark.parametrize(("variant", "fen", "depth", "nodes"), CASES)
def test_perft(variant: str, fen: str, depth: int, nodes: int) -> None:
    board = Board(variant, fen=fen)
    before = (board.fen(), board.zobrist_hash())
    assert perft(board, depth) == nodes
    assert (board.fen(), board.zobrist_hash()) == before


def test_divide_sums_to_perft() -> None:
    board = Board("fugue")
    split = divide(board, 2)
    assert len(split) == 22
    assert sum(n for _, n in split) == 484
    assert split[0] == ("a2-a3", 22)


def test_perft_respects_repetition_inside_the_tree() -> None:
    # Kings only: after 7 plies shuffling, the 8th recreating the start loses (F-16),
    # so perft must not count moves after that ply.
    board = Board("fugue", fen="7k/8/8/8/8/8/8/K7 w")
    for text in "a1-a2 h8-h7 a2-a1 h7-h8 a1-a2 h8-h7 a2-a1".split():
        board.push_text(text)
    board.push_text("h7-h8")
    assert perft(board, 1) == 0
