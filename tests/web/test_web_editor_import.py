"""Issue 45, items 3 and 4 through the API: the board editor's FEN check (the library's reading,
or its reason), its page and links; PGN import read and stored (good, bad with its line, too long).
"""

from __future__ import annotations

import random

import httpx
import pytest

from exochess import Board
from exochess.pgn import write_game
from exochess.variants import all_variants
from exochess.web.game.pgnimport import MAX_IMPORT_BODY, MAX_PGN_BYTES

INTERWEAVE = "rbnkknbr/pppppppp/8/8/3P4/8/P1PPPPPP/RBNKKNBR b c3,d4 1[12]0003"
"""Black to move after White's double step b2-c3-d4 (en passant c3,d4), reserves of both sides."""


def check(client: httpx.Client, variant: str, fen: str) -> httpx.Response:
    return client.post("/api/editor/check", json={"variant": variant, "fen": fen})


@pytest.mark.parametrize("variant", [v.name for v in all_variants()])
def test_the_editor_round_trips_every_games_positions(client: httpx.Client, variant: str) -> None:
    board = Board(variant)
    rng = random.Random(45)
    fens = [board.fen()]
    for _ in range(6):  # a few positions along a random game, and an empty board
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
        fens.append(board.fen())
    v = board.variant
    fens.append(" ".join(["/".join([str(v.width)] * v.height), "b", *v.starting_fen.split(" ")[2:]]))
    for fen in fens:
        res = check(client, variant, fen)
        assert res.status_code == 200, res.text
        assert res.json() == {"variant": variant, "fen": fen, "turn": "white" if " w" in fen else "black"}


def test_the_editor_keeps_interweaves_extra_state_and_refuses_with_the_reason(client: httpx.Client) -> None:
    assert check(client, "interweave", INTERWEAVE).json()["fen"] == INTERWEAVE
    # a position without royals is a study the rules allow (RULES.md): accepted
    assert check(client, "interweave", "8/8/8/8/8/8/8/8 w - 000000").status_code == 200
    for variant, fen, reason in [
        ("interweave", "kkk5/8/8/8/8/8/8/KK6 w - 000000", "Black has 3 Kings (at most 2)"),
        ("interweave", "8/8/8/8/8/8/8/8 w c3,d4 000000", "en-passant field"),
        ("interweave", "8/8/8/8/8/8/8/8 w - 0000", "reserves field must be six counts"),
        ("fugue", "xxxxxxxx/8/8/8/8/8/8/8 w", "rank 8: 'x' is not a piece letter of this game"),
        ("fugue", "8/8/8/8/8/8/8/8 x", "side to move"),
        ("rebelfury", "8/8/8/8/8/8/8/8 w", "rank"),
        ("fugue", "   ", "the FEN is empty"),
    ]:
        res = check(client, variant, fen)
        assert res.status_code == 400, (fen, res.text)
        assert reason in res.json()["error"], (fen, res.json())
    res = check(client, "chess", "8/8/8/8/8/8/8/8 w")
    assert res.status_code == 400 and "chess" in res.json()["error"]
    assert check(client, "fugue", "8" * 3000).status_code == 400  # too long: refused by the model


def test_the_editor_page_and_the_new_game_form_from_a_position(client: httpx.Client) -> None:
    page = client.get("/editor/interweave", params={"fen": INTERWEAVE})
    assert page.status_code == 200
    assert 'id="palette"' in page.text and 'id="ep"' in page.text and page.text.count('class="reserve"') == 6
    assert 'id="ep"' not in client.get("/editor/rebelfury").text  # no extra state there
    assert client.get("/editor/nosuchgame").status_code == 404
    assert client.get("/editor", follow_redirects=False).headers["location"].startswith("/editor/")
    form = client.get("/new", params={"variant": "fugue", "fen": "8/8/8/8/8/8/8/K6k w", "opponent": "friend"})
    assert 'value="friend" checked' in form.text and 'value="8/8/8/8/8/8/8/K6k w"' in form.text


