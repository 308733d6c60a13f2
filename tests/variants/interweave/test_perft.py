"""Interweave perft: the suite itself runs in test_perft.py; here its coverage and divide."""

from __future__ import annotations

from exochess import Board
from exochess.perft import divide
from tests.helpers import read_perft_file


def test_suite_covers_the_required_positions() -> None:
    cases = read_perft_file("variants/interweave/perft.txt")
    start = Board("interweave").fen()
    initial = {depth: nodes for variant, fen, depth, nodes in cases if fen == start}
    assert initial == {1: 30, 2: 888, 3: 26318, 4: 732264}
    assert all(variant == "interweave" for variant, *_ in cases)
    fens = {fen for _, fen, _, _ in cases}
    assert len(fens) >= 10
    assert any(fen.split()[2] != "-" for fen in fens)  # en passant
    assert any(fen.split()[3] != "000000" for fen in fens)  # reserves


def test_divide_sums_to_perft() -> None:
    rows = divide(Board("interweave"), 2)
    assert len(rows) == 30
    assert sum(n for _, n in rows) == 888
    assert rows[0] == ("a2-b3", 30)
