"""The lobby: open challenges that anyone may accept, and the live games to watch.

A challenge is posted with a game, a time control and a colour (white, black or random) by a
*player*: a signed-in account, shown under its username with its rating in that game, or a
guest's browser, identified by a random token it keeps (``player``; its digest is stored) and
shown under a display name of its choosing.  The stored *poster key* is the digest of either
(:func:`account_key`, :func:`player_key`): it decides whose challenges are whose, and which
lobby sockets keep a real-time challenge alive.  A signed-in player's seats in the game belong
to their account; a rated challenge is posted and accepted only by accounts (two different
ones) and needs a time control.  The poster receives
the seat secret of the game-to-be when posting, so that a correspondence challenge accepted
while its poster is away still leaves them their seat; the acceptor receives theirs when
accepting.  Accepting is one guarded update of the stored challenge: of two acceptors, exactly
one wins.

A real-time challenge (and one without a clock) lives while its poster has the lobby open: when
the last lobby socket of its poster closes, it is removed after :attr:`Lobby.grace_s` (time
to reload the page).  A correspondence challenge stays until it is accepted or cancelled, and
survives restarts.  In Redis mode the poster's lobby sockets are counted on every server
(:class:`~exochess.web.live.presence.SharedCounts`): a challenge stays while its poster has the lobby
open on any of them, and goes once a server that died stopped counting (its counts expire).

The lobby's view (:meth:`Lobby.snapshot_text`) is broadcast through the :class:`Hub` under the
key :data:`LOBBY_ROOM`, whole and coalesced, like a game's state; an accepted challenge is
announced there too (``accepted``: challenge, game and the poster's colour, no secret).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import json
import logging
import re
import secrets
from collections import Counter
from collections.abc import Callable
from typing import Any

from exochess.errors import UnknownVariantError
from exochess.variants import find_variant
from exochess.web.accounts.ratings import START_RATING, PlayerInfo, ratings_of
from exochess.web.accounts.users import User, guest_name_taken
from exochess.web.domain import (
    N_,
    ChallengeNotFound,
    ChallengeStatus,
    Color,
    Conflict,
    GameServiceError,
    GameStatus,
    InvalidRequest,
    PlayerKind,
    SeatChoice,
    SecretRequired,
    TooFast,
    has_hidden_characters,
)
from exochess.web.game.live import LiveGame
from exochess.web.game.service import GameService
from exochess.web.game.timecontrol import NO_CLOCK, TimeControl, TimeControlKind, stored_time_control
from exochess.web.limits import RateLimits, client_key
from exochess.web.storage.store import (
    ChallengeLimitError,
    ChallengeRow,
    GameRow,
    hash_secret,
    now,
)

log = logging.getLogger("exochess.web")

LOBBY_ROOM = "lobby"
"""The hub key of the lobby's watchers (a game id never has this form's length and prefix)."""
MAX_NAME = 24
"""Characters of a display name."""
PER_PLAYER = 3
"""Open challenges one player may have at once."""
PER_ADDRESS = 10
"""Open challenges from one client address at once (a player token costs nothing to make)."""
LISTED_CHALLENGES = 100
LISTED_PER_ADDRESS = 3
"""Open challenges of one client address (else one player) listed in the lobby's view: twelve
addresses posting ten each filled the view and hid every newer challenge (issue 41)."""
READ_CHALLENGES = 1000
"""Newest open challenges read to choose the listed ones from."""
LISTED_GAMES = 20
LIVE_WINDOW = dt.timedelta(minutes=5)
"""A game is listed while its last move is this recent (and both sides have moved)."""
LASTING_WINDOW = dt.timedelta(days=3)
"""A correspondence game is listed while its last move is this recent."""
REFRESH_S = 30.0
"""How often the live games are listed again while anyone watches the lobby."""
MIN_INTERVAL_S = 0.01
"""Lobby updates are at least this far apart (a burst of changes makes one more update, not one
each); the first change after a quiet spell goes out at once."""
GRACE_S = 10.0
"""Default time a real-time challenge outlives its poster's last lobby socket."""
POSTER_COUNT = "lobby-poster"
"""The kind of shared count of a poster's lobby sockets (Redis mode)."""
ACTIONS = "lobby"
"""The rate limit of lobby actions (post, accept, cancel) per client address."""
_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,64}")


