"""Browser: a link carrying another seat secret for a game asks before replacing the saved one
(issue 17 #6: game ids are public, so a crafted link must not lock a player out)."""

from __future__ import annotations

import json
from typing import Any

import httpx

from tests.web.serverproc import Server, create


def saved_seat(page: Any, gid: str) -> dict[str, str]:
    value = page.evaluate(f"localStorage.getItem('exochess:seat:{gid}')")
    seat: dict[str, str] = json.loads(value)
    return seat


def open_link(page: Any, gid: str, fragment: str) -> None:
    page.goto("/")  # a fresh page load (a fragment change alone would not reload the game page)
    page.goto(f"/game/{gid}#{fragment}")
    page.wait_for_selector("#game[data-connected='1']")


def test_a_link_with_another_secret_asks_before_replacing_the_seat(page: Any, server: Server) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as c:
        data = create(c, variant="fugue", opponent="friend", color="white")
    gid, white, black = data["id"], data["seats"]["white"]["secret"], data["seats"]["black"]["secret"]
    open_link(page, gid, f"seat=white&secret={white}")
    assert saved_seat(page, gid) == {"color": "white", "secret": white}
    assert page.locator("#seat-choice").is_hidden()
    page.wait_for_selector("#status:has-text('Your move')")

    # a junk secret: the page asks; the server refuses it; the saved seat stays
    open_link(page, gid, "seat=white&secret=junk")
    assert "secret" not in page.url
    page.wait_for_selector("#seat-choice:visible")
    assert "another seat secret" in page.locator("#seat-choice-text").inner_text()
    assert saved_seat(page, gid)["secret"] == white
    page.click("#seat-use-link")
    page.wait_for_selector("#error:has-text('does not open a seat')")
    assert page.locator("#seat-choice").is_hidden()
    assert saved_seat(page, gid) == {"color": "white", "secret": white}
    page.wait_for_selector("#status:has-text('Your move')")

    # a real secret of the other seat: "keep" keeps, "use" switches once the server accepts it
    open_link(page, gid, f"seat=black&secret={black}")
    page.wait_for_selector("#seat-choice:visible")
    page.click("#seat-keep")
    assert page.locator("#seat-choice").is_hidden()
    assert saved_seat(page, gid)["secret"] == white
    open_link(page, gid, f"seat=black&secret={black}")
    page.wait_for_selector("#seat-choice:visible")
    page.click("#seat-use-link")
    page.wait_for_selector("#seat-choice", state="hidden")
    assert saved_seat(page, gid) == {"color": "black", "secret": black}
    page.wait_for_selector("#status:has-text('waiting for')")

    # the same secret again: nothing to ask
    open_link(page, gid, f"seat=black&secret={black}")
    assert page.locator("#seat-choice").is_hidden()


def test_a_link_whose_colour_disagrees_with_its_secret_shows_the_secrets_seat(
    page: Any, server: Server
) -> None:
    """Issue 41, finding 8: ``#seat=white&secret=<black's secret>`` was saved as white and the page
    showed the wrong side; the server's answer to the secret decides."""
    with httpx.Client(base_url=server.url, timeout=30) as c:
        data = create(c, variant="fugue", opponent="friend", color="white")
    gid, black = data["id"], data["seats"]["black"]["secret"]
    open_link(page, gid, f"seat=white&secret={black}")
    page.wait_for_function(f"JSON.parse(localStorage.getItem('exochess:seat:{gid}')).color === 'black'")
    assert saved_seat(page, gid) == {"color": "black", "secret": black}
    page.wait_for_selector("#status:has-text('waiting for')")  # white is to move: black waits
