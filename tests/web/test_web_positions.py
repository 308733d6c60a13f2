"""The JSON the pages use: each legal move's square changes really produce the position after it,
and the legal-move tree holds exactly the legal moves, cut within its node budget."""

from __future__ import annotations

import pytest

from exochess import Board, square_name
from exochess.errors import MoveSyntaxError
from exochess.web.game.positions import MAX_LEGAL_MOVES, NODE_BUDGET, legal_tree, position_json
from tests.helpers import game_names
from tests.web.legaltree import node_count, whole_moves

BIG = "4K2k/1p1r1r2/P1b5/2rrnp1r/1nn1rN2/r2brbB1/p3n1b1/kb6 w - 000000"
"""The Interweave position of issue 17: 45,136 legal chains (111,781 distinct action prefixes)."""

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


@pytest.mark.generic
@pytest.mark.parametrize("variant", game_names())
def test_changes_replay_every_legal_move(variant: str) -> None:
    for fen in FENS.get(variant, [None]):
        board = Board(variant, fen=fen)
        before = placement(board)
        for item in whole_moves(legal_tree(board)["actions"]):
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


@pytest.mark.generic
@pytest.mark.parametrize("variant", game_names())
def test_tree_holds_exactly_the_legal_moves(variant: str) -> None:
    for fen in FENS.get(variant, [None]):
        board = Board(variant, fen=fen)
        tree = legal_tree(board)
        texts = [m["text"] for m in whole_moves(tree["actions"])]
        assert sorted(texts) == sorted(str(m) for m in board.legal_moves)
        assert tree["count"] == len(texts) == len(set(texts))


def test_huge_position_is_cut_within_the_budget_and_continued_by_prefix() -> None:
    board = Board("interweave", fen=BIG)
    tree = legal_tree(board)
    assert tree["count"] == 45_136
    assert node_count(tree["actions"]) <= NODE_BUDGET
    # follow the first branch down to a complete move, asking for each cut part by its prefix
    done: list[str] = []
    nodes = tree["actions"]
    total = tree["count"]
    while True:
        node = nodes[0]
        done.append(node["text"])
        if node["end"] and not node["next"]:
            break
        if node["next"] is None:
            sub = legal_tree(board, done)
            assert 0 < sub["count"] < total and node_count(sub["actions"]) <= NODE_BUDGET
            nodes, total = sub["actions"], sub["count"]
            try:
                written = whole_moves(nodes)
            except AssertionError:  # still cut
                continue
            # uncut: one node per distinct prefix, fewer than the actions of the moves written out
            assert len(written) == total
            assert node_count(nodes) < sum(len(m["actions"]) for m in written)
        else:
            nodes = node["next"]
    board.push_text(",".join(done))  # the path is one legal move


def test_bad_prefix_is_a_clear_error() -> None:
    board = Board("interweave")
    with pytest.raises(MoveSyntaxError):
        legal_tree(board, ["not an action"])
    assert legal_tree(board, ["a1-a8"]) == {"count": 0, "actions": []}
    assert MAX_LEGAL_MOVES > 45_136
