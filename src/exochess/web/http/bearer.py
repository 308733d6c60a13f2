"""Personal API tokens on requests: ``Authorization: Bearer <token>`` (issue 47).

:func:`token_with` makes the dependency of a route that needs a token with some scopes: it
answers 401 without a token or with an unknown or revoked one, 403 when the token lacks a
scope, 429 past the token's rate limit (``api-token`` of :class:`~exochess.web.limits.RateLimits`,
counted per token, so that one busy bot does not slow another behind the same address).
:func:`actor_with` accepts the session cookie as well (a person challenging a bot from its
page): a request carrying a token is judged by the token alone.

A request with a token is no cross-site forgery risk: a browser sends no ``Authorization``
header to another site's API without a CORS preflight, which this site never grants.  The
request guard (``security.py``) therefore lets such requests send forms or no body at all, as
lichess's clients do.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import cast

from fastapi import Request
from fastapi.security import HTTPBearer

from exochess.web.accounts.sessions import current_user
from exochess.web.accounts.tokens import ApiTokens, Bearer, ScopeMissing, TokenMissing
from exochess.web.accounts.users import User
from exochess.web.domain import N_, TooFast
from exochess.web.game.service import GameService
from exochess.web.limits import RateLimits

LIMIT = "api-token"
"""The rate limit of the requests of one token."""

scheme = HTTPBearer(auto_error=False, description="a personal API token (made on the account page)")
"""The security scheme (read by hand below; declared so that OpenAPI shows it)."""


@dataclass(frozen=True)
class Actor:
    """Who a request acts for: an account, by a token (with its scopes) or by the session."""

    user: User
    bot: bool
    """Whether the account is a bot (read with the token; False for a session, checked where it matters)."""
    token: Bearer | None = None


def bearer_token(request: Request) -> str | None:
    """The token of ``Authorization: Bearer <token>`` (None without that header);
    :class:`TokenMissing` for another kind of ``Authorization`` or an empty token."""
    header = request.headers.get("authorization")
    if header is None:
        return None
    kind, _, token = header.strip().partition(" ")
    token = token.strip()
    if kind.lower() != "bearer" or not token:
        raise TokenMissing(N_("send the token as 'Authorization: Bearer <token>'"))
    if len(token) > 200 or not token.isascii():
        raise TokenMissing(N_("unknown API token (it may have been mistyped)"))
    return token


async def verify(request: Request, token: str, scopes: tuple[str, ...]) -> Bearer:
    """The token's account, checked to hold one of ``scopes`` (any token when none are
    named), and one request counted against its limit."""
    service = cast(GameService, request.app.state.service)
    tokens = cast(ApiTokens, request.app.state.tokens)
    found = await service.db(tokens.verify, token)
    if scopes and not found.scopes.intersection(scopes):
        raise ScopeMissing(N_("this token lacks the scope {scope}"), scope=" or ".join(scopes))
    limits = cast(RateLimits, request.app.state.rate_limits)
    refusal = await limits.hit(LIMIT, str(found.token_id))
    if refusal is not None:
        raise TooFast(
            N_("too many API requests with this token: at most {rate}; try again in {seconds} s"),
            rate=str(refusal.item),
            seconds=refusal.retry_s,
        )
    return found


def token_with(*scopes: str) -> Callable[[Request], Awaitable[Actor]]:
    """The dependency of a route that needs a token holding one of ``scopes``."""

    async def dependency(request: Request) -> Actor:
        token = bearer_token(request)
        if token is None:
            raise TokenMissing(N_("this endpoint needs an API token: send 'Authorization: Bearer <token>'"))
        found = await verify(request, token, scopes)
        return Actor(found.user, found.bot, found)

    return dependency


def actor_with(*scopes: str) -> Callable[[Request], Awaitable[Actor]]:
    """Like :func:`token_with`, but a signed-in session will do too (the site's own pages)."""

    async def dependency(request: Request) -> Actor:
        token = bearer_token(request)
        if token is not None:
            found = await verify(request, token, scopes)
            return Actor(found.user, found.bot, found)
        user = current_user(request)
        if user is None:
            raise TokenMissing(
                N_(
                    "you are not signed in (or your session has expired); a program sends an API token"
                    " as 'Authorization: Bearer <token>'"
                )
            )
        return Actor(user, False)

    return dependency
