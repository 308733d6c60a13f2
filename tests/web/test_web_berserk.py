"""Berserk in arena games (issue 46), over the API and the game websocket, on real servers.

Two accounts join an arena and are paired; each test drives their game move by move (a fixed
list of quiet Fugue moves, so that a game lasts as many plies as the bonus rule needs).  Every
wait is on an observed state, with a generous bound; no assertion depends on how long a move
took.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from exochess.tournament.arena import ArenaResult, arena_score
from tests.web.serverproc import Server, recv_until, run_async
from tests.web.serverproc import create as create_game
from tests.web.test_web_tournaments import ENV, Player, create, results, view, wait_for

QUIET = (
    "a2-a3", "a7-a6", "a1-a2", "a6-a5", "a2-a1", "a5-a4", "a3-a2",
    "a4-a3", "a2-a4", "a3-a5", "a1-a2", "a5-a3", "a2-b3", "a8-a5",
)  # fmt: skip
"""Fourteen legal plies of Fugue's start with no capture and no repetition: the shortest game
whose berserked win earns the bonus (seven moves each)."""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("berserk") / "site.sqlite", engine_workers=0, env=ENV).start()
    yield srv
    srv.stop()


class Pairing:
    """Two accounts in a 1+2 arena, and their current game."""

    def __init__(self, site: Server) -> None:
        a, b = Player(site, "bz"), Player(site, "bz")
        self.players = {a.name: a, b.name: b}
        self.host = a
        self.event = create(a, kind="arena", minutes=30, time_control="1+2")["id"]
        for p in (a, b):
            assert p.post(f"/api/tournaments/{self.event}/join").status_code == 204
        self.done: set[str] = set()
        self.game = self.next_game()

    def next_game(self) -> dict[str, Any]:
        """The pair's game on that has not been played yet."""

        def fresh() -> list[dict[str, Any]]:
            return [g for g in view(self.host.client, self.event)["playing"] if g["id"] not in self.done]

        game: dict[str, Any] = wait_for("a pairing", fresh)[0]
        self.done.add(game["id"])
        self.white, self.black = self.players[game["white"]], self.players[game["black"]]
        return game

    @property
    def url(self) -> str:
        return f"/api/games/{self.game['id']}"

    def state(self) -> dict[str, Any]:
        res = self.host.client.get(self.url)
        assert res.status_code == 200, res.text
        return dict(res.json())

    def berserk(self, player: Player) -> httpx.Response:
        return player.post(f"{self.url}/berserk")

    def play(self, moves: tuple[str, ...], first: int = 0) -> dict[str, Any]:
        """Play ``moves`` from ply ``first`` (White's at even plies); the last state."""
        state: dict[str, Any] = {}
        for ply, move in enumerate(moves, start=first):
            mover = self.white if ply % 2 == 0 else self.black
            res = mover.post(f"{self.url}/moves", {"move": move, "ply": ply})
            assert res.status_code == 200, res.text
            state = res.json()
        return state

    def resign(self, player: Player) -> None:
        assert player.post(f"{self.url}/resign").status_code == 200

    def table(self) -> dict[str, dict[str, Any]]:
        return {line["name"]: line for line in view(self.host.client, self.event)["standings"]}

    def close(self) -> None:
        for p in self.players.values():
            p.close()


def refused(res: httpx.Response, status: int, words: str) -> None:
    assert res.status_code == status, res.text
    assert words in res.json()["error"], res.text


def test_berserk_halves_the_clock_drops_the_increment_and_earns_the_bonus(site: Server) -> None:
    pair = Pairing(site)
    state = pair.state()
    assert state["berserkable"] and state["berserk"] == {"white": False, "black": False}
    clock = state["clock"]
    assert (clock["white_ms"], clock["black_ms"]) == (60_000, 60_000)
    assert (clock["white_increment_ms"], clock["black_increment_ms"]) == (2_000, 2_000)
    stranger = Player(site, "bz")
    refused(pair.berserk(stranger), 403, "you do not play in this game")  # signed in, no seat here
    pair.play(QUIET[:1])
    refused(pair.berserk(pair.white), 409, "before your first move")
    res = pair.berserk(pair.black)  # after White's first move, before Black's: allowed
    assert res.status_code == 200, res.text
    state = res.json()
    assert state["berserk"] == {"white": False, "black": True}
    clock = state["clock"]
    assert (clock["white_ms"], clock["black_ms"]) == (60_000, 30_000)
    assert (clock["white_increment_ms"], clock["black_increment_ms"]) == (2_000, 0)
    refused(pair.berserk(pair.black), 409, "already berserked")
    assert pair.play(QUIET[1:2], 1)["clock"]["black_ms"] == 30_000  # the clock starts from here
    # Black's next move costs time and brings no increment: never above the halved time
    assert pair.play(QUIET[2:4], 2)["clock"]["black_ms"] <= 30_000
    pair.play(QUIET[4:], 4)
    pair.resign(pair.white)
    refused(pair.berserk(pair.white), 409, "over")
    # a berserked win of fourteen plies: 2 + 1
    table = wait_for("the result", lambda: (t := pair.table())[pair.black.name]["sheet"] and t)
    assert table[pair.black.name]["sheet"] == [3] and table[pair.black.name]["berserks"] == [True]
    assert table[pair.white.name]["sheet"] == [0] and table[pair.white.name]["berserks"] == [False]
    game = results(pair.host.client, pair.event)[0]
    assert (game["white_berserk"], game["black_berserk"]) == (False, True)
    stranger.close()
    pair.close()


