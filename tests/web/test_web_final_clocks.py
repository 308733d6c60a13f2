"""The clocks at the end of a game (issue 40, item 2): :meth:`Clock.at_end` for each way a
real-time game ends without a move -- a flag, a resignation, an abort, a claim -- and a royal
capture's own stamp.  Pure arithmetic on injected times (no sleeping).  Then each ending
through a real server: the clocks of ``GET /api/games/{id}``'s final state, the same after the
server restarts."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import sqlite3
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import websockets

from exochess.board import Board
from exochess.outcome import Termination
from exochess.web.domain import Stamp
from tests.web.serverproc import Server, create, run_async
from tests.web.test_web_clock import Game, at


def started(control: str = "1+0") -> Game:
    game = Game(control)
    game.move(1_000)  # the first two moves cost nothing
    game.move(2_000)
    game.move(12_000)  # White spends 10 s: 50 s left, Black to move with 60 s
    return game


def test_a_flag_ends_with_the_loser_at_zero() -> None:
    game = started()
    clock = game.clock()
    flag = clock.deadline  # the server's timer fires at (or after) the deadline
    assert clock.at_end(flag + dt.timedelta(milliseconds=350)) == Stamp(
        50_000, 0, flag + dt.timedelta(milliseconds=350)
    )


@pytest.mark.parametrize("ending", ["resignation", "claim"])
def test_a_resignation_or_claim_stops_the_running_clock_where_it_stood(ending: str) -> None:
    game = started()
    # Black thinks 22.5 s and then resigns (or White claims): Black's clock shows 37.5 s
    end = game.clock().at_end(at(34_500))
    assert (end.white_ms, end.black_ms) == (50_000, 37_500)


def test_an_abort_before_both_moved_leaves_both_clocks_full() -> None:
    game = Game("1+0")
    game.move(3_000)
    end = game.clock().at_end(at(20_000))
    assert (end.white_ms, end.black_ms) == (60_000, 60_000)


def test_a_royal_capture_ends_with_the_capturing_move_s_stamp() -> None:
    game = started("3+2")
    stamp = game.move(40_000)  # Black's move (28 s, +2 s) takes the King: its stamp is final
    assert (stamp.white_ms, stamp.black_ms) == (172_000, 154_000)


def test_an_end_stamped_before_the_last_move_counts_from_that_move() -> None:
    game = started()
    end = game.clock().at_end(at(5_000))  # out of order: never more time than at the move
    assert (end.white_ms, end.black_ms) == (50_000, 60_000)


# --- through a real server: each ending's final clocks in the API, and again after a restart ---

LIMIT_MS = 2000
ENV = {"EXOCHESS_TEST_TINY_CLOCKS": "1", "EXOCHESS_TEST_TIMING": str(LIMIT_MS)}
WAIT_S = 30.0
"""Longest wait for something the server does by itself (generous: the machine is shared)."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("final") / "final.sqlite", env=ENV).start()
    yield srv
    srv.stop()


@pytest.fixture()
def http(server: Server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=30.0) as c:
        yield c


def state_of(http: httpx.Client, game: dict[str, Any]) -> dict[str, Any]:
    res = http.get(f"/api/games/{game['id']}")
    assert res.status_code == 200, res.text
    data: dict[str, Any] = res.json()
    return data


def move(http: httpx.Client, game: dict[str, Any], color: str, text: str | None = None) -> dict[str, Any]:
    state = state_of(http, game)
    if text is None:
        text = sorted(str(m) for m in Board(state["variant"]["name"], fen=state["fen"]).legal_moves)[0]
    body = {"move": text, "ply": state["ply"], "secret": game["seats"][color]["secret"]}
    res = http.post(f"/api/games/{game['id']}/moves", json=body)
    assert res.status_code == 200, res.text
    data: dict[str, Any] = res.json()
    return data


def seat_action(http: httpx.Client, game: dict[str, Any], action: str, color: str) -> dict[str, Any]:
    res = http.post(f"/api/games/{game['id']}/{action}", json={"secret": game["seats"][color]["secret"]})
    assert res.status_code == 200, res.text
    data: dict[str, Any] = res.json()
    return data


def stored_end(srv: Server, game_id: str) -> tuple[int | None, int | None]:
    with sqlite3.connect(srv.db_path) as db:
        row = db.execute("SELECT end_white_ms, end_black_ms FROM games WHERE id = ?", (game_id,)).fetchone()
    return row[0], row[1]


def final_clocks(srv: Server, http: httpx.Client, game: dict[str, Any]) -> tuple[int, int]:
    """The final state's clocks, checked to be the same after the server restarts."""
    clock = state_of(http, game)["clock"]
    assert clock["running"] is None and clock["deadline"] is None
    srv.stop()
    srv.start()
    assert state_of(http, game)["clock"] == clock
    return clock["white_ms"], clock["black_ms"]


def three_moves(http: httpx.Client, control: str) -> dict[str, Any]:
    """A game between friends where White, Black, White have moved: Black's clock runs."""
    game = create(http, variant="fugue", opponent="friend", time_control=control)
    move(http, game, "white")
    move(http, game, "black")
    state = move(http, game, "white")
    assert state["clock"]["running"] == "black"
    return game


