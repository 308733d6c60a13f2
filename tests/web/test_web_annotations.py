"""The annotations and captured pieces in the JSON of a live game and of the analysis board
(a real server on 127.0.0.1), and the captured-pieces helper on special captures."""

from __future__ import annotations

import httpx
import pytest

from exochess import Board, find_variant
from exochess.web.game.positions import annotations_json, captured_json, variant_json
from tests.helpers import game_names
from tests.web.serverproc import create

FROZEN = "7k/8/8/4i3/3Q4/8/8/K7 w"


def test_a_live_game_carries_annotations_and_captured_pieces(client: httpx.Client) -> None:
    data = create(client, variant="fugue", opponent="friend", color="white", fen=FROZEN)
    state = client.get(f"/api/games/{data['id']}").json()
    notes = state["annotations"]
    template = [
        "the {piece} on {square} is immobilized by the Immobilizer on {by}",
        {"piece": "Queen", "square": "d4", "by": "e5"},
    ]
    assert notes["marks"] == [
        {
            "square": "d4",
            "kind": "frozen",
            "by": ["e5"],
            "reason": "the Queen on d4 is immobilized by the Immobilizer on e5",
            "reason_t": template,  # what the page translates it with
        }
    ]
    assert notes["stuck"] == {"d4": "the Queen on d4 is immobilized by the Immobilizer on e5"}
    assert notes["stuck_t"] == {"d4": template}
    assert notes["gazes"] == [] and notes["reserves"] is None
    assert state["captured"] == {"white": [], "black": []}
    secret = data["seats"]["white"]["secret"]
    state = client.post(f"/api/games/{data['id']}/moves", json={"move": "a1-b1", "secret": secret}).json()
    # now Black is to move: the frozen Queen is still marked, but only Black's pieces can be stuck
    assert [m["square"] for m in state["annotations"]["marks"]] == ["d4"]
    assert state["annotations"]["stuck"] == {}


def test_the_analysis_position_carries_annotations(client: httpx.Client) -> None:
    fen = "fd8df/aa8aa/12/3g8/12/12/12/12/3G8/12/AA8AA/FD8DF w"
    pos = client.post("/api/position", json={"variant": "rebelfury", "fen": fen}).json()
    marks = {m["square"]: m["by"] for m in pos["annotations"]["marks"]}
    assert marks["d4"] == ["d9"] and marks["d9"] == ["d4"]
    gazers = {g["square"]: g for g in pos["annotations"]["gazes"]}
    assert gazers["d9"]["color"] == "black" and "d4" in gazers["d9"]["cells"]
    assert gazers["d9"]["affects"] == "every piece"
    pos = client.post(
        "/api/position",
        json={
            "variant": "interweave",
            "fen": "8/8/8/4p3/4Bp2/8/8/K6k w - 000000",
            "moves": ["e4@(e5,f4)"],
        },
    ).json()
    assert pos["captured"] == {"white": [], "black": ["p", "p"]}
    assert pos["annotations"]["reserves"] == {
        "white": {"R": 0, "N": 0, "B": 0},
        "black": {"R": 0, "N": 0, "B": 0},
    }


def test_captured_pieces_of_a_mutual_destruction_and_a_chain() -> None:
    board = Board("fugue", fen="kK5p/1I6/8/3p4/3W4/8/8/8 w")
    board.push_text("d4*d5")
    fens = [board.starting_fen]
    assert captured_json(board.variant, fens, board.move_stack) == {"white": ["W"], "black": ["p"]}
    board = Board("interweave", fen="8/3p1p2/2p1p3/3p4/3K4/K7/8/6kk w - 000000")
    board.push_text("d4xd6(d5),d6xf6(e6),f6xf8(f7)")
    assert captured_json(board.variant, [board.starting_fen], board.move_stack) == {
        "white": [],
        "black": ["p", "p", "p"],
    }


@pytest.mark.generic
@pytest.mark.parametrize("variant", game_names())
def test_the_legend_data_of_every_game(variant: str) -> None:
    game = find_variant(variant)
    pieces = variant_json(game)["pieces"]
    assert [p["letter"] for p in pieces] == list(game.piece_letters)
    assert all(p["name"] and p["description"] for p in pieces)


def test_the_legend_labels_and_in_place_pieces_of_interweave() -> None:
    labels = {p["letter"]: p["label"] for p in variant_json(find_variant("interweave"))["pieces"]}
    assert labels == {"K": "K", "R": "S", "N": "L", "B": "X", "P": "P"}
    in_place = [p["letter"] for p in variant_json(find_variant("interweave"))["pieces"] if p["in_place"]]
    assert in_place == ["B"]


def test_annotations_json_of_a_finished_position_lists_no_stuck_piece() -> None:
    board = Board("fugue", fen="kK6/1I6/8/8/8/8/8/8 w")
    board.push_text("b8xa8")
    assert board.decided is not None
    assert annotations_json(board)["stuck"] == {}
