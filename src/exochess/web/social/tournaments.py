"""Tournaments on the site (:class:`Tournaments`): arenas and Swiss events, created by players
or by the schedule, joined and left by accounts, paired and finished by one loop.

Who does what (lila's ``tournament`` module is the model):

- the database holds everything (:mod:`exochess.web.storage.tournaments`); standings are
  recounted from the stored games (:mod:`.standings`), so any server, and a restarted one,
  shows the same table;
- every server runs :meth:`Tournaments.run`, a loop that wakes at :data:`TICK_S`, or at once
  when one of its games ends; for each event it first takes the event's lease in the database
  (:func:`~exochess.web.storage.tournaments.take_lease`), so pairing runs in exactly one
  place even with several servers;
- games are ordinary rated (or casual) games between accounts made by
  :meth:`GameService.create_between`: clocks, fair play, ratings and the game page are the
  games' own;
- watchers of ``/ws/tournaments/{id}`` get the view (coalesced) after every change, each the
  page it shows (:mod:`.viewpages`: ten lines of standings and their games on), through the
  hub's room ``tournament:{id}``: each server reads the view for its own watchers, at once when
  another server pokes it (a result, a pairing: ``Hub.poke`` over the Redis bus), and sends a
  socket a view only when its page changed.

Cheat guards: a player is never paired while they have another game on; a player whose game
was aborted because they never moved loses it (in the tournament) and is paused until they
come back and press "join".

Bots (issue 46, item 5): an event made with ``bots_allowed`` lets bot accounts join (by the
API, :mod:`exochess.web.routes.tournaments`); any other refuses them (:class:`BotsNotAllowed`).
A bot's games are ordinary games announced on its event stream (``gameStart``) and played
through the bot API.  An arena pairs a bot only while it has an event stream open (``online``):
a bot whose program stopped waits unpaired rather than making a person wait for an abort; a
Swiss round pairs every active player, a bot that does not move then loses by abandonment and
is paused as a person would be.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime as dt
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from exochess.tournament.arena import pair_arena
from exochess.tournament.swiss import PairingImpossible, pair_round
from exochess.variants import find_variant
from exochess.web.accounts.bots import is_bot
from exochess.web.accounts.ratings import BOT_TITLE, players_by_id
from exochess.web.accounts.users import User
from exochess.web.domain import (
    N_,
    Color,
    Conflict,
    GameNotFound,
    GameServiceError,
    GameStatus,
    InvalidRequest,
    StorageUnavailable,
    TournamentNotFound,
    WrongSeat,
)
from exochess.web.game.live import LiveGame
from exochess.web.game.service import GameService
from exochess.web.game.timecontrol import TimeControl
from exochess.web.limits import RateLimits
from exochess.web.live.hub import Connection
from exochess.web.social.records import EventRecords, Records
from exochess.web.social.schedule import ScheduleEntry, due_events
from exochess.web.social.standings import (
    absentee,
    arena_table,
    arena_waiting,
    swiss_record,
    swiss_result,
    swiss_table,
)
from exochess.web.social.viewpages import Pages
from exochess.web.storage import tournaments as db
from exochess.web.storage.store import now
from exochess.web.storage.tournaments import ARENA, SWISS, TournamentRow, TournamentStatus

log = logging.getLogger("exochess.web")

TICK_S = 0.5
"""How often the loop looks at every event (a game ended on another server is seen then)."""
RETRY_S = 0.1
"""How soon a server whose game ended tries again to pair when another held the event's lease."""
LEASE_S = 10.0
"""How long one step of one event may hold its lease (a crashed holder frees it after this)."""
START_AT_ONCE = 4
"""Games of one pairing wave made at the same time: enough to overlap their database calls,
few enough to leave the database threads to the moves and results meanwhile (a hundred at once
held a resignation up for a second)."""
ARENA_MINUTES = (10, 20, 30, 45, 60, 90, 120, 180)
"""The lengths an arena may have."""
MAX_ROUNDS = 15
MAX_START_IN_MIN = 7 * 24 * 60
NAME_LENGTH = 80


