"""Game reports over the API (issue 45): asked for on a finished game, progress while the engine
works, the result stored once and the same for every viewer, kept and resumed across a server
restart (a real SQLite file, the server killed and started again), refused for a game being
played, and clear answers to bad ids.

The servers search each position to a tiny budget (``EXOCHESS_REPORT_NODES``); a short game with
a known blunder (a free royal capture missed) checks the marks end to end.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from exochess import Board
from tests.web.serverproc import Server

HANG_GUARD_S = 300.0
"""Only a guard against a hang: the loops below wait for a state, never for a time."""
BLUNDER_FEN = "wlq2a1i/ppp1k2p/3p2p1/1sP4p/1UuPP2S/P1P1Pp2/4K1PP/I2A1QLW w"
"""Fugue: White may capture Black's king on e7 (c5xe7) ..."""
MISSED, PUNISHED, BETTER = "g2-f2", "c4xd3(e2)", "c5xe7"
"""... but plays g2-f2, and Black captures White's king on e2."""


def report_server(tmp: Path, nodes: int = 200, **env: str) -> Server:
    return Server(
        tmp / "reports.sqlite",
        env={"EXOCHESS_REPORT_NODES": str(nodes), "EXOCHESS_REPORT_AUTO": "0", **env},
    ).start()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = report_server(tmp_path_factory.mktemp("reports"))
    yield srv
    srv.stop()


@pytest.fixture()
def c(site: Server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=site.url, timeout=60.0) as client:
        yield client


def friend_game(c: httpx.Client, fen: str | None = None) -> tuple[str, dict[str, str]]:
    body: dict[str, Any] = {"variant": "fugue", "opponent": "friend", "color": "white"}
    if fen:
        body["fen"] = fen
    res = c.post("/api/games", json=body)
    assert res.status_code == 201, res.text
    data = res.json()
    return data["id"], {color: seat["secret"] for color, seat in data["seats"].items()}


def move(c: httpx.Client, game: str, secret: str, text: str) -> dict[str, Any]:
    res = c.post(f"/api/games/{game}/moves", json={"secret": secret, "move": text})
    assert res.status_code == 200, res.text
    state: dict[str, Any] = res.json()
    return state


def blunder_game(c: httpx.Client) -> str:
    game, secrets = friend_game(c, BLUNDER_FEN)
    move(c, game, secrets["white"], MISSED)
    assert move(c, game, secrets["black"], PUNISHED)["status"] == "finished"
    return game


def wait_report(c: httpx.Client, game: str, check: Any) -> dict[str, Any]:
    deadline = time.monotonic() + HANG_GUARD_S
    while True:
        res = c.get(f"/api/games/{game}/report")
        assert res.status_code == 200, res.text
        data: dict[str, Any] = res.json()
        if check(data):
            return data
        assert data["status"] != "failed", data
        assert time.monotonic() < deadline, f"the report never got there: {data}"
        time.sleep(0.05)


def test_a_report_is_asked_for_runs_and_marks_the_missed_royal_capture(c: httpx.Client, site: Server) -> None:
    game, secrets = friend_game(c, BLUNDER_FEN)
    # fair play: nobody gets a report while a game between people is on
    res = c.post(f"/api/games/{game}/report", json={})
    assert res.status_code == 403 and "analysis after the game" in res.json()["error"]
    assert c.get(f"/api/games/{game}/report").json()["status"] == "none"
    move(c, game, secrets["white"], MISSED)
    move(c, game, secrets["black"], PUNISHED)

    asked = c.post(f"/api/games/{game}/report", json={})
    assert asked.status_code == 200, asked.text
    first = asked.json()
    assert first["status"] in ("queued", "running", "done") and first["total"] == 3 and first["nodes"] == 200

    done = wait_report(c, game, lambda d: d["status"] == "done")
    assert done["done"] == done["total"] == 3
    report = done["report"]
    blunder, reply = report["moves"]
    assert blunder["move"] == MISSED and blunder["color"] == "white" and blunder["mark"] == "??"
    assert blunder["best"] == BETTER and blunder["line"][0] == BETTER and blunder["loss"] > 50
    assert reply["mark"] is None and reply["best"] is None  # the capture was the best move
    assert report["players"]["white"]["blunders"] == 1 and report["players"]["black"]["blunders"] == 0
    assert report["players"]["black"]["accuracy"] == 100.0 > report["players"]["white"]["accuracy"]
    assert report["white_percent"][0] == 100.0 and report["white_percent"][-1] == 0.0
    assert report["scores"][-1]["result"] == "0-1"

    # shared: a second viewer (another client) reads the very same report; asking again queues nothing
    with httpx.Client(base_url=site.url, timeout=60.0) as other:
        assert other.get(f"/api/game/{game}/report").json() == done
        again = other.post(f"/api/games/{game}/report", json={})
        assert again.status_code == 200 and again.json() == done


