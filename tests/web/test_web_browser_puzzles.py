"""Browser tests of the puzzles (issue 44 item 3): a guest solves a puzzle with clicks (the
opponent's reply playing itself), fails another, sees the rating move each way and the solution
played; a signed-in player finds both in the history of the profile; the page fits a phone; the
home page shows the daily puzzles.

Set EXOCHESS_SHOTS=/some/dir to keep screenshots.
"""

from __future__ import annotations

from typing import Any

import pytest

from exochess import square_name
from exochess.move import Move
from exochess.puzzles import load_puzzles
from exochess.web.puzzles import catalogue
from tests.web.puzzlehelp import GAMES, losing_move, puzzle_of
from tests.web.test_web_browser import click, shot

pytestmark = pytest.mark.skipif(not GAMES, reason="no game has puzzles")
TIMEOUT = 120_000


def enter(page: Any, text: str) -> None:
    """Enter the move ``text`` with clicks (each action from its square to its destination); a
    chooser gets the move's text.  Returns once the page has the server's answer."""
    plies = page.locator("#puzzle").get_attribute("data-plies")
    move = Move.from_text(text)
    for i, action in enumerate(move.actions):
        if i == 0:
            click(page, square_name(action.from_square))
        click(page, square_name(action.to_square))
    moved = "plies => document.querySelector('#puzzle').dataset.plies !== plies"
    page.wait_for_function(
        f"plies => document.querySelector('.chooser') || ({moved})(plies)", arg=plies, timeout=TIMEOUT
    )
    if page.locator(".chooser").count():
        for value in (text, str(move.actions[-1])):
            button = page.locator(f'.chooser button[data-move="{value}"]')
            if button.count():
                button.click()
                break
        else:
            raise AssertionError(f"no choice for {text}")
        page.wait_for_function(moved, arg=plies, timeout=TIMEOUT)


def solve(page: Any, game: str) -> Any:
    """Solve the puzzle shown with clicks; returns it."""
    puzzle = puzzle_of(game, page.locator("#puzzle").get_attribute("data-puzzle"))
    for n, text in enumerate(puzzle.solution[0::2], start=1):
        enter(page, text)
        # the opponent's reply plays itself after each right move but the last
        want = "solved" if 2 * n > len(puzzle.solution) - 1 else "playing"
        plies = str(min(2 * n, len(puzzle.solution)))
        page.wait_for_selector(f'#puzzle[data-status="{want}"][data-plies="{plies}"]', timeout=TIMEOUT)
    return puzzle


def next_failable(page: Any, game: str, after: str) -> tuple[Any, str]:
    """Click "Next puzzle" until one has a losing move of one action; returns it and the move."""
    for _ in range(20):
        page.click("#next")
        page.wait_for_function(
            "id => { const r = document.querySelector('#puzzle'); return r.dataset.status === 'playing' && r.dataset.puzzle !== id; }",
            arg=after,
            timeout=TIMEOUT,
        )
        puzzle = puzzle_of(game, page.locator("#puzzle").get_attribute("data-puzzle"))
        wrong = losing_move(puzzle, single_action=True)
        if wrong is not None:
            return puzzle, wrong
        after = puzzle.id
        page.click("#solution")  # shown: the next button is offered again
        page.wait_for_selector('#puzzle[data-solution="shown"]', timeout=TIMEOUT)
    raise AssertionError("no puzzle with a move to fail it")


def rating(page: Any) -> int:
    return int(page.locator("#puzzle").get_attribute("data-rating"))


