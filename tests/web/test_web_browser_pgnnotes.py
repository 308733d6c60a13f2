"""Browser test of PGN import's comments and clocks (issue 45, item 4): a PGN pasted on /import
and saved shows its comments (as text: a ``<script>`` in one stays text) and the clock left after
each move on the game's move list; opened on the analysis board, its comments show there too.

Set EXOCHESS_SHOTS=/some/dir to keep screenshots.
"""

from __future__ import annotations

from typing import Any

from tests.web.test_web_browser import shot

WAIT_MS = 180_000
"""Bound on waiting for what the server does (nothing is timed): a loaded machine is slow."""

PGN = """[Event "Club night"]
[White "Ann"]
[Black "Bo"]
[Variant "Fugue"]

{Before the first move: <script>window.pwned = 1</script>}
1. e2-e3 {[%clk 0:04:58] A quiet start.} d7-d6 {[%clk 0:04:51.5]}
2. d2-d3 {[%clk 0:04:40]} 1-0
"""


def test_an_imported_pgn_shows_its_comments_and_clocks(page: Any) -> None:
    page.set_default_timeout(WAIT_MS)
    page.goto("/import")
    page.fill("#pgn", PGN)
    page.click("#save")
    page.wait_for_selector("#import[data-imported]")
    game = page.get_attribute("#import", "data-imported")
    page.goto(f"/game/{game}")
    page.wait_for_selector("#moves .mv[data-ply='3']")
    comments = page.locator("#moves .move-comment").all_inner_texts()
    assert comments == ["Before the first move: <script>window.pwned = 1</script>", "A quiet start."]
    assert page.evaluate("() => window.pwned") is None  # the comment's script is text, never run
    clocks = [page.locator(f"#moves .mv[data-ply='{ply}'] .move-clock").inner_text() for ply in (1, 2, 3)]
    assert clocks == ["0:04:58", "0:04:51", "0:04:40"]
    # the comment after White's first move has its line; Black's answer starts the next row,
    # numbered "1…" (read in one go: the list is drawn again when the websocket's state comes)
    layout = page.evaluate(
        """() => [...document.querySelectorAll('#moves > *')].map((el) => el.classList.contains('move-comment')
            ? 'comment' : [el.querySelector('.num').textContent,
                           ...[...el.querySelectorAll('.mv')].map((mv) => mv.dataset.ply)].join(' '))"""
    )
    assert layout == ["comment", "1. 1", "comment", "1… 2", "2. 3"]
    shot(page, "imported-game-notes")
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.locator("#moves .move-comment").nth(1).is_visible()
    shot(page, "imported-game-notes-phone")
    page.set_viewport_size({"width": 1200, "height": 900})
    # opened on the analysis board (not saved): the comments show while the line follows the PGN
    page.goto("/import")
    page.fill("#pgn", PGN)
    page.click("#open")
    page.wait_for_selector('#analysis[data-ply="3"]')
    page.wait_for_selector("#moves .move-comment")
    assert page.locator("#moves .move-comment").all_inner_texts() == [
        "Before the first move: <script>window.pwned = 1</script>",
        "A quiet start.",
    ]
    assert page.locator("#moves .mv[data-ply='2'] .move-clock").inner_text() == "0:04:51"
    assert page.evaluate("() => window.pwned") is None
    # back to move 1 and on another way: the comments of the plies the line no longer shares go
    page.locator('#moves .mv[data-ply="1"]').click()
    page.wait_for_selector('#analysis[data-ply="1"]')
    assert page.locator("#moves .move-comment").count() == 2
    page.click("#undo")
    page.wait_for_selector('#analysis[data-ply="0"]')
    assert page.locator("#moves .move-comment").all_inner_texts() == [
        "Before the first move: <script>window.pwned = 1</script>"
    ]
