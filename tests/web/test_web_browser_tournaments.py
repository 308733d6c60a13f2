"""An arena in Chromium (issue 46): three accounts join from the event's page, the two paired
are taken to their game, one resigns, both are brought back to the event, whose standings
show the winner's points, and the podium once the arena is over.

The server runs with tiny clocks (an arena of a fraction of a minute) and no schedule.  The
test resigns only once the arena's time is up, so that nobody is paired again and the event
finishes with that one game.  Every wait is on a page state, with a generous bound.

Set EXOCHESS_SHOTS=/some/dir to keep screenshots of the standings at 1280 px and 390 px.
"""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError

from tests.web.conftest import shots_dir
from tests.web.serverproc import Server

ENV = {"EXOCHESS_TEST_TINY_CLOCKS": "1", "EXOCHESS_TOURNAMENT_SCHEDULE": ""}
PASSWORD = "a long password"
WAIT_MS = 180_000
"""Bound on any wait for a page state (the server's loop ticks every half second)."""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(
        tmp_path_factory.mktemp("browser-tournaments") / "site.sqlite", engine_workers=0, env=ENV
    ).start()
    yield srv
    srv.stop()


@pytest.fixture()
def people(browser: Any, site: Server) -> Iterator[Any]:
    """A factory of signed-up pages, each in a browser context of its own (a different person)."""
    contexts: list[Any] = []
    errors: list[str] = []

    def person() -> tuple[str, Any]:
        context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=site.url)
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)
        page.on("pageerror", lambda e: errors.append(f"{page.url}: {e} {e.stack}"))
        page.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
        name = f"t{secrets.token_hex(5)}"
        page.goto("/signup")
        page.fill("#name", name)
        page.fill("#password", PASSWORD)
        page.click("#submit")
        page.wait_for_url("**/")
        return name, page

    yield person
    for context in contexts:
        context.close()
    assert not errors, errors


def post(page: Any, url: str, body: dict[str, Any]) -> Any:
    """A JSON POST from the page itself (its session cookie and origin), answering the JSON."""
    return page.evaluate(
        """async ([url, body]) => {
            const res = await fetch(url, {method: "POST", headers: {"Content-Type": "application/json"},
                                          body: JSON.stringify(body)});
            return {status: res.status, body: await res.json().catch(() => null)};
        }""",
        [url, body],
    )


def get(page: Any, url: str) -> Any:
    """A JSON GET with the page's session (through its context: the page may be navigating)."""
    res = page.request.get(url)
    assert res.ok, res.text()
    return res.json()


def wait_for(what: str, probe: Callable[[], Any]) -> Any:
    """``probe()``'s first truthy answer, polled for up to WAIT_MS."""
    deadline = time.monotonic() + WAIT_MS / 1000
    while time.monotonic() < deadline:
        value = probe()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def arrive(page: Any, url: str) -> None:
    """Wait until ``page`` shows ``url`` (a glob). A page may pass through another on its way
    (a game page goes back to the event, whose page goes on to the next game at once): the
    navigation given up for the next one is no failure, so the wait starts again."""
    for _ in range(10):
        try:
            page.wait_for_url(url)
            return
        except PlaywrightError as exc:
            if "ERR_ABORTED" not in str(exc) and "frame was detached" not in str(exc):
                raise
    page.wait_for_url(url)


def play(page: Any, move: str, ply: int) -> None:
    page.wait_for_selector("#typed:not([hidden])")
    page.fill("#typed-move", move)
    page.press("#typed-move", "Enter")
    page.wait_for_selector(f'#game[data-ply="{ply}"]')


