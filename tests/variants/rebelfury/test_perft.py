"""Rebel Fury perft beyond the shared suite.

``tests/data/perft_rebelfury.txt`` is run by ``test_perft.py`` with every other
game's suite; this module checks that it holds the figures the project asked
for and runs ``deep_perft_rebelfury.txt`` (millions of nodes per entry) when
``EXOCHESS_SLOW=1`` is set.
"""

from __future__ import annotations

import os

import pytest

from exochess import Board
from exochess.perft import perft
from tests.helpers import read_perft_file

START = Board("rebelfury").fen()
DEEP = read_perft_file("variants/rebelfury/deep_perft.txt")


def test_suite_holds_the_required_start_counts() -> None:
    suite = read_perft_file("variants/rebelfury/perft.txt")
    got = {(depth, nodes) for _, fen, depth, nodes in suite if fen == START}
    assert {(1, 118), (2, 11847), (3, 1315461)} <= got


@pytest.mark.skipif(not os.environ.get("EXOCHESS_SLOW"), reason="deep perft; set EXOCHESS_SLOW=1")
@pytest.mark.parametrize(
    ("variant", "fen", "depth", "nodes"), DEEP, ids=[f"deep-{i}" for i in range(len(DEEP))]
)
def test_deep_perft(variant: str, fen: str, depth: int, nodes: int) -> None:
    board = Board(variant, fen=fen)
    assert perft(board, depth) == nodes
    assert board.fen() == fen
