"""Browser tests of issue 45's analysis board: live analysis (three lines, the bar, a line played,
stop), the board editor (pieces placed and removed, the FEN box both ways, on to the analysis
board) and PGN import (opened on the analysis board, moves navigated; stored as a game).

Set EXOCHESS_SHOTS=/some/dir to keep screenshots (desktop and phone widths).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import httpx

from tests.web.serverproc import Server
from tests.web.test_web_browser import center, click, shot
from tests.web.test_web_editor_import import sample_pgn

WAIT_MS = 180_000
"""Bound on waiting for anything the engine or the server does (nothing is timed): a crowded
machine took 20 s to serve a fresh server's first free position (its worker process starts)."""


def test_live_analysis_streams_lines_and_the_bar_and_stops(page: Any, server: Server) -> None:
    page.set_default_timeout(WAIT_MS)
    page.goto("/analysis?variant=rebelfury")
    page.wait_for_selector('#analysis[data-ply="0"]')
    page.click("#live")
    page.wait_for_function(
        "() => Number(document.querySelector('#analysis').dataset.liveDepth) >= 3", timeout=WAIT_MS
    )
    assert page.locator("#live-out .live-line").count() == 3
    assert page.locator("#evalbar").is_visible()
    assert page.locator("#live").get_attribute("aria-pressed") == "true"
    shot(page, "live-analysis")
    # the second line's first move, played on the board; the analysis follows the new position
    second = page.locator("#live-out .live-line").nth(1).locator(".pv-move").first
    move = second.inner_text()
    second.click()
    page.wait_for_selector('#analysis[data-ply="1"]')
    assert page.locator("#moves .mv").first.get_attribute("data-move") == move
    page.wait_for_selector('#analysis[data-live="running"]', timeout=WAIT_MS)
    page.click("#live")
    page.wait_for_selector('#analysis[data-live="stopped"]', timeout=WAIT_MS)
    assert page.locator("#live").get_attribute("aria-pressed") == "false"
    with httpx.Client(base_url=server.url) as c:
        stats = c.get("/api/engine").json()
    # the server answers the stop once the worker is free; the page may see it before the pool
    # has counted it, so this only checks that no analysis of this page waits in the queue
    assert stats["queued_analyses"] == 0, stats
    page.set_viewport_size({"width": 390, "height": 844})
    shot(page, "live-analysis-phone")


def test_editor_places_pieces_follows_the_fen_and_goes_to_analysis(page: Any) -> None:
    page.set_default_timeout(WAIT_MS)
    empty = "8/8/8/8/8/8/8/8 w"
    page.goto(f"/editor/fugue?fen={quote(empty)}")
    page.wait_for_selector(f'#editor[data-valid="1"][data-fen="{empty}"]')
    page.click('#palette .tool[data-tool="K"]')
    click(page, "e1")
    page.wait_for_selector('#editor[data-fen="8/8/8/8/8/8/8/4K3 w"][data-valid="1"]')
    assert page.input_value("#fen") == "8/8/8/8/8/8/8/4K3 w"
    page.click('#palette .tool[data-tool="k"]')
    click(page, "e8")
    click(page, "d8")
    page.wait_for_selector('#editor[data-fen="3kk3/8/8/8/8/8/8/4K3 w"]')
    x, y = center(page, "d8")
    page.mouse.click(x, y, button="right")  # right-click empties a square
    page.wait_for_selector('#editor[data-fen="4k3/8/8/8/8/8/8/4K3 w"]')
    page.select_option("#turn", "b")
    page.wait_for_selector('#editor[data-fen="4k3/8/8/8/8/8/8/4K3 b"][data-valid="1"]')
    assert "/editor/fugue?fen=" in page.input_value("#share")
    shot(page, "editor")
    # the FEN box the other way: a bad FEN gets the library's reason, a good one sets the board
    page.fill("#fen", "4k3/8/8/8/8/8/8/4X3 w")
    page.dispatch_event("#fen", "change")
    page.wait_for_selector('#editor[data-valid="0"]')
    assert "'X' is not a piece letter" in page.inner_text("#error")
    assert page.get_attribute("#analyse", "aria-disabled") == "true"
    page.fill("#fen", "4k3/8/8/8/8/8/8/Q3K3 w")
    page.dispatch_event("#fen", "change")
    page.wait_for_selector('#editor[data-valid="1"][data-fen="4k3/8/8/8/8/8/8/Q3K3 w"]')
    assert page.locator('#board [data-square="a1"]').count() >= 1
    assert page.get_attribute("#play-computer", "href").endswith("&opponent=computer")
    page.click("#analyse")
    page.wait_for_selector('#analysis[data-fen="4k3/8/8/8/8/8/8/Q3K3 w"]')
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(
        f"/editor/interweave?fen={quote('rbnkknbr/pppppppp/8/8/3P4/8/P1PPPPPP/RBNKKNBR b c3,d4 1[12]0003')}"
    )
    page.wait_for_selector('#editor[data-valid="1"]')
    assert page.input_value("#ep") == "c3,d4"
    assert page.input_value('.reserve[data-side="white"][data-letter="N"]') == "12"
    page.fill('.reserve[data-side="black"][data-letter="B"]', "4")
    page.dispatch_event('.reserve[data-side="black"][data-letter="B"]', "change")
    page.wait_for_selector('#editor[data-fen$=" c3,d4 1[12]0004"][data-valid="1"]')
    shot(page, "editor-interweave-phone")


def test_import_opens_a_pgn_on_the_analysis_board_and_stores_it(page: Any) -> None:
    page.set_default_timeout(WAIT_MS)
    pgn, texts = sample_pgn("interweave", plies=8)
    page.goto("/import")
    page.fill("#pgn", pgn.replace("1-0", "1-0", 1))
    page.click("#save")
    page.wait_for_selector("#import[data-imported]")
    game = page.get_attribute("#import", "data-imported")
    assert page.get_attribute("#imported-link", "href") == f"/game/{game}"
    assert page.locator("#report").is_visible()  # the report's button (issue 45, item 1)
    page.click("#open")
    page.wait_for_selector(f'#analysis[data-ply="{len(texts)}"]')
    assert [m.get_attribute("data-move") for m in page.locator("#moves .mv").all()] == texts
    page.locator('#moves .mv[data-ply="3"]').click()
    page.wait_for_selector('#analysis[data-ply="3"]')
    # a bad PGN: the line and the reason, and the page stays
    page.goto("/import")
    page.fill("#pgn", '[Variant "Fugue"]\n\n1. e2-e3 e7-e6\n2. e3-e5 *')
    page.click("#open")
    page.wait_for_function(
        "() => document.querySelector('#error').textContent.includes('line 4, move 2. e3-e5')"
    )
    assert page.url.endswith("/import")
    page.goto(f"/game/{game}")
    page.wait_for_selector(".imported-note")
