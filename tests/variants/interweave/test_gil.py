"""A long chain listing gives the GIL up as it goes, so a thread listing a huge position does not
stop the site's event loop (compiled code never gives it up on its own: see
``CHAINS_PER_GIL_RELEASE``; the effect on a real server is measured by bench/grown_position.py)."""

from __future__ import annotations

import time

import pytest

from exochess.board import Board
from exochess.variants.interweave import rules

# issue 17's position with Black to move: 5 moves, and after g2@(g3) White has 45,135 chains
FEN = "4K2k/1p1r1r2/P1b5/2rrnp1r/1nn1rN2/r2brbB1/p3n1b1/kb6 b - 000000"


def test_a_huge_chain_listing_releases_the_gil_every_few_hundred_turns(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    board = Board("interweave", fen=FEN)
    board.push(next(m for m in board.legal_moves if str(m) == "g2@(g3)"))
    grown = Board("interweave", fen=board.fen())  # not sharing the first board's listed moves
    releases: list[float] = []
    real_sleep = time.sleep

    def counted_sleep(seconds: float) -> None:
        releases.append(seconds)
        real_sleep(seconds)

    monkeypatch.setattr(time, "sleep", counted_sleep)
    count = len(grown.raw_moves())
    assert count == 45_135
    assert releases and set(releases) == {0}
    assert len(releases) >= count // rules.CHAINS_PER_GIL_RELEASE - 1


def test_a_small_listing_does_not_release_it(monkeypatch: pytest.MonkeyPatch) -> None:
    releases: list[float] = []
    monkeypatch.setattr(time, "sleep", releases.append)
    assert len(Board("interweave").raw_moves()) > 0
    assert releases == []
