"""Browser test (issue 40): a French page shows the library's sentences in French -- why a
petrified piece cannot move, a malformed move text -- and the analysis page's title; a Spanish
page the same reason in Spanish."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.web.serverproc import Server
from tests.web.test_web_browser import click, new_game, shot
from tests.web.test_web_browser_annotations import GORGON, why


@pytest.fixture()
def french(browser: Any, server: Server) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=server.url, locale="fr")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield page
    context.close()
    assert not errors, errors


def test_a_french_page_translates_a_petrified_reason_and_a_move_error(french: Any) -> None:
    page = french
    new_game(page, GORGON, opponent="friend", variant="rebelfury")
    assert page.locator("html").get_attribute("lang") == "fr"
    click(page, "l2")
    text = why(page)
    assert (
        text == "La pièce Avanceur en l2 est pétrifiée par la pièce Gorgone en f8 et ne peut pas bouger."
    ), text
    title = page.locator('#board g.piece[data-square="l2"] title').text_content()
    assert title is not None and "pétrifiée" in title and "petrified" not in title
    click(page, "f4")
    assert "saut de Bondisseur" in why(page)
    shot(page, "fr-petrified")
    # a malformed move typed in: the server's refusal in French
    page.fill("#typed-move", "zz")
    page.press("#typed-move", "Enter")
    page.wait_for_selector("#error:has-text('texte de coup mal formé')")
    assert "malformed" not in page.locator("#error").inner_text()
    page.goto("/analysis")
    page.wait_for_selector('#game-name:has-text("Fugue")')
    assert "Analysis" not in page.title() and "analyse" in page.title().lower()
