"""The message limit of one websocket connection (:class:`MessageLimit`): each message it
receives, pings included, is a hit of :class:`~exochess.web.limits.RateLimits` (its
:meth:`~exochess.web.limits.RateLimits.hit_local`: no ``await`` per message) on a limit
declared ``local`` (``game-messages``, ``lobby-messages``), under a key of the connection's
own.  Issue 41: one game socket flooding pings raised another game's ping p99 from 5.5 to
499 ms.

What the connection does with a refusal is its policy: a game socket closes at once
(``strikes=0``), the lobby's answers "slow down" ``strikes`` times first.
"""

from __future__ import annotations

import itertools
from typing import Literal

from exochess.web.limits.ratelimits import RateLimits, Refusal

CLOSE_FLOOD = 1008
"""Close code (policy violation) of a connection that sent more messages than its limit."""

_connections = itertools.count()
"""Numbers the connections of this process: a key no other connection has had (the limit's
windows are kept in this process's memory, so a process-wide counter suffices)."""

Verdict = Literal["ok", "slow", "close"]


class MessageLimit:
    """The limit ``name`` of one connection's messages: :meth:`check` says "ok", "slow" (over
    the limit: answer with an error) or, past ``strikes`` messages over it in a row, "close"."""

    def __init__(self, limits: RateLimits, name: str, strikes: int = 0) -> None:
        self.limits = limits
        self.name = name
        self.key = str(next(_connections))
        self.strikes = strikes
        self._over = 0
        self._refusal: Refusal | None = None

    def check(self) -> Verdict:
        """Count one message received (see the class docstring); a refused one is not counted."""
        refusal = self.limits.hit_local(self.name, self.key)
        if refusal is None:
            self._over = 0
            return "ok"
        self._refusal = refusal
        self._over += 1
        return "close" if self._over > self.strikes else "slow"

    def reason(self) -> str:
        """The close reason (at most 123 bytes): the rate that was used up."""
        rate = f" (at most {self._refusal.item})" if self._refusal is not None else ""
        return f"too many messages{rate}: connection closed"
