"""Game clocks as pure arithmetic: the clock state of a game follows from its time control, the
time it was created and, for each stored move, the clocks after it and the time it arrived.

Nothing here reads the real time: every function takes ``now``, so the service, a restart and
the tests all compute the same clocks from the same rows.

The rules (docs/web.md, "Clocks"):

- **The clock starts after both sides' first moves**, as on lichess.  Until then neither clock
  runs, and the side to move has :attr:`Timing.first_move_ms` (real time) or the days per move
  (correspondence) to make its first move, or the game is *aborted* (no result).
- **Real time**: from the third move on, the side to move's clock runs from the moment the
  previous move arrived.  A move costs the time since then, less the lag the client reports
  (at most :data:`MAX_LAG_CREDIT_MS`, and never more than the time spent); then the increment
  is added.  A side whose clock reaches zero (exactly zero included) loses on time.
- **Correspondence**: each move must arrive within the days per move of the previous one; the
  side that misses its deadline loses on time.  There are no running totals.
- **The computer's seat** is never judged by its deadline: it is never aborted (it always
  makes its first move), never flagged while it thinks, and when its move arrives its clock is
  charged its real think time (``think_ms``), not the time the server took to ask it and
  store its answer (a busy machine's queues are not the computer's slowness).
- **Berserk** (arena tournament games, :mod:`exochess.web.game.berserk`): a seat that berserked
  starts with half its initial time (:func:`berserk_ms`) and gets no increment; the other seat
  keeps the full time control.  Before the clock starts no time runs, so until then both seats
  show their initial times whatever the first moves' stamps say (Black may berserk after
  White's first move).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from exochess.web.domain import Color, Stamp
from exochess.web.game.timecontrol import TimeControl, TimeControlKind

MAX_LAG_CREDIT_MS: Final = 500
"""The most lag one move is credited: a client reports its measured network delay with a move
(half its websocket round trip), and the server gives back at most this much of the time the
move cost.  Bounded so that a lying client gains at most this per move (lichess caps its lag
compensation too)."""
FIRST_MOVE_MS: Final = 30_000
"""Real time: how long the side to move has for its first move before the game is aborted."""
ABSENCE_FAST_MS: Final = 30_000
"""Real time: how long a player's opponent must have been disconnected before the player may
claim the win, in bullet and blitz games (lichess waits about as long)."""
ABSENCE_SLOW_MS: Final = 60_000
"""The same in rapid and classical games."""
DAY_MS: Final = 86_400_000


def berserk_ms(base_ms: int) -> int:
    """The initial time of a seat that berserked: half the base time, rounded down to the
    millisecond."""
    return base_ms // 2


@dataclass(frozen=True)
class Timing:
    """The fixed durations of the rules, in milliseconds; tests shrink them (see the service)."""

    first_move_ms: int = FIRST_MOVE_MS
    day_ms: int = DAY_MS
    absence_fast_ms: int = ABSENCE_FAST_MS
    absence_slow_ms: int = ABSENCE_SLOW_MS

    def absence_ms(self, control: TimeControl) -> int:
        """How long an opponent must be gone before the win may be claimed."""
        fast = control.speed in ("ultrabullet", "bullet", "blitz")
        return self.absence_fast_ms if fast else self.absence_slow_ms


class Expiry(StrEnum):
    """What happens when the side to move's deadline passes."""

    ABORT = "abort"
    """Before both sides have moved: the game is called off without a result."""
    FLAG = "flag"
    """The side to move loses on time."""


