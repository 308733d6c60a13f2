"""A game's history in its state, kept a ply at a time, equals the history built whole."""

from __future__ import annotations

import random

import orjson
import pytest

from exochess import Board
from exochess.web.game.history import HistoryJson
from exochess.web.game.positions import captured_json, move_json
from tests.helpers import game_names


def whole(board: Board, fens: list[str]) -> tuple[str, dict[str, list[str]]]:
    """The history as the state built it before: every move encoded again (by the state's
    encoder, so that the texts compare byte for byte)."""
    history = board.move_stack
    encoded = orjson.dumps([move_json(board.variant, m) for m in history]).decode()
    return encoded, captured_json(board.variant, fens, history)


def play(board: Board, fens: list[str], texts: list[str], rng: random.Random) -> bool:
    moves = list(board.legal_moves)
    if not moves or board.outcome() is not None:
        return False
    move = rng.choice(moves)
    texts.append(str(move))
    board.push(move)
    fens.append(board.fen())
    return True


@pytest.mark.generic
@pytest.mark.parametrize("variant", game_names())
def test_kept_history_equals_the_whole_one_through_moves_and_takebacks(variant: str) -> None:
    rng = random.Random(variant)
    board = Board(variant)
    fens, texts = [board.fen()], list[str]()
    history = HistoryJson()
    captures = 0
    for step in range(120):
        if step % 17 == 16 and texts:  # a takeback of one or two plies, as the site allows
            for _ in range(min(len(texts), 1 + step % 2)):
                board.pop()
                fens.pop()
                texts.pop()
        elif not play(board, fens, texts, rng):
            break
        moves, lost = history.update(board, fens, texts)
        assert (moves, lost) == whole(board, fens)
        captures = len(lost["white"]) + len(lost["black"])
    assert len(texts) > 20 and captures > 0  # the games took pieces: the lost lists were tested


def test_a_history_replaced_whole_is_made_again() -> None:
    """Another process's takeback and replay, or a reload, can change any ply: all are checked."""
    rng = random.Random(5)
    board = Board("fugue")
    fens, texts = [board.fen()], list[str]()
    for _ in range(10):
        play(board, fens, texts, rng)
    history = HistoryJson()
    history.update(board, fens, texts)
    other = Board("fugue")
    other_fens, other_texts = [other.fen()], list[str]()
    other_rng = random.Random(6)
    for _ in range(10):
        play(other, other_fens, other_texts, other_rng)
    assert other_texts[0] != texts[0]
    assert history.update(other, other_fens, other_texts) == whole(other, other_fens)
