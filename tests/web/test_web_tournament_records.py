"""What a server keeps of an event between reads (:mod:`exochess.web.social.records`, issue 46's
targets): after any sequence of results and pairings, a read that reuses the settled games and
the kept ratings gives the same lines, games and ratings as a recount from scratch; a game
made behind the reader's back (one it could not have kept) makes it read everything again.
Real SQLite file, real games played and resigned through the game service."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from sqlalchemy import insert

from exochess.web.accounts.ratings import players_by_id
from exochess.web.accounts.users import Accounts
from exochess.web.domain import GameStatus
from exochess.web.game.service import GameService
from exochess.web.limits import RateLimits
from exochess.web.live.hub import Hub
from exochess.web.social.records import EventRecords, Records
from exochess.web.social.standings import arena_lines
from exochess.web.social.tournaments import Tournaments
from exochess.web.storage import tournaments as db
from exochess.web.storage.store import Storage, tournament_games
from tests.web.serverproc import run_async

PLAYERS = 6


async def recount(svc: GameService, records: Records) -> None:
    """``records`` equal a read from scratch: the same games, lines and ratings."""
    engine = svc.storage.engine
    players = await svc.db(db.entries, engine, records.row.id)
    paired = await svc.db(db.paired_games, engine, records.row.id)
    infos = await svc.db(players_by_id, engine, {p.user_id for p in players}, records.row.variant)
    assert records.paired == paired
    assert records.players == players
    assert records.ratings == {user_id: info["rating"] for user_id, info in infos.items()}
    assert records.arena_lines() == arena_lines(players, paired)


def test_kept_records_equal_a_recount_through_an_arena(tmp_path: Path) -> None:
    async def run() -> None:
        svc = GameService(Storage(f"sqlite:///{tmp_path / 'r.sqlite'}"), None, Hub())
        engine = svc.storage.engine
        tournaments = Tournaments(svc, RateLimits(""), tiny_clocks=True)
        other = EventRecords(svc)  # a second reader, as another server's
        try:
            accounts = Accounts(engine)
            users = [accounts.create(f"rec{i}", "a long password") for i in range(PLAYERS)]
            by_id = {user.id: user for user in users}
            row = await tournaments.create(
                kind="arena",
                variant="fugue",
                time_control="3+0",
                minutes=60,
                rounds=None,
                starts_in_min=0,
                rated=True,
                private=False,
                name="Records",
                creator=users[0],
            )
            assert row is not None
            for user in users:
                await tournaments.join(row.id, user)
            settled_seen = 0
            for wave in range(12):
                row = await tournaments.get(row.id)
                assert await tournaments.step(row)  # pairs, and pauses who let a game be aborted
                for entry in await svc.db(db.entries, engine, row.id):
                    if not entry.active:  # back from the pause: paired at the next step
                        await tournaments.join(row.id, by_id[entry.user_id])
                records = await tournaments.records.read(row)
                await recount(svc, records)
                await recount(svc, await other.read(row))
                settled_seen = max(settled_seen, records.settled)
                on = [g for g in records.paired if g.status == GameStatus.ACTIVE]
                assert on, f"wave {wave}: nobody paired"
                # end the oldest game on: the others stay on, so the settled part stops there
                game = on[0]
                white = game.white_user
                if wave % 3 == 0:  # an abandoned game (nobody moved): a loss by absence
                    await svc.abort(game.game_id, None, white)
                else:
                    await svc.play(game.game_id, None, "d2-d3", 0, user_id=game.white_user)
                    await svc.play(game.game_id, None, "e7-e6", 1, user_id=game.black_user)
                    await svc.resign(game.game_id, None, white if wave % 2 else game.black_user)
            assert settled_seen > 0, "no game was ever settled: the test did not test the kept part"
            # a game stored with an old time, which no reader could have kept: read all again
            made, _seats = await svc.create_between("fugue", users[0].id, users[1].id)
            with engine.begin() as conn:
                conn.execute(
                    insert(tournament_games).values(
                        game_id=made.row.id,
                        tournament_id=row.id,
                        round=0,
                        white_user=users[0].id,
                        black_user=users[1].id,
                        created=dt.datetime(2000, 1, 1),
                    )
                )
            row = await tournaments.get(row.id)
            records = await tournaments.records.read(row)
            assert records.paired[0].game_id == made.row.id
            await recount(svc, records)
            await recount(svc, await other.read(row))
        finally:
            tournaments.close()
            svc.close()
            svc.storage.close()

    run_async(run)
