"""Personal API tokens (issue 47): an account's programs act as the account over the API.

A token is 256 random bits shown once, when it is made, and stored as its SHA-256 digest: the
database never holds one that works.  A program sends it as ``Authorization: Bearer <token>``
(``http/bearer.py`` reads it).  Each token carries scopes, as on lichess:

* ``board:play``: play one's own games over the API (a person's account);
* ``bot:play``: play as a BOT account (and upgrade the account to BOT);
* ``challenge:write``: send, accept, decline and cancel challenges;
* ``puzzle:read``: read puzzles (reserved for the puzzle API);
* ``tournament:write``: join and withdraw from arenas and Swiss events (a bot's ``bot:play``
  does too, so that one token runs a bot).

A revoked token keeps its row (``revoked`` set) so that its use is answered "this token was
revoked" rather than "unknown token"; deleting the account revokes its tokens.

Why SHA-256 and not argon2 as for passwords: a password is chosen by a person and may be
guessed, so its hash must be slow; a token is 256 random bits, which no hash speed brings
within reach of a guess, and it is checked on every API call (a move, a stream), where an
argon2 hash would cost 64 MiB and tens of milliseconds each time.  The digest is also what
lets a token be found by one indexed lookup (a salted slow hash cannot be looked up).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets
from dataclasses import dataclass

from sqlalchemy import Engine, func, insert, select, update

from exochess.web.accounts.users import User
from exochess.web.domain import N_, GameNotFound, GameServiceError, InvalidRequest, SecretRequired, WrongSeat
from exochess.web.storage.store import api_tokens, now, users

SCOPES = ("board:play", "bot:play", "challenge:write", "puzzle:read", "tournament:write")
"""Every scope a token may carry."""
PREFIX = "exo_"
"""Every token starts with it (so a leaked one is recognisable, e.g. by secret scanners)."""
MAX_TOKENS = 20
"""Live (unrevoked) tokens an account may hold."""
MAX_DESCRIPTION = 64


class TokenMissing(SecretRequired):
    """No ``Authorization: Bearer`` header, or a malformed one (401)."""


class TokenRefused(SecretRequired):
    """An unknown or revoked token, or one of a deleted account (401)."""


class TokenNotFound(GameNotFound):
    """The account has no such live token (404)."""

    def __init__(self, token_id: int) -> None:
        GameServiceError.__init__(self, N_("no such token: {token}"), token=token_id)


class ScopeMissing(WrongSeat):
    """The token lacks the scope the request needs (403)."""


@dataclass(frozen=True)
class TokenInfo:
    """A token as its account's page lists it (never the token itself)."""

    id: int
    description: str
    scopes: tuple[str, ...]
    created: dt.datetime
    last_used: dt.datetime | None


@dataclass(frozen=True)
class Bearer:
    """Who a valid token acts for, and what it may do."""

    user: User
    token_id: int
    scopes: frozenset[str]
    bot: bool
    """Whether the account is a BOT account."""


def digest(token: str) -> str:
    """The stored form of a token (hex SHA-256)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def check_scopes(scopes: object) -> tuple[str, ...]:
    """The scopes asked for, checked: a list of known scope names (duplicates dropped)."""
    if not isinstance(scopes, list | tuple) or not all(isinstance(s, str) for s in scopes):
        raise InvalidRequest(N_("scopes must be a list of scope names"))
    unknown = [s for s in scopes if s not in SCOPES]
    if unknown:
        raise InvalidRequest(
            N_("unknown scope {scope}: the scopes are {scopes}"),
            scope=repr(unknown[0]),
            scopes=", ".join(SCOPES),
        )
    if not scopes:
        raise InvalidRequest(N_("choose at least one scope"))
    return tuple(s for s in SCOPES if s in scopes)


class ApiTokens:
    """The ``api_tokens`` table's queries (synchronous: call them from a worker thread)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def create(self, user: User, description: str, scopes: tuple[str, ...]) -> tuple[str, TokenInfo]:
        """A new token of ``user``: (the token, shown this once; what the account's page lists)."""
        text = " ".join(str(description).split())
        if not text or len(text) > MAX_DESCRIPTION or not text.isprintable():
            raise InvalidRequest(
                N_("a token's description has 1 to {count} printable characters"), count=MAX_DESCRIPTION
            )
        token = PREFIX + secrets.token_urlsafe(32)
        stamp = now()
        with self.engine.begin() as conn:
            live = conn.execute(
                select(func.count())
                .select_from(api_tokens)
                .where(api_tokens.c.user_id == user.id, api_tokens.c.revoked.is_(None))
            ).scalar_one()
            if live >= MAX_TOKENS:
                raise InvalidRequest(
                    N_("an account holds at most {count} tokens: revoke one first"), count=MAX_TOKENS
                )
            res = conn.execute(
                insert(api_tokens).values(
                    user_id=user.id,
                    digest=digest(token),
                    description=text,
                    scopes=" ".join(scopes),
                    created=stamp,
                )
            )
            token_id = int(res.inserted_primary_key[0]) if res.inserted_primary_key else 0
        return token, TokenInfo(token_id, text, scopes, stamp, None)

    def list(self, user: User) -> list[TokenInfo]:
        """The account's live tokens, newest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(api_tokens)
                .where(api_tokens.c.user_id == user.id, api_tokens.c.revoked.is_(None))
                .order_by(api_tokens.c.id.desc())
            )
            return [
                TokenInfo(r.id, r.description, tuple(r.scopes.split()), r.created, r.last_used) for r in rows
            ]

    def revoke(self, user: User, token_id: int) -> bool:
        """Revoke one of ``user``'s tokens; False if it has no such live token."""
        with self.engine.begin() as conn:
            res = conn.execute(
                update(api_tokens)
                .where(
                    api_tokens.c.id == token_id,
                    api_tokens.c.user_id == user.id,
                    api_tokens.c.revoked.is_(None),
                )
                .values(revoked=now())
            )
            return res.rowcount == 1

    def revoke_all(self, user_id: int) -> None:
        """Revoke every token of an account (it is being deleted)."""
        with self.engine.begin() as conn:
            conn.execute(
                update(api_tokens)
                .where(api_tokens.c.user_id == user_id, api_tokens.c.revoked.is_(None))
                .values(revoked=now())
            )

    def verify(self, token: str) -> Bearer:
        """Who ``token`` acts for: :class:`TokenRefused` for an unknown or revoked token or a
        deleted account.  The token's last use is recorded (at most once a minute)."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(
                    api_tokens.c.id,
                    api_tokens.c.scopes,
                    api_tokens.c.revoked,
                    api_tokens.c.last_used,
                    users.c.id.label("uid"),
                    users.c.name,
                    users.c.deleted,
                    users.c.bot,
                )
                .join(users, users.c.id == api_tokens.c.user_id)
                .where(api_tokens.c.digest == digest(token))
            ).first()
        if row is None:
            raise TokenRefused(N_("unknown API token (it may have been mistyped)"))
        if row.revoked is not None:
            raise TokenRefused(N_("this API token was revoked"))
        if row.deleted is not None:
            raise TokenRefused(N_("this API token's account was deleted"))
        stamp = now()
        if row.last_used is None or stamp - row.last_used > dt.timedelta(minutes=1):
            with self.engine.begin() as conn:
                conn.execute(update(api_tokens).where(api_tokens.c.id == row.id).values(last_used=stamp))
        return Bearer(User(row.uid, row.name), row.id, frozenset(row.scopes.split()), bool(row.bot))