def _socket_berserk(
    site: Server, player: Player, game_id: str
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Berserk over the game websocket as ``player``'s account, twice: (the ack, the state
    broadcast after it, the second one's error)."""
    cookie = f"exochess_session={player.client.cookies['exochess_session']}"
    url = site.url.replace("http", "ws") + f"/ws/games/{game_id}"

    async def run() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        headers = {"Cookie": cookie, "Origin": site.url}
        async with websockets.connect(url, additional_headers=headers) as ws:
            await recv_until(ws, "state", timeout=60)
            await ws.send(json.dumps({"type": "berserk", "ref": 1}))
            # the new state is broadcast before the ack is sent: wait for both, in any order
            seen: dict[str, dict[str, Any]] = {}
            while len(seen) < 2:
                message = json.loads(await asyncio.wait_for(ws.recv(), 60))
                if message["type"] == "ack" or (
                    message["type"] == "state" and any(message["berserk"].values())
                ):
                    seen[message["type"]] = message
            ack, state = seen["ack"], seen["state"]
            await ws.send(json.dumps({"type": "berserk", "ref": 2}))
            error = await recv_until(ws, "error", timeout=60)
            return ack, state, error

    # not asyncio.run: a browser test may hold a loop in this thread
    result: tuple[dict[str, Any], dict[str, Any], dict[str, Any]] = run_async(run)
    return result


def test_the_bonus_needs_a_berserkers_win_of_seven_moves(site: Server) -> None:
    """A berserked win in two plies scores 2, a berserker's loss 0 (berserk over the websocket)."""
    pair = Pairing(site)
    ack, state, error = _socket_berserk(site, pair.white, pair.game["id"])
    assert ack["ref"] == 1 and state["berserk"] == {"white": True, "black": False}
    assert state["clock"]["white_ms"] == 30_000 and state["clock"]["black_ms"] == 60_000
    assert error["ref"] == 2 and error["status"] == 409 and "already berserked" in error["error"]
    first_winner = pair.white.name
    pair.play(QUIET[:2])
    pair.resign(pair.black)  # the berserker wins, but in two plies: no bonus
    pair.game = pair.next_game()
    assert pair.berserk(pair.black).status_code == 200
    pair.play(QUIET[:2])
    pair.resign(pair.black)  # the berserker loses
    second_winner = pair.white.name
    games = wait_for("two results", lambda: len(g := results(pair.host.client, pair.event)) >= 2 and g)
    table = wait_for("two games counted", lambda: len((t := pair.table())[first_winner]["sheet"]) == 2 and t)
    for name, line in table.items():
        mine: list[tuple[ArenaResult, bool]] = []
        for winner in (first_winner, second_winner):
            mine.append((ArenaResult.WIN if winner == name else ArenaResult.LOSS, False))  # no bonus
        assert line["score"] == arena_score(mine), (name, line, games)
    berserkers = [(g["white_berserk"], g["black_berserk"]) for g in games[:2]]
    assert berserkers == [(True, False), (False, True)]
    pair.close()


def test_berserk_is_refused_outside_an_arena(site: Server) -> None:
    with httpx.Client(base_url=site.url, timeout=60.0) as http:
        for control, status, words in (
            ("1+0", 409, "arena"),
            ("1d", 409, "correspondence"),
            ("-", 409, "real-time clock"),
        ):
            game = create_game(http, variant="fugue", opponent="friend", time_control=control)
            secret = game["seats"]["white"]["secret"]
            res = http.post(f"/api/games/{game['id']}/berserk", json={"secret": secret})
            refused(res, status, words)
            state = http.get(f"/api/games/{game['id']}").json()
            assert not state["berserkable"] and state["berserk"] == {"white": False, "black": False}
        res = http.post(f"/api/games/{game['id']}/berserk", json={"secret": 5})
        assert res.status_code in (400, 422) and "secret" in res.text


def test_a_berserk_survives_a_restart(tmp_path: Path) -> None:
    srv = Server(tmp_path / "site.sqlite", engine_workers=0, env=ENV).start()
    try:
        pair = Pairing(srv)
        assert pair.berserk(pair.black).status_code == 200
        pair.play(QUIET[:1])
        before = pair.state()
        pair.close()
        srv.kill()  # kill -9: nothing is kept but the database
        srv.start()
        with httpx.Client(base_url=srv.url, timeout=60.0) as http:
            after = http.get(f"/api/games/{before['id']}").json()
        assert after["berserk"] == {"white": False, "black": True}
        assert after["clock"]["black_ms"] == 30_000 and after["clock"]["black_increment_ms"] == 0
        assert after["clock"] == before["clock"]
    finally:
        srv.stop()
