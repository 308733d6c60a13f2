"""Rebel Fury perft against ``tests/data/perft_rebelfury.txt``.

Entries up to :data:`FAST_LIMIT` nodes run by default; set ``EXOCHESS_SLOW=1``
to run every entry (depth 3 takes tens of seconds each).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from exochess import Board
from exochess.perft import perft

DATA = Path(__file__).parent / "data" / "perft_rebelfury.txt"
FAST_LIMIT = 40_000
SLOW = bool(os.environ.get("EXOCHESS_SLOW"))


def _entries() -> list[tuple[str, int, int]]:
    entries = []
    for raw_line in DATA.read_text().splitlines():
        text = raw_line.strip()
        if not text or text.startswith("#"):
            continue
        fen, *counts = (part.strip() for part in text.split(";"))
        for item in counts:
            depth, count = item.split()
            entries.append((fen, int(depth), int(count)))
    return entries


ENTRIES = _entries()


def test_data_file_has_the_required_start_counts() -> None:
    start = Board("rebelfury").fen()
    got = {(d, n) for fen, d, n in ENTRIES if fen == start}
    assert {(1, 118), (2, 11847)} <= got


@pytest.mark.parametrize(("fen", "depth", "count"), ENTRIES, ids=[f"{f[:20]}..d{d}" for f, d, _ in ENTRIES])
def test_perft(fen: str, depth: int, count: int) -> None:
    if count > FAST_LIMIT and not SLOW:
        pytest.skip("large perft; set EXOCHESS_SLOW=1")
    board = Board("rebelfury", fen=fen)
    assert perft(board, depth) == count
    assert board.fen() == fen
