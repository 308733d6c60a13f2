"""House bots are the computer's seats (issue 47, item 5) on a real server: "play the computer"
at a level is a game against that level's bot account (shown with its BOT title on the game,
the profiles and the PGN; unrated, takebacks as before), and a challenge to the bot is
answered at once by the server, rated if the challenge says so (no engine help while it is on),
declined by a server without an engine."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from exochess.board import Board
from exochess.web.app import create_app
from tests.web.apiclients import Stream, bearer, make_token, move_path, signup
from tests.web.serverproc import Server

NAMES = (f"house{i}" for i in itertools.count())
WAIT_S = 120.0


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("housebots") / "site.sqlite").start()
    yield srv
    srv.stop()


def state_at(client: httpx.Client, game_id: str, ply: int) -> dict[str, Any]:
    """The game's state once it has reached ``ply`` (the computer's move stored)."""
    deadline = time.monotonic() + WAIT_S
    while True:
        state: dict[str, Any] = client.get(f"/api/games/{game_id}").json()
        if state["ply"] >= ply or time.monotonic() > deadline:
            assert state["ply"] >= ply, f"the computer did not move in {WAIT_S:.0f} s"
            return state
        time.sleep(0.2)


def a_move(moves: list[str]) -> str:
    board = Board("fugue")
    for text in moves:
        board.push_text(text)
    return str(sorted(board.legal_moves, key=str)[0])


def test_playing_the_computer_is_playing_its_house_bot_unrated(site: Server) -> None:
    name = next(NAMES)
    person = signup(site.url, name)
    made = person.post(
        "/api/games", json={"variant": "fugue", "opponent": "computer", "level": 2, "color": "white"}
    )
    assert made.status_code == 201, made.text
    game_id, secret = made.json()["id"], made.json()["seats"]["white"]["secret"]
    black = made.json()["state"]["players"]["black"]
    assert black["kind"] == "engine" and black["level"] == 2 and black["name"] == "ExoBot-L2"
    assert black["user"]["name"] == "ExoBot-L2" and black["user"]["title"] == "BOT"
    assert made.json()["state"]["rated"] is False  # practice: a rated game is a challenge
    first = a_move([])
    assert (
        person.post(f"/api/games/{game_id}/moves", json={"secret": secret, "move": first}).status_code == 200
    )
    state_at(person, game_id, 2)
    # a takeback against the computer is granted at once, as before the house bots
    taken = person.post(f"/api/games/{game_id}/takeback", json={"secret": secret, "action": "offer"})
    assert taken.status_code == 200 and taken.json()["ply"] == 0, taken.text
    assert (
        person.post(f"/api/games/{game_id}/moves", json={"secret": secret, "move": first}).status_code == 200
    )
    state_at(person, game_id, 2)
    assert person.post(f"/api/games/{game_id}/resign", json={"secret": secret}).status_code == 200
    mine = person.get(f"/api/users/{name}").json()
    line = next(g for g in mine["games"] if g["id"] == game_id)
    assert line["opponent"] == "ExoBot-L2" and line["opponent_title"] == "BOT" and not line["rated"]
    assert mine["ratings"] == []  # unrated
    bot = person.get("/api/users/ExoBot-L2").json()
    assert bot["title"] == "BOT" and game_id in [g["id"] for g in bot["games"]]
    assert '[Black "ExoBot-L2"]' in person.get(f"/api/games/{game_id}/pgn").text
    assert "ExoBot-L2" in person.get(f"/@/{name}").text


def test_the_random_level_has_no_house_bot(site: Server) -> None:
    made = httpx.post(
        site.url + "/api/games",
        json={"variant": "fugue", "opponent": "computer", "level": 0, "color": "white"},
    )
    assert made.status_code == 201, made.text
    black = made.json()["state"]["players"]["black"]
    assert (
        black["kind"] == "engine" and black["level"] == 0 and black["user"] is None and black["name"] is None
    )


def test_a_rated_challenge_to_a_house_bot_is_accepted_at_once_and_rates_both(site: Server) -> None:
    name = next(NAMES)
    human = bearer(site.url, make_token(signup(site.url, name), "board:play", "challenge:write"))
    assert "ExoBot-L4" in httpx.get(site.url + "/api/bot/online").text  # the engine is there
    events = Stream(human, "/api/stream/event")
    form = {
        "variant": "fugue",
        "clock.limit": "300",
        "clock.increment": "3",
        "rated": "true",
        "color": "white",
    }
    sent = human.post("/api/challenge/ExoBot-L4", data=form)
    assert sent.status_code == 200, sent.text
    start = events.until("gameStart")["game"]
    assert start["rated"] is True and start["opponent"]["username"] == "ExoBot-L4"
    game_id = start["gameId"]
    assert human.post(move_path("board", game_id, a_move([]), ply=0)).status_code == 200
    state = state_at(human, game_id, 2)
    assert state["players"]["black"]["kind"] == "engine" and state["players"]["black"]["level"] == 4
    # fair play: a rating is earned without the engine's help
    refused = httpx.post(f"{site.url}/api/games/{game_id}/evaluate", json={})
    assert refused.status_code == 403 and "no engine while a rated game is on" in refused.json()["error"]
    assert human.post(f"/api/board/game/{game_id}/resign").status_code == 200
    assert events.until("gameFinish")["game"]["gameId"] == game_id
    events.close()
    for who in (name, "ExoBot-L4"):  # both rated, in the pool people and bots share
        ratings = httpx.get(f"{site.url}/api/users/{who}").json()["ratings"]
        assert [(r["variant"], r["games"]) for r in ratings] == [("fugue", 1)]


def test_a_server_without_an_engine_declines_its_house_bots_challenges(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'noengine.sqlite'}", use_engine_pool=False, rate_limits={})
    with TestClient(app, headers={"Origin": "http://testserver"}) as client:
        made = client.post("/api/account/signup", json={"name": "noengine", "password": "correct horse 42"})
        assert made.status_code == 201, made.text
        assert "ExoBot-L1" not in client.get("/api/bot/online").text  # no engine: not online
        sent = client.post("/api/challenge/ExoBot-L1", json={"variant": "fugue", "clock.limit": 300})
        assert sent.status_code == 200, sent.text
        # declined at once (a declined challenge is deleted): nothing left to cancel
        gone = client.post(f"/api/challenge/{sent.json()['id']}/cancel", json={})
        assert gone.status_code == 404, gone.text