def clean_name(value: object) -> str:
    """A display name as stored: spaces collapsed, 1 to :data:`MAX_NAME` printable characters."""
    if not isinstance(value, str):
        raise InvalidRequest(N_("name must be a text"))
    name = " ".join(value.split())
    if not name:
        raise InvalidRequest(N_("a display name is required"))
    if len(name) > MAX_NAME:
        raise InvalidRequest(N_("a display name has at most {count} characters"), count=MAX_NAME)
    if not name.isprintable() or has_hidden_characters(name):
        raise InvalidRequest(N_("a display name may not contain control or invisible characters"))
    return name


def player_key(token: object) -> str:
    """The stored form of a player token (16 to 64 characters of ``A-Z a-z 0-9 _ -``)."""
    if not isinstance(token, str) or not _TOKEN.fullmatch(token):
        raise InvalidRequest(N_("player must be a random token of 16 to 64 letters, digits, '-' or '_'"))
    return hash_secret(token)


def account_key(user_id: int) -> str:
    """The stored poster key of an account (never equal to a player token's: it has a ``:``)."""
    return hash_secret(f"account:{user_id}")


def browser_key(player: object) -> str | None:
    """The stored form of the browser's player token, sent by a signed-in player too (None when
    none, or not a token): two accounts signed in one after the other in one browser share it."""
    try:
        return player_key(player)
    except InvalidRequest:
        return None


def poster_key(user: User | None, player: object) -> str:
    """Whose challenges these are: the signed-in account, else the guest's player token."""
    return account_key(user.id) if user is not None else player_key(player)


def is_lasting(time_control: str) -> bool:
    """Whether a challenge with this time control stays when its poster leaves (correspondence)."""
    return stored_time_control(time_control).kind == TimeControlKind.CORRESPONDENCE


Infos = dict[tuple[int, str], PlayerInfo]
"""The accounts' names and ratings a lobby view shows, by (account, game)."""


def _player_json(name: str | None, user_id: int | None, variant: str, infos: Infos) -> dict[str, Any]:
    """A seat or a poster as the lobby shows it: a guest has a name only; an account its
    username (``account``; None once deleted) and its rating in the game."""
    info = infos.get((user_id, variant)) if user_id is not None else None
    if info is None:
        return {"name": name, "rating": None, "provisional": None, "account": None, "title": None}
    return {
        "name": info["name"] or name,
        "rating": info["rating"],
        "provisional": info["provisional"],
        "account": info["name"],
        "title": info.get("title"),
    }


def challenge_json(row: ChallengeRow, infos: Infos | None = None) -> dict[str, Any]:
    """A challenge as the lobby lists it (never its poster's key, secret or address)."""
    return {
        "id": row.id,
        "variant": row.variant,
        "time_control": stored_time_control(row.time_control).to_json(),
        "color": row.color,
        "player": _player_json(row.poster_name, row.poster_user, row.variant, infos or {}),
        "rated": row.rated,
        "status": row.status,
        "game": row.game_id,
        "poster_color": row.poster_color,
        "created": row.created.isoformat() + "Z",
    }


def live_game_json(row: GameRow, infos: Infos | None = None) -> dict[str, Any]:
    """A game to watch, as the lobby lists it."""
    return {
        "id": row.id,
        "variant": row.variant,
        "time_control": stored_time_control(row.time_control).to_json(),
        "white": _player_json(row.white_name, row.white_user, row.variant, infos or {}),
        "black": _player_json(row.black_name, row.black_user, row.variant, infos or {}),
        "rated": row.rated,
        "updated": row.updated.isoformat() + "Z",
    }


