"""Tournaments on the site (issue 46): arenas and Swiss events over the API, on real servers.

The servers run with tiny clocks (any arena length, in minutes with decimals) and no schedule;
scripted players are accounts that play two moves and then resign or agree a result, so that a
test's games end as fast as the machine allows.  Every wait is on an observed state, with a
generous bound.
"""

from __future__ import annotations

import itertools
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from exochess.tournament.arena import ArenaResult, arena_score
from exochess.tournament.common import Colour
from exochess.tournament.standings import standings
from exochess.tournament.swiss import Game, SwissPlayer, SwissResult, SwissRound
from tests.web.serverproc import Server

ENV = {"EXOCHESS_TEST_TINY_CLOCKS": "1", "EXOCHESS_TOURNAMENT_SCHEDULE": ""}
WAIT_S = 300.0
"""Bound on any wait for the server's loop (it ticks every half second; a loaded machine is slow)."""
_names = itertools.count()


def wait_for(what: str, probe: Callable[[], Any], timeout: float = WAIT_S) -> Any:
    """``probe()``'s first truthy answer, polled until ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = probe()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


class Player:
    """A signed-in account driving the API."""

    def __init__(self, server: Server, prefix: str = "tp") -> None:
        self.name = f"{prefix}{next(_names)}x{int(time.time() * 1000) % 100000}"
        self.client = httpx.Client(base_url=server.url, timeout=60.0, headers={"Origin": server.url})
        res = self.client.post("/api/account/signup", json={"name": self.name, "password": "a long password"})
        assert res.status_code == 201, res.text

    def post(self, url: str, body: dict[str, Any] | None = None) -> httpx.Response:
        return self.client.post(url, json=body or {})

    def close(self) -> None:
        self.client.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("tournaments") / "site.sqlite", engine_workers=0, env=ENV).start()
    yield srv
    srv.stop()


def create(player: Player, **body: Any) -> dict[str, Any]:
    res = player.post("/api/tournaments", {"variant": "fugue", "time_control": "1+0", "starts_in": 0, **body})
    assert res.status_code == 201, res.text
    return dict(res.json())


def view(client: httpx.Client, tournament_id: str) -> dict[str, Any]:
    res = client.get(f"/api/tournaments/{tournament_id}")
    assert res.status_code == 200, res.text
    return dict(res.json())


def results(client: httpx.Client, tournament_id: str) -> list[dict[str, Any]]:
    return list(client.get(f"/api/tournaments/{tournament_id}/games").json()["games"])


OPENING = ("d2-d3", "e7-e6")
"""Two legal moves of Fugue's start: a game with both sides moved can be resigned."""


def finish_game(players: dict[str, Player], game: dict[str, Any], loser: str | None) -> None:
    """Play the opening, then ``loser`` resigns (None: White offers a draw, Black accepts...
    there is no draw offer in the API, so a drawn game is not scripted)."""
    white, black = players[game["white"]], players[game["black"]]
    for player, move in zip((white, black), OPENING, strict=True):
        res = player.post(f"/api/games/{game['id']}/moves", {"move": move})
        assert res.status_code == 200, res.text
    res = players[loser or game["black"]].post(f"/api/games/{game['id']}/resign")
    assert res.status_code == 200, res.text


def arena_recount(games: list[dict[str, Any]], name: str) -> int:
    """A player's arena score recounted from the event's games (the test's own count)."""
    mine: list[tuple[ArenaResult, bool]] = []
    for g in games:
        if g["result"] is None or name not in (g["white"], g["black"]):
            continue
        points = SwissResult(g["result"]).points(Colour.WHITE if g["white"] == name else Colour.BLACK)
        mine.append(
            (ArenaResult.WIN if points == 1 else ArenaResult.DRAW if points else ArenaResult.LOSS, False)
        )
    return arena_score(mine)


# --- requests checked -------------------------------------------------------------------


