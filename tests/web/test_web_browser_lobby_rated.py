"""Browser test of rated play through the lobby: two people sign up, meet there with a rated 3+2
challenge, play with clocks ticking until one resigns, and find the new ratings and the game on
their profiles; a guest cannot accept the rated challenge and watches from the live games list.

Set EXOCHESS_SHOTS=/some/dir to keep screenshots at 1280 px and 390 px.
"""

from __future__ import annotations

import secrets
import time
from typing import Any

from exochess.web.accounts.ratings import Rating, rated_pair
from tests.web.test_web_browser import shot
from tests.web.test_web_browser_accounts import sign_up
from tests.web.test_web_browser_lobby import PHONE, people  # noqa: F401  (the fixture)

WAIT_S = 20.0


def both_widths(page: Any, name: str) -> None:
    size = page.viewport_size
    shot(page, f"{name}-1280")
    page.set_viewport_size(PHONE)
    shot(page, f"{name}-390")
    page.set_viewport_size(size)


def clock_ms(page: Any, color: str) -> int:
    return int(page.get_attribute("#clocks", f"data-{color}-ms"))


def wait_ticking(page: Any, color: str) -> None:
    """Wait until ``color``'s clock runs and counts down on this screen (polled: the site's
    Content-Security-Policy forbids the evaluation ``wait_for_function`` uses)."""
    page.wait_for_selector(f"#clocks[data-running='{color}']")
    start = clock_ms(page, color)
    deadline = time.monotonic() + WAIT_S
    while clock_ms(page, color) > start - 300:
        assert time.monotonic() < deadline, f"{color}'s clock does not tick ({clock_ms(page, color)} ms)"
        page.wait_for_timeout(50)


def play(page: Any, move: str, ply: int) -> None:
    page.wait_for_selector("#typed:not([hidden])")
    page.fill("#typed-move", move)
    page.press("#typed-move", "Enter")
    page.wait_for_selector(f'#game[data-ply="{ply}"]')


def test_two_accounts_play_a_rated_game_through_the_lobby(people: Any) -> None:  # noqa: F811
    alice, bob, carol = people(), people(), people()
    alice_name, bob_name = f"al{secrets.token_hex(4)}", f"bo{secrets.token_hex(4)}"
    sign_up(alice, alice_name)
    sign_up(bob, bob_name)

    alice.goto("/lobby")
    alice.wait_for_selector("#lobby[data-connected='1']")
    assert alice.locator("#me-name").inner_text() == alice_name
    assert alice.locator("#name-form").count() == 0  # an account plays under its username
    alice.select_option("#post-variant", "fugue")
    alice.select_option("#post-time", "-")
    assert alice.is_disabled("#post-rated")  # a rated game needs a clock
    alice.select_option("#post-time", "3+2")
    alice.check("#post-rated")
    alice.check('input[name=color][value="white"]')
    alice.click("#post-button")
    mine = alice.wait_for_selector("#challenges tr.mine")
    challenge = mine.get_attribute("data-challenge")
    text = mine.inner_text()
    assert alice_name in text and "1500?" in text and "Rated" in text and "Cancel" in text

    # a guest sees the challenge but cannot accept it
    carol.goto("/lobby")
    row = carol.wait_for_selector(f'#challenges tr[data-challenge="{challenge}"]')
    assert carol.is_disabled(f'#challenges tr[data-challenge="{challenge}"] button.accept')
    assert "1500?" in row.inner_text()
    assert carol.is_disabled("#post-rated") and carol.locator("#range-filter").is_hidden()

    bob.goto("/lobby")
    row = bob.wait_for_selector(f'#challenges tr[data-challenge="{challenge}"]')
    assert alice_name in row.inner_text() and "Rated" in row.inner_text()
    bob.select_option("#rating-range", "100")  # 1500 and 1500: within range
    bob.wait_for_selector(f'#challenges tr[data-challenge="{challenge}"]')
    both_widths(bob, "lobby-rated")
    bob.click(f'#challenges tr[data-challenge="{challenge}"] button.accept')
    for page in (alice, bob):
        page.wait_for_url("**/game/*")
        page.wait_for_selector("#game[data-connected='1']")
    game = alice.url.rsplit("/", 1)[1]
    assert bob.url.rsplit("/", 1)[1] == game
    for page in (alice, bob):
        players = page.inner_text("#players")
        assert alice_name in players and bob_name in players and "1500?" in players
        assert "Rated game" in players

    # the guest's lobby lists the game with both ratings, and follows it
    carol.wait_for_selector(f'#live tr[data-game="{game}"]')
    live = carol.inner_text(f'#live tr[data-game="{game}"]')
    assert alice_name in live and bob_name in live and "1500?" in live and "3+2" in live and "Rated" in live
    both_widths(carol, "lobby-live-rated")
    carol.click(f'#live tr[data-game="{game}"] a.watch')
    carol.wait_for_selector("#game[data-connected='1']")

    play(alice, "d2-d3", 1)
    play(bob, "e7-e6", 2)
    for page in (alice, bob, carol):
        wait_ticking(page, "white")  # both screens count the running clock down
    play(alice, "e2-e3", 3)
    for page in (alice, bob):
        wait_ticking(page, "black")
    both_widths(bob, "game-rated-clocks")

    bob.click("#resign")
    bob.click("#resign")  # the second click confirms
    for page in (alice, bob, carol):
        page.wait_for_selector("#banner:has-text('Black resigned')")
    new_white, new_black = rated_pair(Rating(), Rating(), 1.0)
    won, lost = f"{round(new_white.rating)}?", f"{round(new_black.rating)}?"
    alice.wait_for_selector(f"#players:has-text('{won}')")
    bob.wait_for_selector(f"#players:has-text('{lost}')")
    both_widths(alice, "game-rated-result")

    for page, name, rating, other in ((alice, alice_name, won, bob_name), (bob, bob_name, lost, alice_name)):
        page.goto(f"/@/{name}")
        assert rating in page.locator(".rating-card[data-variant='fugue']").inner_text()
        games = page.locator("#profile-games").inner_text()
        assert other in games
        assert page.locator(f"#profile-games a[href='/game/{game}']").count() == 1
    both_widths(alice, "profile-after-lobby")
