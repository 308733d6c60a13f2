"""A newcomer takes Rebel Fury's whole course in the browser (issue 43's "done when"): from the
home page to the course, then every stage, exercise after exercise, by clicks, each exercise's
moves chosen by the rules library's solver (:func:`exochess.lessons.solve`, any solution counts),
in French on a phone; at the end every stage shows three stars and the course page counts them
all.  The same walk in English on a desktop covers the first stages only.

Set EXOCHESS_SHOTS=/some/dir to keep a screenshot of each stage (its first exercise, and the
stage complete).
"""

from __future__ import annotations

from typing import Any

import pytest

from exochess.lessons import load_course, solve
from tests.web.test_web_browser import shot
from tests.web.test_web_browser_lessons import TIMEOUT, enter, said_after_the_move

GAME = "rebelfury"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


@pytest.mark.parametrize(
    ("lang", "viewport", "stages"),
    [("fr", PHONE, None), ("en", DESKTOP, 3)],
    ids=["fr-phone-whole-course", "en-desktop-first-stages"],
)
def test_a_newcomer_takes_the_rebel_fury_course_from_the_home_page(
    browser: Any, server: Any, lang: str, viewport: dict[str, int], stages: int | None
) -> None:
    phone = viewport is PHONE
    context = browser.new_context(
        viewport=viewport, base_url=server.url, locale=lang, is_mobile=phone, has_touch=phone
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    course = load_course(GAME)
    assert course is not None
    taken = course.stages[:stages] if stages else course.stages
    size = f"{lang}-{'phone' if phone else 'desktop'}"

    page.goto("/")
    page.click(f'.card[data-variant="{GAME}"] a[href="/learn/{GAME}"]')
    page.wait_for_selector("body[data-progress='shown']")
    assert page.locator("html").get_attribute("lang") == lang
    shot(page, f"course-{size}-00-course")
    page.click(f'a.stage-link[href="/learn/{GAME}/{taken[0].id}"]')
    for number, stage in enumerate(taken, start=1):
        page.wait_for_url(f"**/learn/{GAME}/{stage.id}", timeout=TIMEOUT)
        assert page.locator("h1").inner_text() == stage.title.get(lang)
        for n, exercise in enumerate(stage.exercises, start=1):
            page.wait_for_selector(
                f'#lesson[data-exercise="{n}"][data-status="playing"][data-used="0"]', timeout=TIMEOUT
            )
            assert page.locator("#task").inner_text() == exercise.task.get(lang)
            if n == 1:
                assert page.evaluate("document.scrollingElement.scrollWidth") <= viewport["width"]
                shot(page, f"course-{size}-{number:02d}-{stage.id}-start")
            line = solve(GAME, exercise)
            assert line, f"{stage.id} {n}: the library finds no solution"
            for used, text in enumerate(line, start=1):
                enter(page, text, used)
            page.wait_for_selector(f'#lesson[data-exercise="{n}"][data-status="solved"]', timeout=TIMEOUT)
            assert page.locator("#explanation").inner_text() == exercise.explanation.get(lang)
            assert said_after_the_move(page)
            if n < len(stage.exercises):
                page.click("#next")
        page.wait_for_selector("#lesson[data-saved='true']", timeout=TIMEOUT)
        assert page.locator("#done-stars").inner_text() == "★★★"
        assert page.evaluate("document.scrollingElement.scrollWidth") <= viewport["width"]
        shot(page, f"course-{size}-{number:02d}-{stage.id}-done")
        if number < len(taken):
            page.click("#next-stage")  # the stage's end offers the next one
    # back to the course: every stage taken has its three stars, and the count says so
    page.click(f'#done a[href="/learn/{GAME}"]')
    page.wait_for_selector("body[data-progress='shown']")
    for stage in course.stages:
        expected = "★★★" if stage in taken else ""
        assert page.locator(f'[data-stars="{GAME}/{stage.id}"]').inner_text() == expected, stage.id
    count = page.locator(".learn-count").inner_text()
    assert count.startswith(f"{len(taken)} ") and str(len(course.stages)) in count, count
    shot(page, f"course-{size}-99-progress")
    context.close()
    assert not errors, errors