def test_bad_requests_are_refused_by_name(site: Server) -> None:
    alice = Player(site)
    cases: list[tuple[dict[str, Any], str]] = [
        ({"kind": "league"}, "kind"),
        ({"kind": "arena", "minutes": 30, "variant": "chess"}, "chess"),
        ({"kind": "arena", "minutes": 30, "time_control": "3d"}, "real-time"),
        ({"kind": "arena", "minutes": 30, "time_control": "9+x"}, "9+x"),
        ({"kind": "arena"}, "arena lasts"),
        ({"kind": "swiss"}, "rounds"),
        ({"kind": "swiss", "rounds": 99}, "rounds"),
        ({"kind": "arena", "minutes": 30, "starts_in": -1}, "starts_in"),
    ]
    for body, words in cases:
        res = alice.post("/api/tournaments", {"variant": "fugue", "time_control": "3+2", **body})
        assert res.status_code in (400, 422), (body, res.text)
        assert words in res.text, (body, res.text)
    with httpx.Client(base_url=site.url, timeout=60.0, headers={"Origin": site.url}) as guest:
        res = guest.post(
            "/api/tournaments",
            json={"kind": "arena", "variant": "fugue", "time_control": "3+2", "minutes": 30},
        )
        assert res.status_code == 401 and "sign in" in res.json()["error"]
        assert guest.get("/api/tournaments/nosuchid").status_code == 404
        assert guest.post("/api/tournaments/nosuchid/join", json={}).status_code == 401
    assert alice.post("/api/tournaments/nosuchid/join").status_code == 404
    made = create(alice, kind="arena", minutes=30, starts_in=60)
    assert alice.post(f"/api/tournaments/{made['id']}/withdraw").status_code == 409  # never joined
    alice.close()


def test_an_upcoming_event_is_listed_with_its_start(site: Server) -> None:
    alice = Player(site)
    made = create(alice, kind="swiss", rounds=3, starts_in=30, name="  Sunday   Swiss ")
    assert made["name"] == "Sunday Swiss" and made["status"] == "created"
    assert made["starts_at"] - made["now"] == pytest.approx(30 * 60_000, abs=5000)
    listed = {t["id"]: t for t in alice.client.get("/api/tournaments").json()["tournaments"]}
    assert listed[made["id"]]["rounds"] == 3
    secret = create(alice, kind="arena", minutes=30, starts_in=30, private=True, name="Hidden one")
    assert secret["id"] not in {t["id"] for t in alice.client.get("/api/tournaments").json()["tournaments"]}
    assert view(alice.client, secret["id"])["private"] is True  # its link still opens it
    page = alice.client.get("/tournaments")
    assert page.status_code == 200 and "Sunday Swiss" in page.text and secret["name"] not in page.text
    assert alice.client.get(f"/tournaments/{made['id']}").status_code == 200
    alice.close()


# --- an arena ---------------------------------------------------------------------------


def test_an_arena_of_twenty_scripted_players(site: Server) -> None:
    """Twenty players join a short arena and play every game they are given until it ends:
    everyone is paired, nobody twice at once, standings equal the test's recount, podium right."""
    players = {p.name: p for p in (Player(site, "ar") for _ in range(20))}
    host = next(iter(players.values()))
    made = create(host, kind="arena", minutes=0.4, name="Twenty")
    for p in players.values():
        assert p.post(f"/api/tournaments/{made['id']}/join").status_code == 204
    done: set[str] = set()
    order = list(players)
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        now = view(host.client, made["id"])
        busy = [name for g in now["playing"] for name in (g["white"], g["black"])]
        assert len(busy) == len(set(busy)), "a player is in two games at once"
        for g in now["playing"]:
            if g["id"] in done:
                continue
            done.add(g["id"])
            # the player earlier in the list wins: results differ from player to player
            loser = g["white"] if order.index(g["white"]) > order.index(g["black"]) else g["black"]
            finish_game(players, g, loser)
        if now["status"] == "finished":
            break
        time.sleep(0.1)
    else:
        raise AssertionError("the arena did not finish")
    games = results(host.client, made["id"])
    assert all(g["result"] is not None for g in games)
    assert {n for g in games for n in (g["white"], g["black"])} == set(players), "everyone was paired"
    table = now["standings"]
    assert [line["rank"] for line in table] == list(range(1, 21))
    for line in table:
        assert line["score"] == arena_recount(games, line["name"]), line
        assert len(line["sheet"]) == sum(line["name"] in (g["white"], g["black"]) for g in games)
    assert [line["score"] for line in table] == sorted((line["score"] for line in table), reverse=True)
    assert now["podium"] == [line["name"] for line in table[:3]]
    assert order[0] == now["podium"][0] or table[0]["score"] == arena_recount(games, order[0])
    for p in players.values():
        p.close()


