"""``exochess bot`` end to end (issue 47): a real bot process (our engine at level 1) on a real
server, against a person scripted over the API, against another bot process, and through a
connection that drops mid-game.  Every wait is on a stream's line or a process's exit, with
generous bounds."""

from __future__ import annotations

import contextlib
import random
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from exochess.board import Board
from tests.web.apiclients import Stream, bearer, make_token, move_path, signup
from tests.web.serverproc import Server

EXIT_S = 600.0
"""A bot process ends within this after its last game (a level-1 game on a loaded machine)."""
MAX_PLIES = 400
"""The scripted person resigns past this many plies (the games end far sooner)."""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("bote2e") / "site.sqlite").start()
    yield srv
    srv.stop()


def bot_process(url: str, token_file: Path, *extra: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "exochess.cli.main",
            "bot",
            "--url",
            url,
            "--token-file",
            str(token_file),
            "--upgrade",
            "--level",
            "1",
            "--games",
            "1",
            "-v",
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Kill the bot process if it still runs (a test that failed before it ended)."""
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def finish(proc: subprocess.Popen[bytes]) -> str:
    try:
        out, _ = proc.communicate(timeout=EXIT_S)
    finally:
        stop(proc)
    text = out.decode(errors="replace")
    assert proc.returncode == 0, text
    return text


def bot_account(site: Server, name: str, tmp_path: Path) -> Path:
    session = signup(site.url, name)
    path = tmp_path / f"{name}.token"
    path.write_text(make_token(session, "bot:play", "challenge:write"))
    return path


def play_as_person(
    site: Server, human: httpx.Client, game_id: str, seed: int, color: str = "white"
) -> list[dict[str, object]]:
    """Play random legal moves as ``color`` through the board API until the game ends; the
    states seen, in order."""
    rng = random.Random(seed)
    stream = Stream(human, f"/api/board/game/stream/{game_id}")
    states: list[dict[str, object]] = []
    while True:
        event = stream.next()
        assert event is not None, "the game stream ended before the game"
        if event["type"] not in ("gameFull", "gameState"):
            continue
        state = event["state"] if event["type"] == "gameFull" else event
        states.append(state)
        if state["status"] != "started":
            assert stream.next() is None
            return states
        moves = str(state["moves"]).split()
        if len(moves) % 2 != (color == "black"):
            continue  # the bot's turn
        if len(moves) >= MAX_PLIES:
            assert human.post(f"/api/board/game/{game_id}/resign").status_code == 200
            continue
        board = Board("fugue")
        for text in moves:
            board.push_text(text)
        move = str(rng.choice(list(board.legal_moves)))
        res = human.post(move_path("board", game_id, move, ply=len(moves)))
        assert res.status_code == 200, res.text


def test_exochess_bot_plays_a_rated_game_against_a_person_with_clocks(site: Server, tmp_path: Path) -> None:
    token_file = bot_account(site, "levelone", tmp_path)
    person = signup(site.url, "person")
    human = bearer(site.url, make_token(person, "board:play", "challenge:write"))
    events = Stream(human, "/api/stream/event")
    proc = bot_process(site.url, token_file)
    try:
        # sent at once: a bot that opens its stream later is told of the challenge then
        form = {
            "variant": "fugue",
            "clock.limit": "120",
            "clock.increment": "1",
            "rated": "true",
            "color": "white",
        }
        sent = human.post("/api/challenge/levelone", data=form)
        assert sent.status_code == 200, sent.text
        game_id = events.until("gameStart")["game"]["gameId"]
        states = play_as_person(site, human, game_id, seed=7)
        finished = events.until("gameFinish")["game"]
        assert finished["gameId"] == game_id
        log = finish(proc)
    finally:
        stop(proc)
    assert f"game {game_id} over" in log
    end = states[-1]
    assert end["status"] in ("mate", "variantEnd", "resign", "outoftime")
    # the clocks ran: each side's time moved off the initial 120 s (increments of 1 s)
    assert any(s["btime"] != 120_000 for s in states) and any(s["wtime"] != 120_000 for s in states)
    assert all(0 <= int(str(s["wtime"])) <= 120_000 + 1000 * len(states) for s in states)
    game = httpx.get(f"{site.url}/api/games/{game_id}").json()
    assert (
        game["rated"] and game["status"] == "finished" and game["players"]["black"]["user"]["title"] == "BOT"
    )
    profile = httpx.get(f"{site.url}/api/users/levelone").json()
    assert profile["title"] == "BOT" and profile["ratings"][0]["games"] == 1


def test_exochess_bot_joins_an_arena_open_to_bots_and_plays_its_game(site: Server, tmp_path: Path) -> None:
    """``--join-arena``: the bot enters the event on starting, is paired with the person there,
    plays the game it is given, and the result is in the standings."""
    token_file = bot_account(site, "arenabot", tmp_path)
    person = signup(site.url, "arenaperson")
    human = bearer(site.url, make_token(person, "board:play"))
    made = person.post(
        "/api/tournaments",
        json={
            "kind": "arena",
            "variant": "fugue",
            "time_control": "1+0",
            "minutes": 10,
            "bots_allowed": True,
        },
    )
    assert made.status_code == 201, made.text
    event = made.json()["id"]
    assert person.post(f"/api/tournaments/{event}/join", json={}).status_code == 204
    events = Stream(human, "/api/stream/event")
    assert person.post(f"/api/tournaments/{event}/start", json={}).status_code == 204
    proc = bot_process(site.url, token_file, "--join-arena", event)
    try:
        start = events.until("gameStart")["game"]
        assert start["opponent"]["username"] == "arenabot" and start["opponent"]["title"] == "BOT"
        play_as_person(site, human, start["gameId"], seed=11, color=start["color"])
        log = finish(proc)
    finally:
        stop(proc)
    assert f"game {start['gameId']} over" in log
    games = httpx.get(f"{site.url}/api/tournaments/{event}/games").json()["games"]
    assert games[0]["id"] == start["gameId"] and games[0]["result"] in ("1-0", "0-1")
    table = httpx.get(f"{site.url}/api/tournaments/{event}").json()["standings"]
    assert {line["name"]: line["title"] for line in table} == {"arenaperson": None, "arenabot": "BOT"}
    assert sorted(line["sheet"][0] for line in table) == [0, 2]


def test_two_bot_processes_play_each_other(site: Server, tmp_path: Path) -> None:
    first = bot_account(site, "botalpha", tmp_path)
    second = bot_account(site, "botbeta", tmp_path)
    waiting = bot_process(site.url, second)
    challenger = bot_process(site.url, first, "--challenge", "botbeta", "--challenge-clock", "1+0")
    logs = [finish(challenger), finish(waiting)]
    assert all(" over: " in log for log in logs), logs
    games = httpx.get(f"{site.url}/api/users/botalpha").json()["games"]
    assert len(games) == 1 and games[0]["result"] in ("1-0", "0-1")


class CuttableProxy:
    """A TCP proxy on 127.0.0.1 to ``target``, whose live connections :meth:`cut` drops (what a
    network failure looks like to both ends)."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.live: list[socket.socket] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            with self.lock:
                self.live += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := src.recv(65536):
                dst.sendall(data)
        for s in (src, dst):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        with self.lock:
            live, self.live = self.live, []
        for s in live:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()

    def close(self) -> None:
        self.listener.close()
        self.cut()


def test_the_bot_reconnects_after_a_drop_mid_game_without_losing_or_doubling_a_move(
    site: Server, tmp_path: Path
) -> None:
    token_file = bot_account(site, "droppy", tmp_path)
    person = signup(site.url, "patient")
    human = bearer(site.url, make_token(person, "board:play", "challenge:write"))
    proxy = CuttableProxy(("127.0.0.1", site.port))
    proc = bot_process(f"http://127.0.0.1:{proxy.port}", token_file)
    try:
        sent = human.post("/api/challenge/droppy", data={"variant": "fugue", "color": "white"})
        assert sent.status_code == 200, sent.text
        events = Stream(human, "/api/stream/event")
        game_id = events.until("gameStart")["game"]["gameId"]
        stream = Stream(human, f"/api/board/game/stream/{game_id}")
        rng = random.Random(3)
        cut_at = 6
        seen: list[str] = []
        while True:
            event = stream.next()
            assert event is not None
            if event["type"] not in ("gameFull", "gameState"):
                continue
            state = event["state"] if event["type"] == "gameFull" else event
            moves = str(state["moves"]).split()
            assert moves[: len(seen)] == seen  # nothing taken back, nothing played twice
            seen = moves
            if state["status"] != "started":
                break
            if len(moves) % 2:
                continue
            if len(moves) == cut_at:
                proxy.cut()  # the bot's streams drop while it waits for our move
            board = Board("fugue")
            for text in moves:
                board.push_text(text)
            move = str(rng.choice(list(board.legal_moves)))
            assert human.post(move_path("board", game_id, move, ply=len(moves))).status_code == 200
        log = finish(proc)
    finally:
        stop(proc)
        proxy.close()
    assert "opening" in log  # it noticed the drop and opened its streams again
    assert len(seen) > cut_at + 1  # the bot answered moves after the drop
    # the stored game is the one the stream showed: one move per ply
    stored = httpx.get(f"{site.url}/api/games/{game_id}").json()
    assert [m["text"] for m in stored["moves"]] == seen


def test_a_house_bot_accepts_and_plays_through_the_same_api(site: Server) -> None:
    """The site's own engine plays as the bot account ExoBot-L1: online on /bots, challenged
    and answered through the API's challenge, its moves on the game stream."""
    assert "ExoBot-L1" in httpx.get(f"{site.url}/api/bot/online").text
    person = signup(site.url, "housecaller")
    human = bearer(site.url, make_token(person, "board:play", "challenge:write"))
    events = Stream(human, "/api/stream/event")
    slow = human.post("/api/challenge/ExoBot-L1", data={"variant": "fugue", "days": "3"}).json()
    assert events.until("challengeDeclined")["challenge"]["id"] == slow["id"]  # correspondence: no
    form = {
        "variant": "fugue",
        "clock.limit": "120",
        "clock.increment": "1",
        "rated": "true",
        "color": "white",
    }
    assert human.post("/api/challenge/exobot-l1", data=form).status_code == 200
    game_id = events.until("gameStart")["game"]["gameId"]
    states = play_as_person(site, human, game_id, seed=11)
    assert states[-1]["status"] != "started" and len(str(states[-1]["moves"]).split()) >= 2
    game = httpx.get(f"{site.url}/api/games/{game_id}").json()
    assert game["players"]["black"]["user"] == {
        **game["players"]["black"]["user"],
        "name": "ExoBot-L1",
        "title": "BOT",
    }
    events.close()
