"""The HTTP side of the rate limits: which requests count against which limit of
:class:`~exochess.web.limits.RateLimits` (per client address), and the 429 answers.

What costs the server most is limited: creating games, engine analyses, websocket connections,
accounts, and requests for things that do not exist.  A refused HTTP request gets a 429
``{"error": ...}`` naming the limit, with ``Retry-After``; a refused websocket handshake gets
the same answer as an HTTP response (the ASGI "websocket denial response" extension, which
uvicorn supports), or a close with code 1008 where it is missing.

A websocket handshake from an address already over its limit is refused even earlier where the
server is uvicorn with the site's protocols (``protocols.py``): the middleware offers its test
in the lifespan state (:data:`WEBSOCKET_GATE`), and the HTTP protocol answers the 429 itself,
before building a websocket connection and an ASGI task for it.  That test asks no storage: it
is :meth:`RateLimits.blocked`, what this process learnt when a connection filled the window.

``misses`` differs from the others: it counts the 404 answers an address gets to its reads (GET
and HEAD: made-up game ids, a scanner's guessed URLs), and once an address is over it, its
reads are refused here, before any routing or database read, until the window lets them
through again.  A person gets a handful of 404s a minute at most; a loop of made-up ids gets a
cheap 429.  Its writes (moves, resignations: the other kinds limit what they cost) and its
websockets, where moves travel, are not affected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from exochess.web.http.errors import error_response
from exochess.web.http.security import deny_websocket
from exochess.web.limits import RateLimits, Refusal, client_key

WEBSOCKET_GATE = "exochess.websocket_gate"
"""Key of the lifespan state under which :class:`RateLimitMiddleware` offers the server's
protocols :meth:`RateLimitMiddleware.handshake_refusal`."""
MISSES = "misses"
"""The limit counted on 404 answers instead of on requests."""
READS = ("GET", "HEAD")
"""The requests ``misses`` counts and refuses: the lookups (the other kinds limit the writes)."""


@dataclass(frozen=True)
class _Rule:
    kind: str
    method: str  # "WS" for a websocket handshake
    path: re.Pattern[str]


RULES = (
    _Rule("games", "POST", re.compile(r"/api/games/?")),
    # a rematch creates a game too (resign, rematch, resign... would be an unlimited loop)
    _Rule("games", "POST", re.compile(r"/api/games/[^/]+/rematch/?")),
    # an imported game is a game stored too
    _Rule("games", "POST", re.compile(r"/api/import/?")),
    _Rule("analyses", "POST", re.compile(r"/api/analyse/?")),
    _Rule("analyses", "POST", re.compile(r"/api/games/[^/]+/evaluate/?")),
    _Rule("sockets", "WS", re.compile(r"/ws/.*")),
    _Rule("puzzles", "POST", re.compile(r"/api/puzzles/[^/]+/[^/]+/(attempt|solution)/?")),
    # each sign-up costs an argon2 hash and a name forever
    _Rule("signups", "POST", re.compile(r"/api/account/signup/?")),
)
"""Which requests count against which limit (the rest are not limited here)."""


def _rule_kind(method: str, path: str) -> str | None:
    """The kind of the first of :data:`RULES` that counts ``method`` (``WS`` for a websocket
    handshake) on ``path``, if any."""
    for rule in RULES:
        if rule.method == method and rule.path.fullmatch(path):
            return rule.kind
    return None


def _answer(refusal: Refusal) -> tuple[str, int]:
    return refusal.message(" from your address"), refusal.retry_s


class RateLimitMiddleware:
    """Count the requests of :data:`RULES` per client address; refuse those over the limit."""

    def __init__(self, app: ASGIApp, limits: RateLimits) -> None:
        self.app = app
        self.limits = limits

    def _kind(self, scope: Scope) -> str | None:
        if scope["type"] == "websocket":
            return _rule_kind("WS", scope["path"])
        if scope["type"] == "http":
            return _rule_kind(scope["method"], scope["path"])
        return None

    def handshake_refusal(self, path: str, client: str | None) -> tuple[str, int] | None:
        """For the server's HTTP protocol, before a websocket upgrade: None if the handshake
        may go on, else (the message, seconds until it may be retried) when ``client`` is
        known to be over the limit for ``path``.  Only tested, not counted: a handshake let
        through is counted by the middleware as any other, so nothing is counted twice."""
        kind = _rule_kind("WS", path)
        refusal = None if kind is None else self.limits.blocked(kind, client_key(client))
        return None if refusal is None else _answer(refusal)

    async def _counting_misses(self, scope: Scope, receive: Receive, send: Send, address: str) -> None:
        """Pass the request on; a 404 answer counts against the address's ``misses``."""

        async def send_counting(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 404:
                await self.limits.hit(MISSES, address)
            await send(message)

        await self.app(scope, receive, send_counting)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self.limits:
            await self.app(scope, receive, send)
            return
        if scope["type"] == "lifespan":
            # uvicorn hands this state to every connection's protocol (its ``app_state``)
            state = scope.get("state")
            if isinstance(state, dict):
                state[WEBSOCKET_GATE] = self.handshake_refusal
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        address = client_key(client[0] if client else None)
        misses = scope["type"] == "http" and scope["method"] in READS and self.limits.limited(MISSES)
        # checked before anything else: an address past its misses costs no routing, no lookup
        refusal = self.limits.blocked(MISSES, address) if misses else None
        if refusal is None:
            kind = self._kind(scope)
            refusal = await self.limits.hit(kind, address) if kind else None
        if refusal is None:
            if misses:
                await self._counting_misses(scope, receive, send, address)
            else:
                await self.app(scope, receive, send)
            return
        message, wait = _answer(refusal)
        headers = {"Retry-After": str(wait)}
        if scope["type"] == "http":
            response = error_response(429, message)
            response.headers.update(headers)
            await response(scope, receive, send)
            return
        # a websocket handshake: answered with an HTTP 429 too where the server allows it
        await deny_websocket(scope, receive, send, 429, message, headers)