class BotsNotAllowed(WrongSeat):
    """A bot account asked to join an event not open to bots (403)."""


class NotThisKind(GameNotFound):
    """An arena asked for at the Swiss API's path, or the other way round (404)."""

    def __init__(self, tournament_id: str, kind: str = ARENA) -> None:
        template = N_("no arena has the id {id}") if kind == ARENA else N_("no Swiss event has the id {id}")
        GameServiceError.__init__(self, template, id=repr(tournament_id))
        self.game_id = tournament_id


OnlineCheck = Callable[[list[int]], Awaitable[set[int]]]
"""Which of these accounts have an event stream open (:meth:`~exochess.web.social.events.
UserEvents.online`)."""


def room(tournament_id: str) -> str:
    """The hub room of a tournament's watchers."""
    return f"tournament:{tournament_id}"


class Tournaments:
    """Creates, joins, pairs and shows tournaments (see the module docstring)."""

    def __init__(
        self,
        service: GameService,
        limits: RateLimits,
        schedule: list[ScheduleEntry] | None = None,
        *,
        tiny_clocks: bool = False,
        online: OnlineCheck | None = None,
    ) -> None:
        self.service = service
        self.online = online
        """Which bots are connected (an arena pairs a bot only then); None: every bot counts as
        connected."""
        self.hub = service.hub
        self.limits = limits
        """Where the event sockets' message limit is counted (``tournament-messages``)."""
        self.schedule = schedule or []
        self.tiny_clocks = tiny_clocks
        """Tests: any minutes with two decimals as a time control and any arena length."""
        self.clock: Callable[[], dt.datetime] = now
        self._wake = asyncio.Event()
        self._games: dict[str, str] = {}
        """Game id -> tournament id, for the events' games on that this process knows of: those
        it made, paired or showed (forgotten when they end)."""
        self._ended: set[str] = set()
        """Events with a game that ended in this process since the loop's last pass."""
        self._view_locks: dict[str, asyncio.Lock] = {}
        """One per watched event: its views are read and sent one at a time, in order."""
        self._tasks: set[asyncio.Task[None]] = set()
        self._views: dict[str, dict[str, Any]] = {}
        """The last view built for each watched event: what its watchers were last sent, and
        what a new socket is sent first (no read: the next change reaches it as the others)."""
        self._shown: dict[str, int] = {}
        """The :meth:`~.records.Records.fingerprint` of the records of each event's last view
        (the same again: the view is not built again)."""
        self.records = EventRecords(service)
        self._watchers: dict[str, dict[Connection, Watcher]] = {}
        """This process's watchers per event (each server sends its own watchers the view)."""
        self._made: set[str] = set()
        """Keys of the scheduled events this process has made (or found made)."""
        self._task: asyncio.Task[None] | None = None
        service.reader.listeners.append(self._game_changed)
        self.hub.poke_listeners.append(self._poked)

    # --- players' requests ---------------------------------------------------------------

    async def create(
        self,
        *,
        kind: str,
        variant: str,
        time_control: str,
        minutes: float | None,
        rounds: int | None,
        starts_in_min: float,
        rated: bool,
        private: bool,
        name: str,
        creator: User | None,
        schedule_key: str | None = None,
        bots_allowed: bool = False,
    ) -> TournamentRow | None:
        """Check and store a new event; None when a schedule entry's event exists already."""
        try:
            game = find_variant(variant)
        except Exception as exc:  # UnknownVariantError, with its own message
            raise InvalidRequest(str(exc)) from exc
        try:
            tc = TimeControl.parse(time_control, any_minutes=self.tiny_clocks)
        except ValueError as exc:
            raise InvalidRequest(str(exc)) from exc
        if not tc.is_realtime:
            raise InvalidRequest(N_("a tournament needs a real-time clock (minutes+seconds)"))
        if not 0 <= starts_in_min <= MAX_START_IN_MIN:
            raise InvalidRequest(N_("a tournament starts within a week"))
        duration_s: int | None = None
        if kind == ARENA:
            if minutes is None or (
                not (self.tiny_clocks and 0 < minutes <= 180) and minutes not in ARENA_MINUTES
            ):
                raise InvalidRequest(N_("an arena lasts 10, 20, 30, 45, 60, 90, 120 or 180 minutes"))
            duration_s = max(1, round(minutes * 60))
            rounds = None
        elif kind == SWISS:
            if rounds is None or not 1 <= rounds <= MAX_ROUNDS:
                raise InvalidRequest(N_("a Swiss event has 1 to {count} rounds"), count=MAX_ROUNDS)
        else:
            raise InvalidRequest(N_("a tournament is an arena or a Swiss event"))
        shown = " ".join(name.split())[:NAME_LENGTH] or f"{game.title} {kind}"
        at = self.clock()
        row = TournamentRow(
            id=secrets.token_hex(4),
            kind=kind,
            variant=game.name,
            name=shown,
            time_control=tc.text,
            rated=rated,
            starts_at=at + dt.timedelta(minutes=starts_in_min),
            duration_s=duration_s,
            rounds=rounds,
            round=0,
            status=TournamentStatus.CREATED,
            creator=creator.id if creator is not None else None,
            private=private,
            schedule_key=schedule_key,
            lease_until=None,
            created=at,
            finished=None,
            bots_allowed=bots_allowed,
        )
        if not await self.service.db(db.create_tournament, self.service.storage.engine, row):
            return None
        self._wake.set()
        return row

    async def get(self, tournament_id: str) -> TournamentRow:
        row = await self.service.db(db.load_tournament, self.service.storage.engine, tournament_id)
        if row is None:
            raise TournamentNotFound(tournament_id)
        return row

    async def get_kind(self, tournament_id: str, kind: str | None) -> TournamentRow:
        """The event, which must be of ``kind`` (``arena`` or ``swiss``; None: either)."""
        row = await self.get(tournament_id)
        if kind is not None and row.kind != kind:
            raise NotThisKind(tournament_id, kind)
        return row

    async def join(self, tournament_id: str, user: User, kind: str | None = None) -> None:
        """Enter ``user`` (or bring them back after withdrawing or being paused); a bot
        account only where the event is open to bots.  ``kind``: the event must be of it."""
        row = await self.get_kind(tournament_id, kind)
        if not row.bots_allowed and await self.service.db(is_bot, self.service.storage.engine, user.id):
            raise BotsNotAllowed(N_("this tournament is not open to bots: a bot account cannot join it"))
        if row.status == TournamentStatus.FINISHED:
            raise Conflict(N_("this tournament is over"))
        if row.kind == ARENA and row.ends_at is not None and self.clock() >= row.ends_at:
            raise Conflict(N_("this arena has stopped pairing"))
        joined_round = row.round + 1 if row.kind == SWISS else 1
        await self.service.db(db.join, self.service.storage.engine, row.id, user.id, joined_round)
        await self._changed(row.id)

    async def withdraw(self, tournament_id: str, user: User, kind: str | None = None) -> None:
        """Take ``user`` out of the pairings (their games so far still count)."""
        row = await self.get_kind(tournament_id, kind)
        after = row.round if row.kind == SWISS else None
        if not await self.service.db(db.withdraw, self.service.storage.engine, row.id, user.id, after):
            raise Conflict(N_("you have not joined this tournament"))
        await self._changed(row.id)

    async def start_now(self, tournament_id: str, user: User) -> None:
        """The creator starts their event before its time (lichess's "start now")."""
        row = await self.get(tournament_id)
        if row.creator != user.id:
            raise Conflict(N_("only the tournament's creator can start it early"))
        if not await self.service.db(db.start_early, self.service.storage.engine, row.id, self.clock()):
            raise Conflict(N_("this tournament has already started"))
        self._wake.set()

    async def listing(self) -> list[dict[str, Any]]:
        """Public events: upcoming, running, and finished in the last day."""
        engine = self.service.storage.engine
        rows = await self.service.db(db.list_tournaments, engine, self.clock() - dt.timedelta(days=1))
        counts = await self.service.db(db.count_players, engine, [r.id for r in rows])
        return [self._summary(r, counts.get(r.id, 0)) for r in rows]

    async def view(self, tournament_id: str) -> dict[str, Any]:
        """Everything a tournament's page shows: settings, standings, games on, podium."""
        return await self._view_of(await self._read(await self.get(tournament_id)))

    async def _read(self, row: TournamentRow) -> Records:
        """The event's records (kept by :class:`~.records.EventRecords`: a read costs what
        changed), with its games on remembered, or, once it is over, forgotten."""
        records = await self.records.read(row)
        if row.status == TournamentStatus.FINISHED:
            self._games = {g: t for g, t in self._games.items() if t != row.id}
            self.records.forget(row.id)
        else:
            self._know_games(row.id, records.paired[records.settled :])
        return records

    async def _view_of(self, records: Records) -> dict[str, Any]:
        row, players, paired, ratings = records.row, records.players, records.paired, records.ratings
        names = {p.user_id: p.name for p in players}
        bots = {p.user_id for p in players if p.bot}
        if row.kind == ARENA:
            table = arena_table(players, records.arena_lines(), ratings)
        else:
            byes = await self.service.db(db.byes, self.service.storage.engine, row.id)
            swiss_players, rounds = swiss_record(players, paired, byes, ratings, row.round)
            table = swiss_table(players, swiss_players, rounds, ratings)
        playing = [
            {
                "id": g.game_id,
                "white": names.get(g.white_user),
                "black": names.get(g.black_user),
                "white_title": BOT_TITLE if g.white_user in bots else None,
                "black_title": BOT_TITLE if g.black_user in bots else None,
                "round": g.round,
                "white_berserk": g.white_berserk,
                "black_berserk": g.black_berserk,
            }
            for g in paired[records.settled :]
            if g.status == GameStatus.ACTIVE
        ]
        out = self._summary(row, len(players))
        out.update(
            standings=table,
            playing=playing,
            games=len(paired),
            podium=[line["name"] for line in table[:3]] if row.status == TournamentStatus.FINISHED else [],
        )
        return out

    async def results(self, tournament_id: str) -> list[dict[str, Any]]:
        """Every game of the event, oldest first, with its result as the event counts it
        (an absentee's aborted game is theirs lost; None: still on)."""
        row = await self.get(tournament_id)
        engine = self.service.storage.engine
        names = {p.user_id: p.name for p in await self.service.db(db.entries, engine, row.id)}
        paired = await self.service.db(db.paired_games, engine, row.id)
        out = []
        for g in paired:
            result = swiss_result(g)
            out.append(
                {
                    "id": g.game_id,
                    "round": g.round,
                    "white": names.get(g.white_user),
                    "black": names.get(g.black_user),
                    "status": g.status,
                    "result": None if result is None else result.value,
                    "absent": names.get(absentee(g) or -1),
                    "white_berserk": g.white_berserk,
                    "black_berserk": g.black_berserk,
                }
            )
        return out

    # --- the loop --------------------------------------------------------------------------

    def start(self) -> None:
        self._task = asyncio.create_task(self.run())

    def close(self) -> None:
        if self._task is not None:
            self._task.cancel()

    async def run(self) -> None:
        """Make the scheduled events, then step every unfinished event, forever."""
        while True:
            # cleared before the pass: a game that ends during it wakes the next one at once
            self._wake.clear()
            try:
                await self.tick()
            except asyncio.CancelledError:
                raise
            except StorageUnavailable as exc:  # a database outage: the next tick tries again
                log.warning("tournament step skipped: %s", exc.message)
            except Exception:  # a bug: said in full, and the next tick tries again
                log.exception("tournament step failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), TICK_S)

    async def tick(self) -> None:
        """One pass: the schedule's due events, then a step of each unfinished event."""
        for entry, starts_at, key in due_events(self.schedule, self.clock()):
            if key in self._made:
                continue
            self._made.add(key)
            await self.create(
                kind=entry.kind,
                variant=entry.variant,
                time_control=entry.time_control,
                minutes=entry.minutes,
                rounds=entry.rounds,
                starts_in_min=max(0.0, (starts_at - self.clock()).total_seconds() / 60),
                rated=True,
                private=False,
                name=entry.name,
                creator=None,
                schedule_key=key,
                bots_allowed=entry.bots_allowed,
            )
        ended, self._ended = self._ended, set()
        engine = self.service.storage.engine
        for row in await self.service.db(db.unfinished_tournaments, engine):
            # the pairing first: one view after it shows the result and the new games (a view
            # before it made the pairing wait, and each view is sent to every watcher)
            if await self.step(row, ended=row.id in ended):
                ended.discard(row.id)
            elif row.id in ended:
                # another server holds the lease (its own pass): the players of the game that
                # ended here are paired by whoever comes first, this server soon again
                asyncio.get_running_loop().call_later(RETRY_S, self._wake.set)
        for tournament_id in ended:  # a result without a step of ours: shown everywhere now
            self.hub.poke(room(tournament_id))
        # every watched event, as a safety net (a change missed by the pokes): cheap when its
        # records have not changed (:meth:`_changed`)
        for tournament_id in list(self._watchers):
            await self._changed(tournament_id)

    async def step(self, row: TournamentRow, *, ended: bool = False) -> bool:
        """Start, pair or finish one event, holding its lease; False when another process
        held it (and does the step).  ``ended``: one of its games ended here (its result is
        a change to show even when nobody is paired)."""
        engine = self.service.storage.engine
        at = self.clock()
        if not await self.service.db(db.take_lease, engine, row.id, at + dt.timedelta(seconds=LEASE_S), at):
            return False
        try:
            if row.status == TournamentStatus.CREATED:
                if at < row.starts_at:
                    return True
                await self.service.db(
                    db.set_status, engine, row.id, TournamentStatus.CREATED, TournamentStatus.STARTED
                )
                row = replace(row, status=TournamentStatus.STARTED)
            changed = await (self._step_arena(row, at) if row.kind == ARENA else self._step_swiss(row))
        finally:
            await self.service.db(db.release_lease, engine, row.id)
        if changed or ended:
            self.hub.poke(room(row.id))  # the other servers' players see their new games now
            await self._changed(row.id)
        return True

    async def _step_arena(self, row: TournamentRow, at: dt.datetime) -> bool:
        engine = self.service.storage.engine
        records = await self._read(row)
        players, paired = records.players, records.paired
        changed = await self._pause_absent(row, players, paired)
        if changed:
            records = await self._read(row)
            players = records.players
        lines = records.arena_lines()
        ends_at = row.ends_at
        if ends_at is not None and at >= ends_at:
            if not any(line.playing for line in lines.values()):
                return await self._finish(row)
            return changed
        busy = await self.service.db(db.users_in_games, engine, [p.user_id for p in players if p.active])
        busy |= await self._offline_bots(players)
        pairs = pair_arena(arena_waiting(players, lines, busy, records.ratings))
        names = {p.user_id: p.name for p in players}
        await self._start_games(row, 0, [(pair.white, pair.black) for pair in pairs], names)
        return changed or bool(pairs)

    async def _step_swiss(self, row: TournamentRow) -> bool:
        engine = self.service.storage.engine
        records = await self._read(row)
        players, paired = records.players, records.paired
        changed = await self._pause_absent(row, players, paired)
        if changed:
            records = await self._read(row)
            players = records.players
        byes = await self.service.db(db.byes, engine, row.id)
        if row.round and await self._resume_round(row, players, paired, byes):
            return True
        if any(g.status == GameStatus.ACTIVE for g in paired if g.round == row.round):
            return changed
        if row.round >= (row.rounds or 0):
            return await self._finish(row)
        if sum(p.active for p in players) < 2:
            # nobody to play: the first round waits for a second player; a later one ends the event
            return await self._finish(row) if row.round else changed
        ratings = await self._ratings(row, [p.user_id for p in players])
        swiss_players, rounds = swiss_record(players, paired, byes, ratings, row.round)
        try:
            pairing = pair_round(swiss_players, rounds, row.rounds or 0)
            if not pairing.pairings:
                raise PairingImpossible("no game to play")
        except PairingImpossible:
            log.info("tournament %s: round %d cannot be paired; finishing", row.id, row.round + 1)
            return await self._finish(row)
        number = row.round + 1
        if not await self.service.db(db.set_round, engine, row.id, row.round, number):
            return changed
        names = {p.user_id: p.name for p in players}
        if pairing.bye is not None:
            await self.service.db(db.add_bye, engine, row.id, number, pairing.bye)
        await self._start_games(row, number, [(pair.white, pair.black) for pair in pairing.pairings], names)
        return True

    async def _resume_round(
        self,
        row: TournamentRow,
        players: list[db.EntryRow],
        paired: list[db.PairedGame],
        byes: dict[int, int],
    ) -> bool:
        """Pair the players the current round left out, if any.

        A round is stored first, then its bye and each of its games one by one: a server that
        stopped in between (killed, or its machine gone) left some of the round's players
        without a game, and the round would go on without them.  They are paired now among
        themselves, by the Swiss rules on the rounds before (the players already seated this
        round count as withdrawn for it)."""
        engine = self.service.storage.engine
        seated = {u for g in paired if g.round == row.round for u in (g.white_user, g.black_user)}
        if row.round in byes:
            seated.add(byes[row.round])
        left = [p for p in players if p.active and p.joined_round <= row.round and p.user_id not in seated]
        if len(left) < 2:
            return False
        ratings = await self._ratings(row, [p.user_id for p in players])
        swiss_players, rounds = swiss_record(players, paired, byes, ratings, row.round - 1)
        waiting = {p.user_id for p in left}
        swiss_players = [
            p if p.id in waiting else dataclasses.replace(p, withdrawn_after=row.round - 1)
            for p in swiss_players
        ]
        try:
            pairing = pair_round(swiss_players, rounds, row.rounds or 0)
        except PairingImpossible:
            return False
        log.warning(
            "tournament %s: round %d had %d players without a game (pairing interrupted); paired now",
            row.id,
            row.round,
            len(left),
        )
        if pairing.bye is not None and row.round not in byes:
            await self.service.db(db.add_bye, engine, row.id, row.round, pairing.bye)
        names = {p.user_id: p.name for p in players}
        await self._start_games(
            row, row.round, [(pair.white, pair.black) for pair in pairing.pairings], names
        )
        return bool(pairing.pairings)

    async def _offline_bots(self, players: list[db.EntryRow]) -> set[int]:
        """The active bots without an event stream open (not paired in an arena until they
        connect: they would never see the game)."""
        bots = [p.user_id for p in players if p.bot and p.active]
        if not bots or self.online is None:
            return set()
        return set(bots) - await self.online(bots)

    async def _pause_absent(
        self, row: TournamentRow, players: list[db.EntryRow], paired: list[db.PairedGame]
    ) -> bool:
        """Pause every active player who let a game since they (re)joined be aborted unmoved."""
        engine = self.service.storage.engine
        joined = {p.user_id: p.joined for p in players if p.active}
        paused = False
        for game in paired:
            missing = absentee(game)
            if missing is not None and missing in joined and game.created >= joined[missing]:
                after = row.round if row.kind == SWISS else None
                await self.service.db(db.withdraw, engine, row.id, missing, after)
                del joined[missing]
                paused = True
        return paused

    async def _start_games(
        self, row: TournamentRow, number: int, pairs: list[tuple[int, int]], names: dict[int, str]
    ) -> None:
        """Make the games of a pairing wave together: each is a few database calls, and one
        after the other they took 1.6 s for 16 games under load, the players of the last
        waiting for the first (issue 46's pairing latency; docs/tournaments.md).  Every game is
        tried; the first failure is raised once all are done."""
        at_once = asyncio.Semaphore(START_AT_ONCE)

        async def start(white: int, black: int) -> None:
            async with at_once:
                await self._start_game(row, number, white, black, names)

        done = await asyncio.gather(*(start(white, black) for white, black in pairs), return_exceptions=True)
        for outcome in done:
            if isinstance(outcome, BaseException):
                raise outcome

    async def _start_game(
        self, row: TournamentRow, number: int, white: int, black: int, names: dict[int, str]
    ) -> None:
        live, _secrets = await self.service.create_between(
            row.variant,
            white,
            black,
            rated=row.rated,
            time_control=TimeControl.parse(row.time_control, any_minutes=True),
            names={Color.WHITE: names[white], Color.BLACK: names[black]},
            berserkable=row.kind == ARENA,
        )
        await self.service.db(
            db.add_game, self.service.storage.engine, row.id, live.row.id, number, white, black
        )
        self._games[live.row.id] = row.id

    async def _finish(self, row: TournamentRow) -> bool:
        engine = self.service.storage.engine
        self.records.forget(row.id)
        return bool(
            await self.service.db(
                db.set_status,
                engine,
                row.id,
                TournamentStatus.STARTED,
                TournamentStatus.FINISHED,
                self.clock(),
            )
        )

    # --- views -----------------------------------------------------------------------------

    async def _ratings(self, row: TournamentRow, user_ids: list[int]) -> dict[int, int]:
        infos = await self.service.db(players_by_id, self.service.storage.engine, set(user_ids), row.variant)
        return {user_id: info["rating"] for user_id, info in infos.items()}

    def _summary(self, row: TournamentRow, players: int) -> dict[str, Any]:
        ends_at = row.ends_at
        return {
            "id": row.id,
            "kind": row.kind,
            "variant": row.variant,
            "name": row.name,
            "time_control": row.time_control,
            "rated": row.rated,
            "status": row.status,
            "starts_at": _ms(row.starts_at),
            "ends_at": None if ends_at is None else _ms(ends_at),
            "rounds": row.rounds,
            "round": row.round,
            "private": row.private,
            "bots_allowed": row.bots_allowed,
            "players": players,
            "now": _ms(self.clock()),
        }

    async def watch(self, tournament_id: str, conn: Connection, name: str | None) -> str:
        """A socket of this process on the event (in its room already), of the player ``name``
        (None: a visitor): the text to send it first, its player's own page.  Read under the
        event's view lock, so that no view read before this one is sent to it afterwards."""
        async with self._view_locks.setdefault(tournament_id, asyncio.Lock()):
            watcher = self._watchers.setdefault(tournament_id, {})[conn] = Watcher(name)
            return await self._page_text(tournament_id, watcher)

    def unwatch(self, tournament_id: str, conn: Connection) -> None:
        watchers = self._watchers.get(tournament_id, {})
        watchers.pop(conn, None)
        if not watchers:
            self._watchers.pop(tournament_id, None)
            self._shown.pop(tournament_id, None)
            self._views.pop(tournament_id, None)
            self._view_locks.pop(tournament_id, None)

    async def show_page(self, tournament_id: str, conn: Connection, page: int | None) -> str:
        """The socket ``conn`` asks for a page of the standings (None: its player's own): the
        text to send it now; later views follow that page."""
        async with self._view_locks.setdefault(tournament_id, asyncio.Lock()):
            watcher = self._watchers[tournament_id][conn]
            watcher.page = page
            return await self._page_text(tournament_id, watcher)

    async def _page_text(self, tournament_id: str, watcher: Watcher) -> str:
        """``watcher``'s page of the event's last view, as it is sent to it now (held under the
        event's view lock)."""
        watcher.sent = _text(Pages(await self._last_view(tournament_id)).cut(watcher.page, watcher.name))
        return watcher.sent

    async def _last_view(self, tournament_id: str) -> dict[str, Any]:
        """The event's last view built for its watchers (read now if there is none yet).  Held
        under the event's view lock.  Measured: 500 sockets opening at once each read the view
        while holding the lock, and a 200-player arena's first pairings waited 2 s behind them."""
        view = self._views.get(tournament_id)
        if view is None:
            view = await self.view(tournament_id)
            view.pop("now")  # as in every later view: a page unchanged since is not sent again
            self._views[tournament_id] = view
        return view

    async def _changed(self, tournament_id: str) -> None:
        """Send the event's view to this process's watchers when it differs from the last one
        sent.  Every server runs the loop and recounts the same rows, so each serves its own
        watchers (no view travels on the bus: the server that made a change pokes the others,
        :meth:`_poked`, and the loop's every pass catches anything missed)."""
        if tournament_id not in self._watchers:
            return
        # one at a time per event: a view read later is sent later, never overtaken by an
        # older one (a poke and the loop may ask at once)
        async with self._view_locks.setdefault(tournament_id, asyncio.Lock()):
            records = await self._read(await self.get(tournament_id))
            fingerprint = records.fingerprint()
            if self._shown.get(tournament_id) == fingerprint:
                return  # the same rows as the last view: the same view
            view = await self._view_of(records)
            view.pop("now")
            self._shown[tournament_id] = fingerprint
            self._views[tournament_id] = view
            pages = Pages(view)
            texts: dict[tuple[int, str | None], str] = {}
            watchers = self._watchers.get(tournament_id, {})

            def text_of(conn: Connection) -> str | None:
                watcher = watchers.get(conn)
                if watcher is None:  # joined the room, not yet given its first view
                    return None
                key = pages.key(watcher.page, watcher.name)
                text = texts.get(key)
                if text is None:
                    text = texts[key] = _text(pages.cut(watcher.page, watcher.name))
                if text == watcher.sent:
                    return None  # its page did not change
                watcher.sent = text
                return text

            await self.hub.deliver_each(room(tournament_id), text_of, coalesce=True)

    def _know_games(self, tournament_id: str, paired: list[db.PairedGame]) -> None:
        """Remember the event's games on (a game's end here then wakes the loop at once).  A
        game is forgotten when it ends here, or with its event: not when a read shows it over,
        which may come between its end here and :meth:`_game_changed`."""
        for g in paired:
            if g.status == GameStatus.ACTIVE:
                self._games[g.game_id] = tournament_id

    def _game_changed(self, live: LiveGame) -> None:
        if live.row.status == GameStatus.ACTIVE:
            return
        tournament_id = self._games.pop(live.row.id, None)
        if tournament_id is not None:
            # a tournament game ended here: show the result and pair its players at once
            self._ended.add(tournament_id)
            self._wake.set()

    def _poked(self, key: str) -> None:
        """Another server changed an event (a result, a pairing): show it to this server's
        watchers now rather than at the next pass of the loop."""
        prefix = room("")
        if not key.startswith(prefix) or key[len(prefix) :] not in self._watchers:
            return
        task = asyncio.get_running_loop().create_task(self._refresh(key[len(prefix) :]))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _refresh(self, tournament_id: str) -> None:
        try:
            await self._changed(tournament_id)
        except StorageUnavailable as exc:  # a database outage: the loop's next pass sends the view
            log.warning("tournament view not sent: %s", exc.message)
        except Exception:
            log.exception("tournament view failed")


@dataclasses.dataclass
class Watcher:
    """One socket of this process on an event."""

    name: str | None
    """Its signed-in player's name (None: a visitor)."""
    page: int | None = None
    """The page of the standings it asked for (None: its player's own, else the first)."""
    sent: str | None = None
    """The last view sent to it (the same text is not sent again)."""


def _text(view: dict[str, Any]) -> str:
    return json.dumps({"type": "tournament", "tournament": view})


def _ms(when: dt.datetime) -> int:
    return int(when.replace(tzinfo=dt.UTC).timestamp() * 1000)
