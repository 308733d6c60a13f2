"""Browser tests of the lessons: a newcomer takes the first stage of each game with clicks, sees
the stars and finds them again after a reload; an exercise is solved with the keyboard alone,
another by taps on a phone, each move said in the screen-reader region; an exercise that starts in
the middle of a game lists the moves already played; a practice position is won against the computer
at its level on the ordinary game page, which then shows the result and a retry; a position to
hold is held for its moves, the test playing the engine's own choice (a node budget, so the
same position always gets the same move) against whatever the computer answers.

Set EXOCHESS_SHOTS=/some/dir to keep screenshots.
"""

from __future__ import annotations

from typing import Any

import pytest

from exochess import Board, square_name
from exochess.lessons import course_path, forced_win, load_course, solve
from exochess.move import Move
from exochess.variants import all_variants
from tests.web.test_web_browser import center, click, shot

GAMES = [v.name for v in all_variants() if course_path(v).is_file()]
TIMEOUT = 120_000
"""Generous: on a crowded machine a new game against the computer took 20 s to create."""


def enter(page: Any, text: str, used: int, *, touch: bool = False) -> None:
    """Enter the move ``text`` with clicks (taps with ``touch``, on a phone's touch screen):
    each action from its square to its destination (a piece acting in place is pressed twice);
    a chooser (promotion, victim) gets the move's text.  Returns once the lesson has judged it
    (``used`` learner moves so far)."""
    move = Move.from_text(text)
    # a long explanation can push "Next" below a phone's screen: clicking it scrolls the board up
    page.locator("#board").scroll_into_view_if_needed()
    for i, action in enumerate(move.actions):
        for square in ([action.from_square] if i == 0 else []) + [action.to_square]:
            if touch:
                page.touchscreen.tap(*center(page, square_name(square)))
            else:
                click(page, square_name(square))
    page.wait_for_function(
        "used => document.querySelector('.chooser') || document.querySelector('#lesson').dataset.used === used",
        arg=str(used),
        timeout=TIMEOUT,
    )
    if page.locator(".chooser").count():
        for value in (text, str(move.actions[-1])):
            button = page.locator(f'.chooser button[data-move="{value}"]')
            if button.count():
                if touch:
                    button.tap()
                else:
                    button.click()
                break
        else:
            raise AssertionError(f"no choice for {text}")
        page.wait_for_selector(f'#lesson[data-used="{used}"]', timeout=TIMEOUT)


@pytest.mark.parametrize("game", GAMES)
def test_a_newcomer_completes_the_first_stage_and_keeps_the_stars(page: Any, game: str) -> None:
    course = load_course(game)
    assert course is not None
    stage = course.stages[0]
    page.goto("/")
    page.click(f'.card[data-variant="{game}"] a[href="/learn/{game}"]')
    page.wait_for_selector("body[data-progress='shown']")
    assert page.locator(f'[data-stars="{game}/{stage.id}"]').inner_text() == ""
    page.click(f'a.stage-link[href="/learn/{game}/{stage.id}"]')
    for n, exercise in enumerate(stage.exercises, start=1):
        page.wait_for_selector(
            f'#lesson[data-exercise="{n}"][data-status="playing"][data-used="0"]', timeout=TIMEOUT
        )
        assert page.locator("#task").inner_text() == exercise.task.get("en")
        line = solve(game, exercise)
        assert line
        for used, text in enumerate(line, start=1):
            enter(page, text, used)
        page.wait_for_selector(f'#lesson[data-exercise="{n}"][data-status="solved"]', timeout=TIMEOUT)
        assert page.locator("#explanation").inner_text() == exercise.explanation.get("en")
        assert "3" in page.locator("#status").inner_text()
        if n < len(stage.exercises):
            page.click("#next")
    page.wait_for_selector("#lesson[data-saved='true']", timeout=TIMEOUT)
    assert page.locator("#done-stars").inner_text() == "★★★"
    shot(page, f"lesson-{game}-done")
    # the course page, reloaded, shows the stage done with its stars
    page.goto(f"/learn/{game}")
    page.reload()
    page.wait_for_selector("body[data-progress='shown']")
    assert page.locator(f'[data-stars="{game}/{stage.id}"]').inner_text() == "★★★"
    assert "1 of" in page.locator(".learn-count").inner_text()


