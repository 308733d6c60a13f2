"""Rate limits per client address on what costs the server most: creating games, engine analyses,
websocket connections, accounts, and requests for things that do not exist.

The counting is a moving window in memory per process (``windows.py``; the limits are the
``limits`` library's items, parsed by it).
A refused HTTP request gets a 429 ``{"error": ...}`` naming the limit, with ``Retry-After``; a
refused websocket handshake gets the same answer as an HTTP response (the ASGI "websocket denial
response" extension, which uvicorn supports), or a close with code 1008 where it is missing.

A websocket handshake from an address already over its limit is refused even earlier where the
server is uvicorn with the site's protocols (``protocols.py``): the middleware offers its test
in the lifespan state (:data:`WEBSOCKET_GATE`), and the HTTP protocol answers the 429 itself,
before building a websocket connection and an ASGI task for it.

The limits are set with ``$EXOCHESS_RATE_LIMITS``: ``off``, or ``;``-separated
``kind=<amount>/<period>`` entries among :data:`DEFAULT_LIMITS`'s kinds, for example
``games=30/minute;analyses=20/minute;sockets=60/minute`` (kinds not named keep their default).

``misses`` differs from the others: it counts the 404 answers an address gets to its reads (GET
and HEAD: made-up game ids, a scanner's guessed URLs), and once an address is over it, its
reads are refused here, before any routing or database read, until the window lets them
through again.  A person gets a handful of 404s a minute at most; a loop of made-up ids gets a
cheap 429.  Its writes (moves, resignations: the other kinds limit what they cost) and its
websockets, where moves travel, are not affected.
"""

from __future__ import annotations

import ipaddress
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass

from limits import RateLimitItem, parse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from exochess.web.http.errors import error_response
from exochess.web.http.security import deny_websocket
from exochess.web.http.windows import MovingWindows

ENV = "EXOCHESS_RATE_LIMITS"

DEFAULT_LIMITS = {
    "games": "30/minute",
    "analyses": "20/minute",
    "sockets": "60/minute",
    "signups": "10/hour",
    "misses": "60/minute",
}
"""Per client address; generous for people, small for a script creating games in a loop."""

WHAT = {
    "games": "games created",
    "analyses": "engine analyses",
    "sockets": "websocket connections",
    "signups": "accounts created",
    "misses": "requests for games or pages that do not exist",
}
WEBSOCKET_GATE = "exochess.websocket_gate"
"""Key of the lifespan state under which :class:`RateLimitMiddleware` offers the server's
protocols :meth:`RateLimitMiddleware.handshake_refusal`."""
MISSES = "misses"
"""The kind counted on 404 answers instead of on requests."""
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
    _Rule("analyses", "POST", re.compile(r"/api/analyse/?")),
    _Rule("analyses", "POST", re.compile(r"/api/games/[^/]+/evaluate/?")),
    _Rule("sockets", "WS", re.compile(r"/ws/.*")),
    # each sign-up costs an argon2 hash and a name forever
    _Rule("signups", "POST", re.compile(r"/api/account/signup/?")),
)
"""Which requests count against which limit (the rest are not limited here)."""


class RateLimitSettingError(ValueError):
    """``$EXOCHESS_RATE_LIMITS`` cannot be read."""


def parse_rate_limits(text: str | None) -> dict[str, RateLimitItem]:
    """The limits a setting describes (``None`` or empty: the defaults; ``off``: none)."""
    if text is not None and text.strip().lower() in ("off", "none", "0"):
        return {}
    wanted = dict(DEFAULT_LIMITS)
    for entry in (text or "").split(";"):
        if not entry.strip():
            continue
        kind, sep, value = entry.partition("=")
        kind = kind.strip()
        if not sep or kind not in DEFAULT_LIMITS:
            raise RateLimitSettingError(
                f"{ENV}: {entry.strip()!r} is not 'kind=amount/period' with a kind among "
                f"{', '.join(DEFAULT_LIMITS)} (or 'off')"
            )
        wanted[kind] = value.strip()
    limits: dict[str, RateLimitItem] = {}
    for kind, value in wanted.items():
        try:
            limits[kind] = parse(value)
        except ValueError as exc:
            raise RateLimitSettingError(
                f"{ENV}: {kind}={value!r} is no rate such as 30/minute ({exc})"
            ) from exc
    return limits


