"""Browser test of the game report (issue 45): a short game against the computer in which the
player misses a free royal capture and loses at once; the finished game's page asks for the
computer's analysis, shows its progress, then the evaluation graph with the blunder marked, the
players' accuracy and counts, the marked move with the better move and its line, and the mark in
the move list; a click on the graph shows that move's position.  On a phone's width the same
report fits under the board.

Set EXOCHESS_SHOTS=/some/dir to keep the screenshots (desktop and phone).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.web.serverproc import Server
from tests.web.test_web_browser import shot
from tests.web.test_web_reports import BETTER, BLUNDER_FEN, MISSED, report_server

WAIT_MS = 300_000
"""Only a guard against a hang (a loaded machine may be slow): nothing is timed."""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = report_server(tmp_path_factory.mktemp("report-browser"))
    yield srv
    srv.stop()


def lost_computer_game(site: Server) -> tuple[str, str]:
    """A game against the computer (level 2) that White loses at once: (id, White's secret)."""
    with httpx.Client(base_url=site.url, timeout=60.0) as c:
        body = {"variant": "fugue", "opponent": "computer", "level": 2, "color": "white", "fen": BLUNDER_FEN}
        res = c.post("/api/games", json=body)
        assert res.status_code == 201, res.text
        data = res.json()
        return data["id"], data["seats"]["white"]["secret"]


def test_the_report_of_a_lost_computer_game_marks_the_blunder_and_jumps_from_the_graph(
    browser: Any, site: Server
) -> None:
    game, secret = lost_computer_game(site)
    context = browser.new_context(viewport={"width": 1200, "height": 900}, base_url=site.url)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(f"/game/{game}#seat=white&secret={secret}")
        page.wait_for_selector("#game[data-connected='1']")
        assert page.locator("#report").is_hidden()  # no report while the game is played
        page.fill("#typed-move", MISSED)
        page.press("#typed-move", "Enter")
        # the computer takes the king: the game is over, and the report may be asked for
        page.wait_for_selector("#game[data-status='finished']", timeout=WAIT_MS)
        page.wait_for_selector("#report-ask:visible")
        assert page.locator("#report").get_attribute("data-status") == "none"
        page.click("#report-ask")
        page.wait_for_selector("#report[data-status='done']", timeout=WAIT_MS)

        graph = page.locator("#report-graph")
        assert graph.locator("polyline.graph-line").count() == 1
        assert graph.locator("circle.graph-mark.blunder").count() == 1
        white = page.locator("#report-players tr[data-color='white'] td")
        assert white.nth(4).text_content() == "1"  # one blunder
        mark = page.locator("#report-marks li.mark-blunder")
        assert mark.count() == 1
        assert f"{MISSED}??" in (mark.text_content() or "") and f"Better: {BETTER}" in (
            mark.text_content() or ""
        )
        assert page.locator(f'#moves .mv[data-move="{MISSED}"] .move-mark').text_content() == "??"
        shot(page, "report-desktop")

        # the graph's left edge is the start, its middle the position after White's move
        box = graph.bounding_box()
        assert box is not None
        graph.click(position={"x": 2, "y": box["height"] / 2})
        page.wait_for_selector("#game[data-shown-ply='0']")
        graph.click(position={"x": box["width"] / 2, "y": box["height"] / 2})
        page.wait_for_selector("#game[data-shown-ply='1']")
        # the marked move jumps there too
        page.locator("#report-marks li.mark-blunder button").click()
        page.wait_for_selector("#game[data-shown-ply='1']")

        # a phone: the report fits the width, under the board
        page.set_viewport_size({"width": 390, "height": 844})
        board = page.locator("#board").bounding_box()
        report = page.locator("#report").bounding_box()
        assert board is not None and report is not None and report["y"] >= board["y"] + board["height"] - 1
        for part in ("#report", "#report-graph", ".report-players"):
            box = page.locator(part).bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, (part, box)
        shot(page, "report-phone")
    finally:
        context.close()
    assert not errors, errors
