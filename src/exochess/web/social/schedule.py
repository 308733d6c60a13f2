"""The site's own tournaments: the schedule (a setting) and the events it makes.

The setting ``EXOCHESS_TOURNAMENT_SCHEDULE`` lists entries separated by ``;``, each::

    <game> arena <time control> <minutes> <when>
    <game> swiss <time control> <rounds> <when>

where ``<when>`` is ``hourly`` (on the hour), ``hourly:MM``, ``daily HH:MM`` or
``weekly <day> HH:MM`` (``mon`` … ``sun``), all in UTC.  An entry may end with the word
``bots``: its events are open to bot accounts.  Without it they are not (the default schedule
has none): the site's regular events are people's, as lichess's are, and a site that wants a
bot arena says so.  The next event of each entry is made
ahead of its start (:data:`LOOKAHEAD`), so the home page and ``/tournaments`` can count down to
it; its ``schedule_key`` (entry and start time) makes it once, whichever server gets there first.

>>> entry = parse_schedule("fugue arena 3+2 60 hourly:30")[0]
>>> entry.kind, entry.variant, entry.time_control, entry.minutes
('arena', 'fugue', '3+2', 60.0)
>>> next_start(entry, dt.datetime(2026, 11, 29, 4, 40))
datetime.datetime(2026, 11, 29, 5, 30)
>>> weekly = parse_schedule("interweave swiss 10+5 5 weekly sat 18:00")[0]
>>> next_start(weekly, dt.datetime(2026, 11, 29, 4, 40))  # a Sunday
datetime.datetime(2026, 12, 5, 18, 0)
>>> parse_schedule("fugue arena 1+0 30 daily 20:00 bots")[0].bots_allowed
True
>>> parse_schedule("fugue arena 3+2 sixty hourly")
Traceback (most recent call last):
...
ValueError: tournament schedule entry 'fugue arena 3+2 sixty hourly': the length must be a number
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass

from exochess.errors import UnknownVariantError
from exochess.variants import find_variant

DEFAULT_SCHEDULE = (
    "fugue arena 3+2 60 hourly:00; interweave arena 3+2 60 hourly:20; rebelfury arena 5+3 60 hourly:40; "
    "fugue swiss 10+5 5 weekly sat 18:00; interweave swiss 10+5 5 weekly sun 18:00; "
    "rebelfury swiss 15+10 5 weekly sat 15:00"
)
"""What a site makes by itself unless told otherwise: an hourly arena of each game and a weekly
Swiss event of each."""
DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
LOOKAHEAD = {"hourly": dt.timedelta(hours=1), "daily": dt.timedelta(days=1), "weekly": dt.timedelta(days=7)}
"""How long before its start an entry's next event is made (and listed)."""


@dataclass(frozen=True)
class ScheduleEntry:
    """One line of the schedule."""

    text: str
    """The entry as written (part of its events' keys)."""
    variant: str
    kind: str
    time_control: str
    minutes: float | None
    """An arena's length."""
    rounds: int | None
    """A Swiss event's rounds."""
    every: str
    """``hourly``, ``daily`` or ``weekly``."""
    weekday: int
    hour: int
    minute: int
    bots_allowed: bool = False
    """The entry ends with ``bots``: its events are open to bot accounts."""

    @property
    def name(self) -> str:
        """The event's shown name, e.g. "Hourly fugue arena 3+2"."""
        return f"{self.every.capitalize()} {self.variant} {self.kind} {self.time_control}"


def _time(text: str) -> tuple[int, int]:
    hour, _, minute = text.partition(":")
    h, m = int(hour), int(minute)
    if not (0 <= h < 24 and 0 <= m < 60):
        raise ValueError(text)
    return h, m


def _entry(text: str) -> ScheduleEntry:
    words = text.split()
    problem = f"tournament schedule entry {text!r}"
    bots_allowed = bool(words) and words[-1] == "bots"
    if bots_allowed:
        words = words[:-1]
    if len(words) < 5:
        raise ValueError(f"{problem}: expected '<game> arena|swiss <time control> <length> <when> [bots]'")
    variant, kind, time_control, length, every, *rest = words
    try:
        variant = find_variant(variant).name
    except UnknownVariantError as exc:
        raise ValueError(f"{problem}: {exc}") from None
    if kind not in ("arena", "swiss"):
        raise ValueError(f"{problem}: the kind is 'arena' or 'swiss'")
    try:
        amount = float(length)
    except ValueError:
        raise ValueError(f"{problem}: the length must be a number") from None
    weekday, hour, minute = 0, 0, 0
    try:
        if every.startswith("hourly"):
            minute = int(every.partition(":")[2] or 0)
            if not 0 <= minute < 60 or rest:
                raise ValueError(every)
            every = "hourly"
        elif every == "daily" and len(rest) == 1:
            hour, minute = _time(rest[0])
        elif every == "weekly" and len(rest) == 2 and rest[0] in DAYS:
            weekday = DAYS.index(rest[0])
            hour, minute = _time(rest[1])
        else:
            raise ValueError(every)
    except ValueError:
        raise ValueError(
            f"{problem}: the time is 'hourly[:MM]', 'daily HH:MM' or 'weekly <day> HH:MM'"
        ) from None
    return ScheduleEntry(
        text=" ".join(text.split()),
        variant=variant,
        kind=kind,
        time_control=time_control,
        minutes=amount if kind == "arena" else None,
        rounds=int(amount) if kind == "swiss" else None,
        every=every,
        weekday=weekday,
        hour=hour,
        minute=minute,
        bots_allowed=bots_allowed,
    )


def parse_schedule(text: str) -> list[ScheduleEntry]:
    """The entries of the setting (an empty text: no scheduled events)."""
    return [_entry(part.strip()) for part in text.split(";") if part.strip()]


def next_start(entry: ScheduleEntry, after: dt.datetime) -> dt.datetime:
    """The entry's first start strictly after ``after`` (UTC, naive)."""
    if entry.every == "hourly":
        start = after.replace(minute=entry.minute, second=0, microsecond=0)
        step = dt.timedelta(hours=1)
    elif entry.every == "daily":
        start = after.replace(hour=entry.hour, minute=entry.minute, second=0, microsecond=0)
        step = dt.timedelta(days=1)
    else:
        start = after.replace(hour=entry.hour, minute=entry.minute, second=0, microsecond=0)
        start += dt.timedelta(days=(entry.weekday - start.weekday()) % 7)
        step = dt.timedelta(days=7)
    while start <= after:
        start += step
    return start


def due_events(
    entries: list[ScheduleEntry], at: dt.datetime
) -> Iterator[tuple[ScheduleEntry, dt.datetime, str]]:
    """For each entry, its next event if it is to be made now: (entry, start, key)."""
    for entry in entries:
        start = next_start(entry, at)
        if start - at <= LOOKAHEAD[entry.every]:
            yield entry, start, f"{entry.text}@{start:%Y-%m-%dT%H:%M}"[:96]