def test_a_guest_solves_a_puzzle_fails_another_and_sees_the_solution(page: Any) -> None:
    game = GAMES[0]
    page.goto("/")
    page.click("#home-puzzles")
    page.wait_for_selector("body[data-ratings='shown']")
    assert "1500" in page.locator(f'[data-rating="{game}"]').inner_text()
    page.click(f'.card[data-variant="{game}"] a[href="/puzzles/{game}"]')
    page.wait_for_selector('#puzzle[data-status="playing"][data-rating="1500"]', timeout=TIMEOUT)
    first = solve(page, game)
    page.wait_for_function(
        "() => document.querySelector('#puzzle').dataset.rating !== '1500'", timeout=TIMEOUT
    )
    after_win = rating(page)
    assert after_win > 1500
    assert "+" in page.locator("#my-rating").inner_text()
    assert page.locator("#puzzle-themes li").count() == len(first.themes)
    shot(page, f"puzzle-{game}-solved")
    second, wrong = next_failable(page, game, first.id)
    enter(page, wrong)
    page.wait_for_selector('#puzzle[data-status="failed"]', timeout=TIMEOUT)
    page.wait_for_function(
        f"() => Number(document.querySelector('#puzzle').dataset.rating) < {after_win}", timeout=TIMEOUT
    )
    assert not page.locator("#retry").is_hidden()
    page.click("#solution")
    page.wait_for_selector('#puzzle[data-solution="shown"]', timeout=TIMEOUT)
    assert page.locator("#puzzle").get_attribute("data-plies") == str(len(second.solution))
    assert second.solution[0] in page.locator("#status").inner_text()
    shot(page, f"puzzle-{game}-solution")
    # this browser keeps the rating and the puzzles played
    stored = page.evaluate("JSON.parse(localStorage.getItem('exochess-puzzles'))")[game]
    assert (
        round(stored["rating"]) == rating(page)
        and stored["seen"][0] == second.id
        and first.id in stored["seen"]
    )
    page.goto("/puzzles")
    page.wait_for_selector("body[data-ratings='shown']")
    assert str(round(stored["rating"])) in page.locator(f'[data-rating="{game}"]').inner_text()


def test_a_signed_in_player_finds_the_puzzles_in_the_profile(page: Any) -> None:
    from tests.web.test_web_accounts import fresh_name

    game = GAMES[0]
    name = fresh_name("puzzler")
    page.goto("/signup")
    page.fill("#name", name)
    page.fill("#password", "a long password")
    page.click("button[type=submit]")
    page.wait_for_url(lambda url: "/signup" not in url)
    page.goto(f"/puzzles/{game}")
    page.wait_for_selector('#puzzle[data-status="playing"][data-rating="1500"]', timeout=TIMEOUT)
    solved = solve(page, game)
    page.wait_for_function(
        "() => Number(document.querySelector('#puzzle').dataset.rating) > 1500", timeout=TIMEOUT
    )
    failed, wrong = next_failable(page, game, solved.id)
    enter(page, wrong)
    page.wait_for_selector('#puzzle[data-status="failed"]', timeout=TIMEOUT)
    page.goto(f"/@/{name}")
    rows = page.locator("#puzzle-history tbody tr")
    assert rows.count() == 2
    assert (
        rows.nth(0).get_attribute("data-puzzle") == failed.id
        and rows.nth(0).get_attribute("data-solved") == "false"
    )
    assert (
        rows.nth(1).get_attribute("data-puzzle") == solved.id
        and rows.nth(1).get_attribute("data-solved") == "true"
    )
    shot(page, "puzzle-profile")


@pytest.mark.parametrize("game", GAMES[-1:])
def test_the_puzzle_page_fits_a_phone_and_the_daily_puzzle_plays(
    browser: Any, server: Any, game: str
) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, base_url=server.url, has_touch=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto("/")
    daily = catalogue.daily(load_puzzles(game), game, catalogue.today())
    page.click(f'.daily-card[data-variant="{game}"] a.button')
    page.wait_for_selector(f'#puzzle[data-status="playing"][data-puzzle="{daily.id}"]', timeout=TIMEOUT)
    # nothing wider than the screen; the board fills its width
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 390
    box = page.locator("#board svg.board").bounding_box()
    assert box is not None and box["width"] >= 340
    solve(page, game)
    shot(page, f"puzzle-{game}-phone")
    context.close()
    assert not errors, errors
