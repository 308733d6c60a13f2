"""What every request and response goes through before the routes: security headers, and the
checks of state-changing requests (same origin, JSON only, a body that is safe to parse).

Both are plain ASGI middleware.  :class:`RequestGuardMiddleware` buffers the body of every
``POST``/``PUT``/``PATCH``/``DELETE`` (the body limit, applied outside it, keeps that small),
refuses it with a 4xx naming the problem, and otherwise hands the same bytes on to the app:

* a foreign ``Origin`` (another site's page posting here) -> 403;
* a request carrying the session cookie without a same-site ``Origin`` (or, lacking one,
  ``Sec-Fetch-Site: same-origin``) -> 403 (docs/decisions/0006-csrf-origin-required.md);
* a content type other than ``application/json`` -> 415 (HTML forms cannot send JSON, so a
  cross-site form post never reaches an action), except for a request with an API token
  (``Authorization: Bearer``, which no cross-site page can send), which may also send a form,
  plain text or no body;
* bytes that are not UTF-8, JSON nested deeper than :data:`MAX_JSON_DEPTH` (Python's parser
  recurses and fails with ``RecursionError`` around 1,000 levels), or text holding a lone
  surrogate (``"\\ud800"``: it cannot be encoded, so it must not reach the service), or an
  integer longer than :data:`MAX_JSON_INT_DIGITS` digits (Python refuses to convert more than
  4,300 with a ``ValueError`` that is no ``JSONDecodeError``: it was a 500) -> 400;
* a client that hangs up before its body has arrived is logged as such, at info level.

A websocket handshake from a foreign origin is refused (403) as well: moves travel over it.

The same text checks serve the websocket's messages: :func:`parse_json_text`.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any
from urllib.parse import urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from exochess.web.accounts.sessions import COOKIE as SESSION_COOKIE
from exochess.web.http.errors import error_body, error_response

log = logging.getLogger("exochess.web")

MAX_JSON_DEPTH = 32
"""Deepest nesting of arrays and objects accepted in a JSON body or message (the API needs 2)."""
MAX_JSON_INT_DIGITS = 40
"""Longest integer (digits) accepted in a JSON body or message: the API's numbers (plies,
milliseconds, levels) need a handful; Python's own limit (4,300) raises a bare ``ValueError``."""

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",  # no inline script: page data travels in <script type="application/json">
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",  # the API and the game websocket (same host)
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",  # no framing: Resign and Take back cannot be clickjacked
    ]
)
"""The policy of every response."""

DOCS_POLICY = "; ".join(
    [
        "default-src 'self'",
        # FastAPI's Swagger UI page is an inline script loading its code from a CDN
        "script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net",
        "style-src 'self' https://cdn.jsdelivr.net",
        "img-src 'self' data: https://fastapi.tiangolo.com",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
    ]
)
"""The policy of the interactive API documentation page only (it serves no game data)."""

DOCS_PATH = "/api/docs"

SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",  # for browsers that predate frame-ancestors
    "Cross-Origin-Opener-Policy": "same-origin",
}


class BadJSON(ValueError):
    """A request body or websocket message that is refused before it is parsed for good."""


_SPECIAL = re.compile(r'[\[\]{}"\\]')


def check_depth(text: str, limit: int = MAX_JSON_DEPTH) -> None:
    """Raise :class:`BadJSON` if ``text`` nests arrays/objects deeper than ``limit``.

    One pass over the characters that matter (brackets, quotes, backslashes), linear in the
    length whatever the text: a bracket inside a string is no nesting, an escaped quote does
    not end one.  Malformed JSON passes here and is reported by the parser.
    """
    depth = 0
    in_string = False
    skip_to = 0  # the character after a backslash in a string is taken literally
    for match in _SPECIAL.finditer(text):
        at = match.start()
        if at < skip_to:
            continue
        ch = match.group()
        if in_string:
            if ch == "\\":
                skip_to = at + 2
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                raise BadJSON(f"JSON nested too deeply (more than {limit} levels of arrays and objects)")
        elif ch in "]}":
            depth -= 1


def _check_text(value: Any) -> None:
    """Raise :class:`BadJSON` if a string anywhere in ``value`` holds a lone surrogate."""
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise BadJSON(
                    "text must be valid Unicode: a lone surrogate escape (\\ud800-\\udfff) is not a character"
                ) from None
        elif isinstance(item, dict):
            todo.extend(item.keys())
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)


def _parse_int(digits: str) -> int:
    """The JSON parser's integer conversion, refusing over-long integers with :class:`BadJSON`
    before ``int`` is asked (which costs quadratic time and fails past 4,300 digits)."""
    count = len(digits) - digits.startswith("-")
    if count > MAX_JSON_INT_DIGITS:
        raise BadJSON(f"number too long: an integer of {count} digits (at most {MAX_JSON_INT_DIGITS})")
    return int(digits)


def parse_json_text(text: str) -> Any:
    """Parse JSON text, refusing deep nesting, over-long integers and lone surrogates with
    :class:`BadJSON`; malformed JSON raises :class:`json.JSONDecodeError` (also a ``ValueError``)."""
    check_depth(text)
    value = json.loads(text, parse_int=_parse_int)
    _check_text(value)
    return value


def check_json_body(body: bytes) -> None:
    """Raise :class:`BadJSON` for a body that must not reach the JSON parser.  An empty or
    malformed body passes: FastAPI answers those with its own 400s."""
    if not body:
        return
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadJSON(f"malformed JSON: the body is not UTF-8 text (byte {exc.start})") from None
    try:
        parse_json_text(text)
    except json.JSONDecodeError:
        return


def _host_of(origin: str) -> str | None:
    try:
        parts = urlsplit(origin)
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    return parts.netloc.lower()


