"""PGN import keeps a game's comments and clocks (issue 45, item 4): every sample PGN shipped in
the repository round-trips through ``POST /api/import`` and the game's PGN export; the state
carries them for the move list; a bad PGN (unclosed comment, bad clock, illegal move, a comment
too long) is refused with its line and reason and changes nothing; a comment is text, never HTML.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from exochess.pgn import read_game
from exochess.web.game.pgnimport import MAX_COMMENT

REPO = Path(__file__).resolve().parents[2]
SAMPLES = sorted([*REPO.glob("docs/**/*.pgn"), *REPO.glob("src/**/*.pgn")])
"""Every sample PGN the repository ships (docs/samples/ holds one game of each kind)."""


def test_the_repository_ships_a_sample_of_every_game() -> None:
    from exochess.variants import all_variants

    read = {read_game(path.read_text()).variant for path in SAMPLES}
    assert read == {v.name for v in all_variants()}, [p.name for p in SAMPLES]


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_a_shipped_sample_round_trips_through_import_and_export(client: httpx.Client, path: Path) -> None:
    text = path.read_text()
    sample = read_game(text)
    assert sample.comments and sample.clocks  # the samples show both
    read = client.post("/api/import/read", json={"pgn": text})
    assert read.status_code == 200, read.text
    assert read.json()["comments"] == {str(k): v for k, v in sample.comments.items()}
    saved = client.post("/api/import", json={"pgn": text})
    assert saved.status_code == 201, saved.text
    gid = saved.json()["id"]
    state = client.get(f"/api/games/{gid}").json()
    assert state["pgn_notes"] == {
        "comments": {str(k): v for k, v in sample.comments.items()},
        "clocks": {str(k): v for k, v in sample.clocks.items()},
    }
    exported = client.get(f"/api/games/{gid}/pgn")
    assert exported.status_code == 200
    again = read_game(exported.text)
    assert [str(m) for m in again.moves] == [str(m) for m in sample.moves]
    assert again.comments == sample.comments and again.clocks == sample.clocks
    assert again.fen == sample.fen and again.variant == sample.variant
    # the export imports again, to the same notes
    twice = client.post("/api/import", json={"pgn": exported.text}).json()["id"]
    assert client.get(f"/api/games/{twice}").json()["pgn_notes"] == state["pgn_notes"]


def test_a_game_played_here_has_no_pgn_notes(client: httpx.Client) -> None:
    made = client.post("/api/games", json={"variant": "fugue", "opponent": "friend"})
    assert made.status_code in (200, 201), made.text
    assert client.get(f"/api/games/{made.json()['id']}").json()["pgn_notes"] is None


def test_bad_pgns_name_the_line_and_the_reason_and_store_nothing(client: httpx.Client) -> None:
    before = client.get("/api/games", params={"limit": 100}).json()["games"]
    long = "x" * (MAX_COMMENT + 1)
    cases = [
        (
            '[Variant "Fugue"]\n\n1. e2-e3 {a comment\nnever closed *\n',
            "line 3: a comment opened with '{' is never closed",
        ),
        (
            '[Variant "Fugue"]\n\n1. e2-e3\n{[%clk 0:75:00]} *',
            "line 4: bad clock annotation '[%clk 0:75:00]'",
        ),
        ('[Variant "Fugue"]\n\n1. e2-e3 {[%clk soon]} *', "line 3: bad clock annotation '[%clk soon]'"),
        ('[Variant "Fugue"]\n\n1. e2-e3 {[%clk 0:04:59} *', "line 3: bad clock annotation"),
        ('[Variant "Fugue"]\n\n1. e2-e3 e7-e6\n2. e2-e4 *', "line 4, move 2. e2-e4: e2-e4 is illegal"),
        (
            f'[Variant "Fugue"]\n\n1. e2-e3\n\n{{{long}}} *',
            f"line 5: a comment of {MAX_COMMENT + 1} characters",
        ),
    ]
    for pgn, reason in cases:
        for route in ("/api/import/read", "/api/import"):
            res = client.post(route, json={"pgn": pgn})
            assert res.status_code == 400, (pgn[:60], res.text[:300])
            error = res.json()["error"]
            assert error.startswith("bad PGN: ") and reason in error, (pgn[:60], error[:300])
    assert f"at most {MAX_COMMENT}" in client.post("/api/import", json={"pgn": cases[-1][0]}).json()["error"]
    # the longest comment allowed is kept whole
    ok = f'[Variant "Fugue"]\n\n1. e2-e3 {{{"y" * MAX_COMMENT}}} *'
    gid = client.post("/api/import", json={"pgn": ok}).json()["id"]
    assert client.get(f"/api/games/{gid}").json()["pgn_notes"]["comments"] == {"1": "y" * MAX_COMMENT}
    after = [g for g in client.get("/api/games", params={"limit": 100}).json()["games"] if g["id"] != gid]
    assert after == before


def test_a_comment_is_text_on_the_game_page_never_html(client: httpx.Client) -> None:
    evil = '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2">'
    pgn = f'[Variant "Fugue"]\n\n{{{evil}}} 1. e2-e3 {{[%clk 0:04:59] </script><b>bold</b>}} *'
    gid = client.post("/api/import", json={"pgn": pgn}).json()["id"]
    notes = client.get(f"/api/games/{gid}").json()["pgn_notes"]
    assert notes == {"comments": {"0": evil, "1": "</script><b>bold</b>"}, "clocks": {"1": 299_000}}
    html = client.get(f"/game/{gid}").text
    # in the page's data the text is JSON with <, > and & escaped: no tag of it reaches the HTML
    assert "<script>window.pwned" not in html and "<img" not in html and "<b>bold" not in html
    assert "\\u003cscript\\u003ewindow.pwned" in html
    # the export writes the comment back as it was (PGN is text)
    assert read_game(client.get(f"/api/games/{gid}/pgn").text).comments == {
        0: evil,
        1: "</script><b>bold</b>",
    }
