"""Failed logins are slowed per account and per client address, with the ``limits`` library.

Only failures count: each wrong password is a hit on the account's limits and on the address's;
while either is used up, every login for that account or from that address is refused with 429
and ``Retry-After`` before the password is even checked (so guessing costs the attacker time,
not the server argon2 work).  A success does not reset the counts: a guesser who also owns an
account must not be able to wipe them.
"""

from __future__ import annotations

import math
import time

from limits import RateLimitItem, parse_many
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

from exochess.web.domain import N_, TooManyAttempts
from exochess.web.ratelimit import client_key

PER_ACCOUNT = "5/minute;20/hour"
PER_ADDRESS = "20/minute;100/hour"


class TooManyLogins(TooManyAttempts):
    """Too many failed logins for this account or from this address (429 with Retry-After)."""


class LoginGuard:
    """Counts failed logins in memory (one process serves the site)."""

    def __init__(self, per_account: str = PER_ACCOUNT, per_address: str = PER_ADDRESS) -> None:
        self.limiter = MovingWindowRateLimiter(MemoryStorage())
        self.account_limits = parse_many(per_account)
        self.address_limits = parse_many(per_address)

    def _keys(self, account: str, address: str | None) -> list[tuple[RateLimitItem, str, str]]:
        return [(item, "login-account", account.lower()) for item in self.account_limits] + [
            (item, "login-address", client_key(address)) for item in self.address_limits
        ]

    def check(self, account: str, address: str | None) -> None:
        """Raise :class:`TooManyLogins` if this login may not be tried now."""
        for item, kind, key in self._keys(account, address):
            if not self.limiter.test(item, kind, key):
                reset = self.limiter.get_window_stats(item, kind, key).reset_time
                wait = max(1, math.ceil(reset - time.time()))
                if kind == "login-account":
                    message = N_("too many failed logins for this account; try again in {wait} s")
                else:
                    message = N_("too many failed logins from your address; try again in {wait} s")
                raise TooManyLogins(message, wait, wait=wait)

    def failed(self, account: str, address: str | None) -> None:
        """Count a failed login."""
        for item, kind, key in self._keys(account, address):
            self.limiter.hit(item, kind, key)