def same_origin(origin: str, headers: Headers) -> bool:
    """Whether ``origin`` names this site: its host and port are the request's ``Host``.

    The scheme is not compared, so that a TLS proxy in front (https outside, http here)
    needs no setting.  ``Origin: null`` (sandboxed frames, some redirects) is foreign.
    """
    host = headers.get("host")
    return host is not None and _host_of(origin) == host.lower()


def _foreign(origin: str) -> str:
    return f"cross-site request refused (origin {origin[:100]!r})"


def _media_type(headers: Headers) -> str:
    return headers.get("content-type", "").split(";", 1)[0].strip().lower()


SIGNED_IN_NEEDS_ORIGIN = (
    "a signed-in request that changes something must come from this site's pages"
    " (send the header 'Origin' naming this site)"
)


FORM = "application/x-www-form-urlencoded"
BEARER_MEDIA = frozenset({"", FORM, "text/plain"})
"""Bodies a request with an API token may send besides JSON: none, a form (lichess's clients
post forms), or plain text."""


def _has_bearer(headers: Headers) -> bool:
    return headers.get("authorization", "").strip()[:7].lower() == "bearer "


def _is_utf8(body: bytes) -> bool:
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _has_session_cookie(headers: Headers) -> bool:
    return any(SESSION_COOKIE + "=" in value for value in headers.getlist("cookie"))


def _proves_same_origin(origin: str | None, headers: Headers) -> bool:
    """Whether a request carrying the session cookie shows it comes from this site's own pages
    (docs/decisions/0006-csrf-origin-required.md): a same-site ``Origin``, or, from a browser
    that sent none, ``Sec-Fetch-Site: same-origin``."""
    if origin is not None:
        return same_origin(origin, headers)
    return headers.get("sec-fetch-site", "").lower() == "same-origin"


CLOSE_POLICY = 1008


async def deny_websocket(
    scope: Scope,
    receive: Receive,
    send: Send,
    status: int,
    message: str,
    headers: dict[str, str] | None = None,
) -> None:
    """Refuse a websocket handshake with an HTTP ``status`` and the API's ``{"error": ...}`` body,
    through the ASGI "websocket denial response" extension (uvicorn has it), or else by closing
    the connection with code 1008 (policy violation) before it is accepted."""
    await receive()  # websocket.connect
    if "websocket.http.response" in scope.get("extensions", {}):
        body = error_body(message)
        extra = [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
        await send(
            {
                "type": "websocket.http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    *extra,
                ],
            }
        )
        await send({"type": "websocket.http.response.body", "body": body})
    else:
        await send({"type": "websocket.close", "code": CLOSE_POLICY, "reason": message[:120]})


class RequestGuardMiddleware:
    """Refuse foreign-origin, non-JSON and unsafe JSON requests that change state (see the module).

    A websocket (moves travel over it) from a foreign origin is refused too.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            headers = Headers(scope=scope)
            origin = headers.get("origin")
            if origin is not None and not same_origin(origin, headers):
                await deny_websocket(scope, receive, send, 403, _foreign(origin))
                return
        if scope["type"] != "http" or scope["method"] in SAFE_METHODS:
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        origin = headers.get("origin")
        if origin is not None and not same_origin(origin, headers):
            await error_response(403, _foreign(origin))(scope, receive, send)
            return
        # a request with an API token acts by the token alone and cannot be forged cross-site
        # (see http/bearer.py): it may carry the cookie, a form, or no body, as lichess's clients do
        token = _has_bearer(headers)
        if not token and _has_session_cookie(headers) and not _proves_same_origin(origin, headers):
            await error_response(403, SIGNED_IN_NEEDS_ORIGIN)(scope, receive, send)
            return
        media = _media_type(headers)
        if media != "application/json" and not (token and media in BEARER_MEDIA):
            await error_response(
                415, "this endpoint accepts only JSON: send the header 'Content-Type: application/json'"
            )(scope, receive, send)
            return
        chunks: list[bytes] = []
        while True:
            try:
                message = await receive()
            except HTTPException as exc:  # the body limit outside counts what we read
                await error_response(exc.status_code, str(exc.detail))(scope, receive, send)
                return
            if message["type"] == "http.disconnect":
                client = scope.get("client")
                log.info(
                    "client disconnected before its whole request body arrived (%s, %s %s)",
                    client[0] if client else "?",
                    scope["method"],
                    scope["path"],
                )
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        try:
            if media == "application/json":
                check_json_body(body)
            elif media == FORM and not _is_utf8(body):
                raise BadJSON("malformed form: the body is not UTF-8 text")
        except BadJSON as exc:
            await error_response(400, str(exc))(scope, receive, send)
            return
        sent = False

        async def replay() -> Message:
            # the app reads the body we already have, then waits for the client as usual
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


HSTS = "max-age=31536000; includeSubDomains"
"""``Strict-Transport-Security`` of a response served over https: browsers then never use plain
http for this site for a year (a network attacker cannot strip TLS from the next visit)."""


class SecurityHeadersMiddleware:
    """Add the security headers (:data:`SECURITY_HEADERS` and the CSP) to every HTTP response,
    and :data:`HSTS` to those served over https (directly, or behind a TLS proxy that says so
    with ``X-Forwarded-Proto``, which uvicorn's ``--proxy-headers`` reads from trusted proxies)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        policy = DOCS_POLICY if scope["path"] == DOCS_PATH else CONTENT_SECURITY_POLICY

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers.setdefault("Content-Security-Policy", policy)
                for name, value in SECURITY_HEADERS.items():
                    headers.setdefault(name, value)
                if scope.get("scheme") == "https":
                    headers.setdefault("Strict-Transport-Security", HSTS)
            await send(message)

        await self.app(scope, receive, send_with_headers)
