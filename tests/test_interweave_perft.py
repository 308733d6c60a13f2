"""Interweave perft suite read from tests/data/perft_interweave.txt."""

from __future__ import annotations

from pathlib import Path

import pytest

from exochess import Board
from exochess.perft import divide, perft

DATA = Path(__file__).parent / "data" / "perft_interweave.txt"


def load() -> list[tuple[str, str, list[int]]]:
    cases = []
    for line in DATA.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, fen, counts = (part.strip() for part in line.split(";"))
        cases.append((name, fen, [int(c) for c in counts.split()]))
    return cases


CASES = [
    pytest.param(fen, depth, count, id=f"{name}-d{depth}")
    for name, fen, counts in load()
    for depth, count in enumerate(counts, start=1)
]


def test_suite_is_not_empty() -> None:
    names = {name for name, _, _ in load()}
    assert {"initial", "ep-promotion", "promotion-chain", "custodian", "reserves"} <= names


@pytest.mark.parametrize(("fen", "depth", "count"), CASES)
def test_perft(fen: str, depth: int, count: int) -> None:
    board = Board("interweave", fen=fen)
    assert perft(board, depth) == count
    assert board.fen() == Board("interweave", fen=fen).fen()


def test_divide_sums_to_perft() -> None:
    board = Board("interweave")
    rows = divide(board, 2)
    assert len(rows) == 30
    assert sum(n for _, n in rows) == 888
