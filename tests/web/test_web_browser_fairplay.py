"""Browser test of fair play (issue 40): two accounts meet in the lobby for a rated 1+0 game; no
engine control is on either player's page or a spectator's while it is on, and the API refuses
an evaluation to all three; the game goes to a flag, after which the controls come back, the loser's clock shows 0 on
both pages, and its
PGN holds TimeControl "60+0", a [%clk] for every move and Termination "time forfeit", and reads
back with its clocks.

Set EXOCHESS_SHOTS=/some/dir to keep the screenshots (both players, during play and after the flag).
"""

from __future__ import annotations

import secrets
from typing import Any

from exochess.pgn import read_game
from tests.web.serverproc import Server
from tests.web.test_web_browser import shot
from tests.web.test_web_browser_accounts import sign_up
from tests.web.test_web_browser_lobby import people  # noqa: F401  (the fixture)
from tests.web.test_web_browser_lobby_rated import play

FLAG_WAIT_MS = 180_000
"""Black's minute runs out, then the server's deadline timer ends the game (generous: a loaded
machine may be slow to show it, and nothing is asserted on the time it takes)."""


def engine_controls_absent(page: Any) -> None:
    assert page.locator("#evaluate").is_hidden() and page.locator("#analyse").is_hidden()
    assert page.locator("#analysis-later").is_visible()


def test_a_rated_bullet_game_has_no_engine_and_a_pgn_with_its_clocks(people: Any, server: Server) -> None:  # noqa: F811
    alice, bob, carol = people(), people(), people()
    sign_up(alice, f"fa{secrets.token_hex(4)}")
    sign_up(bob, f"fb{secrets.token_hex(4)}")
    alice.goto("/lobby")
    alice.wait_for_selector("#lobby[data-connected='1']")
    alice.select_option("#post-variant", "fugue")
    alice.select_option("#post-time", "1+0")
    alice.check("#post-rated")
    alice.check('input[name=color][value="white"]')
    alice.click("#post-button")
    challenge = alice.wait_for_selector("#challenges tr.mine").get_attribute("data-challenge")
    bob.goto("/lobby")
    bob.click(f'#challenges tr[data-challenge="{challenge}"] button.accept')
    for page in (alice, bob):
        page.wait_for_url("**/game/*")
        page.wait_for_selector("#game[data-connected='1']")
    game = alice.url.rsplit("/", 1)[1]
    carol.goto(f"/game/{game}")
    carol.wait_for_selector("#game[data-connected='1']")

    play(alice, "d2-d3", 1)
    play(bob, "e7-e6", 2)
    play(alice, "e2-e3", 3)
    for page in (alice, bob, carol):
        engine_controls_absent(page)
        # the API refuses every one of them, players and spectator alike
        res = page.request.post(f"/api/games/{game}/evaluate", data={}, headers={"Origin": server.url})
        assert res.status == 403, res.text()
        assert "analysis after the game" in res.json()["error"]
    shot(alice, "fairplay-white-during")
    shot(bob, "fairplay-black-during")

    # Black does not move: the flag falls
    for page in (alice, bob, carol):
        page.wait_for_selector("#game[data-status='finished']", timeout=FLAG_WAIT_MS)
    state = alice.request.get(f"/api/games/{game}").json()
    assert state["termination"] == "time forfeit" and state["result"] == "1-0"
    # the final clocks are those at the end: the loser's shows 0, on both players' pages
    assert state["clock"]["black_ms"] == 0 and 0 < state["clock"]["white_ms"] <= 60_000
    for page in (alice, bob):
        page.wait_for_function(
            "() => document.querySelector(\".clock[data-color='black'] .clock-time\")?.textContent === '0:00.0'"
        )
        assert page.locator(".clock[data-color='white'] .clock-time").text_content() != "0:00.0"
    for page in (alice, bob):
        page.wait_for_selector("#evaluate:not([hidden])")
        assert page.locator("#analysis-later").is_hidden()
    shot(alice, "fairplay-white-flagged")
    shot(bob, "fairplay-black-flagged")

    text = bob.request.get(f"/api/games/{game}/pgn").text()
    assert '[TimeControl "60+0"]' in text and '[Termination "time forfeit"]' in text
    assert '[Rated "true"]' in text and '[Result "1-0"]' in text
    assert text.count("[%clk ") == 3, text
    read = read_game(text)
    assert sorted(read.clocks) == [1, 2, 3] and all(0 < ms <= 60_000 for ms in read.clocks.values())
    assert [str(m) for m in read.moves] == ["d2-d3", "e7-e6", "e2-e3"]