def test_api_a_flag_shows_the_loser_at_zero(server: Server, http: httpx.Client) -> None:
    game = three_moves(http, "0.05+0")  # 3 s each
    white_left = state_of(http, game)["clock"]["white_ms"]
    deadline = time.monotonic() + WAIT_S  # the server's own timer flags Black
    while state_of(http, game)["status"] != "finished":
        assert time.monotonic() < deadline, "Black was not flagged"
        time.sleep(0.05)
    state = state_of(http, game)
    assert (state["result"], state["termination"]) == ("1-0", "time forfeit")
    assert final_clocks(server, http, game) == (white_left, 0)
    assert stored_end(server, game["id"]) == (white_left, 0)


def test_api_a_resignation_stops_the_running_clock(server: Server, http: httpx.Client) -> None:
    game = three_moves(http, "1+0")
    white_left = state_of(http, game)["clock"]["white_ms"]
    time.sleep(0.2)  # Black thinks at least this long (real time passes: no timing assertion)
    state = seat_action(http, game, "resign", "black")
    assert (state["status"], state["result"]) == ("finished", "1-0")
    white, black = final_clocks(server, http, game)
    assert white == white_left
    assert 0 < black <= 60_000 - 200
    assert stored_end(server, game["id"]) == (white, black)


def test_api_an_abort_leaves_both_clocks_full(server: Server, http: httpx.Client) -> None:
    game = create(http, variant="fugue", opponent="friend", time_control="1+0")
    move(http, game, "white")
    state = seat_action(http, game, "abort", "black")
    assert state["status"] == "aborted"
    assert final_clocks(server, http, game) == (60_000, 60_000)


def test_api_a_claim_stops_the_absent_side_s_clock(server: Server, http: httpx.Client) -> None:
    game = create(http, variant="fugue", opponent="friend", time_control="1+0")
    url = server.url.replace("http", "ws") + f"/ws/games/{game['id']}"

    async def until(ws: Any, kind: str) -> dict[str, Any]:
        while True:
            message: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), WAIT_S))
            if message["type"] == kind:
                return message

    async def run() -> dict[str, Any]:
        async with websockets.connect(url) as white:
            await white.send(json.dumps({"type": "auth", "secret": game["seats"]["white"]["secret"]}))
            await until(white, "hello")
            async with websockets.connect(url) as black:
                await black.send(json.dumps({"type": "auth", "secret": game["seats"]["black"]["secret"]}))
                await until(black, "hello")
                move(http, game, "white")
                move(http, game, "black")
                move(http, game, "white")  # Black's clock runs, and Black leaves
            await until(white, "presence")
            deadline = time.monotonic() + WAIT_S
            while True:  # the absence limit passes (the server says when)
                res = http.post(
                    f"/api/games/{game['id']}/claim", json={"secret": game["seats"]["white"]["secret"]}
                )
                if res.status_code == 200:
                    data: dict[str, Any] = res.json()
                    return data
                assert time.monotonic() < deadline, res.text
                await asyncio.sleep(0.1)

    state = run_async(run)
    assert (state["result"], state["termination"]) == ("1-0", "abandoned")
    white_left = state["clock"]["white_ms"]
    white, black = final_clocks(server, http, game)
    assert white == white_left
    assert 0 < black <= 60_000 - LIMIT_MS  # Black's clock ran while Black was gone
    assert stored_end(server, game["id"]) == (white, black)


def royal_capture_line(variant: str, fen: str) -> tuple[str, str, str]:
    """White's and Black's first moves after which White takes the last royal, from ``fen``."""
    board = Board(variant, fen=fen)
    for first in sorted(str(m) for m in board.legal_moves):
        board.push_text(first)
        for second in sorted(str(m) for m in board.legal_moves):
            board.push_text(second)
            for third in sorted(str(m) for m in board.legal_moves):
                board.push_text(third)
                outcome = board.outcome()
                board.pop()
                if outcome is not None and outcome.termination == Termination.ROYAL_CAPTURE:
                    return first, second, third
            board.pop()
        board.pop()
    raise AssertionError("no royal capture in three plies")


def test_api_a_royal_capture_ends_with_that_move_s_clocks(server: Server, http: httpx.Client) -> None:
    fen = "7k/8/8/8/8/8/8/KQ6 w"
    first, second, third = royal_capture_line("fugue", fen)
    game = create(http, variant="fugue", opponent="friend", color="white", fen=fen, time_control="1+0")
    move(http, game, "white", first)
    move(http, game, "black", second)
    time.sleep(0.2)  # White's clock runs for the capture
    state = move(http, game, "white", third)
    assert (state["status"], state["termination"]) == ("finished", "royal capture")
    white, black = final_clocks(server, http, game)
    assert (white, black) == (state["clock"]["white_ms"], state["clock"]["black_ms"])
    assert black == 60_000 and 0 < white <= 60_000 - 200
    assert stored_end(server, game["id"]) == (None, None)  # the capturing move's stamp holds them
