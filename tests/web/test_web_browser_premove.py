"""Premoves in a real game: two browsers play a friend game; the player not to move queues a
move, which the page sends the moment the opponent's move arrives, or drops when it is not legal
then."""

from __future__ import annotations

import time
from typing import Any

import httpx

from tests.web.serverproc import Server
from tests.web.test_web_browser import click, drag, new_game, wait_ply


def premove_squares(page: Any) -> list[str]:
    return list(page.eval_on_selector_all("#board [data-premove]", "els => els.map(e => e.dataset.premove)"))


def test_premove_in_a_friend_game(browser: Any, server: Server) -> None:
    ctx_w = browser.new_context(viewport={"width": 1200, "height": 900}, base_url=server.url)
    ctx_b = browser.new_context(viewport={"width": 1200, "height": 900}, base_url=server.url)
    try:
        white = ctx_w.new_page()
        gid = new_game(white, opponent="friend", color="white")
        black = ctx_b.new_page()
        black.goto(white.locator("#invite-link").input_value())
        black.wait_for_selector("#game[data-connected='1']")
        white.wait_for_selector("#invite", state="hidden")
        # Black queues e7-e6 while White thinks
        click(black, "e7")
        click(black, "e6")
        assert premove_squares(black) == ["e7", "e6"]
        assert "premove e7\u2013e6" in black.locator("#status").inner_text()
        click(white, "d2")
        click(white, "d3")
        # the premove goes as soon as White's move arrives: White sees it without Black's hand
        wait_ply(white, 2)
        assert white.locator('#moves .mv[data-ply="2"]').get_attribute("data-move") == "e7-e6"
        wait_ply(black, 2)
        assert premove_squares(black) == []
        # a premove that is not legal when the turn comes is dropped, and Black moves by hand
        drag(black, "h7", "h2")
        assert premove_squares(black) == ["h7", "h2"]
        click(white, "a2")
        click(white, "a3")
        wait_ply(black, 3)
        black.wait_for_selector("#status:has-text('Your move')")
        assert premove_squares(black) == []
        time.sleep(0.5)  # nothing was sent meanwhile
        assert black.locator("#game").get_attribute("data-ply") == "3"
        click(black, "h7")
        click(black, "h6")
        wait_ply(white, 4)
        # a premove made and taken back (Escape) is never sent
        click(black, "g7")
        click(black, "g6")
        black.keyboard.press("Escape")
        assert premove_squares(black) == []
        click(white, "b2")
        click(white, "b3")
        wait_ply(black, 5)
        time.sleep(0.5)
        assert black.locator("#game").get_attribute("data-ply") == "5"
        res = httpx.get(f"{server.url}/api/games/{gid}", timeout=30)
        assert res.json()["moves"][-1]["text"] == "b2-b3"
    finally:
        for ctx in (ctx_w, ctx_b):
            ctx.close()