def test_a_player_who_never_moves_loses_and_is_paused(tmp_path: Path) -> None:
    """The first-move limit aborts the game of an absent player: the event counts it as their
    loss, the opponent's win, and pauses them until they join again."""
    srv = Server(
        tmp_path / "site.sqlite", engine_workers=0, env={**ENV, "EXOCHESS_TEST_TIMING": "1500"}
    ).start()
    try:
        present, absent = Player(srv, "here"), Player(srv, "gone")
        made = create(present, kind="arena", minutes=30)
        for p in (present, absent):
            assert p.post(f"/api/tournaments/{made['id']}/join").status_code == 204
        game = wait_for("a pairing", lambda: view(present.client, made["id"])["playing"])[0]
        if game["white"] == present.name:  # White moves; the absent Black never does
            assert present.post(f"/api/games/{game['id']}/moves", {"move": OPENING[0]}).status_code == 200
        lines = wait_for(
            "the pause",
            lambda: {
                line["name"]: line
                for line in view(present.client, made["id"])["standings"]
                if not line["active"]
            },
        )
        assert set(lines) == {absent.name}
        table = {line["name"]: line for line in view(present.client, made["id"])["standings"]}
        assert table[present.name]["score"] == 2 and table[absent.name]["score"] == 0
        assert results(present.client, made["id"])[0]["absent"] == absent.name
        # back with "join": paired again
        assert absent.post(f"/api/tournaments/{made['id']}/join").status_code == 204
        wait_for("a second pairing", lambda: len(results(present.client, made["id"])) == 2)
    finally:
        srv.stop()


# --- a Swiss event ----------------------------------------------------------------------


def swiss_recount(games: list[dict[str, Any]], names: list[str], ratings: dict[str, int]) -> list[str]:
    """The final order by the tie-break rules, recounted by the pairing library's standings."""
    ids = {name: i for i, name in enumerate(names)}
    rounds = []
    for number in sorted({g["round"] for g in games}):
        played = [
            Game(white=ids[g["white"]], black=ids[g["black"]], result=SwissResult(g["result"]))
            for g in games
            if g["round"] == number
        ]
        paired = {n for g in played for n in (g.white, g.black)}
        bye = [i for i in ids.values() if i not in paired]
        rounds.append(SwissRound(games=tuple(played), bye=bye[0] if bye else None))
    table = standings([SwissPlayer(id=ids[n], rating=ratings[n]) for n in names], rounds)
    return [names[s.player] for s in table]


def play_swiss_round(
    host: Player, players: dict[str, Player], tournament_id: str, number: int, games: int
) -> None:
    on = wait_for(
        f"round {number}",
        lambda: (
            (v := view(host.client, tournament_id))["round"] == number
            and len(v["playing"]) == games
            and v["playing"]
        ),
    )
    for g in on:
        # White wins odd rounds, Black even ones: scores spread, tie-breaks decide
        finish_game(players, g, g["black"] if number % 2 else g["white"])


