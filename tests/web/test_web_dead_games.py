"""No dead games (issue 40): invitations nobody joins expire after a day, untimed games with
no move for a long time are called off, and the lobby's live list holds only games both sides
have moved in recently.  The clock is injected: nothing sleeps."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from exochess.web.domain import Color, GameStatus
from exochess.web.game.deadgames import IDLE_TTL, INVITATION_TTL, DeadGames
from exochess.web.game.service import GameService
from exochess.web.game.timecontrol import TimeControl
from exochess.web.live.hub import Hub
from exochess.web.social.lobby import LASTING_WINDOW, LIVE_WINDOW
from exochess.web.storage.store import Storage, now
from tests.web.serverproc import run_async


def test_dead_invitations_expire_and_idle_untimed_games_are_called_off(tmp_path: Path) -> None:
    async def run() -> None:
        svc = GameService(Storage(f"sqlite:///{tmp_path / 'd.sqlite'}"), None, Hub())
        try:
            invite, _, _ = await svc.create("fugue", "friend", None, "white", None)
            started, seats, _ = await svc.create("fugue", "friend", None, "white", None)
            await svc.play(started.row.id, seats[Color.WHITE], "d2-d3", 0)
            await svc.play(started.row.id, seats[Color.BLACK], "e7-e6", 1)
            timed, _, _ = await svc.create("fugue", "friend", None, "white", None, TimeControl.parse("3d"))
            start = now()
            clock = [start]
            dead = DeadGames(svc, clock=lambda: clock[0])
            # an hour later nothing is dead
            clock[0] = start + dt.timedelta(hours=1)
            assert await dead.sweep() == []
            # a day on, the invitations nobody moved in are called off
            clock[0] = start + INVITATION_TTL + dt.timedelta(minutes=1)
            assert sorted(await dead.sweep()) == sorted([invite.row.id, timed.row.id])
            state = svc.reader.state(await svc.get(invite.row.id))
            assert state["status"] == GameStatus.ABORTED and "invitation expired" in state["reason"]
            assert (await svc.get(started.row.id)).row.status == GameStatus.ACTIVE
            # an untimed game nobody moves in for a long time goes too
            clock[0] = start + IDLE_TTL + dt.timedelta(minutes=1)
            assert await dead.sweep() == [started.row.id]
            again = await svc.get(started.row.id)
            assert again.row.status == GameStatus.ABORTED and again.row.moves == ["d2-d3", "e7-e6"]
            # aborted games leave everybody's list of games
            listed = {r.id for r in await svc.db(svc.storage.recent_games, 30)}
            assert not listed & {invite.row.id, timed.row.id, started.row.id}
        finally:
            svc.close()
            svc.storage.close()

    run_async(run)


def test_the_live_list_holds_only_games_both_sides_moved_in_recently(tmp_path: Path) -> None:
    async def run() -> None:
        svc = GameService(Storage(f"sqlite:///{tmp_path / 'l.sqlite'}"), None, Hub())
        storage = svc.storage
        try:
            games = {}
            for name, control in (("one-move", "5+3"), ("both", "5+3"), ("post", "3d")):
                live, seats, _ = await svc.create(
                    "fugue", "friend", None, "white", None, TimeControl.parse(control)
                )
                await svc.play(live.row.id, seats[Color.WHITE], "d2-d3", 0)
                if name != "one-move":
                    await svc.play(live.row.id, seats[Color.BLACK], "e7-e6", 1)
                games[name] = live.row.id
            await svc.create("fugue", "friend", None, "white", None)  # an invitation: never listed

            def listed(at: dt.datetime) -> set[str]:
                return {g.id for g in storage.live_games(at - LIVE_WINDOW, 20, at - LASTING_WINDOW)}

            start = now()
            assert listed(start) == {games["both"], games["post"]}
            # minutes later the real-time game without a move is off the list; correspondence stays
            assert listed(start + LIVE_WINDOW + dt.timedelta(seconds=1)) == {games["post"]}
            assert listed(start + LASTING_WINDOW + dt.timedelta(seconds=1)) == set()
        finally:
            svc.close()
            storage.close()

    run_async(run)
