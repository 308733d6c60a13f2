"""Fair play over the API: no engine for anyone in a live game between people (403, whoever
asks), the computer's games keep their evaluation; a rated game's PGN as other sites write it
(TimeControl, [%clk] after each move, Termination, Elo, Rated), read back with its clocks."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from exochess.pgn import read_game
from tests.web.serverproc import Server
from tests.web.test_web_accounts import fresh_name, signed_client

PASSWORD = "a long password"


@pytest.fixture(scope="module")
def fair_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(
        tmp_path_factory.mktemp("fair") / "fair.sqlite", env={"EXOCHESS_LOBBY_GRACE_S": "120"}
    ).start()
    yield srv
    srv.stop()


def account(server: Server, prefix: str) -> httpx.Client:
    client = signed_client(server)
    res = client.post("/api/account/signup", json={"name": fresh_name(prefix), "password": PASSWORD})
    assert res.status_code == 201, res.text
    return client


def rated_game(server: Server, time_control: str = "1+0") -> tuple[str, dict[str, httpx.Client]]:
    """A rated game between two new accounts, met in the lobby: (game id, client by colour)."""
    alice, bob = account(server, "fa"), account(server, "fb")
    res = alice.post(
        "/api/challenges",
        json={"variant": "fugue", "time_control": time_control, "color": "white", "rated": True},
    )
    assert res.status_code == 201, res.text
    res = bob.post(f"/api/challenges/{res.json()['challenge']['id']}/accept", json={})
    assert res.status_code == 200, res.text
    return res.json()["game"], {"white": alice, "black": bob}


def test_no_engine_for_anyone_while_a_game_between_people_is_on(fair_server: Server) -> None:
    game, players = rated_game(fair_server)
    assert (
        players["white"].post(f"/api/games/{game}/moves", json={"move": "e2-e3", "ply": 0}).status_code == 200
    )
    with httpx.Client(base_url=fair_server.url, timeout=30.0) as spectator:
        askers: list[tuple[httpx.Client, dict[str, Any]]] = [
            (players["white"], {}),
            (players["black"], {}),
            (spectator, {}),
            (spectator, {"secret": "x" * 22}),
        ]
        for client, body in askers:
            res = client.post(f"/api/games/{game}/evaluate", json=body)
            assert res.status_code == 403, res.text
            assert "analysis after the game" in res.json()["error"]
        # the refusal is translated like every other error
        res = spectator.post(f"/api/games/{game}/evaluate", json={}, headers={"Accept-Language": "fr"})
        assert res.status_code == 403 and "analysis after the game" not in res.json()["error"]
        # a casual game between two guests is refused too
        created = spectator.post("/api/games", json={"variant": "fugue", "opponent": "friend"}).json()
        secret = created["seats"][created["you"]]["secret"]
        res = spectator.post(f"/api/games/{created['id']}/evaluate", json={"secret": secret})
        assert res.status_code == 403, res.text
    # once the game is over, nothing is withheld any more (its position may be analysed)
    assert players["black"].post(f"/api/games/{game}/resign", json={}).status_code == 200
    res = players["black"].post(f"/api/games/{game}/evaluate", json={})
    assert res.status_code != 403, res.text
    for client in players.values():
        client.close()


def test_a_game_against_the_computer_keeps_its_evaluation(fair_server: Server) -> None:
    with httpx.Client(base_url=fair_server.url, timeout=60.0) as client:
        created = client.post(
            "/api/games", json={"variant": "fugue", "opponent": "computer", "level": 1, "color": "white"}
        ).json()
        secret = created["seats"]["white"]["secret"]
        res = client.post(f"/api/games/{created['id']}/evaluate", json={"secret": secret})
        assert res.status_code in (200, 503), res.text  # 503: a server without engine workers
        assert res.status_code != 403


def test_pgn_of_a_rated_game_as_other_sites_write_it(fair_server: Server) -> None:
    game, players = rated_game(fair_server, "3+2")
    for ply, (color, move) in enumerate([("white", "e2-e3"), ("black", "d7-d6"), ("white", "d2-d3")]):
        res = players[color].post(f"/api/games/{game}/moves", json={"move": move, "ply": ply})
        assert res.status_code == 200, res.text
    assert players["black"].post(f"/api/games/{game}/resign", json={}).status_code == 200
    text = players["white"].get(f"/api/games/{game}/pgn").text
    assert '[TimeControl "180+2"]' in text and '[Termination "resignation"]' in text
    assert '[Rated "true"]' in text and '[WhiteElo "1500"]' in text and '[BlackElo "1500"]' in text
    assert text.count("[%clk ") == 3
    read = read_game(text)
    assert sorted(read.clocks) == [1, 2, 3]
    # each move's clock: the base time plus the increment, less the thinking time
    assert all(0 < ms <= 182_000 for ms in read.clocks.values()), read.clocks
    assert [str(m) for m in read.moves] == ["e2-e3", "d7-d6", "d2-d3"]
    for client in players.values():
        client.close()


def test_two_accounts_of_one_browser_cannot_take_both_seats(fair_server: Server) -> None:
    alice, bob = account(fair_server, "ba"), account(fair_server, "bb")
    browser = secrets.token_urlsafe(18)  # the token one browser keeps, whoever signs in there
    res = alice.post(
        "/api/challenges", json={"variant": "fugue", "time_control": "1+0", "rated": True, "player": browser}
    )
    assert res.status_code == 201, res.text
    cid = res.json()["challenge"]["id"]
    res = bob.post(f"/api/challenges/{cid}/accept", json={"player": browser})
    assert res.status_code == 409 and "one browser" in res.json()["error"], res.text
    assert (
        bob.post(f"/api/challenges/{cid}/accept", json={"player": secrets.token_urlsafe(18)}).status_code
        == 200
    )
    alice.close()
    bob.close()


@pytest.mark.parametrize(
    ("variant", "fen", "rank"),
    [
        ("fugue", "8K/8/8/8/8/8/8/k7 w", "rank 8"),
        ("rebelfury", "12F/12/12/12/12/12/12/12/12/12/12/f11 w", "rank 12"),
        ("fugue", "8/8/8/8/8/8/8/" + "9" * 5000 + " w", "rank 1"),
    ],
)
def test_a_rank_too_long_is_a_400_naming_it(fair_server: Server, variant: str, fen: str, rank: str) -> None:
    with httpx.Client(base_url=fair_server.url, timeout=30.0) as client:
        for path, body in (
            ("/api/position", {"variant": variant, "fen": fen}),
            ("/api/games", {"variant": variant, "opponent": "friend", "fen": fen}),
        ):
            res = client.post(path, json=body)
            assert res.status_code == 400, (path, res.text)
            assert rank in res.json()["error"] and "describes more than" in res.json()["error"]
