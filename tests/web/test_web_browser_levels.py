"""The new-game form shows each level's rating in the chosen game (issue 48), in the page's language."""

from __future__ import annotations

from typing import Any

import httpx

from exochess.engine.levels import ELO
from tests.web.serverproc import Server


def level_texts(page: Any) -> list[str]:
    return [t.strip() for t in page.locator("#level option").all_inner_texts()]


def test_levels_show_their_rating_and_follow_the_game(page: Any, server: Server) -> None:
    page.goto("/new")
    page.select_option("#variant", "fugue")
    texts = level_texts(page)
    assert texts[3] == f"3 (≈ {ELO['fugue'][3]} Elo)"
    assert texts[8] == f"8 (≈ {ELO['fugue'][8]} Elo)"
    page.select_option("#variant", "rebelfury")
    texts = level_texts(page)
    assert texts[1] == f"1 (≈ {ELO['rebelfury'][1]} Elo)"
    assert texts[3] == f"3 (≈ {ELO['rebelfury'][3]} Elo)"


def test_the_page_itself_carries_the_ratings_of_the_chosen_game(client: httpx.Client) -> None:
    # without scripts too: the options are rendered for the game asked for
    body = client.get("/new", params={"variant": "interweave"}).text
    assert f"5 (≈ {ELO['interweave'][5]} Elo)" in body
    body = client.get("/new", params={"variant": "interweave"}, headers={"Accept-Language": "fr"}).text
    assert f"5 (≈ {ELO['interweave'][5]} Elo)" in body  # the same form in French
    assert "Le classement de chaque niveau" in body