def test_a_wrong_move_fails_the_exercise_and_it_can_be_tried_again(page: Any) -> None:
    page.goto("/learn/fugue/king")
    page.wait_for_selector('#lesson[data-status="playing"]', timeout=TIMEOUT)
    enter(page, "d4-e5", 1)  # the pawn is on d5
    page.wait_for_selector('#lesson[data-status="failed"]', timeout=TIMEOUT)
    assert not page.locator("#hint").is_hidden()
    page.click("#retry")
    page.wait_for_selector('#lesson[data-status="playing"][data-used="0"]', timeout=TIMEOUT)
    enter(page, "d4xd5", 1)
    page.wait_for_selector('#lesson[data-status="solved"]', timeout=TIMEOUT)
    assert "2 of 3" in page.locator("#status").inner_text()  # the failed attempt cost a star


def test_a_signed_in_learner_finds_the_progress_in_another_browser(browser: Any, server: Any) -> None:
    from tests.web.test_web_accounts import fresh_name

    name, password = fresh_name("pupil"), "a long password"
    first = browser.new_context(base_url=server.url, viewport={"width": 1200, "height": 900})
    page = first.new_page()
    page.goto("/signup")
    page.fill("#name", name)
    page.fill("#password", password)
    page.click("button[type=submit]")
    page.wait_for_url(lambda url: "/signup" not in url)
    page.goto("/learn/fugue/king")
    for n, exercise in enumerate(load_course("fugue").stages[0].exercises, start=1):  # type: ignore[union-attr]
        page.wait_for_selector(
            f'#lesson[data-exercise="{n}"][data-status="playing"][data-used="0"]', timeout=TIMEOUT
        )
        for used, text in enumerate(solve("fugue", exercise) or [], start=1):
            enter(page, text, used)
        page.wait_for_selector('#lesson[data-status="solved"]', timeout=TIMEOUT)
        if not page.locator("#next").is_hidden():
            page.click("#next")
    page.wait_for_selector("#lesson[data-saved='true']", timeout=TIMEOUT)
    first.close()
    second = browser.new_context(base_url=server.url, viewport={"width": 1200, "height": 900})
    page = second.new_page()
    page.goto("/login")
    page.fill("#name", name)
    page.fill("#password", password)
    page.click("button[type=submit]")
    page.wait_for_url(lambda url: "/login" not in url)
    page.goto("/learn")
    page.wait_for_selector("body[data-progress='shown']")
    assert page.locator('[data-stars="fugue/king"]').first.inner_text() == "★★★"
    second.close()


def test_a_practice_position_is_won_against_the_computer(page: Any) -> None:
    # Interweave's forced capture: White offers a pawn, the computer (at the position's level)
    # must take it with its King, which then stands where White's King takes it.
    course = load_course("interweave")
    assert course is not None
    position = course.position("forced-capture")
    assert position is not None and position.win_within == 2 and position.goal == "win"
    board = Board("interweave", fen=position.fen)
    first = forced_win(board, 2)
    assert first == "c6-d7"
    page.goto("/practice/interweave")
    page.wait_for_selector("body[data-ready='true']")
    page.click(f'.practice-play[data-id="{position.id}"]')
    page.wait_for_function(
        "() => location.pathname.startsWith('/game/') || document.querySelector('#error').textContent",
        timeout=TIMEOUT,
    )
    assert "/game/" in page.url, page.locator("#error").inner_text()
    page.wait_for_selector("#game[data-connected='1']", timeout=TIMEOUT)
    assert page.locator("#learn-offer").is_hidden()  # a practice game offers no course
    click(page, "c6")
    click(page, "d7")
    page.wait_for_selector('[data-ply="2"]', timeout=TIMEOUT)  # the computer's forced capture
    board.push_text(first)
    reply = page.locator('#moves .mv[data-ply="2"]').get_attribute("data-move")
    assert reply == "d8xd6(d7)"
    board.push_text(reply)
    winning = forced_win(board, 1)
    assert winning is not None
    start, _, rest = winning.partition("x")
    click(page, start)
    click(page, rest.split("(")[0])
    page.wait_for_selector('#practice-result[data-result="won"]', timeout=TIMEOUT)
    assert "won" in page.locator("#practice-result-title").inner_text()
    shot(page, "practice-won")
    page.click("#practice-back")
    page.wait_for_url("**/practice/interweave")
    assert not page.locator(f'.practice-card[data-id="{position.id}"] .practice-won').is_hidden()