def sample_pgn(variant: str, plies: int = 12, seed: int = 1) -> tuple[str, list[str]]:
    """A game of random legal moves, with clocks and comments, as the site writes it."""
    board = Board(variant)
    rng = random.Random(seed)
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves or board.is_game_over():
            break
        board.push(rng.choice(moves))
    texts = [str(m) for m in board.move_stack]
    clocks = {ply: 60_000 - 1000 * ply for ply in range(1, len(texts) + 1)}
    headers = {"White": "Ann Example", "Black": "Bo", "Termination": "resignation"}
    pgn = write_game(
        board, headers=headers, result="1-0", comments={0: "a sample", 2: "sharp"}, clocks=clocks
    )
    return pgn, texts


@pytest.mark.parametrize("variant", [v.name for v in all_variants()])
def test_a_good_pgn_is_read_and_stored_as_an_imported_game(client: httpx.Client, variant: str) -> None:
    pgn, texts = sample_pgn(variant)
    read = client.post("/api/import/read", json={"pgn": pgn})
    assert read.status_code == 200, read.text
    game = read.json()
    assert game["variant"] == variant and game["moves"] == texts and game["result"] == "1-0"
    assert game["comments"]["0"] == "a sample" and game["clocks"]["1"] == 59_000
    saved = client.post("/api/import", json={"pgn": pgn})
    assert saved.status_code == 201, saved.text
    gid = saved.json()["id"]
    assert saved.json() == {"id": gid, "url": f"/game/{gid}", "moves": len(texts)}
    state = client.get(f"/api/games/{gid}").json()
    assert state["status"] == "finished" and state["result"] == "1-0" and state["imported"] is True
    assert state["rated"] is False and [m["text"] for m in state["moves"]] == texts
    assert state["players"]["white"]["name"] == "Ann Example" and state["termination"] == "resignation"
    assert client.get(f"/game/{gid}").status_code == 200
    # nobody holds its seats: no move, no resignation
    assert client.post(f"/api/games/{gid}/resign", json={"secret": "x" * 22}).status_code >= 400
    # its PGN reads back to the same moves
    again = client.get(f"/api/games/{gid}/pgn").text
    assert client.post("/api/import/read", json={"pgn": again}).json()["moves"] == texts


def test_a_bad_pgn_names_its_line_and_changes_nothing(client: httpx.Client) -> None:
    before = client.get("/api/games", params={"limit": 100}).json()["games"]
    cases = [
        ('[Variant "Fugue"]\n\n1. e2-e3 e7-e6\n2. e3-e5 *', "line 4, move 2. e3-e5"),
        ('[Event "x"]\n[Variant "Chess960"]\n\n*', "line 2: [Variant 'Chess960']"),
        ('[Variant "Fugue"]\n[FEN "8/8 w"]\n\n*', "line 2: [FEN"),
        ('[Variant "Fugue"\n\n1. e2-e3 *', "line 1: malformed tag"),
        ('[Variant "Fugue"]\n\n1. e2-e3 {never closed\n', "line 3"),
        ("   ", "contains no game"),
    ]
    for pgn, reason in cases:
        for path in ("/api/import/read", "/api/import"):
            res = client.post(path, json={"pgn": pgn})
            assert res.status_code == 400, (pgn, res.text)
            assert reason in res.json()["error"], (pgn, res.json())
            assert res.json()["error"].startswith("bad PGN: ")
    assert client.post("/api/import", json={"pgn": 5}).status_code == 400
    assert client.get("/api/games", params={"limit": 100}).json()["games"] == before


def test_an_oversized_pgn_is_refused(client: httpx.Client) -> None:
    pgn, _ = sample_pgn("fugue")
    long = pgn + "\n" + "{" + "x" * MAX_PGN_BYTES + "}"
    for path in ("/api/import/read", "/api/import"):
        res = client.post(path, json={"pgn": long})
        assert res.status_code == 413 and f"at most {MAX_PGN_BYTES} characters" in res.json()["error"], (
            res.text
        )
        res = client.post(path, content=b'{"pgn": "' + b"x" * MAX_IMPORT_BODY + b'"}')
        assert res.status_code == 413 and "request body too large" in res.json()["error"], res.text
    # the other routes keep their small limit
    res = client.post("/api/position", content=b'{"fen": "' + b"x" * 20_000 + b'"}')
    assert res.status_code == 413