def test_reports_are_refused_where_they_cannot_be_made(c: httpx.Client) -> None:
    # a game against the computer still being played: after the game
    res = c.post(
        "/api/games", json={"variant": "fugue", "opponent": "computer", "level": 1, "color": "white"}
    )
    assert res.status_code == 201
    computer = res.json()["id"]
    res = c.post(f"/api/games/{computer}/report", json={})
    assert res.status_code == 409 and "still being played" in res.json()["error"]
    # a game with no move, called off
    game, secrets = friend_game(c)
    assert c.post(f"/api/games/{game}/abort", json={"secret": secrets["white"]}).status_code == 200
    res = c.post(f"/api/games/{game}/report", json={})
    assert res.status_code == 409 and "nothing to analyse" in res.json()["error"]
    # ids that name no game, well formed or not
    for bad in ("Zz9Zz9Zz", "nope", "x" * 300, "%2e%2e"):
        for res in (c.get(f"/api/games/{bad}/report"), c.post(f"/api/games/{bad}/report", json={})):
            assert res.status_code == 404, (bad, res.text)
            assert "unknown game id" in res.json()["error"]
    # a POST that is not JSON changes nothing
    res = c.post(f"/api/games/{game}/report", content=b"x", headers={"Content-Type": "text/plain"})
    assert res.status_code == 415


def ends(board: Board, m: Any) -> bool:
    after = board.copy()
    after.push(m)
    return after.outcome() is not None


def random_game(c: httpx.Client, plies: int, seed: int) -> str:
    """A friend game of ``plies`` random moves, then resigned by the side to move."""
    game, secrets = friend_game(c)
    board, rng = Board("fugue"), random.Random(seed)
    for _ in range(plies):
        text = str(rng.choice([m for m in board.legal_moves if not ends(board, m)]))
        move(c, game, secrets["white" if board.turn else "black"], text)
        board.push_text(text)
    res = c.post(f"/api/games/{game}/resign", json={"secret": secrets["white" if board.turn else "black"]})
    assert res.status_code == 200 and res.json()["status"] == "finished"
    return game


def test_a_report_survives_a_server_killed_and_restarted(tmp_path: Path) -> None:
    srv = report_server(tmp_path, nodes=1500)
    try:
        with httpx.Client(base_url=srv.url, timeout=60.0) as c:
            game = random_game(c, 16, seed=45)
            assert c.post(f"/api/games/{game}/report", json={}).status_code == 200
            running = wait_report(c, game, lambda d: d["done"] >= 2)
        srv.kill()  # no shutdown code runs: what a crash leaves
        srv.start()
        with httpx.Client(base_url=srv.url, timeout=60.0) as c:
            after = c.get(f"/api/games/{game}/report").json()
            # what was searched before the crash is kept, and the report goes on from there
            assert after["done"] >= running["done"] and after["total"] == 17
            done = wait_report(c, game, lambda d: d["status"] == "done")
            assert len(done["report"]["moves"]) == 16 and len(done["report"]["white_percent"]) == 17
        srv.stop()
        srv.start()
        with httpx.Client(base_url=srv.url, timeout=60.0) as c:
            assert c.get(f"/api/games/{game}/report").json() == done  # stored, not searched again
    finally:
        srv.stop()
