"""Browser tests of the rule marks, the "why can't this piece move" text, the legend, the
captured pieces and the reserves (Playwright driving Debian's Chromium, a real server)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from tests.web.test_web_browser import click, new_game, shot

GORGON = "fd8df/aa8aa/12/12/5g6/12/6h5/C11/5J6/12/AA8AA/FD8DF w"
"""Rules of record R-05: the black Gorgon f8 petrifies the Jumper f4 and the Advancer l2."""
FROZEN = "6k1/2I5/1s6/p7/3i4/3Q4/8/K7 w"
"""The white Queen d3 is frozen by the black Immobilizer d4; the black Shield b6, frozen by the
white Immobilizer c7, protects the pawn a5."""
CHAINS = "8/Nr5R/2rP3n/2N5/7b/4b2P/4P3/kk3KK1 w - 102030"
"""Rules of record I-10 with reserves: five white pieces can capture, so one must."""


def why(page: Any) -> str:
    box = page.locator("#board .board-why")
    box.wait_for(state="visible")
    return str(box.text_content())


def test_rebel_fury_gaze_overlay_petrified_mark_and_why(page: Any) -> None:
    new_game(page, GORGON, opponent="friend", variant="rebelfury")
    assert page.title().startswith("Rebel Fury")
    assert page.locator("h1.game-title").inner_text().startswith("Rebel Fury")
    # the Gorgon's gaze: the squares R-05's Capricorn stops on, and the petrified pieces
    for cell in ("c5", "a8", "a3", "d8", "b4", "f4", "l2", "g7"):
        assert page.locator(f'#board rect.gaze-black[data-gaze="{cell}"]').count() == 1, cell
    assert page.locator('#board rect.gaze[data-gaze="g6"]').count() == 0  # its own Harpy blocks
    for square in ("f4", "l2"):
        assert page.locator(f'#board .badge.petrified[data-square="{square}"]').count() == 1
    title = page.locator('#board g.piece[data-square="l2"] title').text_content()
    assert title is not None and title.startswith("White Advancer") and "petrified" in title
    click(page, "l2")
    assert why(page) == "The Advancer on l2 is petrified by the Gorgon on f8 and cannot move."
    assert page.locator("#board .why-square").count() == 1
    # the Jumper may still leap: it is picked, with its destinations, and the text says so
    click(page, "f4")
    assert "can only make a Jumper leap" in why(page)
    assert page.locator("#board circle.dest").count() == 8
    # a piece nothing holds: no text
    click(page, "a5")
    assert page.locator("#board .board-why").is_hidden()
    assert page.locator('#notes-key li[data-kind="petrified"]').is_visible()
    assert page.locator('#notes-key li[data-kind="frozen"]').is_hidden()
    shot(page, "annotations-rebelfury")


def test_the_switch_hides_the_marks_and_is_remembered(page: Any) -> None:
    new_game(page, GORGON, opponent="friend", variant="rebelfury")
    gaze = page.locator('#board rect.gaze[data-gaze="c5"]')
    assert gaze.is_visible()
    page.uncheck("#notes-toggle")
    assert gaze.is_hidden()
    assert page.locator('#board .badge.petrified[data-square="l2"]').is_hidden()
    page.reload()
    page.wait_for_selector("#game[data-connected='1']")
    assert not page.is_checked("#notes-toggle")
    assert page.locator('#board rect.gaze[data-gaze="c5"]').is_hidden()
    # the explanation still comes on a pick: only the drawings are switched off
    click(page, "l2")
    assert "petrified" in why(page)
    page.check("#notes-toggle")
    assert page.locator('#board rect.gaze[data-gaze="c5"]').is_visible()


def test_fugue_frozen_and_shielded_pieces(page: Any) -> None:
    new_game(page, FROZEN, opponent="friend")
    assert page.locator('#board .badge.frozen[data-square="d3"]').count() == 1
    assert page.locator('#board .badge.frozen[data-square="b6"]').count() == 1  # Black's, too
    assert page.locator('#board .badge.shielded[data-square="a5"]').count() == 1
    click(page, "d3")
    assert why(page) == "The Queen on d3 is immobilized by the Immobilizer on d4."
    assert page.locator("#board circle.dest").count() == 0
    # the legend: every piece with its glyph, name and what it does, from the game's data
    items = page.locator("#legend-list li")
    assert items.count() == 9
    immobilizer = page.locator('#legend-list li[data-letter="I"] div').inner_text()
    assert immobilizer.startswith("Immobilizer —") and "cannot move" in immobilizer
    assert page.locator('#legend-list li[data-letter="I"] svg.legend-glyph g.piece').count() == 1
    shot(page, "annotations-fugue")


def test_interweave_must_capture_reserves_and_glyphs(page: Any) -> None:
    new_game(page, CHAINS, opponent="friend", variant="interweave")
    rings = page.locator("#board circle.must-capture")
    assert sorted(rings.evaluate_all("els => els.map(e => e.dataset.square)")) == [
        "a7",
        "c5",
        "d6",
        "e2",
        "h3",
    ]
    click(page, "h7")
    assert why(page).startswith("Capturing is compulsory; White must begin with one of: a7xc7(b7)")
    # reserves beside the board: White holds a Smasher and two Removers, Black three Leapers
    counts = page.locator("#reserves .reserve-item").evaluate_all(
        "els => els.map(e => e.closest('.reserve-row').dataset.side + e.dataset.letter + e.dataset.count)"
    )
    assert counts == ["whiteR1", "whiteN0", "whiteB2", "blackR0", "blackN3", "blackB0"]
    # glyphs show the pieces' own initials, not chess letters
    assert page.locator('#board g.piece[data-square="h7"] text').text_content() == "S"
    assert page.locator('#board g.piece[data-square="a7"] text').text_content() == "L"
    assert page.locator('#board g.piece[data-square="e3"] text').text_content() == "X"
    remover = page.locator('#legend-list li[data-letter="B"] div').inner_text()
    assert remover.startswith("Remover —") and "double-click" in remover
    # the capture is made: Black's lost pieces show beside the board
    click(page, "e2")
    click(page, "e4")
    page.wait_for_selector('[data-ply="1"]')
    page.locator("#captured [data-side=white] .captured-pieces svg").wait_for()
    assert (
        page.locator("#captured [data-side=white] .captured-pieces title").text_content() == "Black Remover"
    )
    shot(page, "annotations-interweave")


def test_analysis_board_marks_follow_the_position(page: Any) -> None:
    page.goto(f"/analysis?variant=rebelfury&fen={quote(GORGON)}")
    page.wait_for_selector("#analysis[data-fen]")
    assert page.locator('#board .badge.petrified[data-square="l2"]').count() == 1
    assert "Rebel Fury" in page.title()
    assert page.locator("#game-name").inner_text() == "· Rebel Fury"
    click(page, "l2")
    assert "petrified by the Gorgon on f8" in why(page)
    page.select_option("#variant", "interweave")
    page.locator("#game-name", has_text="Interweave").wait_for()
    page.locator("#reserves").wait_for(state="visible")
    assert page.locator("#legend-list li").count() == 5
    assert page.locator("#board .badge").count() == 0


def test_phone_layout_keeps_the_marks_without_overflow(browser: Any, server: Any) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, base_url=server.url)
    page = context.new_page()
    try:
        for variant, fen in (("rebelfury", GORGON), ("fugue", FROZEN), ("interweave", CHAINS)):
            new_game(page, fen, opponent="friend", variant=variant)
            assert page.evaluate("document.documentElement.scrollWidth") <= 390
            assert page.locator("#board .badge, #board circle.must-capture").count() > 0
            shot(page, f"annotations-phone-{variant}")
    finally:
        context.close()
