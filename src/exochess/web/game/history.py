"""A live game's moves and captured pieces as JSON, kept one ply at a time.

A game's state carries its whole history (every move with its actions, every FEN, the pieces
lost), and the site sends a new state after every move.  Built from scratch, the history costs
the server work in proportion to the game's length at every move: encoding each move, and
reading the position before each capture.  :class:`HistoryJson` keeps each ply's encoded move
and lost pieces, so a move adds one ply's work and the rest is string joining.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import orjson

from exochess.board import Board
from exochess.web.game.positions import move_json, pieces_lost


@dataclass(frozen=True, slots=True)
class _Ply:
    """One move of the history, with what it was made from (to tell when it no longer holds)."""

    fen: str
    """The position before the move."""
    text: str
    """The move as stored."""
    encoded: str
    """The move's JSON (:func:`~exochess.web.game.positions.move_json`), encoded."""
    lost: tuple[tuple[str, str], ...]
    """The pieces the move removed, as (side, FEN letter)."""


class HistoryJson:
    """The encoded moves and captured pieces of one game, brought up to date on demand.

    The plies kept are checked against the game's FENs and move texts each time (a takeback, a
    reload from the database or another process's move can all change the history), and only
    those from the first difference on are made again.
    """

    __slots__ = ("_plies",)

    def __init__(self) -> None:
        self._plies: list[_Ply] = []

    def update(
        self, board: Board, fens: Sequence[str], texts: Sequence[str]
    ) -> tuple[str, dict[str, list[str]]]:
        """The moves' JSON array (text) and the pieces each side lost, for the game whose
        ``board`` was reached by the moves ``texts`` from ``fens[0]`` (``fens[i]`` the position
        before move ``i``)."""
        plies = self._plies
        count = len(texts)
        keep = 0
        limit = min(len(plies), count)
        while keep < limit and plies[keep].fen == fens[keep] and plies[keep].text == texts[keep]:
            keep += 1
        del plies[keep:]
        if keep < count:
            # the usual case is one new move: the board's last, without converting them all
            moves = [board.peek()] if keep == count - 1 else board.move_stack[keep:]
            variant = board.variant
            for i, move in enumerate(moves, start=keep):
                encoded = orjson.dumps(move_json(variant, move)).decode()
                plies.append(_Ply(fens[i], texts[i], encoded, pieces_lost(variant, fens[i], move)))
        lost: dict[str, list[str]] = {"white": [], "black": []}
        for ply in plies:
            for color, letter in ply.lost:
                lost[color].append(letter)
        return "[" + ",".join(ply.encoded for ply in plies) + "]", lost
