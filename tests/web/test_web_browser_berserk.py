"""Berserk in Chromium (issue 46): two accounts are paired in an arena and taken to their game;
each sees the Berserk button until their first move; Black presses it, both pages show the
halved clock and the note, and once Black has won the event's standings mark the game ⚡.

The server runs with tiny clocks (an arena of a fraction of a minute) and no schedule; the game
ends once pairing has stopped, so that nobody is paired again.  Every wait is on a page state,
with a generous bound.
"""

from __future__ import annotations

from typing import Any

from tests.web.test_web_browser_tournaments import get, people, play, post, site, wait_for

__all__ = ["people", "site"]  # the fixtures this module uses, defined with the arena's test


def test_berserk_pressed_in_an_arena_game(people: Any) -> None:
    pair = dict(people() for _ in range(2))
    host = next(iter(pair.values()))
    body = {"kind": "arena", "variant": "fugue", "time_control": "1+2", "minutes": 0.25, "starts_in": 60}
    made = post(host, "/api/tournaments", body)
    assert made["status"] == 201, made
    event = made["body"]["id"]
    for name, page in pair.items():
        page.goto(f"/tournaments/{event}")
        page.wait_for_selector("#tournament[data-live='yes']")
        page.click("#tournament-join")
        page.wait_for_selector(f'#tournament-standings tr.me[data-player="{name}"]')
    assert post(host, f"/api/tournaments/{event}/start", {})["status"] in (200, 204)
    [game] = wait_for("the pairing", lambda: get(host, f"/api/tournaments/{event}")["playing"])
    white, black = pair[game["white"]], pair[game["black"]]
    for page in (white, black):
        page.wait_for_url(f"**/game/{game['id']}?tournament={event}")
        page.wait_for_selector("#game[data-connected='1']")
        page.wait_for_selector("#berserk:not([hidden])")  # an arena game, nobody has moved
    play(white, "d2-d3", 1)
    white.wait_for_selector("#berserk", state="hidden")  # White has moved: too late
    black.click("#berserk")
    black.wait_for_selector("#berserk", state="hidden")
    for page in (white, black):
        page.wait_for_selector('.berserk-note[data-color="black"]')
        page.wait_for_selector('.clock[data-color="black"] .clock-time:text-is("0:30")')
        page.wait_for_selector('.clock[data-color="white"] .clock-time:text-is("1:00")')
    assert white.locator('.berserk-note[data-color="white"]').count() == 0
    play(black, "e7-e6", 2)
    wait_for("pairing to stop", lambda: (v := get(host, f"/api/tournaments/{event}"))["now"] >= v["ends_at"])
    white.click("#resign")
    white.click("#resign")  # the second press confirms
    for page in (white, black):
        page.wait_for_url(f"**/tournaments/{event}")
        # Black's berserked win, too short for the bonus: 2 points, marked ⚡
        row = f'#tournament-standings tr[data-player="{game["black"]}"]'
        page.wait_for_selector(f'{row} td:nth-child(4):text-is("2⚡")')
        page.wait_for_selector(f'{row} td:last-child:text-is("2")')
        page.wait_for_selector("#tournament-scoring")
