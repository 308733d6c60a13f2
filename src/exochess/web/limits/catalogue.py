"""The declared rate limits: what each counts, its default, whom it is keyed on.

To give a new feature a limit (puzzle attempts, bot tokens...), add one :class:`Limit` to
:data:`LIMITS` and call ``await rate_limits.hit("<name>", key)`` where the feature acts: None,
or a :class:`~exochess.web.limits.Refusal` to answer with (its ``retry_s`` for ``Retry-After``).
The setting ``EXOCHESS_RATE_LIMITS`` then accepts ``<name>=<rate>`` like the others, and the
table in docs/settings.md lists it.

A rate is one of the ``limits`` library's, or several separated by ``,``: ``30/minute``,
``10 per 5 seconds``, ``5/minute,20/hour`` (all must allow a hit).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from limits import RateLimitItem, parse_many


class Key(StrEnum):
    """Whom a limit is counted for."""

    ADDRESS = "client address"
    """:func:`~exochess.web.limits.client_key` of the request's address."""
    ACCOUNT = "account name"
    """:func:`~exochess.web.limits.account_key` of the name a login gives."""
    SEAT = "game seat"
    """A game's id and a colour."""
    SOCKET = "websocket"
    """One websocket connection."""
    TOKEN = "API token"
    """A personal API token (its id): ``Authorization: Bearer`` requests."""


@dataclass(frozen=True)
class Limit:
    """One declared limit."""

    name: str
    default: str
    """Its rate (``limits`` syntax, several joined with ``,``)."""
    what: str
    """What it counts, as the refusal names it ("games created")."""
    key: Key
    precheck: bool = False
    """Remember locally, once a hit fills the window, that the key is over the limit until the
    window frees up: what lets a request be refused before any work (a websocket handshake, a
    read from an address past its misses) without asking the storage."""
    fail_closed: bool = False
    """While the shared storage cannot be reached, refuse (logins) rather than let through."""
    local: bool = False
    """Counted in this process's memory whatever the storage: a limit of one websocket
    connection, which lives in one process (sharing it would buy nothing and cost a Redis round
    trip per message)."""


LIMITS: tuple[Limit, ...] = (
    Limit("games", "30/minute", "games created", Key.ADDRESS),
    Limit("analyses", "20/minute", "engine analyses", Key.ADDRESS),
    Limit("sockets", "60/minute", "websocket connections", Key.ADDRESS, precheck=True),
    Limit("signups", "10/hour", "accounts created", Key.ADDRESS),
    Limit("misses", "60/minute", "requests for games or pages that do not exist", Key.ADDRESS, precheck=True),
    # a person clicks a few times a second at most; the windows let a burst through, then the rate
    Limit("lobby", "10 per 5 seconds", "lobby actions", Key.ADDRESS),
    # one connection's messages, pings included (issue 41: one socket flooding pings slowed
    # every game): a burst (a reconnect: auth, pings, a move) and a person's pace pass, as
    # the token buckets these replaced let through ``amount`` at once then ``rate`` a second
    # (48 = 40 + 8 in any second, 520 = 40 + 8 x 60 in any minute; the lobby's 12 + 4)
    Limit("game-messages", "48/second,520/minute", "websocket messages", Key.SOCKET, local=True),
    Limit("lobby-messages", "16/second,250/minute", "lobby messages", Key.SOCKET, local=True),
    # a tournament page only pings (every 20 s); anything more is a misbehaving client
    Limit("tournament-messages", "4/second,30/minute", "tournament page messages", Key.SOCKET, local=True),
    Limit("chat", "4 per 2 seconds", "chat lines", Key.SEAT),
    # a puzzle move is a few milliseconds of CPU; one the solution does not list costs an
    # engine analysis (web/puzzles/service.py), counted by the second limit too
    Limit("puzzles", "60/minute", "puzzle moves", Key.ADDRESS),
    Limit("puzzle-checks", "20/minute", "puzzle moves checked by the engine", Key.ADDRESS),
    # a bot plays a few moves a second at most, in a handful of games at once (issue 47)
    Limit("api-token", "300/minute", "API requests with this token", Key.TOKEN),
    # only failed logins are counted (http/loginguard.py)
    Limit(
        "login-account", "5/minute,20/hour", "failed logins for this account", Key.ACCOUNT, fail_closed=True
    ),
    Limit(
        "login-address",
        "20/minute,100/hour",
        "failed logins from your address",
        Key.ADDRESS,
        fail_closed=True,
    ),
)
"""Every limit of the site."""
BY_NAME = {limit.name: limit for limit in LIMITS}
SETTING = "EXOCHESS_RATE_LIMITS"


class RateLimitSettingError(ValueError):
    """``$EXOCHESS_RATE_LIMITS`` cannot be read."""


def parse_rate(text: str) -> list[RateLimitItem]:
    """The items of a rate (``5/minute,20/hour``); ``ValueError`` if it is none."""
    items = parse_many(text.replace(",", ";"))
    if not items:
        raise ValueError("no rate given")
    return items


def parse_rate_limits(text: str | None) -> dict[str, list[RateLimitItem]]:
    """The limits a setting describes: ``;``-separated ``name=<rate>`` entries among
    :data:`LIMITS`' names, the others keeping their defaults (``None`` or empty: all the
    defaults; ``off``: none at all, for test servers that play many games from one address)."""
    if text is not None and text.strip().lower() in ("off", "none", "0"):
        return {}
    wanted = {limit.name: limit.default for limit in LIMITS}
    for entry in (text or "").split(";"):
        if not entry.strip():
            continue
        name, sep, value = entry.partition("=")
        name = name.strip()
        if not sep or name not in BY_NAME:
            raise RateLimitSettingError(
                f"{SETTING}: {entry.strip()!r} is not 'name=amount/period' with a name among "
                f"{', '.join(BY_NAME)} (or 'off')"
            )
        wanted[name] = value.strip()
    parsed: dict[str, list[RateLimitItem]] = {}
    for name, value in wanted.items():
        if value.lower() in ("off", "none"):
            continue
        try:
            parsed[name] = parse_rate(value)
        except ValueError as exc:
            raise RateLimitSettingError(
                f"{SETTING}: {name}={value!r} is no rate such as 30/minute ({exc})"
            ) from exc
    return parsed