def play_on_game_page(page: Any, text: str, ply: int) -> None:
    """Enter ``text`` on the game page with clicks (a chooser gets the move's text) and wait
    until the game has reached ``ply``."""
    move = Move.from_text(text)
    # a long explanation can push "Next" below a phone's screen: clicking it scrolls the board up
    page.locator("#board").scroll_into_view_if_needed()
    for i, action in enumerate(move.actions):
        if i == 0:
            click(page, square_name(action.from_square))
        click(page, square_name(action.to_square))
    page.wait_for_function(
        "ply => document.querySelector('.chooser') || document.querySelector(`#moves .mv[data-ply=\"${ply}\"]`)",
        arg=str(ply),
        timeout=TIMEOUT,
    )
    if page.locator(".chooser").count():
        page.locator(f'.chooser button[data-move="{text}"]').click()
    page.wait_for_selector(f'#moves .mv[data-ply="{ply}"]', timeout=TIMEOUT)


def test_a_practice_position_is_held_against_the_computer(page: Any) -> None:
    from exochess.engine import Limits, Searcher
    from exochess_lab.practice import CI_BUDGET

    course = load_course("fugue")
    assert course is not None
    position = course.position("hold-behind-the-shield")
    assert position is not None and position.goal == "hold"
    board = Board("fugue", fen=position.fen)
    page.goto("/practice/fugue")
    page.wait_for_selector("body[data-ready='true']")
    card = page.locator(f'.practice-card[data-id="{position.id}"]')
    assert card.locator('.practice-goal[data-goal="hold"]').count() == 1
    assert "6 moves" in card.locator(".practice-goal").inner_text()
    card.locator(".practice-play").click()
    page.wait_for_function(
        "() => location.pathname.startsWith('/game/') || document.querySelector('#error').textContent",
        timeout=TIMEOUT,
    )
    assert "/game/" in page.url, page.locator("#error").inner_text()
    page.wait_for_selector("#game[data-connected='1']", timeout=TIMEOUT)
    searcher = Searcher()
    for n in range(position.moves):
        assert page.locator("#practice-result").is_hidden()
        mine = str(searcher.search(board, Limits(nodes=CI_BUDGET.expert_nodes)).best)
        play_on_game_page(page, mine, 2 * n + 1)
        board.push_text(mine)
        page.wait_for_selector(f'#moves .mv[data-ply="{2 * n + 2}"]', timeout=TIMEOUT)
        reply = page.locator(f'#moves .mv[data-ply="{2 * n + 2}"]').get_attribute("data-move")
        assert reply is not None
        board.push_text(reply)
        assert not board.is_game_over()
    page.wait_for_selector('#practice-result[data-result="held"]', timeout=TIMEOUT)
    assert "survived 6 moves" in page.locator("#practice-result-title").inner_text()
    shot(page, "practice-held")
    page.click("#practice-back")
    page.wait_for_url("**/practice/fugue")
    assert not page.locator(f'.practice-card[data-id="{position.id}"] .practice-won').is_hidden()


def test_a_first_game_page_offers_the_course(page: Any) -> None:
    from tests.web.test_web_browser import new_game

    new_game(page, variant="rebelfury")
    offer = page.locator("#learn-offer")
    assert not offer.is_hidden()
    assert offer.locator('a[href="/learn/rebelfury"]').count() == 1
    page.click("#learn-offer-close")
    page.reload()
    page.wait_for_selector("#game[data-connected='1']", timeout=TIMEOUT)
    assert page.locator("#learn-offer").is_hidden()


def said_after_the_move(page: Any) -> str:
    """The screen-reader region's text once it says the verdict shown in ``#status`` (the page
    writes it a moment after clearing it, so that the same words twice are read twice)."""
    page.wait_for_function(
        "() => { const s = document.querySelector('#status').textContent;"
        " return s && document.querySelector('#announce').textContent.includes(s); }",
        timeout=TIMEOUT,
    )
    return str(page.locator("#announce").inner_text())


