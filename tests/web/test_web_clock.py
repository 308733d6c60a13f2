"""Clock arithmetic (web/game/clock.py) with an injected ``now``: no real time passes here."""

from __future__ import annotations

import datetime as dt

import pytest

from exochess.web.domain import Color, Stamp
from exochess.web.game.clock import (
    FIRST_MOVE_MS,
    MAX_LAG_CREDIT_MS,
    Clock,
    Expiry,
    Timing,
    epoch_ms,
    ms_between,
)
from exochess.web.game.timecontrol import TimeControl

T0 = dt.datetime(2026, 1, 1, 12, 0, 0)
W, B = Color.WHITE, Color.BLACK


def at(ms: int) -> dt.datetime:
    return T0 + dt.timedelta(milliseconds=ms)


class Game:
    """A game's stored stamps, played through the clock the way the service does."""

    def __init__(self, control: str, timing: Timing | None = None) -> None:
        self.control = TimeControl.parse(control)
        self.timing = timing or Timing()
        self.stamps: list[Stamp] = []

    def clock(self) -> Clock:
        to_move = W if len(self.stamps) % 2 == 0 else B
        last = self.stamps[-1] if self.stamps else None
        clock = Clock.of(self.control, T0, len(self.stamps), last, to_move, self.timing)
        assert clock is not None
        return clock

    def move(self, ms: int, lag_ms: int = 0) -> Stamp:
        clock = self.clock()
        assert clock.expired(at(ms)) is None
        stamp = clock.after_move(at(ms), lag_ms)
        self.stamps.append(stamp)
        return stamp


def test_no_clock_without_time_control() -> None:
    assert Clock.of(TimeControl.parse("-"), T0, 0, None, W) is None


def test_clock_starts_after_both_first_moves_then_increment() -> None:
    game = Game("3+2")
    assert game.clock().expiry == Expiry.ABORT
    assert game.clock().to_json()["running"] is None
    # the first two moves cost nothing, however long they take (within the first-move limit)
    assert game.move(20_000) == Stamp(180_000, 180_000, at(20_000))
    assert game.move(45_000) == Stamp(180_000, 180_000, at(45_000))
    clock = game.clock()
    assert clock.started and clock.expiry == Expiry.FLAG
    assert clock.to_json()["running"] == "white"
    assert clock.left(W, at(55_000)) == 170_000
    assert clock.left(B, at(55_000)) == 180_000
    # White spends 10 s, gets 2 s back
    assert game.move(55_000) == Stamp(172_000, 180_000, at(55_000))
    # Black spends 30.5 s
    assert game.move(85_500) == Stamp(172_000, 151_500, at(85_500))


def test_lag_credit_is_bounded_and_never_more_than_the_time_spent() -> None:
    game = Game("1+0")
    game.move(0)
    game.move(0)
    # reported 200 ms of lag on a 3 s move: 2.8 s charged
    assert game.move(3000, lag_ms=200).white_ms == 57_200
    # a client claiming 10 s of lag gets the cap only
    assert game.move(8000, lag_ms=10_000).black_ms == 60_000 - (5000 - MAX_LAG_CREDIT_MS)
    # a premove (no time spent) gains nothing from its lag
    assert game.move(8000, lag_ms=400).white_ms == 57_200
    # negative lag counts as none
    assert game.move(9000, lag_ms=-500).black_ms == 55_500 - 1000


def test_flag_at_exactly_zero() -> None:
    game = Game("0.25+0")  # 15 s each
    game.move(0)
    game.move(1000)
    clock = game.clock()
    assert clock.deadline == at(16_000)
    assert clock.expired(at(15_999)) is None
    assert clock.left(W, at(15_999)) == 1
    assert clock.expired(at(16_000)) == Expiry.FLAG
    assert clock.left(W, at(16_000)) == 0
    assert clock.left(W, at(99_000)) == 0  # never below zero


def test_first_move_limit_aborts() -> None:
    game = Game("5+3", Timing(first_move_ms=30_000))
    assert game.clock().deadline == at(30_000)
    assert game.clock().expired(at(30_000)) == Expiry.ABORT
    game.move(29_999)
    # Black's first move is timed from White's
    assert game.clock().deadline == at(59_999)
    assert game.clock().expired(at(59_998)) is None
    assert game.clock().expired(at(59_999)) == Expiry.ABORT


