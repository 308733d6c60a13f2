"""A person in Chromium against a bot that connects over the API (issue 47): an `exochess bot`
process (our engine at level 1) comes online, the person challenges it from /bots to a rated
game with a clock, plays random legal moves by typing them on the game page until the game
ends, and both see the result; the bot's rating moved.  Every wait is on the page or the
process, with generous bounds."""

from __future__ import annotations

import random
import secrets
from pathlib import Path
from typing import Any

from exochess.board import Board
from tests.web.apiclients import make_token, signup
from tests.web.serverproc import Server
from tests.web.test_web_bot_e2e import bot_process, finish, stop
from tests.web.test_web_browser import shot

PASSWORD = "a long password"
WAIT_MS = 180_000
MAX_PLIES = 300
"""The person resigns past this many plies (a level-1 game ends far sooner)."""


def bot_token(server: Server, tmp_path: Path) -> tuple[str, Path]:
    name = f"pybot{secrets.token_hex(3)}"
    path = tmp_path / "bot.token"
    path.write_text(make_token(signup(server.url, name), "bot:play", "challenge:write"))
    return name, path


def test_a_person_in_a_browser_plays_a_rated_game_against_a_bot_process(
    page: Any, server: Server, tmp_path: Path
) -> None:
    page.set_default_timeout(WAIT_MS)
    bot, token_file = bot_token(server, tmp_path)
    proc = bot_process(server.url, token_file)
    try:
        name = f"p{secrets.token_hex(5)}"
        page.goto("/signup?next=/bots")
        page.fill("#name", name)
        page.fill("#password", PASSWORD)
        page.click("#submit")
        page.wait_for_url("**/bots")
        for _ in range(180):  # the process upgrades its account and opens its event stream
            online = page.request.get("/api/bot/online").text()
            if f'"{bot}"' in online:
                break
            page.wait_for_timeout(1000)
        page.goto("/bots")
        row = page.locator(f'tr[data-bot="{bot}"]')
        assert "BOT" in row.inner_text()
        page.select_option("#bot-variant", "fugue")
        page.select_option("#bot-time", "5+3")
        rated = page.locator("#bot-rated")
        if rated.count():
            rated.check()
        row.locator("button.challenge-bot").click()
        page.wait_for_url("**/game/*")
        game_id = page.url.rsplit("/", 1)[1].split("?")[0]
        page.wait_for_function(
            f"document.querySelector('#players') && document.querySelector('#players').textContent.includes('BOT {bot}')"
        )
        rng = random.Random(11)
        while True:
            state = page.request.get(f"/api/games/{game_id}").json()
            if state["status"] != "active":
                break
            me = "white" if state["players"]["white"]["name"] == name else "black"
            ply = int(state["ply"])
            if state["turn"] != me:
                page.wait_for_selector(f'#game:not([data-ply="{ply}"])')
                continue
            page.wait_for_selector(f'#game[data-ply="{ply}"]')
            if ply >= MAX_PLIES:
                page.request.post(f"/api/games/{game_id}/resign", data={})
                continue
            board = Board("fugue", fen=state["fen"])
            page.fill("#typed-move", rng.choice([str(m) for m in board.legal_moves]))
            page.press("#typed-move", "Enter")
            page.wait_for_selector(f'#game:not([data-ply="{ply}"])')
        page.wait_for_selector("#game:not([data-status='active'])")
        shot(page, "bot-process-game")
        log = finish(proc)
    finally:
        stop(proc)
    assert f"game {game_id} over" in log
    final = page.request.get(f"/api/games/{game_id}").json()
    assert final["rated"] and final["result"] in ("1-0", "0-1")
    ratings = page.request.get(f"/api/users/{bot}").json()["ratings"]
    assert [r["variant"] for r in ratings] == ["fugue"] and ratings[0]["rating"] != 1500