def rate_limits_from_env() -> dict[str, RateLimitItem]:
    return parse_rate_limits(os.environ.get(ENV))


def client_key(address: str | None) -> str:
    """Whom a request is counted for: its IPv4 address, or the /64 network of an IPv6 one (a
    single host usually holds a whole /64 and could otherwise rotate through it)."""
    if not address:
        return "?"
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:  # a Unix socket path, a test client's name...
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def _rule_kind(method: str, path: str) -> str | None:
    """The kind of the first of :data:`RULES` that counts ``method`` (``WS`` for a websocket
    handshake) on ``path``, if any."""
    for rule in RULES:
        if rule.method == method and rule.path.fullmatch(path):
            return rule.kind
    return None


class RateLimitMiddleware:
    """Count the requests of :data:`RULES` per client address; refuse those over the limit."""

    def __init__(self, app: ASGIApp, limits: Mapping[str, RateLimitItem]) -> None:
        self.app = app
        self.limits = dict(limits)
        self.limiter = MovingWindows()

    def _kind(self, scope: Scope) -> str | None:
        if scope["type"] == "websocket":
            return _rule_kind("WS", scope["path"])
        if scope["type"] == "http":
            return _rule_kind(scope["method"], scope["path"])
        return None

    def handshake_refusal(self, path: str, client: str | None) -> tuple[str, int] | None:
        """For the server's HTTP protocol, before a websocket upgrade: None if the handshake
        may go on, else (the message, seconds until it may be retried) when ``client`` is
        already over the limit for ``path``.  Only tested, not counted: a handshake let
        through is counted by the middleware as any other, so nothing is counted twice."""
        kind = _rule_kind("WS", path)
        item = None if kind is None else self.limits.get(kind)
        if kind is None or item is None:
            return None
        address = client_key(client)
        return None if self.limiter.test(item, kind, address) else self._message(kind, address)

    def _refusal(self, kind: str, address: str) -> tuple[str, int] | None:
        """None if the request may go on, else (the message, seconds until it may be retried)."""
        item = self.limits.get(kind)
        if item is None or self.limiter.hit(item, kind, address):
            return None
        return self._message(kind, address)

    def _message(self, kind: str, address: str) -> tuple[str, int]:
        item = self.limits[kind]
        wait = max(1, math.ceil(self.limiter.retry_in(item, kind, address)))
        return f"too many {WHAT[kind]} from your address: at most {item}; try again in {wait} s", wait

    async def _counting_misses(self, scope: Scope, receive: Receive, send: Send, address: str) -> None:
        """Pass the request on; a 404 answer counts against the address's ``misses``."""
        item = self.limits[MISSES]

        async def send_counting(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 404:
                self.limiter.hit(item, MISSES, address)
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
        misses = self.limits.get(MISSES) if scope["type"] == "http" and scope["method"] in READS else None
        # checked before anything else: an address past its misses costs no routing, no lookup
        if misses is not None and not self.limiter.test(misses, MISSES, address):
            refusal: tuple[str, int] | None = self._message(MISSES, address)
        else:
            kind = self._kind(scope)
            refusal = self._refusal(kind, address) if kind else None
        if refusal is None:
            if misses is not None:
                await self._counting_misses(scope, receive, send, address)
            else:
                await self.app(scope, receive, send)
            return
        message, wait = refusal
        headers = {"Retry-After": str(wait)}
        if scope["type"] == "http":
            response = error_response(429, message)
            response.headers.update(headers)
            await response(scope, receive, send)
            return
        # a websocket handshake: answered with an HTTP 429 too where the server allows it
        await deny_websocket(scope, receive, send, 429, message, headers)