def test_correspondence_deadline_per_move() -> None:
    day = 1000
    game = Game("2d", Timing(day_ms=day))
    assert game.clock().deadline == at(2 * day)
    assert game.clock().expiry == Expiry.ABORT
    assert game.move(1500) == Stamp(None, None, at(1500))
    game.move(3000)
    clock = game.clock()
    assert clock.expiry == Expiry.FLAG
    assert clock.deadline == at(5000)
    assert clock.left(W, at(4000)) == 1000
    assert clock.left(B, at(4000)) == 2 * day
    assert clock.expired(at(5000)) == Expiry.FLAG


def test_restart_in_the_middle_of_a_move_gives_the_same_clock() -> None:
    """The clock is a function of the stored rows: rebuilt from them after a restart (a fresh
    ``Clock.of`` from the same stamps), it shows what the running server showed."""
    game = Game("3+2")
    for ms in (1000, 2000, 9000, 15_000):
        game.move(ms)
    before = game.clock()
    stored = list(game.stamps)  # what the database holds
    rebuilt = Clock.of(game.control, T0, len(stored), stored[-1], W)
    assert rebuilt == before
    assert rebuilt is not None
    for moment in (at(20_000), at(100_000), at(200_000)):
        assert rebuilt.left(W, moment) == before.left(W, moment)
        assert rebuilt.expired(moment) == before.expired(moment)
    # White's clock ran while the server was down: 175 s left at 15 s, out at 190 s
    assert rebuilt.deadline == at(190_000)
    assert rebuilt.expired(at(190_000)) == Expiry.FLAG


def test_json_times_are_those_at_since() -> None:
    game = Game("3+2")
    game.move(0)
    game.move(500)
    data = game.clock().to_json()
    assert data["since"] == epoch_ms(at(500))
    assert data["deadline"] - data["since"] == data["white_ms"] == 180_000
    assert data["increment_ms"] == 2000
    assert data["absence_ms"] == Timing().absence_fast_ms


@pytest.mark.parametrize(
    ("control", "fast"), [("1+0", True), ("3+2", True), ("10+5", False), ("30+20", False)]
)
def test_absence_limit_by_speed(control: str, fast: bool) -> None:
    timing = Timing(absence_fast_ms=1, absence_slow_ms=2)
    assert timing.absence_ms(TimeControl.parse(control)) == (1 if fast else 2)


def test_ms_between_rounds_down_to_whole_ms() -> None:
    assert ms_between(T0, T0 + dt.timedelta(microseconds=1999)) == 1
    assert ms_between(T0, T0 - dt.timedelta(days=1)) == -86_400_000


def test_computer_move_on_a_clock_is_legal() -> None:
    from exochess.board import Board
    from exochess.web.compute.enginepool import EngineClock, compute_move

    board = Board("interweave")
    clock = EngineClock(wtime_ms=300, btime_ms=300, winc_ms=0, binc_ms=0)
    for level in (0, 3, 8):
        text = compute_move("interweave", board.starting_fen, [], level, seed=1, clock=clock)
        assert text in {str(m) for m in board.legal_moves}


def test_a_move_sent_while_the_previous_was_stored_costs_nothing() -> None:
    game = Game("1+0")
    game.move(0)
    game.move(0)
    game.move(5000)
    # Black's premove arrived 20 ms before White's move was stamped: it is stamped with it
    clock = game.clock()
    stamp = clock.after_move(at(4980))
    assert stamp == Stamp(55_000, 60_000, at(5000))


def test_the_computers_seat_is_never_judged_by_its_deadline_and_pays_its_think_time() -> None:
    """Issue 39, item 11: the computer is never aborted (its first move may come late), never
    flagged while it is to move, and its move costs at most its think time."""
    control = TimeControl.parse("1+2")
    first = Clock.of(control, T0, 0, None, W, Timing(), computer=W)
    assert first is not None and not first.judged
    assert first.expired(at(10 * FIRST_MOVE_MS)) is None  # a human would be aborted
    human = Clock.of(control, T0, 0, None, W, Timing(), computer=B)
    assert human is not None and human.judged and human.expired(at(FIRST_MOVE_MS)) == Expiry.ABORT
    last = Stamp(60_000, 60_000, at(1000))
    running = Clock.of(control, T0, 2, last, W, Timing(), computer=W)
    assert running is not None and running.expired(at(1000 + 120_000)) is None
    # held 90 s by a busy server, thought 250 ms: charged 250 ms, plus the increment
    stamp = running.after_move(at(1000 + 90_000), 0, 250)
    assert (stamp.white_ms, stamp.black_ms) == (60_000 - 250 + 2000, 60_000)
    # a player's move is charged its wall time, whatever think_ms says
    other = Clock.of(control, T0, 2, last, W, Timing(), computer=B)
    assert other is not None
    assert other.after_move(at(1000 + 5000), 0, 250).white_ms == 60_000 - 5000 + 2000