def listed_challenges(
    rows: list[ChallengeRow], limit: int = LISTED_CHALLENGES, per_address: int = LISTED_PER_ADDRESS
) -> list[ChallengeRow]:
    """The challenges the lobby lists, from ``rows`` newest first: the newest first, at most
    ``per_address`` from one owner — the account of a signed-in poster, else the client address
    (or, without one, the player) — at most ``limit``.  A flood from a few addresses then leaves
    room for everyone else's, and a new challenge comes at the top; accounts behind one address
    (a school, a shared network) are each listed (sign-ups are limited per address)."""
    shown: Counter[str] = Counter()
    listed = []
    for row in rows:
        if row.poster_user is not None:
            source = f"user:{row.poster_user}"
        else:
            source = f"address:{row.poster_address}" if row.poster_address else f"player:{row.poster_key}"
        if shown[source] >= per_address:
            continue
        shown[source] += 1
        listed.append(row)
        if len(listed) >= limit:
            break
    return listed


def in_rating_range(challenge: dict[str, Any], mine: dict[str, int], spread: int) -> bool:
    """Whether a listed challenge's poster is rated within ``spread`` points of ``mine`` (the
    viewer's rating per game, the starting rating where they have none).  A guest's challenge
    has no rating and is left out, as on lichess.  ``static/lobby.js`` filters the same way."""
    rating = challenge["player"]["rating"]
    if rating is None:
        return False
    return abs(int(rating) - mine.get(challenge["variant"], round(START_RATING))) <= spread


async def game_from_challenge(
    service: GameService,
    row: ChallengeRow,
    acceptor: int | None,
    shown: str,
    taken: str,
    poster_secret: str | None = None,
    engine: bool = False,
) -> tuple[Color, LiveGame, dict[Color, str]]:
    """The game an accepted challenge starts, for the lobby's open challenges and for direct
    ones (:mod:`.challenges`): the poster's colour drawn if random, the challenge taken (else
    :class:`Conflict` with the message ``taken``), the game made between the poster and the
    acceptor (``shown`` is the acceptor's name; ``poster_secret``, if given, is the poster's
    seat secret; with ``engine``, the acceptor is a house bot, whose seat the computer plays),
    and the challenge pointing at it; a failure
    after the challenge was taken opens it again.  Returns (the poster's colour, the game,
    every seat's secret)."""
    poster = secrets.choice(list(Color)) if row.color == SeatChoice.RANDOM else Color(row.color)
    storage = service.storage
    if not await service.db(storage.take_challenge, row.id, poster):
        raise Conflict(taken)
    users = {poster: row.poster_user, poster.other: acceptor}
    try:
        live, seat_secrets = await service.create_between(
            row.variant,
            users[Color.WHITE],
            users[Color.BLACK],
            rated=row.rated,
            time_control=TimeControl.parse(row.time_control, any_minutes=True),
            names={poster: row.poster_name, poster.other: shown},
            seat_secrets={poster: poster_secret} if poster_secret is not None else None,
            engine=poster.other if engine else None,
        )
        await service.db(storage.set_challenge_game, row.id, live.row.id)
    except BaseException:
        with contextlib.suppress(GameServiceError):
            await service.db(storage.reopen_challenge, row.id)
        raise
    return poster, live, seat_secrets


