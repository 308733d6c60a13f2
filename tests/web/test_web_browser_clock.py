"""Browser: clocks tick on both players' screens, the first-move countdown and the abort button
show before the clock starts, a flag ends the game on both screens; the new-game form sends
the chosen time control; the games list puts your turn first (issue 20)."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from exochess.board import Board
from tests.web.conftest import shots_dir
from tests.web.serverproc import Server, create

ENV = {"EXOCHESS_TEST_TINY_CLOCKS": "1", "EXOCHESS_TEST_TIMING": "20000"}
WAIT_MS = 30_000


@pytest.fixture(scope="module")
def clock_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("clockui") / "ui.sqlite", env=ENV).start()
    yield srv
    srv.stop()


def seat_page(browser: Any, site: Server, gid: str, color: str, secret: str, width: int = 1280) -> Any:
    height = 900 if width > 600 else 844
    context = browser.new_context(viewport={"width": width, "height": height}, base_url=site.url)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    page.goto(f"/game/{gid}#seat={color}&secret={secret}")
    page.wait_for_selector("#game[data-connected='1']")
    return page


def type_move(page: Any, site: Server, gid: str) -> None:
    state = httpx.get(f"{site.url}/api/games/{gid}").json()
    move = sorted(str(m) for m in Board(state["variant"]["name"], fen=state["fen"]).legal_moves)[0]
    page.fill("#typed-move", move)
    page.click("#typed button")
    page.wait_for_selector(f"#game[data-ply='{state['ply'] + 1}']")


def shot(page: Any, name: str, **kwargs: Any) -> None:
    """A screenshot into ``$EXOCHESS_SHOTS``, when it is set (never into the working tree)."""
    if os.environ.get("EXOCHESS_SHOTS"):
        page.screenshot(path=str(shots_dir() / name), **kwargs)


def clock_ms(page: Any, color: str) -> int:
    return int(page.get_attribute("#clocks", f"data-{color}-ms"))


def wait_clock_below(page: Any, color: str, ms: int) -> None:
    """Wait until the clock ``color`` shows less than ``ms`` (polled from here: the site's
    Content-Security-Policy forbids the string evaluation ``wait_for_function`` uses)."""
    deadline = time.monotonic() + WAIT_MS / 1000
    while clock_ms(page, color) >= ms:
        assert time.monotonic() < deadline, f"{color}'s clock still shows {clock_ms(page, color)} ms"
        page.wait_for_timeout(50)


def test_clocks_tick_on_both_screens_and_a_flag_ends_the_game(browser: Any, clock_site: Server) -> None:
    with httpx.Client(base_url=clock_site.url, timeout=30) as c:
        data = create(c, variant="fugue", opponent="friend", time_control="0.1+1")  # 6 s + 1 s
    gid, seats = data["id"], data["seats"]
    white = seat_page(browser, clock_site, gid, "white", seats["white"]["secret"])
    black = seat_page(browser, clock_site, gid, "black", seats["black"]["secret"], width=390)
    try:
        for page in (white, black):
            page.wait_for_selector("#clocks:visible")
            page.wait_for_selector("#clock-note:has-text('must make a first move')")
            assert page.locator("#abort").is_visible()
            assert page.locator("#takeback").is_hidden()  # no takebacks on a clock
            assert page.locator(".clock.bottom .clock-time").inner_text() == "0:06.0"
        shot(white, "clock-before-start-1280.png")
        type_move(white, clock_site, gid)
        type_move(black, clock_site, gid)
        # White's clock runs on both screens, counted down locally between states
        for page in (white, black):
            page.wait_for_selector("#clocks[data-running='white']")
            wait_clock_below(page, "white", 5500)
            assert clock_ms(page, "black") == 6000
            assert page.locator("#abort").is_hidden()
        white.wait_for_selector(".clock.bottom.running.low")  # the last ten seconds are red
        black.wait_for_selector(".clock.top.running.low")
        shot(white, "clock-running-1280.png")
        shot(black, "clock-running-390.png")
        # nobody moves: the server flags White, both screens say so
        for page in (white, black):
            page.wait_for_selector("#game[data-status='finished']", timeout=WAIT_MS)
            page.wait_for_selector("#banner:has-text('Black wins on time')")
            # a finished game shows the clocks at its end: the side flagged at 0, the other as it was
            assert clock_ms(page, "white") == 0 and clock_ms(page, "black") == 6000
        shot(black, "clock-flag-390.png")
        assert white.locator("#clocks").get_attribute("data-beeped") is not None  # the low-time sound
    finally:
        for page in (white, black):
            assert not page.errors, page.errors
            page.context.close()


def test_abort_button_ends_the_game_without_a_result(browser: Any, clock_site: Server) -> None:
    with httpx.Client(base_url=clock_site.url, timeout=30) as c:
        data = create(c, variant="rebelfury", opponent="friend", time_control="3+2")
    page = seat_page(browser, clock_site, data["id"], "black", data["seats"]["black"]["secret"])
    try:
        page.click("#abort")
        page.wait_for_selector("#game[data-status='aborted']")
        page.wait_for_selector("#banner:has-text('aborted by Black')")
        assert page.locator("#status").inner_text() == "Game aborted"
        assert not page.errors, page.errors
    finally:
        page.context.close()


def test_new_game_form_sends_the_time_control(browser: Any, clock_site: Server) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 1100}, base_url=clock_site.url)
    page = context.new_page()
    try:
        page.goto("/new")
        assert page.locator(".tc-custom").is_hidden()
        page.check("input[name=tc_kind][value=realtime]")
        page.click("#tc-presets button[data-tc='3+2']")
        assert page.locator("#tc-presets button.chosen").inner_text() == "3+2"
        shot(page, "new-game-time-control-1280.png", full_page=True)
        page.check("input[name=opponent][value=friend]")
        page.click("#create")
        page.wait_for_url("**/game/*")
        page.wait_for_selector("#clocks:visible")
        gid = page.url.rsplit("/", 1)[1]
        assert httpx.get(f"{clock_site.url}/api/games/{gid}").json()["time_control"]["text"] == "3+2"
        # correspondence against the computer
        page.goto("/new")
        page.check("input[name=tc_kind][value=correspondence]")
        page.select_option("#tc-days", "3")
        page.click("#create")
        page.wait_for_url("**/game/*")
        gid = page.url.rsplit("/", 1)[1]
        state = httpx.get(f"{clock_site.url}/api/games/{gid}").json()
        assert state["time_control"]["text"] == "3d" and state["players"]["black"]["kind"] == "engine"
        page.wait_for_selector("#clock-note:has-text('must make a first move within')")
    finally:
        context.close()


def test_games_list_puts_your_turn_first(browser: Any, clock_site: Server) -> None:
    with httpx.Client(base_url=clock_site.url, timeout=30) as c:
        waiting = create(c, variant="fugue", opponent="friend", time_control="5d")
        mine = create(c, variant="fugue", opponent="friend", time_control="2d")
        state = mine["state"]
        move = sorted(str(m) for m in Board("fugue", fen=state["fen"]).legal_moves)[0]
        res = c.post(
            f"/api/games/{mine['id']}/moves", json={"move": move, "secret": mine["seats"]["white"]["secret"]}
        )
        assert res.status_code == 200
    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=clock_site.url)
    page = context.new_page()
    try:
        page.goto("/")
        # this browser holds White in the first game (its turn) and Black in the second (its turn)
        seats = {waiting["id"]: ("white", waiting), mine["id"]: ("black", mine)}
        for gid, (color, data) in seats.items():
            value = json.dumps({"color": color, "secret": data["seats"][color]["secret"]})
            page.evaluate("([k, v]) => localStorage.setItem(k, v)", [f"exochess:seat:{gid}", value])
        page.goto("/games")
        page.wait_for_selector("#mine tr.your-turn")
        rows = page.locator("#mine tbody tr")
        # both are this browser's turn: the nearer deadline (2 days per move) first
        assert rows.nth(0).get_attribute("data-game") == mine["id"]
        assert rows.nth(1).get_attribute("data-game") == waiting["id"]
        assert "left" in rows.nth(0).inner_text()
        shot(page, "games-your-turn-1280.png", full_page=True)
    finally:
        context.close()


def test_correspondence_turn_notification_when_the_tab_is_hidden(browser: Any, clock_site: Server) -> None:
    with httpx.Client(base_url=clock_site.url, timeout=30) as c:
        data = create(c, variant="fugue", opponent="friend", time_control="1d")
        page = seat_page(browser, clock_site, data["id"], "white", data["seats"]["white"]["secret"])
        try:
            # a stand-in for the browser's notifications (granted), and a tab in the background
            page.evaluate("""() => {
                window.shown = [];
                window.Notification = class { constructor(title, options) { window.shown.push([title, options.body]); } };
                window.Notification.permission = "granted";
                window.Notification.requestPermission = async () => "granted";
                Object.defineProperty(document, "hidden", { value: true });
            }""")
            page.check("#notify-turn")
            type_move(page, clock_site, data["id"])
            assert page.evaluate("window.shown") == []  # the opponent's turn: nothing to say
            state = c.get(f"/api/games/{data['id']}").json()
            move = sorted(str(m) for m in Board("fugue", fen=state["fen"]).legal_moves)[0]
            res = c.post(
                f"/api/games/{data['id']}/moves",
                json={"move": move, "secret": data["seats"]["black"]["secret"]},
            )
            assert res.status_code == 200
            page.wait_for_selector("#game[data-ply='2']")
            shown = page.evaluate("window.shown")
            assert len(shown) == 1 and shown[0][0] == "exochess: your move" and move in shown[0][1]
            assert page.evaluate("localStorage.getItem('exochess:notify-turn')") == "on"
            page.wait_for_selector("#clock-note:has-text('for this move')")
            assert not page.errors, page.errors
        finally:
            page.context.close()
