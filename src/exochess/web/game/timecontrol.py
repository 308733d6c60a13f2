"""Time controls: how long each side may think, chosen when a game or a challenge is made.

A time control is one of three kinds, and has one text form (the owner of that format is
:meth:`TimeControl.parse` / :attr:`TimeControl.text`), used in the API, in the database column
and in links:

- ``"-"``: no clock;
- ``"M+S"``: real time, ``M`` minutes for the game (``0``, ``0.25``, ``0.5``, ``0.75`` or a whole
  number up to 180) and ``S`` seconds added after each move (0 to 180), as on lichess;
- ``"Nd"``: correspondence, ``N`` days for each move (1 to 14).

>>> TimeControl.parse("3+2").label
'3+2'
>>> TimeControl.parse("3+2").speed
'blitz'
>>> TimeControl.parse("0.5+0").base_ms
30000
>>> TimeControl.parse("3d").label
'3 days per move'
>>> TimeControl.parse("-").kind
<TimeControlKind.NONE: 'none'>
>>> TimeControl.parse("0+0")
Traceback (most recent call last):
...
ValueError: time control 0+0: a game needs some time or an increment
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import Any, Final


class TimeControlKind(StrEnum):
    """No clock, a real-time clock, or a number of days per move."""

    NONE = "none"
    REALTIME = "realtime"
    CORRESPONDENCE = "correspondence"


REALTIME_PRESETS: Final = ("1+0", "3+2", "5+3", "10+5", "15+10", "30+20")
"""The real-time controls offered as buttons (any other ``M+S`` is a custom one)."""
CORRESPONDENCE_DAYS: Final = (1, 2, 3, 5, 7, 14)
"""The days per move a correspondence game may have."""
MINUTE_CHOICES: Final = (
    "0.25",
    "0.5",
    "0.75",
    *(str(m) for m in range(1, 21)),
    "25",
    "30",
    "35",
    "40",
    "45",
    "60",
    "75",
    "90",
    "105",
    "120",
    "150",
    "180",
)
"""The minutes the new-game form offers for a custom control (lichess's steps; the API takes
any whole number up to :data:`MAX_MINUTES`)."""
INCREMENT_CHOICES: Final = (*range(0, 21), 25, 30, 35, 40, 45, 60, 90, 120, 150, 180)
"""The increments (seconds) the new-game form offers."""
MAX_MINUTES: Final = 180
MAX_INCREMENT_S: Final = 180
FRACTIONAL_MINUTES: Final = (Fraction(1, 4), Fraction(1, 2), Fraction(3, 4))
"""Minutes below one that a real-time control may start with (15, 30 and 45 seconds)."""

_REALTIME = re.compile(r"(\d{1,3}(?:\.\d{1,2})?)\+(\d{1,3})")
_DAYS = re.compile(r"(\d{1,2})d")


@dataclass(frozen=True)
class TimeControl:
    """A time control; build it with :meth:`parse` (or the ``NONE`` constant)."""

    kind: TimeControlKind
    base_ms: int = 0
    """Real time: each side's time at the start, in milliseconds."""
    increment_ms: int = 0
    """Real time: added to a side's clock after each of its moves."""
    days: int = 0
    """Correspondence: days a side has for each move."""

    @classmethod
    def parse(cls, text: str, *, any_minutes: bool = False) -> TimeControl:
        """The time control written ``text`` (see the module's docstring); ``ValueError``
        with a message naming the problem otherwise.  ``any_minutes`` accepts any minutes
        with two decimals (``"0.05+0"``: 3 seconds): for a stored game's control, already
        checked, and for test servers that play a game out to a flag (the setting
        ``EXOCHESS_TEST_TINY_CLOCKS``, never in production)."""
        value = text.strip()
        if value in ("-", "", "none"):
            return NO_CLOCK
        if match := _DAYS.fullmatch(value):
            days = int(match.group(1))
            if days not in CORRESPONDENCE_DAYS:
                allowed = ", ".join(str(d) for d in CORRESPONDENCE_DAYS)
                raise ValueError(f"time control {value}: days per move must be one of {allowed}")
            return cls(TimeControlKind.CORRESPONDENCE, days=days)
        if match := _REALTIME.fullmatch(value):
            minutes = Fraction(match.group(1))
            increment = int(match.group(2))
            if minutes > MAX_MINUTES:
                raise ValueError(f"time control {value}: at most {MAX_MINUTES} minutes")
            if minutes != minutes.numerator and minutes not in FRACTIONAL_MINUTES and not any_minutes:
                raise ValueError(f"time control {value}: minutes must be whole, or 0.25, 0.5 or 0.75")
            if increment > MAX_INCREMENT_S:
                raise ValueError(f"time control {value}: at most {MAX_INCREMENT_S} seconds of increment")
            if minutes == 0 and increment == 0:
                raise ValueError(f"time control {value}: a game needs some time or an increment")
            return cls(TimeControlKind.REALTIME, base_ms=int(minutes * 60_000), increment_ms=increment * 1000)
        raise ValueError(
            f"time control {value[:20]!r} not understood: use '-', minutes+seconds such as '3+2',"
            " or days per move such as '3d'"
        )

    @property
    def text(self) -> str:
        """The text form, which :meth:`parse` reads back."""
        if self.kind == TimeControlKind.CORRESPONDENCE:
            return f"{self.days}d"
        if self.kind == TimeControlKind.REALTIME:
            minutes = Fraction(self.base_ms, 60_000)
            shown = str(minutes.numerator) if minutes.denominator == 1 else str(float(minutes))
            return f"{shown}+{self.increment_ms // 1000}"
        return "-"

    @property
    def label(self) -> str:
        """What a player reads: ``3+2``, ``3 days per move``, ``unlimited``."""
        if self.kind == TimeControlKind.CORRESPONDENCE:
            return f"{self.days} day per move" if self.days == 1 else f"{self.days} days per move"
        if self.kind == TimeControlKind.REALTIME:
            return self.text
        return "unlimited"

    @property
    def speed(self) -> str:
        """lichess's speed class: ``ultrabullet``, ``bullet``, ``blitz``, ``rapid``, ``classical``
        (by the estimated game time, base + 40 times the increment), ``correspondence`` or ``unlimited``."""
        if self.kind == TimeControlKind.CORRESPONDENCE:
            return "correspondence"
        if self.kind == TimeControlKind.NONE:
            return "unlimited"
        estimate_s = (self.base_ms + 40 * self.increment_ms) / 1000
        for limit, name in ((29, "ultrabullet"), (179, "bullet"), (479, "blitz"), (1499, "rapid")):
            if estimate_s <= limit:
                return name
        return "classical"

    @property
    def is_realtime(self) -> bool:
        return self.kind == TimeControlKind.REALTIME

    def to_json(self) -> dict[str, Any]:
        """The time control in game states and lists."""
        return {
            "text": self.text,
            "kind": self.kind,
            "label": self.label,
            "speed": self.speed,
            "base_ms": self.base_ms,
            "increment_ms": self.increment_ms,
            "days": self.days,
        }


NO_CLOCK: Final = TimeControl(TimeControlKind.NONE)
"""The time control of a game without a clock (every game made before clocks existed)."""


def stored_time_control(text: str | None) -> TimeControl:
    """The time control of a stored game (``NULL`` for games made before there were any)."""
    return NO_CLOCK if text is None else TimeControl.parse(text, any_minutes=True)
