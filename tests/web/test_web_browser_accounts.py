"""Accounts in Chromium: sign up and log in through the pages, a rated game played by two
accounts in two browser contexts (no seat secret in either: the session holds the seat), the
profile showing the new rating and the game, the leaderboard, the header's menu.

Set EXOCHESS_SHOTS=/some/dir to keep screenshots at 1280 px and 390 px.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

from exochess.web.accounts.ratings import Rating, rated_pair
from exochess.web.accounts.users import Accounts
from exochess.web.domain import PlayerKind
from exochess.web.storage.store import Storage
from tests.web.serverproc import Server

PASSWORD = "a long password"


def shoot(page: Any, name: str) -> None:
    folder = os.environ.get("EXOCHESS_SHOTS")
    if not folder:
        return
    Path(folder).mkdir(parents=True, exist_ok=True)
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=str(Path(folder) / f"{name}-{width}.png"), full_page=True)
    page.set_viewport_size({"width": 1200, "height": 900})


def new_context(browser: Any, server: Server) -> tuple[Any, Any, list[str]]:
    context = browser.new_context(viewport={"width": 1200, "height": 900}, base_url=server.url)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
    return context, page, errors


def sign_up(page: Any, name: str) -> None:
    page.goto("/signup")
    page.fill("#name", name)
    page.fill("#password", PASSWORD)
    page.click("#submit")
    page.wait_for_url("**/")
    assert page.locator("#username").inner_text() == name


def test_accounts_rated_game_profile_and_leaderboard(browser: Any, server: Server) -> None:
    white_name, black_name = f"w{secrets.token_hex(5)}", f"b{secrets.token_hex(5)}"
    wctx, white, werrors = new_context(browser, server)
    bctx, black, berrors = new_context(browser, server)
    try:
        white.goto("/signup")
        shoot(white, "signup")
        # a refused sign-up shows the server's reason and changes nothing
        white.fill("#name", "admin")
        white.fill("#password", PASSWORD)
        white.click("#submit")
        assert "reserved" in white.locator("#error").inner_text(timeout=5000) or white.wait_for_selector(
            "#error:has-text('reserved')"
        )
        sign_up(white, white_name)
        sign_up(black, black_name)

        # the lobby will make rated games; here the test makes one directly, as it would
        storage = Storage(server.database_url)
        try:
            accounts = Accounts(storage.engine)
            wu, bu = accounts.by_name(white_name), accounts.by_name(black_name)
            assert wu is not None and bu is not None
            gid = "b" + secrets.token_hex(4)[:7]  # the shape of the site's ids (8 letters or digits)
            storage.create_game(
                id=gid,
                variant="fugue",
                start_fen="wlqksaui/pppppppp/8/8/8/8/PPPPPPPP/IUASKQLW w",
                white=PlayerKind.HUMAN,
                black=PlayerKind.HUMAN,
                level=None,
                white_secret=secrets.token_urlsafe(16),
                black_secret=secrets.token_urlsafe(16),
                time_control="5+3",
                white_user=wu.id,
                black_user=bu.id,
                rated=True,
            )
        finally:
            storage.close()

        for pg in (white, black):
            pg.goto(f"/game/{gid}")
            pg.wait_for_selector("#game[data-connected='1']")
        assert white_name in white.locator("#players").inner_text()
        assert "1500?" in white.locator("#players").inner_text()
        shoot(white, "game-rated")
        # each plays a move from the seat the account holds (no secret in either browser)
        white.fill("#typed-move", "d2-d3")
        white.press("#typed-move", "Enter")
        black.wait_for_selector("#game[data-ply='1']")
        black.fill("#typed-move", "e7-e6")
        black.press("#typed-move", "Enter")
        white.wait_for_selector("#game[data-ply='2']")
        black.click("#resign")
        black.click("#resign")
        for pg in (white, black):
            pg.wait_for_selector("#banner:has-text('Black resigned')")
        new_white, _ = rated_pair(Rating(), Rating(), 1.0)
        expected = f"{round(new_white.rating)}?"
        white.wait_for_selector(f"#players:has-text('{expected}')")

        white.click("#username")
        white.click(f"a[href='/@/{white_name}']")
        white.wait_for_url(f"**/@/{white_name}")
        card = white.locator(".rating-card[data-variant='fugue']")
        assert expected in card.inner_text()
        assert card.locator("svg polyline").count() == 1
        games = white.locator("#profile-games").inner_text()
        assert black_name in games and "1-0" in games and "\t2\t" in games
        assert "Won 1" in " ".join(white.locator("#results").inner_text().split())
        shoot(white, "profile")
        white.click(f"#profile-games a[href='/game/{gid}']")
        white.wait_for_url(f"**/game/{gid}")

        white.goto("/leaderboard")
        assert white.locator(".leaderboard[data-variant='fugue']").count() == 1
        assert white_name not in white.locator(".leaderboards").inner_text()  # still provisional
        shoot(white, "leaderboard")

        white.goto("/account")
        shoot(white, "account")
        # log out through the menu, log back in through the page
        white.click("#username")
        white.click("#logout")
        white.wait_for_selector("#login-link")
        white.goto("/login")
        white.fill("#name", white_name.upper())
        white.fill("#password", "wrong password")
        white.click("#submit")
        white.wait_for_selector("#error:has-text('wrong username or password')")
        shoot(white, "login")
        white.fill("#password", PASSWORD)
        white.click("#submit")
        white.wait_for_url("**/")
        assert white.locator("#username").inner_text() == white_name
        # no seat secret is stored in this browser: the account lists the game
        assert white.evaluate("Object.keys(localStorage).filter(k => k.startsWith('exochess:seat:'))") == []
        white.goto("/games")
        white.wait_for_selector(f"#mine tr[data-game='{gid}']")
        assert "Rated game" in black.locator("#players").inner_text()
    finally:
        wctx.close()
        bctx.close()
    assert not werrors and not berrors, werrors + berrors
