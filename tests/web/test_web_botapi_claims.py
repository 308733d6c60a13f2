"""The game stream's ``opponentGone`` and ``claim-victory``, and the board API's takebacks
(issue 47, as lichess's bot and board APIs have them), on a real server whose absence limit is
a few seconds (``EXOCHESS_TEST_TIMING``)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from exochess.board import Board
from tests.web.apiclients import Stream, bearer, make_token, move_path, signup
from tests.web.serverproc import Server
from tests.web.test_web_bot_e2e import bot_account, bot_process, finish, stop
from tests.web.test_web_botapi import account, start_game

LIMIT_MS = 4000
"""The site's absence limit (and first-move limit): a claim is allowed this long after a leave."""
CLAIM_TRIES = 240
"""Claims tried, half a second apart, before the test gives up (two minutes: a loaded machine)."""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    env = {"EXOCHESS_TEST_TINY_CLOCKS": "1", "EXOCHESS_TEST_TIMING": str(LIMIT_MS)}
    srv = Server(tmp_path_factory.mktemp("claims") / "site.sqlite", engine_workers=0, env=env).start()
    yield srv
    srv.stop()


def first_move(board: Board) -> str:
    move = str(next(iter(board.legal_moves)))
    board.push_text(move)
    return move


def test_a_bot_hears_its_opponent_leave_and_come_back_then_claims_the_win(site: Server) -> None:
    game_id, human, _name, bot, _bot_name = start_game(site, **{"clock.limit": "300", "clock.increment": "0"})
    bots_view = Stream(bot, f"/api/bot/game/stream/{game_id}")
    assert bots_view.next()["type"] == "gameFull"  # type: ignore[index]
    person = Stream(human, f"/api/board/game/stream/{game_id}")
    board = Board("fugue")
    assert human.post(move_path("board", game_id, first_move(board), ply=0)).status_code == 200
    assert bot.post(move_path("bot", game_id, first_move(board), ply=1)).status_code == 200
    # too early: the person is here
    early = bot.post(f"/api/bot/game/{game_id}/claim-victory")
    assert early.status_code == 409 and "connected" in early.json()["error"]
    person.close()
    gone = bots_view.until("opponentGone")
    assert gone["gone"] is True and 0 <= gone["claimWinInSeconds"] <= LIMIT_MS // 1000
    person = Stream(human, f"/api/board/game/stream/{game_id}")
    assert bots_view.until("opponentGone") == {"type": "opponentGone", "gone": False}
    person.close()
    assert bots_view.until("opponentGone")["gone"] is True
    for _ in range(CLAIM_TRIES):
        claim = bot.post(f"/api/bot/game/{game_id}/claim-victory")
        if claim.status_code == 200:
            break
        assert claim.status_code == 409 and "too early" in claim.json()["error"], claim.text
        time.sleep(0.5)
    assert claim.status_code == 200, claim.text
    end = bots_view.until("gameState")
    assert end["status"] == "timeout" and end["winner"] == "black"


def test_no_claim_where_there_is_nothing_to_claim(site: Server) -> None:
    game_id, human, _name, bot, _bot_name = start_game(site)  # no clock: no absence limit
    stream = Stream(bot, f"/api/bot/game/stream/{game_id}")
    assert stream.next()["type"] == "gameFull"  # type: ignore[index]
    refused = bot.post(f"/api/bot/game/{game_id}/claim-victory")
    assert refused.status_code == 409 and "real-time" in refused.json()["error"]
    stranger = account(site, "bot:play", bot=True)[2]
    assert stranger.post(f"/api/bot/game/{game_id}/claim-victory").status_code == 403
    assert human.post(f"/api/bot/game/{game_id}/claim-victory").status_code == 403  # not a bot
    assert bot.post("/api/bot/game/nosuchgame/claim-victory").status_code == 404


