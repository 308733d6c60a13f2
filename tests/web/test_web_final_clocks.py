"""The clocks at the end of a game (issue 40, item 2): :meth:`Clock.at_end` for each way a
real-time game ends without a move -- a flag, a resignation, an abort, a claim -- and a royal
capture's own stamp.  Pure arithmetic on injected times (no sleeping)."""

from __future__ import annotations

import datetime as dt

import pytest

from exochess.web.domain import Stamp
from tests.web.test_web_clock import Game, at


def started(control: str = "1+0") -> Game:
    game = Game(control)
    game.move(1_000)   # the first two moves cost nothing
    game.move(2_000)
    game.move(12_000)  # White spends 10 s: 50 s left, Black to move with 60 s
    return game


def test_a_flag_ends_with_the_loser_at_zero() -> None:
    game = started()
    clock = game.clock()
    flag = clock.deadline  # the server's timer fires at (or after) the deadline
    assert clock.at_end(flag + dt.timedelta(milliseconds=350)) == Stamp(50_000, 0, flag + dt.timedelta(milliseconds=350))


@pytest.mark.parametrize("ending", ["resignation", "claim"])
def test_a_resignation_or_claim_stops_the_running_clock_where_it_stood(ending: str) -> None:
    game = started()
    # Black thinks 22.5 s and then resigns (or White claims): Black's clock shows 37.5 s
    end = game.clock().at_end(at(34_500))
    assert (end.white_ms, end.black_ms) == (50_000, 37_500)


def test_an_abort_before_both_moved_leaves_both_clocks_full() -> None:
    game = Game("1+0")
    game.move(3_000)
    end = game.clock().at_end(at(20_000))
    assert (end.white_ms, end.black_ms) == (60_000, 60_000)


def test_a_royal_capture_ends_with_the_capturing_move_s_stamp() -> None:
    game = started("3+2")
    stamp = game.move(40_000)  # Black's move (28 s, +2 s) takes the King: its stamp is final
    assert (stamp.white_ms, stamp.black_ms) == (172_000, 154_000)


def test_an_end_stamped_before_the_last_move_counts_from_that_move() -> None:
    game = started()
    end = game.clock().at_end(at(5_000))  # out of order: never more time than at the move
    assert (end.white_ms, end.black_ms) == (50_000, 60_000)