def test_a_swiss_of_three_rounds_survives_a_restart(tmp_path: Path) -> None:
    """Five players (a bye each round), three rounds; the server is killed after round 1 and
    the restarted one pairs round 2 from the stored record.  Final tie-breaks recounted."""
    db = tmp_path / "site.sqlite"
    # a server restarted on a loaded machine can take half a minute: no game may be called off
    # for its first move meanwhile (the default first-move limit is 30 s)
    srv = Server(db, engine_workers=0, env={**ENV, "EXOCHESS_TEST_TIMING": "600000"}).start()
    try:
        players = {p.name: p for p in (Player(srv, "sw") for _ in range(5))}
        host = next(iter(players.values()))
        made = create(host, kind="swiss", rounds=3, starts_in=60)
        for p in players.values():
            assert p.post(f"/api/tournaments/{made['id']}/join").status_code == 204
        assert players[list(players)[1]].post(f"/api/tournaments/{made['id']}/start").status_code == 409
        assert host.post(f"/api/tournaments/{made['id']}/start").status_code == 204
        play_swiss_round(host, players, made["id"], 1, 2)
        wait_for(
            "round 1's results",
            # round 2 may be paired already (its games still on): only round 1's must be over
            lambda: all(g["result"] for g in results(host.client, made["id"]) if g["round"] == 1),
        )
        srv.kill()
        srv.start()
        for number in (2, 3):
            play_swiss_round(host, players, made["id"], number, 2)
        final = wait_for(
            "the end", lambda: (v := view(host.client, made["id"]))["status"] == "finished" and v
        )
        games = results(host.client, made["id"])
        assert len(games) == 6  # two games a round, one bye
        pairs = [frozenset((g["white"], g["black"])) for g in games]
        assert len(pairs) == len(set(pairs)), "no pairing repeats"
        ratings = {line["name"]: line["rating"] for line in final["standings"]}
        assert [line["name"] for line in final["standings"]] == swiss_recount(games, list(players), ratings)
        assert final["podium"] == [line["name"] for line in final["standings"][:3]]
        assert sum(line["score"] for line in final["standings"]) == 6 + 3  # a point a game and a bye
    finally:
        srv.stop()


def test_a_round_whose_pairing_was_interrupted_is_completed_after_a_restart(tmp_path: Path) -> None:
    """A server that stopped while storing a round's games (one by one) left two players of it
    without a game: the restarted server pairs them."""
    db_path = tmp_path / "site.sqlite"
    srv = Server(db_path, engine_workers=0, env={**ENV, "EXOCHESS_TEST_TIMING": "600000"}).start()
    try:
        players = [Player(srv, "cut") for _ in range(4)]
        made = create(players[0], kind="swiss", rounds=2, starts_in=60)
        for p in players:
            assert p.post(f"/api/tournaments/{made['id']}/join").status_code == 204
        assert players[0].post(f"/api/tournaments/{made['id']}/start").status_code == 204
        wait_for("round 1", lambda: len(view(players[0].client, made["id"])["playing"]) == 2)
        srv.kill()
        # as if the server had died before storing the round's second game: drop it
        with sqlite3.connect(db_path) as conn:
            game_id, white, black = conn.execute(
                "SELECT game_id, white_user, black_user FROM tournament_games WHERE tournament_id = ? "
                "ORDER BY game_id LIMIT 1",
                (made["id"],),
            ).fetchone()
            conn.execute("DELETE FROM tournament_games WHERE game_id = ?", (game_id,))
            conn.execute("UPDATE games SET status = 'aborted' WHERE id = ?", (game_id,))
        srv.start()
        again = wait_for(
            "the round completed",
            lambda: len((v := view(players[0].client, made["id"]))["playing"]) == 2 and v["playing"],
        )
        assert view(players[0].client, made["id"])["round"] == 1
        seated = [{g["white"], g["black"]} for g in again]
        assert all(g["id"] != game_id for g in again)
        assert set().union(*seated) == {p.name for p in players}  # everyone has a game again
        with sqlite3.connect(db_path) as conn:
            lost = {r[0] for r in conn.execute("SELECT name FROM users WHERE id IN (?, ?)", (white, black))}
        assert lost in seated  # the two left out play each other
    finally:
        srv.stop()


def test_withdrawn_players_are_not_paired(site: Server) -> None:
    a, b, c = (Player(site, "wd") for _ in range(3))
    made = create(a, kind="swiss", rounds=2, starts_in=60)
    for p in (a, b, c):
        assert p.post(f"/api/tournaments/{made['id']}/join").status_code == 204
    assert c.post(f"/api/tournaments/{made['id']}/withdraw").status_code == 204
    assert a.post(f"/api/tournaments/{made['id']}/start").status_code == 204
    assert a.post(f"/api/tournaments/{made['id']}/start").status_code == 409
    on = wait_for("round 1", lambda: view(a.client, made["id"])["playing"])
    assert {on[0]["white"], on[0]["black"]} == {a.name, b.name}
    table = {line["name"]: line for line in view(a.client, made["id"])["standings"]}
    assert table[c.name]["active"] is False
