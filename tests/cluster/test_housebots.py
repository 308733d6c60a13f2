"""House bots in Redis mode (issue 47, item 5): a person challenges ``ExoBot-L1`` through one
server and follows the game on the other; the bot's seat is the computer's, so its moves are
computed and stored by the engine worker (the servers store none), and both servers show
the game against the bot account, rated as the challenge asked."""

from __future__ import annotations

import random

import httpx

from exochess.board import Board
from tests.cluster.harness import Cluster, wait_ready
from tests.web.apiclients import Stream, bearer, make_token, move_path, signup

ENGINE_MOVES = 'exochess_moves_stored_total{by="engine"}'
PERSON_MOVES = 3
"""Moves the person plays before resigning (the bot, White, plays one more)."""


def engine_moves(url: str) -> float:
    """The computer's moves stored by the process at ``url`` (its ``/metrics``)."""
    for line in httpx.get(url + "/metrics", timeout=30).text.splitlines():
        if line.startswith(ENGINE_MOVES + " "):
            return float(line.rpartition(" ")[2])
    return 0.0


def test_a_house_bot_challenged_on_one_server_plays_through_the_worker(cluster: Cluster) -> None:
    a, b = (s.url for s in cluster.servers)
    worker = cluster.workers[0]
    wait_ready(worker.url, 180)  # its /metrics (a worker may still be starting on a loaded machine)
    before = {u: engine_moves(u) for u in (a, b, worker.url)}
    for url in (a, b):  # the house bots are there on every server
        assert "ExoBot-L1" in httpx.get(url + "/api/bot/online", timeout=30).text
    person = signup(a, "housecluster")
    token = make_token(person, "board:play", "challenge:write")
    on_a, on_b = bearer(a, token), bearer(b, token)
    events = Stream(on_b, "/api/stream/event")  # on B
    slow = on_a.post("/api/challenge/ExoBot-L1", data={"variant": "fugue", "days": "2"}).json()
    declined = events.until("challengeDeclined")["challenge"]
    assert declined["id"] == slow["id"] and declined["declineReasonKey"] == "tooSlow"
    form = {"variant": "fugue", "clock.limit": "300", "clock.increment": "2", "rated": "true"}
    form["color"] = "black"
    res = on_a.post("/api/challenge/ExoBot-L1", data=form)  # through A
    assert res.status_code == 200, res.text
    start = events.until("gameStart")["game"]
    assert start["color"] == "black" and start["rated"] is True
    assert start["opponent"]["username"] == "ExoBot-L1" and start["opponent"]["title"] == "BOT"
    game_id = start["gameId"]
    game = Stream(on_b, f"/api/board/game/stream/{game_id}")  # on B
    rng = random.Random(3)
    played = 0
    state = game.until("gameFull")["state"]  # the bot's first move may be in it already
    while True:
        moves = str(state["moves"]).split()
        assert state["status"] == "started", state  # the reason, if it ended
        if len(moves) % 2 == 0:
            state = game.until("gameState")  # the bot (White) is to move: the worker answers
            continue
        if played == PERSON_MOVES:
            break
        board = Board("fugue")
        for text in moves:
            board.push_text(text)
        move = str(rng.choice(list(board.legal_moves)))
        assert on_a.post(move_path("board", game_id, move, ply=len(moves))).status_code == 200  # through A
        played += 1
        state = game.until("gameState")
    assert on_a.post(f"/api/board/game/{game_id}/resign").status_code == 200
    assert events.until("gameFinish")["game"]["gameId"] == game_id
    bot_moves = PERSON_MOVES + 1
    for url in (a, b):
        view = httpx.get(f"{url}/api/games/{game_id}", timeout=30).json()
        white = view["players"]["white"]
        assert white["kind"] == "engine" and white["level"] == 1
        assert white["user"]["name"] == "ExoBot-L1" and white["user"]["title"] == "BOT"
        assert view["rated"] is True and view["result"] == "1-0"
        assert len(view["moves"]) == 2 * PERSON_MOVES + 1
        assert engine_moves(url) == before[url]  # no server stored any of the computer's moves
    assert engine_moves(worker.url) >= before[worker.url] + bot_moves
    events.close()
    game.close()
