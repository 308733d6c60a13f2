"""Server-side sessions: a random token in a cookie, its digest in the ``sessions`` table.

The token is 256 random bits (``secrets.token_urlsafe(32)``); the database keeps only its
SHA-256 digest (as for seat secrets, docs/decisions/0005: a random token has no dictionary to
try, so no slow hash is needed), so a copy of the database opens no session.  A session expires
:data:`SESSION_DAYS` after it was made; logging out deletes it, changing the password or
deleting the account deletes all of the account's sessions.

The cookie is ``HttpOnly`` (no script reads it), ``SameSite=Lax`` (no other site's form or fetch
sends it) and ``Secure`` when the request came over HTTPS (directly or through a proxy that
says so in ``X-Forwarded-Proto``).  :class:`SessionMiddleware` puts the signed-in
:class:`~exochess.web.accounts.users.User` (or None) in ``request.state.user`` for every page and API
call.
"""

from __future__ import annotations

import datetime as dt
import secrets
from http.cookies import SimpleCookie
from typing import cast

from anyio import to_thread
from sqlalchemy import Engine, delete, insert, select
from starlette.requests import HTTPConnection
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from exochess.web.accounts.users import User
from exochess.web.storage.store import hash_secret, now, sessions, users

COOKIE = "exochess_session"
SESSION_DAYS = 30
MAX_TOKEN = 128
"""A cookie value longer than any token we hand out is not looked up."""


class Sessions:
    """The sessions table's queries (synchronous: call them from a worker thread)."""

    def __init__(self, engine: Engine, days: float = SESSION_DAYS) -> None:
        self.engine = engine
        self.lifetime = dt.timedelta(days=days)

    def create(self, user: User) -> str:
        """A new session for ``user``: returns the token (the only time it exists in clear)."""
        token = secrets.token_urlsafe(32)
        stamp = now()
        with self.engine.begin() as conn:
            conn.execute(
                insert(sessions).values(
                    token_hash=hash_secret(token),
                    user_id=user.id,
                    created=stamp,
                    expires=stamp + self.lifetime,
                )
            )
            # expired sessions of this account are cleared as new ones are made
            conn.execute(delete(sessions).where(sessions.c.user_id == user.id, sessions.c.expires <= stamp))
        return token

    def user(self, token: str | None) -> User | None:
        """The account a cookie's token belongs to, if the session exists and has not expired."""
        if not token or len(token) > MAX_TOKEN or not token.isascii():
            return None
        with self.engine.connect() as conn:
            row = conn.execute(
                select(users.c.id, users.c.name)
                .join(sessions, sessions.c.user_id == users.c.id)
                .where(
                    sessions.c.token_hash == hash_secret(token),
                    sessions.c.expires > now(),
                    users.c.deleted.is_(None),
                )
            ).first()
        return User(row.id, row.name) if row is not None else None

    def revoke(self, token: str) -> None:
        """End one session (log out)."""
        if token and len(token) <= MAX_TOKEN and token.isascii():
            with self.engine.begin() as conn:
                conn.execute(delete(sessions).where(sessions.c.token_hash == hash_secret(token)))

    def revoke_all(self, user: User) -> None:
        """End every session of ``user`` (log out everywhere)."""
        with self.engine.begin() as conn:
            conn.execute(delete(sessions).where(sessions.c.user_id == user.id))


def is_https(conn: HTTPConnection) -> bool:
    """Whether the client reached the site over HTTPS (a TLS proxy says so in a header)."""
    forwarded = conn.headers.get("x-forwarded-proto", "").split(",")[0].strip().lower()
    return conn.url.scheme in ("https", "wss") or forwarded == "https"


def set_session_cookie(
    response: Response,
    conn: HTTPConnection,
    token: str,
    days: float = SESSION_DAYS,
) -> None:
    response.set_cookie(
        COOKIE,
        token,
        max_age=int(days * 86400),
        path="/",
        httponly=True,
        samesite="lax",
        secure=is_https(conn),
    )


def clear_session_cookie(response: Response, conn: HTTPConnection) -> None:
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax", secure=is_https(conn))


def cookie_token(headers: list[tuple[bytes, bytes]]) -> str | None:
    """The session token among a request's cookies, if any."""
    for name, value in headers:
        if name == b"cookie":
            jar: SimpleCookie = SimpleCookie()
            try:
                jar.load(value.decode("latin-1"))
            except Exception:  # a malformed Cookie header is no session
                continue
            morsel = jar.get(COOKIE)
            if morsel is not None:
                return morsel.value
    return None


def current_user(conn: HTTPConnection) -> User | None:
    """The signed-in account of this request (set by :class:`SessionMiddleware`)."""
    return cast(User | None, getattr(conn.state, "user", None))


class SessionMiddleware:
    """Look the session cookie up once per request (not for static files) and put its account
    in ``scope["state"]["user"]`` (None without a valid session)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            user = None
            if not scope["path"].startswith("/static/"):
                token = cookie_token(scope["headers"])
                store: Sessions | None = getattr(scope["app"].state, "sessions", None)
                if token and store is not None:
                    user = await to_thread.run_sync(store.user, token)
            scope.setdefault("state", {})["user"] = user
        await self.app(scope, receive, send)
