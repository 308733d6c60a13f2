"""Browser test of offers between two players (issue 40, item 6), each in a browser context of
its own: a takeback offer and a rematch offer are told to the other player (a line in the status
and the offer sound), who declines them, and the offerer sees the decline (a "takeback
declined" line; the rematch game aborted)."""

from __future__ import annotations

from typing import Any

from tests.web.serverproc import Server
from tests.web.test_web_browser import new_game, shot, wait_ply

WAIT_MS = 30_000
"""Longest wait for the other page to show something (generous: the machine is shared)."""


def status(page: Any) -> str:
    text: str = page.locator("#status").inner_text()
    return text


def sounds(page: Any) -> list[str]:
    played: list[str] = page.evaluate("() => window.exochessGame.sound.played")
    return played


def wait_status(page: Any, words: str) -> None:
    page.wait_for_function(
        "(w) => document.querySelector('#status').textContent.includes(w)", arg=words, timeout=WAIT_MS
    )


def play(page: Any, move: str) -> None:
    page.wait_for_selector("#typed:not([hidden])")
    page.fill("#typed-move", move)
    page.press("#typed-move", "Enter")


def test_offers_are_told_to_the_other_player_and_declined(browser: Any, server: Server) -> None:
    contexts = [
        browser.new_context(viewport={"width": 1200, "height": 900}, base_url=server.url) for _ in range(2)
    ]
    errors: list[str] = []
    try:
        white, black = (ctx.new_page() for ctx in contexts)
        for page in (white, black):
            page.on("pageerror", lambda e: errors.append(str(e)))
        gid = new_game(white, opponent="friend", color="white")
        black.goto(white.locator("#invite-link").input_value())
        for page in (white, black):
            page.wait_for_selector("#game[data-connected='1']")
        play(white, "d2-d3")
        wait_ply(black, 1)

        # a takeback: offered by White, told to Black (status and sound), declined by Black
        white.click("#takeback")
        black.wait_for_selector("#accept-takeback:visible", timeout=WAIT_MS)
        wait_status(black, "your opponent asks to take back a move")
        assert "offer" in sounds(black)
        wait_status(white, "takeback offered")
        shot(black, "offers-takeback-told")
        black.click("#decline-takeback")
        wait_status(white, "takeback declined")  # the offerer sees the decline
        assert "takeback offered" not in status(white)
        white.wait_for_selector("#takeback:visible")  # and may ask again
        black.wait_for_selector("#accept-takeback", state="hidden")
        assert "asks to take back" not in status(black)
        shot(white, "offers-takeback-declined")
        wait_ply(white, 1)  # the position is unchanged

        # the game goes on: the note is gone with the next move
        play(black, "e7-e6")
        wait_ply(white, 2)
        assert "takeback declined" not in status(white)

        # a rematch: White resigns and asks for one; Black is told and declines
        white.click("#resign")
        white.click("#resign")
        black.wait_for_selector("#game[data-status='finished']", timeout=WAIT_MS)
        before = len(sounds(black))
        white.click("#rematch")
        white.wait_for_url(lambda url: gid not in url, timeout=WAIT_MS)
        white.wait_for_selector("#game[data-connected='1']")
        black.wait_for_selector("#rematch:has-text('Accept the rematch')", timeout=WAIT_MS)
        wait_status(black, "your opponent offers a rematch")
        black.wait_for_function(
            f"() => window.exochessGame.sound.played.slice({before}).includes('offer')", timeout=WAIT_MS
        )
        shot(black, "offers-rematch-told")
        black.click("#decline-rematch")
        wait_status(black, "rematch declined")
        assert black.locator("#rematch").is_hidden()
        # the offerer, on the rematch's page, sees it called off
        white.wait_for_selector("#game[data-status='aborted']", timeout=WAIT_MS)
        assert "aborted" in white.locator("#banner").inner_text().lower()
        shot(white, "offers-rematch-declined")
        assert not errors, errors
    finally:
        for ctx in contexts:
            ctx.close()
