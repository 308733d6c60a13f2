"""Browser test of the lobby: two strangers meet there and play, a third watches; the chat.

Set EXOCHESS_SHOTS=/some/dir to keep screenshots (desktop and phone widths).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.web.serverproc import Server
from tests.web.test_web_browser import shot

PHONE = {"width": 390, "height": 844}


@pytest.fixture()
def people(browser: Any, server: Server) -> Iterator[Any]:
    """A factory of pages, each in a browser context of its own (a different person)."""
    contexts: list[Any] = []
    errors: list[str] = []

    def person() -> Any:
        context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=server.url)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
        page.on(
            "dialog", lambda d: errors.append(f"dialog: {d.message}")
        )  # an alert() would mean injected HTML
        return page

    yield person
    for context in contexts:
        context.close()
    assert not errors, errors


def phone_shot(page: Any, name: str) -> None:
    size = page.viewport_size
    page.set_viewport_size(PHONE)
    shot(page, name)
    page.set_viewport_size(size)


def set_name(page: Any, name: str) -> None:
    page.fill("#name", name)
    page.click("#save-name")


def play(page: Any, move: str, ply: int) -> None:
    page.wait_for_selector("#typed:not([hidden])")
    page.fill("#typed-move", move)
    page.press("#typed-move", "Enter")
    page.wait_for_selector(f'#game[data-ply="{ply}"]')


def clock_ms(page: Any, color: str) -> int:
    """What the clock of ``color`` shows, in ms (the page writes it on ``#clocks``)."""
    return int(page.get_attribute("#clocks", f"data-{color}-ms"))


def test_two_strangers_meet_in_the_lobby_and_play_while_a_third_watches(people: Any) -> None:
    alice, bob, carol = people(), people(), people()
    alice.goto("/lobby")
    alice.wait_for_selector("#lobby[data-connected='1']")
    generated = alice.input_value("#name")
    assert generated.startswith("Anonymous ")  # a name to play under before choosing one
    set_name(alice, "Alice")
    alice.select_option("#post-variant", "fugue")
    alice.select_option("#post-time", "3+2")
    alice.check('input[name=color][value="white"]')
    alice.click("#post-button")
    mine = alice.wait_for_selector("#challenges tr.mine")
    challenge = mine.get_attribute("data-challenge")
    assert "Cancel" in mine.inner_text()

    bob.goto("/lobby")
    row = bob.wait_for_selector(f'#challenges tr[data-challenge="{challenge}"]')
    text = row.inner_text()
    assert "Alice" in text and "Fugue" in text and "3+2" in text and "White" in text and "Casual" in text
    assert bob.is_disabled(".rated input")  # rated games wait for accounts
    shot(bob, "lobby-desktop")
    phone_shot(bob, "lobby-phone")
    set_name(bob, "Bob")
    bob.click(f'#challenges tr[data-challenge="{challenge}"] button.accept')
    # both are sent to the game, each with their seat (the secrets never appear in a URL)
    for page in (alice, bob):
        page.wait_for_url("**/game/*")
        page.wait_for_selector("#game[data-connected='1']")
        assert "secret" not in page.url
    game = alice.url.rsplit("/", 1)[1]
    assert bob.url.rsplit("/", 1)[1] == game
    assert "Alice (you)" in alice.inner_text("#players") and "Bob" in alice.inner_text("#players")
    assert "Bob (you)" in bob.inner_text("#players")

    carol.goto("/lobby")
    carol.wait_for_selector(f'#live tr[data-game="{game}"]')
    live = carol.inner_text(f'#live tr[data-game="{game}"]')
    assert "Alice" in live and "Bob" in live and "3+2" in live
    shot(carol, "lobby-live-games")
    carol.click(f'#live tr[data-game="{game}"] a.watch')
    carol.wait_for_url(f"**/game/{game}")
    carol.wait_for_selector("#game[data-connected='1']")

    # 3+2: no clock runs before both first moves; then White's runs down on every screen
    for page in (alice, bob):
        page.wait_for_selector("#clocks:visible")
        assert page.inner_text(".clock.bottom .clock-time") == "3:00"
    play(alice, "d2-d3", 1)
    play(bob, "e7-e6", 2)
    for page in (alice, bob, carol):
        page.wait_for_selector('#game[data-ply="2"]')
        page.wait_for_selector("#clocks[data-running='white']")
    assert "e7-e6" in carol.inner_text("#moves")
    for page in (alice, bob):
        first = clock_ms(page, "white")
        page.wait_for_timeout(600)
        assert clock_ms(page, "white") < first <= 180_000  # ticking, counted on each screen
        assert clock_ms(page, "black") == 180_000  # the first moves are not timed: Black still has 3:00

    # chat: between the players, read by the spectator, shown as text
    alice.fill("#chat-input", '<b>hi</b> <img src=x onerror="alert(1)"> good luck')
    alice.press("#chat-input", "Enter")
    for page in (alice, bob, carol):
        page.wait_for_selector("#chat-lines .line .text")
        assert (
            page.inner_text("#chat-lines .line .text") == '<b>hi</b> <img src=x onerror="alert(1)"> good luck'
        )
        assert page.query_selector("#chat-lines b, #chat-lines img") is None
    assert carol.is_hidden("#chat-form") and carol.is_visible("#chat-spectator")
    assert carol.is_hidden("#chat-mute")
    bob.click("#chat-mute")
    alice.fill("#chat-input", "second line")
    alice.press("#chat-input", "Enter")
    carol.wait_for_selector("#chat-lines .line:nth-child(2)")
    assert "second line" in carol.inner_text("#chat-lines")
    assert "second line" not in bob.inner_text("#chat-lines")
    assert "muted" in bob.inner_text("#chat-lines")
    bob.fill("#chat-input", "thanks")
    bob.press("#chat-input", "Enter")
    alice.wait_for_selector("#chat-lines .line.black")
    shot(alice, "game-chat-desktop")
    phone_shot(alice, "game-chat-phone")
    shot(carol, "game-chat-spectator")

    # afterwards both find the game in their lists, under the names they met with
    alice.click("#resign")
    alice.click("#resign")  # "Really resign?"
    for page in (alice, bob):
        page.wait_for_selector("#game[data-status='finished']")
        page.goto("/games")
        row = page.wait_for_selector(f'#mine tr[data-game="{game}"]')
        text = row.inner_text()
        assert "Alice" in text and "Bob" in text and "3+2" in text and "0-1" in text