def test_board_takebacks_offered_declined_and_accepted(site: Server) -> None:
    _white_name, _w, white = account(site, "board:play", "challenge:write")
    black_name, _b, black = account(site, "board:play", "challenge:write")
    res = white.post(f"/api/challenge/{black_name}", data={"variant": "fugue", "color": "white"})
    assert res.status_code == 200, res.text
    accepted = black.post(f"/api/challenge/{res.json()['id']}/accept")
    assert accepted.status_code == 200, accepted.text
    game_id = accepted.json()["game"]
    stream = Stream(black, f"/api/board/game/stream/{game_id}")
    assert stream.next()["state"]["wtakeback"] is False  # type: ignore[index]
    board = Board("fugue")
    opening = first_move(board)
    assert white.post(move_path("board", game_id, opening)).status_code == 200
    assert stream.until("gameState")["moves"] == opening
    assert black.post(f"/api/board/game/{game_id}/takeback/no").status_code == 409  # nothing offered
    assert white.post(f"/api/board/game/{game_id}/takeback/yes").status_code == 200  # an offer
    offered = stream.until("gameState")
    assert offered["wtakeback"] is True and offered["btakeback"] is False and offered["moves"] == opening
    assert black.post(f"/api/board/game/{game_id}/takeback/no").status_code == 200  # declined
    assert stream.until("gameState")["wtakeback"] is False
    assert white.post(f"/api/board/game/{game_id}/takeback/yes").status_code == 200
    assert stream.until("gameState")["wtakeback"] is True
    assert black.post(f"/api/board/game/{game_id}/takeback/yes").status_code == 200  # accepted
    back = stream.until("gameState")
    assert back["moves"] == "" and back["wtakeback"] is False
    bad = white.post(f"/api/board/game/{game_id}/takeback/maybe")
    assert bad.status_code in (400, 422) and "yes" in bad.text
    with httpx.Client(base_url=site.url, headers={"Origin": site.url}) as anonymous:
        assert anonymous.post(f"/api/board/game/{game_id}/takeback/yes", json={}).status_code == 401


def test_no_takebacks_with_a_clock(site: Server) -> None:
    game_id, human, _name, _bot, _bot_name = start_game(
        site, **{"clock.limit": "300", "clock.increment": "0"}
    )
    assert human.post(move_path("board", game_id, first_move(Board("fugue")), ply=0)).status_code == 200
    refused = human.post(f"/api/board/game/{game_id}/takeback/yes")
    assert refused.status_code == 409 and "clock" in refused.json()["error"]


BOT_LIMIT_MS = 20_000
"""The absence and first-move limit of the site where a bot process plays: its first move must
come within it (a process and its engine starting on a loaded machine), then the claim waits it."""


@pytest.fixture()
def slow_site(tmp_path: Path) -> Iterator[Server]:
    env = {"EXOCHESS_TEST_TINY_CLOCKS": "1", "EXOCHESS_TEST_TIMING": str(BOT_LIMIT_MS)}
    srv = Server(tmp_path / "site.sqlite", engine_workers=0, env=env).start()
    yield srv
    srv.stop()


def test_exochess_bot_claims_the_win_when_its_opponent_leaves(slow_site: Server, tmp_path: Path) -> None:
    """The package's bot hears ``opponentGone`` and claims the win by itself once it may."""
    site = slow_site
    token_file = bot_account(site, "claimer", tmp_path)
    person = signup(site.url, "leaver")
    human = bearer(site.url, make_token(person, "board:play", "challenge:write"))
    events = Stream(human, "/api/stream/event")
    proc = bot_process(site.url, token_file)
    try:
        form = {"variant": "fugue", "clock.limit": "300", "clock.increment": "0", "color": "white"}
        sent = human.post("/api/challenge/claimer", data=form)
        assert sent.status_code == 200, sent.text
        game_id = events.until("gameStart")["game"]["gameId"]
        stream = Stream(human, f"/api/board/game/stream/{game_id}")
        board = Board("fugue")
        assert human.post(move_path("board", game_id, first_move(board), ply=0)).status_code == 200
        while len(str(stream.until("gameState")["moves"]).split()) < 2:
            pass  # the bot's reply
        stream.close()  # the person leaves
        finished = events.until("gameFinish")["game"]
        assert finished["gameId"] == game_id
        log = finish(proc)
    finally:
        stop(proc)
    assert "win claimed" in log, log
    state = human.get(f"/api/games/{game_id}").json()
    assert state["result"] == "0-1" and state["termination"] == "abandoned", state
