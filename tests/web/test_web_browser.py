"""Browser tests: Playwright driving Debian's Chromium against a real server.

Set EXOCHESS_SHOTS=/some/dir to keep screenshots of every page visited.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from tests.web.legaltree import whole_moves
from tests.web.serverproc import Server, create

# Fugue positions that make games short: Black's King on a8 is frozen by White's
# Immobilizer on b7 and White's King on b8 takes it next move; Black's h8 pawn gives the
# computer something to play.  Each position offers one special move.
SPECIAL = {
    "archer-shot": ("kK5p/1I6/8/8/8/4p3/8/4A3 w", "e1", "e3", None, "e1@e3"),
    "swapper-destruction": ("kK5p/1I6/8/3p4/3W4/8/8/8 w", "d4", "d5", "d4*d5", "d4*d5"),
    "swapper-swap": ("kK5p/1I6/8/3p4/3W4/8/8/8 w", "d4", "d5", "d4~d5", "d4~d5"),
    "pushme-victim": ("kK5p/1I6/8/8/1pU2p2/8/8/8 w", "c4", "e4", "c4xe4(f4)", "c4xe4(f4)"),
    "promotion": ("kK5p/1IP5/8/8/8/8/8/8 w", "c7", "c8", "c7-c8=Q", "c7-c8=Q"),
}


def shot(page: Any, name: str) -> None:
    folder = os.environ.get("EXOCHESS_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)


def center(page: Any, square: str) -> tuple[float, float]:
    box = page.locator(f'#board rect.sq[data-square="{square}"]').bounding_box()
    assert box is not None, square
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def click(page: Any, square: str) -> None:
    x, y = center(page, square)
    page.mouse.click(x, y)


def drag(page: Any, a: str, b: str) -> None:
    x1, y1 = center(page, a)
    x2, y2 = center(page, b)
    page.mouse.move(x1, y1)
    page.mouse.down()
    page.mouse.move((x1 + x2) / 2, (y1 + y2) / 2, steps=4)
    page.mouse.move(x2, y2, steps=4)
    page.mouse.up()


def wait_ply(page: Any, ply: int) -> None:
    page.wait_for_selector(f'[data-ply="{ply}"]', timeout=15000)


def new_game(
    page: Any, fen: str = "", opponent: str = "computer", color: str = "white", variant: str = "fugue"
) -> str:
    page.goto(f"/new?variant={variant}&fen={quote(fen)}")
    page.check(f'input[name=opponent][value="{opponent}"]')
    if opponent == "computer":
        page.select_option("#level", "0")
    page.select_option("#color", color)
    shot(page, "new")
    page.click("#create")
    page.wait_for_url("**/game/*")
    page.wait_for_selector("#game[data-connected='1']")
    return str(page.url.rsplit("/", 1)[1].split("#")[0])


@pytest.mark.parametrize("case", list(SPECIAL))
def test_full_game_against_the_computer(page: Any, case: str) -> None:
    fen, start, dest, choice, text = SPECIAL[case]
    new_game(page, fen)
    click(page, start)
    assert page.locator(f'#board [data-dest="{dest}"]').count() == 1
    shot(page, f"special-{case}-picked")
    click(page, dest)
    if choice is not None:
        page.wait_for_selector(".chooser")
        shot(page, f"special-{case}-chooser")
        page.click(f'.chooser button[data-move="{choice}"]')
    wait_ply(page, 2)  # our move, then the computer's
    assert page.locator('#moves .mv[data-ply="1"]').get_attribute("data-move") == text
    victims = page.locator("#board [data-victim]").count()
    assert victims == 0 or page.locator('#moves .mv[data-ply="2"]').count() == 1
    drag(page, "b8", "a8")  # the King takes the frozen King
    page.wait_for_selector('#game[data-status="finished"]')
    banner = page.locator("#banner").inner_text()
    assert "1-0" in banner and "King captured" in banner
    shot(page, f"special-{case}-finished")


# Interweave: a two-action chain entered one action at a time (a4xa8(a5), then a8xc4(b6));
# Rebel Fury: a Ximaera swap.  In both, the computer then has one reply and White wins next move.
OTHER_GAMES = {
    "interweave": ("1Nk5/4k3/1p2K3/p3P3/N7/8/8/6K1 w - 000000", ["a4", "a8", "c4"], "a4xa8(a5),a8xc4(b6)"),
    "rebelfury": ("f11/2a9/12/3J8/12/12/12/12/11A/12/12/G1G8X w", ["l1", "l4"], "l1~l4"),
}


def royal_squares(state: dict[str, Any], white: bool) -> set[str]:
    letter = state["variant"]["royal"]
    letter = letter if white else letter.lower()
    width, height = state["variant"]["width"], state["variant"]["height"]
    squares: set[str] = set()
    for i, row in enumerate(state["fen"].split()[0].split("/")):
        rank, file = height - i, 0
        for token in re.findall(r"\d+|[A-Za-z]", row):
            if token.isdigit():
                file += int(token)
            else:
                if token == letter:
                    squares.add(f"{chr(97 + file)}{rank}")
                file += 1
    assert file <= width
    return squares


def capture_royal_by_clicks(page: Any, server: Server, gid: str) -> str:
    state = httpx.get(f"{server.url}/api/games/{gid}").json()
    targets = royal_squares(state, white=state["turn"] == "black")
    move = next(
        m for m in whole_moves(state["legal"]) if len(m["actions"]) == 1 and set(m["victims"]) & targets
    )
    click(page, move["from"])
    click(page, move["to"])
    if page.locator(".chooser").count():
        page.click(f'.chooser button[data-move="{move["text"]}"]')
    return str(move["text"])


@pytest.mark.parametrize("variant", list(OTHER_GAMES))
def test_full_game_against_the_computer_other_games(page: Any, server: Server, variant: str) -> None:
    fen, clicks, text = OTHER_GAMES[variant]
    gid = new_game(page, fen, variant=variant)
    click(page, clicks[0])
    for i, square in enumerate(clicks[1:]):
        if i == 1:
            page.wait_for_selector(".chain-bar")
            shot(page, f"{variant}-chain")
        click(page, square)
    wait_ply(page, 2)
    assert page.locator('#moves .mv[data-ply="1"]').get_attribute("data-move") == text
    capture_royal_by_clicks(page, server, gid)
    page.wait_for_selector('#game[data-status="finished"]')
    assert "1-0" in page.locator("#banner").inner_text()
    shot(page, f"{variant}-finished")


def test_friend_game_in_two_browsers(browser: Any, server: Server) -> None:
    ctx_w = browser.new_context(viewport={"width": 1200, "height": 900}, base_url=server.url)
    ctx_b = browser.new_context(viewport={"width": 1200, "height": 900}, base_url=server.url)
    ctx_s = browser.new_context(viewport={"width": 1200, "height": 900}, base_url=server.url)
    try:
        white = ctx_w.new_page()
        gid = new_game(white, opponent="friend", color="white")
        assert white.locator("#invite").is_visible()
        invite = white.locator("#invite-link").input_value()
        assert "secret=" in invite and "seat=black" in invite
        shot(white, "friend-invite")
        black = ctx_b.new_page()
        black.goto(invite)
        black.wait_for_selector("#game[data-connected='1']")
        assert "secret" not in black.url  # the secret leaves the address bar
        white.wait_for_selector("#invite", state="hidden")
        click(white, "d2")
        click(white, "d3")
        wait_ply(black, 1)
        drag(black, "e7", "e6")
        wait_ply(white, 2)
        assert white.locator('#moves .mv[data-ply="2"]').get_attribute("data-move") == "e7-e6"
        # a spectator sees the game but cannot move
        spectator = ctx_s.new_page()
        spectator.goto(f"/game/{gid}")
        spectator.wait_for_selector("#game[data-connected='1']")
        click(spectator, "a2")
        assert spectator.locator("#board [data-dest]").count() == 0
        assert "watching" in spectator.locator("#status").inner_text()
        # takeback: White asks, Black accepts, both boards go back to the start
        white.click("#takeback")
        black.wait_for_selector("#accept-takeback:visible")
        black.click("#accept-takeback")
        wait_ply(white, 0)
        wait_ply(spectator, 0)
        # a reconnecting player resumes: reload Black's page
        click(white, "a2")
        click(white, "a3")
        wait_ply(black, 1)
        black.reload()
        black.wait_for_selector("#game[data-connected='1']")
        click(black, "h7")
        click(black, "h6")
        wait_ply(white, 2)
        # resign (two clicks), both see the result, then a rematch with colours swapped
        white.click("#resign")
        white.click("#resign")
        for pg in (white, black, spectator):
            pg.wait_for_selector('#game[data-status="finished"]')
            assert "White resigned" in pg.locator("#banner").inner_text()
        shot(black, "friend-finished")
        white.click("#rematch")
        white.wait_for_url(lambda url: gid not in url)
        # the offer is told to Black (issue 40): the button accepts it
        black.wait_for_selector("#rematch:has-text('Accept the rematch')")
        black.click("#rematch")
        black.wait_for_url(lambda url: gid not in url)
        black.wait_for_selector("#game[data-connected='1']")
        # Black of the first game now has White, and types its moves
        black.fill("#typed-move", "d2-d5")
        black.press("#typed-move", "Enter")
        black.wait_for_selector("#error:has-text('illegal')")
        black.fill("#typed-move", "d2-d3")
        black.press("#typed-move", "Enter")
        wait_ply(white, 1)
    finally:
        for ctx in (ctx_w, ctx_b, ctx_s):
            ctx.close()


def test_replay_and_pgn_download(page: Any, server: Server) -> None:
    with httpx.Client(base_url=server.url) as c:
        data = create(c, variant="fugue", opponent="friend", color="white")
        gid = data["id"]
        seats = [data["seats"]["white"]["secret"], data["seats"]["black"]["secret"]]
        texts = ["d2-d3", "e7-e6", "a2-a3", "h7-h6"]
        for i, t in enumerate(texts):
            assert (
                c.post(f"/api/games/{gid}/moves", json={"move": t, "secret": seats[i % 2]}).status_code == 200
            )
        c.post(f"/api/games/{gid}/resign", json={"secret": seats[1]})
    page.goto(f"/game/{gid}")
    page.wait_for_selector('#game[data-status="finished"]')
    page.click('#moves .mv[data-ply="1"]')
    page.wait_for_selector('#game[data-shown-ply="1"]')
    assert page.locator('#board .piece[data-square="d3"]').count() == 1
    assert page.locator('#board .piece[data-square="e6"]').count() == 0
    page.keyboard.press("ArrowRight")
    page.wait_for_selector('#game[data-shown-ply="2"]')
    page.wait_for_selector("#board svg.board:not([data-animating])")  # a step forward slides in
    assert page.locator('#board .piece[data-square="e6"]').count() == 1
    page.keyboard.press("Home")
    page.wait_for_selector('#game[data-shown-ply="0"]')
    page.keyboard.press("End")
    page.wait_for_selector('#game[data-shown-ply="4"]')
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector('#game[data-shown-ply="3"]')
    shot(page, "replay")
    with page.expect_download() as info:
        page.click("#pgn")
    text = Path(info.value.path()).read_text()
    assert "1. d2-d3 e7-e6 2. a2-a3 h7-h6 1-0" in text and '[Variant "Fugue"]' in text
    page.goto("/games")
    page.wait_for_selector(f'#recent tr[data-game="{gid}"]')
    shot(page, "games")


def test_analysis_board_and_pages(page: Any) -> None:
    page.goto("/analysis?variant=fugue")
    page.wait_for_selector('#analysis[data-ply="0"]')
    click(page, "d2")
    click(page, "d3")
    page.wait_for_selector('#analysis[data-ply="1"]')
    click(page, "e7")
    click(page, "e6")
    page.wait_for_selector('#analysis[data-ply="2"]')
    assert "White to move" in page.locator("#status").inner_text()
    if page.locator("#engine:enabled").count():  # with the engine installed: its evaluation
        page.click("#engine")
        page.wait_for_selector("#eval:has-text('Best line')", timeout=20000)
        shot(page, "analysis-engine")
    page.fill("#fen", "kK5p/1I6/8/8/8/8/8/8 w")
    page.click("#load")
    page.wait_for_selector('#analysis[data-fen="kK5p/1I6/8/8/8/8/8/8 w"]')
    click(page, "b8")
    click(page, "a8")
    page.wait_for_selector("#status:has-text('King captured')")
    shot(page, "analysis")
    for path, name in [("/", "home"), ("/rules/fugue", "rules-fugue"), ("/games", "games-list")]:
        page.goto(path)
        page.wait_for_load_state("networkidle")
        shot(page, name)
    assert page.locator("svg.board").count() >= 0


def test_page_reconnects_after_a_server_restart(browser: Any, tmp_path: Path) -> None:
    srv = Server(tmp_path / "reconnect.sqlite").start()
    context = browser.new_context(viewport={"width": 1200, "height": 900}, base_url=srv.url)
    try:
        with httpx.Client(base_url=srv.url) as c:
            data = create(c, variant="fugue", opponent="friend", color="white")
        gid = data["id"]
        page = context.new_page()
        page.goto(data["seats"]["white"]["url"])
        page.wait_for_selector("#game[data-connected='1']")
        click(page, "d2")
        click(page, "d3")
        wait_ply(page, 1)
        srv.kill()
        page.wait_for_selector("#game[data-connected='0']")
        srv.start()
        with httpx.Client(base_url=srv.url) as c:
            res = c.post(
                f"/api/games/{gid}/moves", json={"move": "e7-e6", "secret": data["seats"]["black"]["secret"]}
            )
            assert res.status_code == 200, res.text
        wait_ply(page, 2)  # the page reconnected by itself and got Black's reply
        # the state comes before the server's answer to the seat's secret, and the board takes
        # input only once the seat is proved: a click between the two is ignored
        page.wait_for_selector("#game[data-connected='1']")
        click(page, "a2")
        click(page, "a3")
        wait_ply(page, 3)
    finally:
        context.close()
        srv.stop()