class Lobby:
    """Posts, accepts and cancels challenges; keeps the lobby's watchers up to date."""

    def __init__(
        self, service: GameService, limits: RateLimits, grace_s: float = GRACE_S, tiny_clocks: bool = False
    ) -> None:
        self.service = service
        self.hub = service.hub
        self.clock: Callable[[], dt.datetime] = now
        """The time the live list is measured from (a test puts its own clock here)."""
        self.grace_s = grace_s
        self.limits = limits
        """Posts, accepts and cancels per client address (the limit ``lobby``)."""
        self.tiny_clocks = tiny_clocks
        """Accept any minutes with two decimals (a test setting: see ``Settings``)."""
        self._present: Counter[str] = Counter()
        """Open lobby sockets per player key (this process's)."""
        self._expiry: dict[str, asyncio.TimerHandle] = {}
        self._listed: set[str] = set()
        self._snapshot: str | None = None
        self._update: asyncio.Task[None] | None = None
        self._dirty = False
        """A change came after the view being built (or sent) was read: build it again."""
        self._refresher: asyncio.Task[None] | None = None
        self._background: set[asyncio.Task[Any]] = set()
        service.reader.listeners.append(self._game_changed)

    async def start(self) -> None:
        """After a (re)start: the posters of real-time challenges get the grace time to come
        back (their pages reconnect), then their challenges go."""
        rows = await self.service.db(self.service.storage.open_realtime_challenges)
        for key in {r.poster_key for r in rows}:
            self._expire_later(key)
        self._refresher = asyncio.create_task(self._refresh())
        if self.hub.counts is not None:
            self._spawn(self._watch_posters(self.hub.counts.refresh_s))

    def close(self) -> None:
        for handle in self._expiry.values():
            handle.cancel()
        for task in (self._update, self._refresher, *self._background):
            if task is not None:
                task.cancel()

    # --- challenges -------------------------------------------------------------------

    async def _guest_name(self, name: object) -> str:
        """A guest's display name (:func:`clean_name`), refused when it looks like an account's
        name or a reserved one (a guest could otherwise pass for that player)."""
        shown = clean_name(name)
        if await self.service.db(guest_name_taken, self.service.storage.engine, shown):
            raise Conflict(
                N_(
                    "the name {name} looks like an account's name or a reserved one: "
                    "choose another, or sign in"
                ),
                name=shown,
            )
        return shown

    async def _throttle(self, address: str) -> None:
        if await self.limits.hit(ACTIONS, client_key(address)) is not None:
            raise TooFast(N_("too many lobby actions: wait a moment and try again"))

    async def post(
        self,
        *,
        variant: str,
        time_control: str,
        color: str,
        name: object,
        player: object,
        address: str = "",
        user: User | None = None,
        rated: bool = False,
    ) -> tuple[dict[str, Any], str]:
        """Post a challenge: (the challenge as listed, the poster's seat secret for its game).
        A signed-in ``user`` posts under their username (``name`` and ``player`` are then not
        needed); only they may post a ``rated`` one, and only with a time control."""
        key = poster_key(user, player)
        if rated and user is None:
            raise SecretRequired(
                N_("sign in to post a rated challenge: rated games are played between accounts")
            )
        shown = user.name if user is not None else await self._guest_name(name)
        try:
            game = find_variant(variant)
        except UnknownVariantError as exc:
            raise InvalidRequest(str(exc)) from exc
        try:
            control = TimeControl.parse(time_control, any_minutes=self.tiny_clocks)
        except ValueError as exc:
            raise InvalidRequest(str(exc)) from exc
        if color not in tuple(SeatChoice):
            raise InvalidRequest(N_("color must be 'white', 'black' or 'random'"))
        if rated and control == NO_CLOCK:
            raise InvalidRequest(N_("a rated challenge needs a time control (real time or correspondence)"))
        await self._throttle(address)
        secret = secrets.token_urlsafe(16)
        row = ChallengeRow(
            id=secrets.token_urlsafe(6).replace("-", "x").replace("_", "y"),
            variant=game.name,
            time_control=control.text,
            color=SeatChoice(color),
            poster_name=shown,
            poster_key=key,
            poster_secret=hash_secret(secret),
            poster_address=address or None,
            status=ChallengeStatus.OPEN,
            game_id=None,
            poster_color=None,
            created=now(),
            poster_user=user.id if user is not None else None,
            rated=bool(rated),
            poster_browser=browser_key(player),
        )
        try:
            await self.service.db(
                lambda: self.service.storage.add_challenge(row, per_key=PER_PLAYER, per_address=PER_ADDRESS)
            )
        except ChallengeLimitError as exc:
            raise Conflict(exc.template, **exc.params) from exc
        if not is_lasting(row.time_control) and not self._present[key]:
            self._expire_later(key)  # posted without the lobby open: it goes unless they come
        self.changed()
        return challenge_json(row, await self._infos([row], [])), secret

    async def challenge(self, challenge_id: str) -> dict[str, Any]:
        """One challenge, open or accepted (an accepted one names its game)."""
        row = await self._load(challenge_id)
        return challenge_json(row, await self._infos([row], []))

    async def _load(self, challenge_id: str) -> ChallengeRow:
        if not isinstance(challenge_id, str) or not challenge_id.isascii() or len(challenge_id) > 32:
            raise ChallengeNotFound(str(challenge_id)[:40])
        row = await self.service.db(self.service.storage.load_challenge, challenge_id)
        if row is None:
            raise ChallengeNotFound(challenge_id)
        return row

    async def accept(
        self,
        challenge_id: str,
        *,
        name: object,
        player: object,
        address: str = "",
        user: User | None = None,
    ) -> tuple[str, Color, str]:
        """Accept a challenge: (the new game's id, the acceptor's colour, their seat secret).
        A signed-in ``user`` plays under their username, their seat belonging to the account;
        only they may accept a rated challenge (not their own, from any browser)."""
        key = poster_key(user, player)
        await self._throttle(address)
        row = await self._load(challenge_id)
        if row.poster_key == key or (user is not None and row.poster_user == user.id):
            raise Conflict(N_("you cannot accept your own challenge"))
        browser = browser_key(player)
        if browser is not None and browser == row.poster_browser:
            # the same browser on both seats (two accounts signed in in turn, or account and
            # guest): one person playing themself, which a rated game must not be either
            raise Conflict(N_("both seats of a game cannot be taken from one browser"))
        if row.status != ChallengeStatus.OPEN:
            raise Conflict(N_("this challenge has already been accepted"))
        if row.rated and user is None:
            raise SecretRequired(
                N_("sign in to accept a rated challenge: rated games are played between accounts")
            )
        shown = user.name if user is not None else await self._guest_name(name)
        poster, live, seat_secrets = await game_from_challenge(
            self.service,
            row,
            user.id if user is not None else None,
            shown,
            N_("this challenge has just been accepted by someone else"),
            poster_secret=row.poster_secret,
        )
        self._spawn(
            self.hub.broadcast(
                LOBBY_ROOM,
                json.dumps(
                    {
                        "type": "accepted",
                        "challenge": row.id,
                        "game": live.row.id,
                        "poster_color": poster,
                    }
                ),
            )
        )
        self.changed()
        return live.row.id, poster.other, seat_secrets[poster.other]

    async def cancel(
        self,
        challenge_id: str,
        *,
        player: object,
        address: str = "",
        user: User | None = None,
    ) -> None:
        """Withdraw an open challenge of one's own (a signed-in poster's, from any browser)."""
        key = poster_key(user, player)
        await self._throttle(address)
        row = await self._load(challenge_id)
        if row.poster_key != key:
            raise Conflict(N_("only its poster may cancel a challenge"))
        if row.status != ChallengeStatus.OPEN:
            raise Conflict(N_("this challenge has already been accepted"))
        removed = await self.service.db(self.service.storage.remove_challenges, [row.id], key)
        if not removed:
            raise Conflict(N_("this challenge has just been accepted"))
        self.changed()

    # --- presence of the posters ---------------------------------------------------------

    def attach(self, key: str) -> None:
        """A lobby socket of the player ``key`` is open: their challenges stay."""
        self._present[key] += 1
        self._share(key)
        handle = self._expiry.pop(key, None)
        if handle is not None:
            handle.cancel()

    def detach(self, key: str) -> None:
        """A lobby socket of ``key`` closed: with the last one, their real-time challenges go
        after the grace time."""
        self._present[key] -= 1
        if self._present[key] <= 0:
            del self._present[key]
            self._expire_later(key)
        self._share(key)

    def _share(self, key: str) -> None:
        if self.hub.counts is not None:
            self.hub.counts.set(POSTER_COUNT, key, self._present[key])

    async def _watch_posters(self, every_s: float) -> None:
        """Redis mode: the challenges of posters present nowhere (their server died with their
        lobby socket, which no server here saw close) go after the grace time too."""
        while True:
            await asyncio.sleep(every_s)
            with contextlib.suppress(GameServiceError):
                rows = await self.service.db(self.service.storage.open_realtime_challenges)
                for key in {r.poster_key for r in rows} - set(self._expiry):
                    if not await self._present_anywhere(key):
                        self._expire_later(key)

    async def _present_anywhere(self, key: str) -> bool:
        if self._present[key]:
            return True
        return self.hub.counts is not None and await self.hub.counts.others(POSTER_COUNT, key) > 0

    def _expire_later(self, key: str) -> None:
        if key in self._expiry:
            return
        loop = asyncio.get_running_loop()
        self._expiry[key] = loop.call_later(self.grace_s, lambda: self._spawn(self._expire(key)))

    async def _expire(self, key: str) -> None:
        self._expiry.pop(key, None)
        if self.service.closed or await self._present_anywhere(key):
            return  # present on some server: that one starts the grace time when they leave
        storage = self.service.storage
        rows = await self.service.db(storage.open_realtime_challenges)
        ids = [r.id for r in rows if r.poster_key == key]
        if ids and await self.service.db(storage.remove_challenges, ids, key):
            self.changed()

    def _spawn(self, work: Any) -> None:
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # --- the lobby's view ---------------------------------------------------------------------

    async def snapshot_text(self) -> str:
        """The lobby's open challenges and live games, as the ``lobby`` message's JSON text
        (the one last sent to the watchers: a newer one follows it when a change is pending).
        With other server processes (a bus), read anew: their changes reach this process's
        watchers as their views, and never this cache."""
        if self.hub.bus is not None:
            return await self._build()
        if self._snapshot is None:
            self._snapshot = await self._build()
        return self._snapshot

    async def current_text(self) -> str:
        """Like :meth:`snapshot_text`, read from the database now (for the API's answers,
        which must show the caller's own change at once)."""
        return await self._build()

    async def _build(self) -> str:
        storage = self.service.storage
        rows = listed_challenges(await self.service.db(storage.open_challenges, READ_CHALLENGES))
        at = self.clock()
        games = await self.service.db(storage.live_games, at - LIVE_WINDOW, LISTED_GAMES, at - LASTING_WINDOW)
        self._listed = {g.id for g in games}
        infos = await self._infos(rows, games)
        return json.dumps(
            {
                "type": "lobby",
                "challenges": [challenge_json(r, infos) for r in rows],
                "games": [live_game_json(g, infos) for g in games],
            }
        )

    async def _infos(self, rows: list[ChallengeRow], games: list[GameRow]) -> Infos:
        """The names and ratings of the accounts among these challenges' posters and games' seats."""
        seats = {(r.poster_user, r.variant) for r in rows if r.poster_user is not None}
        seats |= {(u, g.variant) for g in games for u in (g.white_user, g.black_user) if u is not None}
        if not seats:
            return {}
        return await self.service.db(ratings_of, self.service.storage.engine, seats)

    def changed(self) -> None:
        """Something the lobby shows changed: build its view again and send it to every
        watcher if it differs.  The first change goes out at once; changes that come while a
        view is being built make one more build after it (never a lost one: that build may
        have read the database before them), at most one per :data:`MIN_INTERVAL_S`."""
        self._dirty = True
        if self._update is None or self._update.done():
            self._update = asyncio.create_task(self._send_updates())

    async def _send_updates(self) -> None:
        loop = asyncio.get_running_loop()
        started = -MIN_INTERVAL_S
        while self._dirty:
            wait = started + MIN_INTERVAL_S - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            self._dirty = False
            started = loop.time()
            try:
                text = await self._build()
            except GameServiceError as exc:
                log.warning("lobby update failed: %s", exc.message)
                self._snapshot = None
                return
            if text != self._snapshot:
                self._snapshot = text
                await self.hub.broadcast(LOBBY_ROOM, text, coalesce=True)

    async def _refresh(self) -> None:
        # real-time games leave the list when they fall out of the window, not by an event
        while True:
            await asyncio.sleep(REFRESH_S)
            if self.hub.watchers(LOBBY_ROOM):
                self.changed()
            else:
                self._snapshot = None

    def _game_changed(self, live: LiveGame) -> None:
        row = live.row
        if row.white != PlayerKind.HUMAN or row.black != PlayerKind.HUMAN:
            return
        listed = row.id in self._listed
        active = row.status == GameStatus.ACTIVE
        # a listed game that ended, a new game, or one that fits in the list (the others are
        # found by the periodic refresh: a move in any game must not rebuild the lobby)
        room = row.ply == 0 or len(self._listed) < LISTED_GAMES
        if (listed and not active) or (not listed and active and room):
            self.changed()
