"""Accounts: the rules of usernames and passwords, argon2id hashing, and the users table's queries.

Names follow lichess: 3 to 20 characters among ASCII letters, digits, ``_`` and ``-``, starting
with a letter or digit.  The text is NFKC-normalised first, so that full-width letters typed
through an input method become the ASCII they look like; any other script is refused with a
clear message (that alone keeps out Cyrillic or Greek look-alikes of Latin letters).  Within
ASCII some characters still look alike (``l``/``I``/``1``, ``O``/``0``, ``rn``/``m``, ``_``/``-``):
every name gets a *skeleton* that maps each group to one form, and two accounts may not share a
skeleton.  Uniqueness without regard to case follows from the skeleton (it is lower case) and is
also kept as its own key for a clearer message.

Passwords: 8 to 256 characters, not containing the username, hashed with argon2id through
argon2-cffi's :class:`~argon2.PasswordHasher` (its defaults are RFC 9106's low-memory profile).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from sqlalchemy import Connection, Engine, select, update
from sqlalchemy.exc import IntegrityError

from exochess.web.domain import N_, Color, Conflict, InvalidRequest, SecretRequired
from exochess.web.storage.store import games, lesson_progress, now, secret_matches, sessions, users

MIN_NAME = 3
MAX_NAME = 20
MIN_PASSWORD = 8
MAX_PASSWORD = 256
"""Longer passwords are refused: hashing megabytes would be work an attacker could ask for."""

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")

RESERVED = frozenset(
    {
        "admin",
        "administrator",
        "root",
        "system",
        "moderator",
        "mod",
        "support",
        "help",
        "exochess",
        "anonymous",
        "guest",
        "deleted",
        "deletedplayer",
        "computer",
        "engine",
        "api",
        "account",
        "login",
        "logout",
        "signup",
        "settings",
        "null",
        "none",
        "undefined",
        "lobby",
        "leaderboard",
    }
)
"""Names nobody may take (compared by skeleton, so ``Adm1n`` is refused too)."""

_SKELETON_PAIRS = (("rn", "m"), ("vv", "w"), ("cl", "d"))
_SKELETON_CHARS = str.maketrans({"0": "o", "1": "l", "i": "l", "|": "l", "5": "s", "_": "-"})


class AccountError(InvalidRequest):
    """A name or password that breaks the rules (400)."""


class NameTaken(Conflict):
    """The name, or one that looks like it, belongs to another account (409)."""


class BadCredentials(SecretRequired):
    """Wrong name or password, or no valid session (401)."""


def normalize_name(text: str) -> str:
    """The name as it will be stored (NFKC, trimmed), or :class:`AccountError` naming the rule."""
    if not isinstance(text, str):
        raise AccountError(N_("the username must be text"))
    name = unicodedata.normalize("NFKC", text).strip()
    if not MIN_NAME <= len(name) <= MAX_NAME:
        raise AccountError(N_("a username has {low} to {high} characters"), low=MIN_NAME, high=MAX_NAME)
    if not _NAME.fullmatch(name):
        raise AccountError(
            N_("a username is made of letters a-z, digits, '_' and '-', and starts with a letter or digit")
        )
    return name


def skeleton(name: str) -> str:
    """What ``name`` looks like: lower case, each group of look-alike characters mapped to one.

    >>> skeleton("Paul_1") == skeleton("PAUL-l") == skeleton("paui-I")
    True
    """
    s = name.lower()
    for pair, single in _SKELETON_PAIRS:
        s = s.replace(pair, single)
    return s.translate(_SKELETON_CHARS)


_LATIN_LOOKALIKES = str.maketrans(
    {
        # Cyrillic and Greek letters drawn like Latin ones (lower case: names are folded first)
        "\u0430": "a",
        "\u0432": "b",
        "\u0435": "e",
        "\u0451": "e",
        "\u043a": "k",
        "\u043c": "m",
        "\u043d": "h",
        "\u043e": "o",
        "\u0440": "p",
        "\u0441": "c",
        "\u0442": "t",
        "\u0443": "y",
        "\u0445": "x",
        "\u0456": "i",
        "\u0458": "j",
        "\u0455": "s",
        "\u0501": "d",
        "\u04cf": "l",
        "\u03b1": "a",
        "\u03b2": "b",
        "\u03b5": "e",
        "\u03b9": "i",
        "\u03ba": "k",
        "\u03bd": "v",
        "\u03bf": "o",
        "\u03c1": "p",
        "\u03c4": "t",
        "\u03c5": "u",
        "\u03c7": "x",
        "\u0261": "g",
        "\u0131": "i",
    }
)


def guest_skeleton(text: str) -> str:
    """What a guest's display name looks like, to compare with the accounts' skeletons: NFKC,
    case-folded, Cyrillic and Greek look-alikes of Latin letters made Latin, marks, spaces
    and punctuation dropped, then :func:`skeleton`.

    >>> guest_skeleton("\u0391dm\u0456n ") == guest_skeleton("ad_min") == skeleton("admin")
    True
    """
    folded = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text).casefold())
    latin = folded.translate(_LATIN_LOOKALIKES)
    return skeleton("".join(c for c in latin if c.isalnum()))


def guest_name_taken(engine: Engine, text: str) -> bool:
    """Whether a guest display name ``text`` looks like an account's name or a reserved one
    (it would impersonate them): accounts' names are refused as look-alikes already, guests'
    were not (issue 41)."""
    skel = guest_skeleton(text)
    if not skel:
        return False
    if skel in {skeleton(r) for r in RESERVED}:
        return True
    with engine.connect() as conn:
        return conn.execute(select(users.c.id).where(users.c.skeleton == skel).limit(1)).first() is not None


def check_password(password: str, name: str) -> None:
    """Raise :class:`AccountError` if ``password`` may not be used by ``name``."""
    if not isinstance(password, str) or not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise AccountError(
            N_("a password has {low} to {high} characters"), low=MIN_PASSWORD, high=MAX_PASSWORD
        )
    if name.lower() in password.lower():
        raise AccountError(N_("the password must not contain the username"))
    if len(set(password)) < 4:
        raise AccountError(N_("the password needs at least four different characters"))


_hasher = PasswordHasher()


def hash_password(password: str) -> str:
    """The argon2id PHC string of ``password`` (salted: two hashes of one password differ)."""
    return _hasher.hash(password)


def verify_password(stored: str, password: str) -> bool:
    """Whether ``password`` matches the stored hash (False for any malformed hash too)."""
    try:
        return _hasher.verify(stored, password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


_DUMMY_HASH = hash_password("no account has this password")
"""Checked when the name is unknown, so that a wrong name takes as long as a wrong password."""


@dataclass(frozen=True)
class User:
    """An account as the rest of the site sees it."""

    id: int
    name: str


class AccountEvent(StrEnum):
    """What :attr:`Accounts.notify` is told about."""

    SIGNED_UP = "signed-up"
    PASSWORD_CHANGED = "password-changed"
    DELETED = "deleted"


Notify = Callable[[AccountEvent, User], None]
"""The e-mail hook: called after each :class:`AccountEvent` is stored.  The site sends no mail
(none can leave this machine, and no address is asked for); a deployment that can wires a
sender here, e.g. to warn the owner of a password change (see docs/accounts.md)."""


def _no_mail(_event: AccountEvent, _user: User) -> None:
    return None


class Accounts:
    """The users table's queries (synchronous: call them from a worker thread)."""

    def __init__(self, engine: Engine, notify: Notify = _no_mail) -> None:
        self.engine = engine
        self.notify = notify

    def create(self, name_text: str, password: str) -> User:
        """A new account, or :class:`AccountError`/:class:`NameTaken`."""
        name = normalize_name(name_text)
        check_password(password, name)
        key, skel = name.lower(), skeleton(name)
        if skel in {skeleton(r) for r in RESERVED}:
            raise NameTaken(N_("the name {name} is reserved"), name=repr(name))
        password_hash = hash_password(password)
        with self.engine.begin() as conn:
            self._check_free(conn, name, key, skel)
            try:
                user_id = conn.execute(
                    users.insert().values(
                        name=name,
                        name_key=key,
                        skeleton=skel,
                        password_hash=password_hash,
                        created=now(),
                    )
                ).inserted_primary_key
            except IntegrityError:  # another sign-up took it between the check and the insert
                raise NameTaken(N_("the name {name} is already taken"), name=repr(name)) from None
        assert user_id is not None
        user = User(int(user_id[0]), name)
        self.notify(AccountEvent.SIGNED_UP, user)
        return user

    @staticmethod
    def _check_free(conn: Connection, name: str, key: str, skel: str) -> None:
        row = conn.execute(
            select(users.c.name, users.c.name_key).where(
                (users.c.name_key == key) | (users.c.skeleton == skel)
            )
        ).first()
        if row is None:
            return
        if row.name_key == key:
            raise NameTaken(N_("the name {name} is already taken"), name=repr(name))
        raise NameTaken(
            N_("the name {name} looks too much like an existing name ({other})"),
            name=repr(name),
            other=row.name,
        )

    def authenticate(self, name_text: str, password: str) -> User:
        """The account whose name and password these are, or :class:`BadCredentials`."""
        try:
            key = normalize_name(name_text).lower()
        except AccountError:
            key = None
        row = None
        if key is not None:
            with self.engine.connect() as conn:
                row = conn.execute(
                    select(users.c.id, users.c.name, users.c.password_hash).where(
                        users.c.name_key == key, users.c.deleted.is_(None)
                    )
                ).first()
        if row is None or row.password_hash is None:
            verify_password(_DUMMY_HASH, password if isinstance(password, str) else "")
            raise BadCredentials(N_("wrong username or password"))
        if not isinstance(password, str) or len(password) > MAX_PASSWORD:
            raise BadCredentials(N_("wrong username or password"))
        if not verify_password(row.password_hash, password):
            raise BadCredentials(N_("wrong username or password"))
        if _hasher.check_needs_rehash(row.password_hash):
            with self.engine.begin() as conn:
                conn.execute(
                    update(users).where(users.c.id == row.id).values(password_hash=hash_password(password))
                )
        return User(row.id, row.name)

    def change_password(self, user: User, old: str, new: str) -> None:
        """Replace the password (the old one must be given) and end every session of the account."""
        self.authenticate(user.name, old)
        check_password(new, user.name)
        with self.engine.begin() as conn:
            conn.execute(update(users).where(users.c.id == user.id).values(password_hash=hash_password(new)))
            conn.execute(sessions.delete().where(sessions.c.user_id == user.id))
        self.notify(AccountEvent.PASSWORD_CHANGED, user)

    def delete(self, user: User, password: str) -> None:
        """Close the account: its password, sessions and lesson progress go, its games stay (shown
        under "deleted player"), its name stays taken."""
        self.authenticate(user.name, password)
        with self.engine.begin() as conn:
            conn.execute(update(users).where(users.c.id == user.id).values(password_hash=None, deleted=now()))
            conn.execute(sessions.delete().where(sessions.c.user_id == user.id))
            conn.execute(lesson_progress.delete().where(lesson_progress.c.user_id == user.id))
        self.notify(AccountEvent.DELETED, user)

    def by_name(self, name_text: str) -> User | None:
        """The live account called ``name_text`` (any case), if any."""
        if not isinstance(name_text, str) or len(name_text) > MAX_NAME * 4:
            return None
        key = unicodedata.normalize("NFKC", name_text).strip().lower()
        with self.engine.connect() as conn:
            row = conn.execute(
                select(users.c.id, users.c.name).where(users.c.name_key == key, users.c.deleted.is_(None))
            ).first()
        return User(row.id, row.name) if row is not None else None

    def names(self, ids: set[int]) -> dict[int, str | None]:
        """The names of the accounts ``ids`` (None for a deleted account)."""
        if not ids:
            return {}
        with self.engine.connect() as conn:
            rows = conn.execute(select(users.c.id, users.c.name, users.c.deleted).where(users.c.id.in_(ids)))
            return {r.id: (None if r.deleted is not None else r.name) for r in rows}

    def claim(self, user: User, seats: list[tuple[str, str]]) -> list[str]:
        """Give the account the anonymous seats these (game id, seat secret) pairs open: a
        browser's games, on sign-up or log-in.  A seat another account holds is left alone.
        Returns the ids of the games claimed."""
        claimed: list[str] = []
        with self.engine.begin() as conn:
            for game_id, secret in seats:
                row = conn.execute(
                    select(
                        games.c.white_secret, games.c.black_secret, games.c.white_user, games.c.black_user
                    ).where(games.c.id == game_id)
                ).first()
                if row is None:
                    continue
                for color, stored, holder in (
                    (Color.WHITE, row.white_secret, row.white_user),
                    (Color.BLACK, row.black_secret, row.black_user),
                ):
                    other = row.black_user if color == Color.WHITE else row.white_user
                    # one account never holds both seats of a game (it would play itself)
                    if holder is None and other != user.id and secret_matches(secret, stored):
                        column = games.c.white_user if color == Color.WHITE else games.c.black_user
                        done = conn.execute(
                            update(games)
                            .where(games.c.id == game_id, column.is_(None))
                            .values({column: user.id})
                        ).rowcount
                        if done:
                            claimed.append(game_id)
                        break
        return claimed
