"""The JSON the pages use: each legal move's square changes really produce the position after it."""

from __future__ import annotations

import pytest

from exochess import Board, all_variants, square_name
from exochess.web.positions import legal_json, position_json

FENS = {
    "fugue": [
        None,
        "kK5p/1I6/8/8/1pU2p2/8/8/8 w",
        "kK5p/1IP5/8/8/8/8/8/8 w",
        "kK5p/1I6/8/3p4/3W4/8/8/8 w",
        "7k/8/8/4i3/3Q4/8/8/K3A3 w",
    ],
    "interweave": [
        None,
        "1Nk5/4k3/1p2K3/p3P3/N7/8/8/6K1 w - 000000",  # capture chains
    ],
    "rebelfury": [
        None,
        "f11/2a9/12/3J8/12/12/12/12/11A/12/12/G1G8X w",  # Ximaera swaps, petrified Fury
    ],
}


def placement(board: Board) -> dict[str, str]:
    return {square_name(sq): p.symbol() for sq, p in board.piece_map().items()}


@pytest.mark.parametrize("variant", [v.name for v in all_variants()])
def test_changes_replay_every_legal_move(variant: str) -> None:
    for fen in FENS.get(variant, [None]):
        board = Board(variant, fen=fen)
        before = placement(board)
        for item in legal_json(board):
            shown = dict(before)
            for action in item["actions"]:
                for sq, letter in action["changes"]:
                    if letter:
                        shown[sq] = letter
                    else:
                        shown.pop(sq, None)
            board.push_text(item["text"])
            assert shown == placement(board), item["text"]
            board.pop()


def test_position_json_history() -> None:
    board = Board("fugue")
    board.push_text("d2-d3")
    pos = position_json(board)
    assert pos["fens"][0] == Board("fugue").fen() and pos["fens"][1] == board.fen()
    assert pos["moves"][0]["text"] == "d2-d3" and pos["turn"] == "black"