def ms_between(start: dt.datetime, end: dt.datetime) -> int:
    """Whole milliseconds from ``start`` to ``end`` (negative if ``end`` is earlier)."""
    delta = end - start
    return (delta.days * 86_400_000) + (delta.seconds * 1000) + (delta.microseconds // 1000)


def epoch_ms(moment: dt.datetime) -> int:
    """Milliseconds since 1970 of a naive UTC time (what the clients count in)."""
    return ms_between(dt.datetime(1970, 1, 1), moment)


@dataclass(frozen=True)
class Clock:
    """A game's clocks as stored after its last move (or at its creation).

    ``white_ms`` and ``black_ms`` are the times left at :attr:`since`; only the side to move's
    clock runs from then on, and only once :attr:`started`.
    """

    control: TimeControl
    timing: Timing
    white_ms: int
    black_ms: int
    to_move: Color
    since: dt.datetime
    """When the side to move's time began: the arrival of the last move, or the creation."""
    started: bool
    """Whether both sides have made their first move."""
    computer: Color | None = None
    """The seat the computer plays, if any (see the module docstring)."""
    berserked: frozenset[Color] = frozenset()
    """The seats that berserked (half the initial time, no increment)."""

    @classmethod
    def of(
        cls,
        control: TimeControl,
        created: dt.datetime,
        ply: int,
        last: Stamp | None,
        to_move: Color,
        timing: Timing = Timing(),
        computer: Color | None = None,
        berserked: frozenset[Color] = frozenset(),
    ) -> Clock | None:
        """The clock of a game with the time control ``control``, created at ``created``, after
        ``ply`` moves, the last of which has the stamp ``last`` (None for a game without a
        clock); ``computer`` is the seat the computer plays, if any; ``berserked`` the seats
        that berserked (real time only)."""
        if control.kind == TimeControlKind.NONE:
            return None
        if control.kind != TimeControlKind.REALTIME:
            berserked = frozenset()
        # correspondence shows each side its full days per move (the side to move counts down)
        full = control.base_ms or control.days * timing.day_ms
        white = berserk_ms(full) if Color.WHITE in berserked else full
        black = berserk_ms(full) if Color.BLACK in berserked else full
        since = created
        if ply and last is not None:
            since = last.at
            # no time runs before the start: the initial times stand (a berserk after White's
            # first move is not in that move's stamp)
            if ply >= 2 and last.white_ms is not None and last.black_ms is not None:
                white, black = last.white_ms, last.black_ms
        return cls(control, timing, white, black, to_move, since, ply >= 2, computer, frozenset(berserked))

    def increment_of(self, color: Color) -> int:
        """``color``'s increment per move (none after a berserk)."""
        return 0 if color in self.berserked else self.control.increment_ms

    def left_at_since(self, color: Color) -> int:
        """``color``'s time left when :attr:`since` began."""
        return self.white_ms if color == Color.WHITE else self.black_ms

    @property
    def period_ms(self) -> int:
        """The side to move's time for this move, counted from :attr:`since`."""
        if not self.started:
            if self.control.kind == TimeControlKind.CORRESPONDENCE:
                return self.control.days * self.timing.day_ms
            return self.timing.first_move_ms
        if self.control.kind == TimeControlKind.CORRESPONDENCE:
            return self.control.days * self.timing.day_ms
        return self.left_at_since(self.to_move)

    @property
    def deadline(self) -> dt.datetime:
        """When the side to move runs out of time (see :attr:`expiry` for what follows)."""
        return self.since + dt.timedelta(milliseconds=self.period_ms)

    @property
    def expiry(self) -> Expiry:
        """Abort before both sides have moved, a loss on time after."""
        return Expiry.FLAG if self.started else Expiry.ABORT

    @property
    def judged(self) -> bool:
        """Whether the side to move's deadline is judged (not while the computer is to move)."""
        return self.to_move != self.computer

    def expired(self, now: dt.datetime) -> Expiry | None:
        """What the passing of the deadline calls for at ``now`` (None: the time is not out, or
        it is the computer's turn; a clock at exactly zero is out)."""
        if not self.judged:
            return None
        return self.expiry if ms_between(self.since, now) >= self.period_ms else None

    def left(self, color: Color, now: dt.datetime) -> int:
        """``color``'s time left at ``now`` (never below zero): for correspondence, the side to
        move's time until its deadline and the other side's full days per move."""
        if self.control.kind == TimeControlKind.CORRESPONDENCE:
            full = self.control.days * self.timing.day_ms
            if color != self.to_move:
                return full
            return max(0, full - ms_between(self.since, now))
        if color != self.to_move or not self.started:
            return self.left_at_since(color)
        return max(0, self.left_at_since(color) - ms_between(self.since, now))

    def after_move(self, now: dt.datetime, lag_ms: int = 0, think_ms: int | None = None) -> Stamp:
        """The stamp of a move the side to move makes, arriving at ``now`` with the client's
        reported lag ``lag_ms``.  Call it only when :meth:`expired` is None at ``now``.

        Real time: the mover's clock loses the time since :attr:`since`, less the credited lag,
        and gains the increment (only once the clock has started).  The computer's move costs at
        most ``think_ms``, its measured think time.
        """
        # a move sent while the previous one was being stored arrived "before" it: it is
        # counted as arriving with it (it cost nothing, and the next clock starts from there)
        now = max(now, self.since)
        if self.control.kind != TimeControlKind.REALTIME:
            return Stamp(None, None, now)
        white, black = self.white_ms, self.black_ms
        if self.started:
            spent = max(0, ms_between(self.since, now))
            if think_ms is not None and self.to_move == self.computer:
                spent = min(spent, max(0, think_ms))
            credit = min(max(0, lag_ms), MAX_LAG_CREDIT_MS, spent)
            left = self.left_at_since(self.to_move) - (spent - credit) + self.increment_of(self.to_move)
            if self.to_move == Color.WHITE:
                white = left
            else:
                black = left
        return Stamp(white, black, now)

    def at_end(self, ended: dt.datetime) -> Stamp:
        """The clocks as they stood when the game ended at ``ended`` without a move (a flag, a
        resignation, an abort, a claim): the side to move's clock ran from :attr:`since` until
        then (never below zero: a flag shows 0), the other's stood.  A game ended by a move (a
        royal capture) already has its final clocks in that move's stamp.  Real time only;
        other controls keep what :meth:`left` says.  For the finisher (issue 40): stored with
        the result, and shown by the final state and the PGN.
        """
        ended = max(ended, self.since)
        return Stamp(self.left(Color.WHITE, ended), self.left(Color.BLACK, ended), ended)

    def to_json(self) -> dict[str, Any]:
        """The clock in the game state (documented in docs/web.md, "Clocks").

        The times are those at ``since``, so the state stays the same while a clock runs (it is
        cached and broadcast as one text): a client subtracts the time since ``since`` from the
        running side, or simply counts down to ``deadline``.
        """
        running = self.to_move if self.started else None
        return {
            "white_ms": self.white_ms,
            "black_ms": self.black_ms,
            "increment_ms": self.control.increment_ms,
            "white_increment_ms": self.increment_of(Color.WHITE),
            "black_increment_ms": self.increment_of(Color.BLACK),
            "running": running,
            "to_move": self.to_move,
            "since": epoch_ms(self.since),
            "deadline": epoch_ms(self.deadline),
            "expiry": self.expiry,
            "absence_ms": self.timing.absence_ms(self.control),
        }
