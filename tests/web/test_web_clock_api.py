"""Clocks, abort and claim through a real server (issue 20): tiny clocks and short limits.

The server runs with ``EXOCHESS_TEST_TINY_CLOCKS=1`` (so ``"0.05+0"``, 3 seconds, is a time
control) and ``EXOCHESS_TEST_TIMING`` (the first-move limit, the absence limit and a
correspondence day all last :data:`LIMIT_MS`).  That the server judges a game by itself is
read from its SQLite file, with no request that could trigger the check.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from exochess.board import Board
from tests.web.serverproc import Server, create, run_async

LIMIT_MS = 2000
ENV = {"EXOCHESS_TEST_TINY_CLOCKS": "1", "EXOCHESS_TEST_TIMING": str(LIMIT_MS)}
WAIT_S = 30.0
"""Longest wait for something the server does by itself (generous: the machine is shared)."""


@pytest.fixture(scope="module")
def clock_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("clock") / "clock.sqlite", env=ENV).start()
    yield srv
    srv.stop()


@pytest.fixture()
def http(clock_server: Server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=clock_server.url, timeout=30.0) as c:
        yield c


def stored(srv: Server, game_id: str) -> tuple[str, str | None, str | None]:
    """(status, result, termination) as the database file holds them."""
    with sqlite3.connect(srv.db_path) as db:
        row = db.execute("SELECT status, result, termination FROM games WHERE id = ?", (game_id,)).fetchone()
    return row[0], row[1], row[2]


def wait_stored(srv: Server, game_id: str, status: str) -> tuple[str, str | None, str | None]:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        row = stored(srv, game_id)
        if row[0] == status:
            return row
        time.sleep(0.05)
    raise AssertionError(f"game {game_id} still {stored(srv, game_id)}")


def a_move(state: dict[str, Any]) -> str:
    board = Board(state["variant"]["name"], fen=state["fen"])
    return sorted(str(m) for m in board.legal_moves)[0]


def play(http: httpx.Client, game: dict[str, Any], color: str, **extra: Any) -> dict[str, Any]:
    state = http.get(f"/api/games/{game['id']}").json()
    body = {"move": a_move(state), "ply": state["ply"], "secret": game["seats"][color]["secret"], **extra}
    res = http.post(f"/api/games/{game['id']}/moves", json=body)
    assert res.status_code == 200, res.text
    data: dict[str, Any] = res.json()
    return data


def test_flag_judged_with_nobody_connected(clock_server: Server, http: httpx.Client) -> None:
    game = create(http, variant="fugue", opponent="friend", time_control="0.05+0")
    state = game["state"]
    assert state["clock"]["running"] is None and state["clock"]["expiry"] == "abort"
    play(http, game, "white")
    state = play(http, game, "black")
    clock = state["clock"]
    assert clock["running"] == "white" and clock["expiry"] == "flag"
    assert clock["white_ms"] == clock["black_ms"] == 3000
    assert clock["deadline"] - clock["since"] == 3000
    state = play(http, game, "white")
    assert state["clock"]["running"] == "black"
    assert 0 < state["clock"]["white_ms"] <= 3000
    # nobody asks anything: the server's own timer flags Black
    _status, result, termination = wait_stored(clock_server, game["id"], "finished")
    assert (result, termination) == ("1-0", "time forfeit")
    final = http.get(f"/api/games/{game['id']}").json()
    assert final["reason"] == "White wins on time"
    assert final["clock"]["running"] is None
    res = http.post(
        f"/api/games/{game['id']}/moves",
        json={
            "move": "a1a2",
            "secret": game["seats"]["black"]["secret"],
        },
    )
    assert res.status_code == 409
    assert "on time" in res.json()["error"]


def test_increment_and_bounded_lag_credit(http: httpx.Client) -> None:
    game = create(http, variant="fugue", opponent="friend", time_control="0.25+1")
    play(http, game, "white")
    play(http, game, "black")
    # a client claiming a minute of lag is credited at most half a second, so its clock can
    # gain no more than the increment
    state = play(http, game, "white", lag_ms=60_000)
    assert 15_000 < state["clock"]["white_ms"] <= 16_000
    res = http.post(
        f"/api/games/{game['id']}/moves",
        json={
            "move": a_move(state),
            "secret": game["seats"]["black"]["secret"],
            "lag_ms": -1,
        },
    )
    assert res.status_code == 400 and "lag_ms" in res.json()["error"]


def test_abort_before_both_moved_and_not_after(http: httpx.Client) -> None:
    game = create(http, variant="interweave", opponent="friend", time_control="3+2")
    play(http, game, "white")
    res = http.post(f"/api/games/{game['id']}/abort", json={"secret": game["seats"]["black"]["secret"]})
    assert res.status_code == 200, res.text
    state = res.json()
    assert (state["status"], state["result"], state["reason"]) == ("aborted", "*", "aborted by Black")
    # the players still see it; the list of everybody's recent games does not
    mine = http.get("/api/games", params={"ids": game["id"]}).json()["games"]
    assert [g["status"] for g in mine] == ["aborted"]
    recent = http.get("/api/games", params={"limit": 100}).json()["games"]
    assert game["id"] not in [g["id"] for g in recent]
    assert (
        http.post(
            f"/api/games/{game['id']}/abort", json={"secret": game["seats"]["white"]["secret"]}
        ).status_code
        == 409
    )

    played = create(http, variant="fugue", opponent="friend", time_control="3+2")
    play(http, played, "white")
    play(http, played, "black")
    res = http.post(f"/api/games/{played['id']}/abort", json={"secret": played["seats"]["white"]["secret"]})
    assert res.status_code == 409
    assert "both sides have moved" in res.json()["error"]
    res = http.post(f"/api/games/{played['id']}/abort", json={"secret": "nope"})
    assert res.status_code == 403
    assert http.get(f"/api/games/{played['id']}").json()["status"] == "active"


def test_server_aborts_a_game_whose_first_move_does_not_come(
    clock_server: Server, http: httpx.Client
) -> None:
    game = create(http, variant="fugue", opponent="friend", time_control="5+3")
    play(http, game, "white")
    _status, result, termination = wait_stored(clock_server, game["id"], "aborted")
    assert (result, termination) == ("*", "aborted")
    assert "Black did not make a first move in time" in http.get(f"/api/games/{game['id']}").json()["reason"]


def test_correspondence_deadline(clock_server: Server, http: httpx.Client) -> None:
    game = create(http, variant="fugue", opponent="friend", time_control="1d")
    play(http, game, "white")
    state = play(http, game, "black")
    clock = state["clock"]
    assert clock["expiry"] == "flag" and clock["deadline"] - clock["since"] == LIMIT_MS  # one (test) day
    listed = http.get("/api/games", params={"ids": game["id"]}).json()["games"][0]
    assert listed["turn"] == "white" and listed["deadline"] == clock["deadline"]
    _status, result, termination = wait_stored(clock_server, game["id"], "finished")
    assert (result, termination) == ("0-1", "time forfeit")
    assert http.get("/api/games", params={"ids": game["id"]}).json()["games"][0]["deadline"] is None


def test_claim_after_the_opponent_left(clock_server: Server, http: httpx.Client) -> None:
    game = create(http, variant="fugue", opponent="friend", time_control="1+0")
    url = clock_server.url.replace("http", "ws") + f"/ws/games/{game['id']}"
    white_secret = game["seats"]["white"]["secret"]
    claim = f"/api/games/{game['id']}/claim"

    async def until(ws: Any, kind: str) -> dict[str, Any]:
        while True:
            message: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), WAIT_S))
            if message["type"] == kind:
                return message

    async def run() -> None:
        async with websockets.connect(url) as white:
            await white.send(json.dumps({"type": "auth", "secret": white_secret}))
            await until(white, "hello")
            async with websockets.connect(url) as black:
                await black.send(json.dumps({"type": "auth", "secret": game["seats"]["black"]["secret"]}))
                await until(black, "hello")
                # the pong carries the server's time for the clients' clocks
                await black.send(json.dumps({"type": "ping", "ref": 1}))
                assert isinstance((await until(black, "pong"))["now"], int)
                play(http, game, "white")
                # a move over the websocket may carry the client's lag
                state = http.get(f"/api/games/{game['id']}").json()
                await black.send(json.dumps({"type": "move", "move": a_move(state), "ply": 1, "lag_ms": 50}))
                await until(black, "ack")
                res = http.post(claim, json={"secret": white_secret})
                assert res.status_code == 409 and "connected" in res.json()["error"]
            presence = await until(white, "presence")
            assert presence["online"] == {"white": True, "black": False}
            assert isinstance(presence["absent_since"]["black"], int)
            res = http.post(claim, json={"secret": white_secret})
            assert res.status_code == 409 and "too early" in res.json()["error"]
            deadline = time.monotonic() + WAIT_S
            while time.monotonic() < deadline:
                res = http.post(claim, json={"secret": white_secret})
                if res.status_code == 200:
                    break
                await asyncio.sleep(0.1)
            state = res.json()
            assert (state["status"], state["result"], state["termination"]) == (
                "finished",
                "1-0",
                "abandoned",
            )
            while (await until(white, "state"))["status"] != "finished":
                pass  # the states of the earlier moves come first

    run_async(run)


def test_claim_refused_without_a_clock_or_against_the_computer(http: httpx.Client) -> None:
    game = create(http, variant="fugue", opponent="friend")
    res = http.post(f"/api/games/{game['id']}/claim", json={"secret": game["seats"]["white"]["secret"]})
    assert res.status_code == 409 and "real-time" in res.json()["error"]


def test_computer_plays_on_its_clock(clock_server: Server, http: httpx.Client) -> None:
    """The computer's replies are waited for on the game's websocket (the states it publishes),
    not by polling against a deadline; its first move may come after the first-move limit on a
    busy machine without the game being aborted (issue 39, item 11)."""
    game = create(http, variant="fugue", opponent="computer", level=1, color="white", time_control="1+0")
    secret = game["seats"]["white"]["secret"]
    url = clock_server.url.replace("http", "ws") + f"/ws/games/{game['id']}"

    async def state_at(ws: Any, ply: int) -> dict[str, Any]:
        while True:
            message: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), WAIT_S))
            if message["type"] == "state" and message["ply"] >= ply:
                return message

    async def run() -> dict[str, Any]:
        async with websockets.connect(url) as ws:
            state: dict[str, Any] = {}
            for ply in (0, 2):
                state = http.get(f"/api/games/{game['id']}").json()
                body = {"move": a_move(state), "ply": ply, "secret": secret}
                res = http.post(f"/api/games/{game['id']}/moves", json=body)
                assert res.status_code == 200, res.text
                state = await state_at(ws, ply + 2)  # the computer's reply
                assert state["status"] == "active", state["reason"]
            return state

    state = run_async(run)
    assert state["ply"] == 4
    # the computer's second move came while its clock ran: it was charged for it
    assert state["clock"]["black_ms"] < 60_000
    assert state["clock"]["running"] == "white"
    res = http.post(f"/api/games/{game['id']}/takeback", json={"action": "offer", "secret": secret})
    assert res.status_code == 409 and "clock" in res.json()["error"]


def test_restart_keeps_clocks_and_flags(tmp_path: Path) -> None:
    srv = Server(tmp_path / "restart.sqlite", env=ENV).start()
    try:
        with httpx.Client(base_url=srv.url, timeout=30.0) as http:
            running = create(http, variant="fugue", opponent="friend", time_control="1+0")
            short = create(http, variant="fugue", opponent="friend", time_control="0.05+0")
            for game in (running, short):
                play(http, game, "white")
                play(http, game, "black")
            play(http, running, "white")
            before = http.get(f"/api/games/{running['id']}").json()["clock"]
        srv.kill()  # kill -9: no shutdown code runs
        time.sleep(3.5)  # the short game's White runs out while the server is down
        srv.start()
        with httpx.Client(base_url=srv.url, timeout=30.0) as http:
            # judged at start, before any request for it
            assert stored(srv, short["id"])[1:] == ("0-1", "time forfeit")
            after = http.get(f"/api/games/{running['id']}").json()["clock"]
            assert after == before
            assert after["running"] == "black" and after["deadline"] == after["since"] + after["black_ms"]
    finally:
        srv.stop()
