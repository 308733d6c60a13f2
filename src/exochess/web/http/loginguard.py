"""Failed logins are slowed per account and per client address (the limits ``login-account``
and ``login-address`` of :class:`~exochess.web.limits.RateLimits`).

Only failures count: each wrong password is a hit on the account's limit and on the address's;
while either is used up, every login for that account or from that address is refused with 429
and ``Retry-After`` before the password is even checked (so guessing costs the attacker time,
not the server argon2 work).  A success does not reset the counts: a guesser who also owns an
account must not be able to wipe them.

The account is the name *normalised* as the login reads it (:func:`~exochess.web.limits.
account_key`: NFKC, trimmed, lower case): ``"name "`` or a full-width spelling is the same
account to the limit as to the login, so a locked account stays locked whatever the spelling.

In Redis mode the counts are shared by every server (otherwise a guesser whose requests a proxy
spreads over N servers would get N times the tries); while Redis cannot be reached, logins are
refused with a 503 (not let through uncounted).
"""

from __future__ import annotations

from exochess.web.domain import N_, StorageUnavailable, TooManyAttempts
from exochess.web.limits import LimiterUnavailable, RateLimits, account_key, client_key

ACCOUNT = "login-account"
ADDRESS = "login-address"


class TooManyLogins(TooManyAttempts):
    """Too many failed logins for this account or from this address (429 with Retry-After)."""


class LoginGuard:
    """Counts failed logins in the site's :class:`RateLimits`."""

    def __init__(self, limits: RateLimits) -> None:
        self.limits = limits

    def _keys(self, account: str, address: str | None) -> list[tuple[str, str]]:
        return [(ACCOUNT, account_key(account)), (ADDRESS, client_key(address))]

    async def check(self, account: str, address: str | None) -> None:
        """Raise :class:`TooManyLogins` if this login may not be tried now."""
        try:
            for name, key in self._keys(account, address):
                refusal = await self.limits.test(name, key)
                if refusal is not None:
                    wait = refusal.retry_s
                    if name == ACCOUNT:
                        message = N_("too many failed logins for this account; try again in {wait} s")
                    else:
                        message = N_("too many failed logins from your address; try again in {wait} s")
                    raise TooManyLogins(message, wait, wait=wait)
        except LimiterUnavailable as exc:
            raise _unreachable() from exc

    async def failed(self, account: str, address: str | None) -> None:
        """Count a failed login."""
        try:
            for name, key in self._keys(account, address):
                await self.limits.hit(name, key)
        except LimiterUnavailable as exc:
            raise _unreachable() from exc


def _unreachable() -> StorageUnavailable:
    message = N_("logins are paused: the servers' shared store cannot be reached; try again shortly")
    return StorageUnavailable(message)