def shoot(page: Any, name: str) -> None:
    folder = shots_dir()
    if folder == Path():
        return
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=str(folder / f"{name}-{width}.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})


def test_an_arena_joined_played_and_finished_in_the_browser(people: Any, browser: Any, site: Server) -> None:
    trio = dict(people() for _ in range(3))
    host = next(iter(trio.values()))
    made = post(
        host,
        "/api/tournaments",
        {
            "kind": "arena",
            "variant": "fugue",
            "time_control": "3+2",
            "minutes": 0.25,
            "starts_in": 60,
            "name": "Browser arena",
        },
    )
    assert made["status"] == 201, made
    event = made["body"]["id"]
    for name, page in trio.items():
        page.goto(f"/tournaments/{event}")
        page.wait_for_selector("#tournament[data-live='yes']")
        assert page.inner_text("#tournament-name") == "Browser arena"
        page.click("#tournament-join")
        page.wait_for_selector(f'#tournament-standings tr.me[data-player="{name}"]')
        page.wait_for_selector("#tournament-withdraw:not([hidden])")
    for page in trio.values():
        page.wait_for_selector("#tournament-standings tbody tr >> nth=2")
    # a signed-out visitor is offered to sign in and join while the event can still be joined
    visitor_context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=site.url)
    visitor = visitor_context.new_page()
    visitor.set_default_timeout(WAIT_MS)
    visitor.goto(f"/tournaments/{event}")
    visitor.wait_for_selector("#tournament[data-live='yes']")
    visitor.wait_for_selector("#tournament-signin:not([hidden])")
    # the creator starts the arena now: the loop pairs two of the three at once
    started = post(host, f"/api/tournaments/{event}/start", {})
    assert started["status"] in (200, 204), started

    # every page shows the pairing; the two paired are taken to their game, the third stays
    [game] = wait_for("the pairing", lambda: get(host, f"/api/tournaments/{event}")["playing"])
    white = (game["white"], trio[game["white"]])
    black = (game["black"], trio[game["black"]])
    for _, page in (white, black):
        arrive(page, f"**/game/{game['id']}?tournament={event}")
        page.wait_for_selector("#game[data-connected='1']")
        page.wait_for_selector("#tournament-return")
    waiting_name = next(name for name in trio if name not in (white[0], black[0]))
    waiting = trio[waiting_name]
    assert "/tournaments/" in waiting.url
    waiting.wait_for_selector(f'#tournament-games a[href="/game/{game["id"]}"]')

    # White and Black move from their pages; Black resigns once pairing has stopped
    play(white[1], "d2-d3", 1)
    play(black[1], "e7-e6", 2)
    waiting.wait_for_selector("#tournament-clock:has-text('Pairing has stopped')")
    # once the arena has stopped pairing a join would be refused: no button offers one
    visitor.wait_for_selector("#tournament-signin[hidden]", state="attached")
    loser_name, loser = black
    winner_name, _ = white
    loser.click("#resign")
    loser.click("#resign")  # the second press confirms
    for _, page in (white, black):
        page.wait_for_url(re.compile(rf"/tournaments/{event}(\?after=\w+)?$"))
        page.wait_for_selector("#tournament[data-live='yes']")
    # the winner's 2 points on every page; the podium once the last game has ended
    for page in trio.values():
        page.wait_for_selector(
            f'#tournament-standings tr[data-player="{winner_name}"] td:last-child:text-is("2")'
        )
        page.wait_for_selector("#tournament[data-status='finished']")
        page.wait_for_selector("#tournament-podium:not([hidden]) li")
        podium = page.locator("#tournament-podium li").all_inner_texts()
        assert podium[0] == winner_name, podium
        assert loser_name in podium and waiting_name in podium
        assert page.inner_text("#tournament-standings tbody tr:first-child").startswith("1")
    shoot(waiting, "tournament-standings")
    visitor.wait_for_selector("#tournament[data-status='finished']")
    assert visitor.locator("#tournament-signin").is_hidden()
    visitor_context.close()


def test_a_player_paired_before_their_game_page_returns_is_taken_to_the_new_game(people: Any) -> None:
    """In an arena the next pairing comes at once (here: the two players meet again), while a
    game page goes back to the event a few seconds after its end: the event's page, opened with
    the new game already on, takes its player there (a player left on it would lose that game
    by absence and be paused)."""
    duo = dict(people() for _ in range(2))
    host = next(iter(duo.values()))
    made = post(
        host,
        "/api/tournaments",
        {"kind": "arena", "variant": "fugue", "time_control": "3+2", "minutes": 5, "starts_in": 60},
    )
    assert made["status"] == 201, made
    event = made["body"]["id"]
    for page in duo.values():
        page.goto(f"/tournaments/{event}")
        page.wait_for_selector("#tournament[data-live='yes']")
        page.click("#tournament-join")
    for name, page in duo.items():
        page.wait_for_selector(f'#tournament-standings tr.me[data-player="{name}"]')
    assert post(host, f"/api/tournaments/{event}/start", {})["status"] == 204
    [first] = wait_for("the first pairing", lambda: get(host, f"/api/tournaments/{event}")["playing"])
    white, black = duo[first["white"]], duo[first["black"]]
    for page in (white, black):
        arrive(page, f"**/game/{first['id']}?tournament={event}")
    play(white, "d2-d3", 1)
    play(black, "e7-e6", 2)
    black.click("#resign")
    black.click("#resign")

    def second_game() -> Any:
        on = get(host, f"/api/tournaments/{event}")["playing"]
        return on[0] if on and on[0]["id"] != first["id"] else None

    again = wait_for("the second pairing", second_game)
    for page in duo.values():
        arrive(page, f"**/game/{again['id']}?tournament={event}")
        page.wait_for_selector("#game[data-connected='1']")
    for page in duo.values():
        post(page, f"/api/tournaments/{event}/withdraw", {})


def test_an_event_open_to_bots_is_made_by_the_form_and_shows_its_bot(people: Any, site: Server) -> None:
    """Issue 46, item 5: the form's "Open to bots" makes an event bot accounts may join; its page
    says so, and a bot that joins (by its token, as a program does) shows with its BOT title."""
    _name, page = people()
    page.goto("/tournaments")
    page.fill("#tournament-form input[name='name']", "Bots welcome")
    page.fill("#tournament-form input[name='starts_in']", "30")
    page.check("#tournament-form input[name='bots_allowed']")
    page.click("#tournament-form button[type='submit']")
    page.wait_for_url(re.compile(r".*/tournaments/[0-9a-f]+$"))
    event = page.url.rsplit("/", 1)[1]
    assert get(page, f"/api/tournaments/{event}")["bots_allowed"] is True
    page.wait_for_selector("#tournament[data-live='yes']")
    assert "bots may join" in page.inner_text("#tournament-about")
    bot_name, bot_page = people()
    token = post(bot_page, "/api/account/tokens", {"description": "bot", "scopes": ["bot:play"]})["body"][
        "token"
    ]
    for url in ("/api/bot/account/upgrade", f"/api/tournament/{event}/join"):
        res = bot_page.request.post(url, headers={"Authorization": f"Bearer {token}"})
        assert res.status == 200, res.text()
    row = page.wait_for_selector(f'#tournament-standings tr[data-player="{bot_name}"]')
    assert row is not None and row.inner_text().split()[1:3] == ["BOT", bot_name]
    page.goto("/tournaments")
    assert "bots may join" in page.inner_text(f'tr[data-tournament="{event}"]')