def test_an_exercise_is_solved_with_the_keyboard_alone(page: Any) -> None:
    course = load_course("fugue")
    assert course is not None
    stage = course.stage("king")
    assert stage is not None
    line = solve("fugue", stage.exercises[0])
    assert line == ["d4xd5"]
    page.goto("/learn/fugue/king")
    page.wait_for_selector('#lesson[data-exercise="1"][data-status="playing"]', timeout=TIMEOUT)
    # Tab from the top of the page until the board has the focus: one square is in the tab order
    for _ in range(80):
        page.keyboard.press("Tab")
        if page.evaluate("!!(document.activeElement && document.activeElement.dataset.square)"):
            break
    else:
        raise AssertionError("Tab never reached the board")

    def go_to(square: str) -> None:
        cur = page.evaluate("document.activeElement.dataset.square")
        df, dr = ord(square[0]) - ord(cur[0]), int(square[1:]) - int(cur[1:])
        for _ in range(abs(df)):
            page.keyboard.press("ArrowRight" if df > 0 else "ArrowLeft")
        for _ in range(abs(dr)):
            page.keyboard.press("ArrowUp" if dr > 0 else "ArrowDown")
        assert page.evaluate("document.activeElement.dataset.square") == square

    go_to("d4")
    page.keyboard.press("Enter")
    assert "selected" in (page.locator('#board rect.sq[data-square="d4"]').get_attribute("aria-label") or "")
    go_to("d5")
    assert "capture here" in (
        page.locator('#board rect.sq[data-square="d5"]').get_attribute("aria-label") or ""
    )
    page.keyboard.press("Space")
    page.wait_for_selector('#lesson[data-exercise="1"][data-status="solved"]', timeout=TIMEOUT)
    said = said_after_the_move(page)
    assert "d5" in said and "3 of 3" in said, said  # the move, then the verdict
    # the focus went to "Next": Enter opens the second exercise, whose task is said
    assert page.evaluate("document.activeElement.id") == "next"
    page.keyboard.press("Enter")
    page.wait_for_selector('#lesson[data-exercise="2"][data-status="playing"]', timeout=TIMEOUT)
    page.wait_for_function(
        "task => document.querySelector('#announce').textContent.includes(task)",
        arg=stage.exercises[1].task.get("en"),
        timeout=TIMEOUT,
    )


def test_an_exercise_is_solved_by_taps_on_a_phone(browser: Any, server: Any) -> None:
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, base_url=server.url, has_touch=True, is_mobile=True
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    course = load_course("rebelfury")
    assert course is not None
    stage = course.stages[0]
    exercise = stage.exercises[1]  # two Advancer victims at once
    page.goto(f"/learn/rebelfury/{stage.id}")
    page.wait_for_selector('#lesson[data-exercise="1"][data-status="playing"]', timeout=TIMEOUT)
    for used, text in enumerate(solve("rebelfury", stage.exercises[0]) or [], start=1):
        enter(page, text, used, touch=True)
    page.wait_for_selector('#lesson[data-exercise="1"][data-status="solved"]', timeout=TIMEOUT)
    assert said_after_the_move(page)
    page.locator("#next").tap()
    page.wait_for_selector('#lesson[data-exercise="2"][data-status="playing"]', timeout=TIMEOUT)
    # nothing wider than the phone, and the 12x12 board fits its width
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 390
    box = page.locator("#board svg").first.bounding_box()
    assert box is not None and box["width"] <= 390
    line = solve("rebelfury", exercise)
    assert line
    for used, text in enumerate(line, start=1):
        enter(page, text, used, touch=True)
    page.wait_for_selector('#lesson[data-exercise="2"][data-status="solved"]', timeout=TIMEOUT)
    said = said_after_the_move(page)
    assert "3 of 3" in said and len(said) > len(page.locator("#status").inner_text()), said
    shot(page, "lesson-phone-tapped")
    context.close()
    assert not errors, errors


def test_an_exercise_in_the_middle_of_a_game_lists_the_moves_played(page: Any) -> None:
    course = load_course("fugue")
    assert course is not None
    stage = course.stage("third-repetition")
    assert stage is not None and stage.exercises[0].history
    page.goto("/rules/fugue")
    page.click('a[href="/learn/fugue/third-repetition"]')  # the rules page's "End of the game" links it
    page.wait_for_selector('#lesson[data-exercise="1"][data-status="playing"]', timeout=TIMEOUT)
    history = page.locator("#history")
    assert not history.is_hidden()
    assert " ".join(stage.exercises[0].history) in history.inner_text()
    assert page.locator("#lesson").get_attribute("data-fen") == "1ik5/PPpI4/8/8/8/8/8/6K1 w"
    shot(page, "lesson-history")
    enter(page, "g1-h1", 1)  # Black's only answer repeats the first position a third time
    page.wait_for_selector('#lesson[data-exercise="1"][data-status="solved"]', timeout=TIMEOUT)
    page.click("#next")
    page.wait_for_selector('#lesson[data-exercise="2"][data-status="playing"]', timeout=TIMEOUT)
    assert " ".join(stage.exercises[1].history) in history.inner_text()
