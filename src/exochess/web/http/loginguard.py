"""Failed logins are slowed per account and per client address, with the ``limits`` library.

Only failures count: each wrong password is a hit on the account's limits and on the address's;
while either is used up, every login for that account or from that address is refused with 429
and ``Retry-After`` before the password is even checked (so guessing costs the attacker time,
not the server argon2 work).  A success does not reset the counts: a guesser who also owns an
account must not be able to wipe them.

One server counts in its memory.  Servers sharing Redis (``EXOCHESS_REDIS_URL``) count there,
all together: otherwise a guesser whose requests a proxy spreads over N servers would get N
times the tries.  While Redis cannot be reached, logins are refused with a 503 (not let through
uncounted).
"""

from __future__ import annotations

import math
import time

from limits import RateLimitItem, parse_many
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter
from limits.errors import StorageError

from exochess.web.domain import N_, StorageUnavailable, TooManyAttempts
from exochess.web.http.ratelimit import client_key

PER_ACCOUNT = "5/minute;20/hour"
PER_ADDRESS = "20/minute;100/hour"


class TooManyLogins(TooManyAttempts):
    """Too many failed logins for this account or from this address (429 with Retry-After)."""


class LoginGuard:
    """Counts failed logins: in memory, or in Redis when ``redis_url`` is given."""

    def __init__(self, per_account: str = PER_ACCOUNT, per_address: str = PER_ADDRESS,
                 redis_url: str | None = None) -> None:
        storage: Storage = MemoryStorage() if redis_url is None else _redis_storage(redis_url)
        self.limiter = MovingWindowRateLimiter(storage)
        self.account_limits = parse_many(per_account)
        self.address_limits = parse_many(per_address)

    def _keys(self, account: str, address: str | None) -> list[tuple[RateLimitItem, str, str]]:
        return [(item, "login-account", account.lower()) for item in self.account_limits] + [
            (item, "login-address", client_key(address)) for item in self.address_limits
        ]

    async def check(self, account: str, address: str | None) -> None:
        """Raise :class:`TooManyLogins` if this login may not be tried now."""
        try:
            for item, kind, key in self._keys(account, address):
                if not await self.limiter.test(item, kind, key):
                    reset = (await self.limiter.get_window_stats(item, kind, key)).reset_time
                    wait = max(1, math.ceil(reset - time.time()))
                    if kind == "login-account":
                        message = N_("too many failed logins for this account; try again in {wait} s")
                    else:
                        message = N_("too many failed logins from your address; try again in {wait} s")
                    raise TooManyLogins(message, wait, wait=wait)
        except StorageError as exc:
            raise _unreachable() from exc

    async def failed(self, account: str, address: str | None) -> None:
        """Count a failed login."""
        try:
            for item, kind, key in self._keys(account, address):
                await self.limiter.hit(item, kind, key)
        except StorageError as exc:
            raise _unreachable() from exc


def _redis_storage(redis_url: str) -> RedisStorage:
    """``limits``' asyncio Redis storage through the ``redis`` package (the one the site's bus
    uses), for a ``redis://`` or ``rediss://`` URL; its errors come out as ``StorageError``."""
    scheme, sep, rest = redis_url.partition("://")
    return RedisStorage(f"async+{scheme}{sep}{rest}", implementation="redispy", wrap_exceptions=True,
                        key_prefix="exochess-logins")


def _unreachable() -> StorageUnavailable:
    message = N_("logins are paused: the servers' shared store cannot be reached; try again shortly")
    return StorageUnavailable(message)
