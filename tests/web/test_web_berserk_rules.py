"""Berserk's arithmetic (issue 46) without a server: the clock of a seat that berserked
(web/game/clock.py, with an injected ``now``) and the arena points of a berserked game
(web/social/standings.py, over hand-made rows)."""

from __future__ import annotations

import datetime as dt

from exochess.web.domain import Color, GameStatus, Stamp
from exochess.web.game.clock import Clock, berserk_ms
from exochess.web.game.timecontrol import TimeControl
from exochess.web.social.standings import BERSERK_MIN_PLIES, arena_lines
from exochess.web.storage.tournaments import EntryRow, PairedGame

T0 = dt.datetime(2026, 1, 1, 12, 0, 0)
W, B = Color.WHITE, Color.BLACK
CONTROL = TimeControl.parse("1+2")


def at(ms: int) -> dt.datetime:
    return T0 + dt.timedelta(milliseconds=ms)


def clock(stamps: list[Stamp], berserked: frozenset[Color]) -> Clock:
    last = stamps[-1] if stamps else None
    made = Clock.of(CONTROL, T0, len(stamps), last, W if len(stamps) % 2 == 0 else B, berserked=berserked)
    assert made is not None
    return made


def test_a_berserker_starts_with_half_the_time_and_no_increment() -> None:
    start = clock([], frozenset({B}))
    assert (start.white_ms, start.black_ms) == (60_000, 30_000) == (60_000, berserk_ms(60_000))
    assert (start.increment_of(W), start.increment_of(B)) == (2_000, 0)
    shown = start.to_json()
    assert (shown["white_increment_ms"], shown["black_increment_ms"], shown["increment_ms"]) == (
        2_000,
        0,
        2_000,
    )


def test_a_berserk_after_whites_first_move_overrides_that_moves_stamp() -> None:
    """White's first move was stamped with Black's full time; Black then berserked: before the
    start the initial times stand, so Black has half."""
    first = clock([], frozenset()).after_move(at(1_000))
    assert first.black_ms == 60_000
    after = clock([first], frozenset({B}))
    assert (after.white_ms, after.black_ms) == (60_000, 30_000)


def test_the_clock_runs_on_from_the_halved_time_without_increment() -> None:
    seats = frozenset({B})
    stamps: list[Stamp] = []
    for ply, moment in enumerate((1_000, 2_000, 5_000, 9_000)):
        stamps.append(clock(stamps, seats).after_move(at(moment)))
        if ply == 1:  # both have moved: the clock starts from here, with the initial times
            assert (stamps[-1].white_ms, stamps[-1].black_ms) == (60_000, 30_000)
    # White spent 3 s and gained its 2 s increment; Black spent 4 s and gained nothing
    assert (stamps[2].white_ms, stamps[3].black_ms) == (59_000, 26_000)
    assert stamps[3].white_ms == 59_000


def test_correspondence_ignores_berserk() -> None:
    made = Clock.of(TimeControl.parse("1d"), T0, 0, None, W, berserked=frozenset({W}))
    assert made is not None and made.white_ms == made.black_ms and made.increment_of(W) == 0


def _game(
    n: int, ply: int, result: str | None, white_berserk: bool = False, black_berserk: bool = False
) -> PairedGame:
    return PairedGame(
        game_id=f"g{n}",
        round=0,
        white_user=1,
        black_user=2,
        created=at(n),
        status=GameStatus.FINISHED,
        result=result,
        ply=ply,
        white_berserk=white_berserk,
        black_berserk=black_berserk,
    )


def test_the_bonus_only_for_a_berserkers_win_of_seven_moves_each() -> None:
    players = [EntryRow(1, "white", T0, 1, True, None), EntryRow(2, "black", T0, 1, True, None)]
    games = [
        _game(1, BERSERK_MIN_PLIES, "1-0", white_berserk=True),  # a berserked win: 2 + 1
        _game(2, BERSERK_MIN_PLIES - 1, "0-1", black_berserk=True),  # too short: 2
        _game(3, 40, "0-1", white_berserk=True),  # a berserker's loss: 0
        _game(4, 40, "1-0", black_berserk=True),  # the berserker lost, the winner did not berserk
    ]
    lines = arena_lines(players, games)
    assert lines[1].sheet == [3, 0, 0, 2] and lines[1].berserks == [True, False, True, False]
    assert lines[2].sheet == [0, 2, 2, 0] and lines[2].berserks == [False, True, False, True]
    assert (lines[1].score, lines[2].score) == (5, 4)
