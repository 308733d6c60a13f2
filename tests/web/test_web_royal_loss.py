"""Royal loss is an event (RULES 0.6) on the web site: games started from a FEN in which a side
lacks royals go on until a move removes the last royal, and the result text says so."""

from __future__ import annotations

import httpx
import pytest

from tests.web.serverproc import create

# (game, FEN with a side short of royals, a capture that ends nothing, a FEN and move that take the
# last royal, the reason shown)
CASES = [
    ("fugue", "7p/8/8/8/8/8/8/KQ5q w", "b1xh1", "7p/8/8/8/8/8/8/Kq6 b", "b1xa1", "Black wins: King captured"),
    (
        "interweave",
        "8/3p1p2/2p1p3/3p4/3K4/8/8/k7 w - 000000",
        "d4xd6(d5),d6xf6(e6),f6xf8(f7)",
        "8/3p1p2/2p1k3/3p4/3K4/8/8/8 w - 000000",
        "d4xd6(d5),d6xf6(e6)",
        "White wins: King captured",
    ),
    (
        "rebelfury",
        "11a/12/12/12/1x10/12/12/12/1D10/12/12/12 w",
        "b4xb10(b8)",
        "12/12/1x10/12/12/12/12/12/12/1f10/12/J11 w",
        "a1xb3",
        "White wins: last Fury captured",
    ),
]


def play(client: httpx.Client, variant: str, fen: str, move: str) -> dict[str, object]:
    data = create(client, variant=variant, opponent="friend", color="white", fen=fen)
    seat = "white" if fen.split()[1] == "w" else "black"
    secret = data["seats"][seat]["secret"]
    res = client.post(f"/api/games/{data['id']}/moves", json={"move": move, "secret": secret})
    assert res.status_code == 200, res.text
    state: dict[str, object] = res.json()
    return state


@pytest.mark.parametrize(("variant", "fen", "capture", "fatal_fen", "fatal", "reason"), CASES)
def test_missing_royals_end_nothing_and_the_last_capture_ends_the_game(
    client: httpx.Client, variant: str, fen: str, capture: str, fatal_fen: str, fatal: str, reason: str
) -> None:
    state = play(client, variant, fen, capture)
    assert state["status"] == "active" and state["result"] is None
    assert state["legal"]  # the opponent, short of royals, plays on
    state = play(client, variant, fatal_fen, fatal)
    assert state["status"] == "finished"
    assert state["termination"] == "royal capture"
    assert state["reason"] == reason
    assert state["legal"] == []
