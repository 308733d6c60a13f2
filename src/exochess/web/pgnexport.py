"""PGN of a stored game, written by :mod:`exochess.pgn` with the site's headers."""

from __future__ import annotations

from collections.abc import Mapping

from exochess.board import Board
from exochess.pgn import write_game
from exochess.web.domain import Color, PlayerKind
from exochess.web.storage import GameRow


def _players(row: GameRow, names: Mapping[Color, str | None]) -> tuple[str, str]:
    def name(color: Color) -> str:
        kind = row.kind_of(color)
        if kind == PlayerKind.ENGINE:
            return f"Computer (level {row.level})"
        return names.get(color) or "Human"

    return name(Color.WHITE), name(Color.BLACK)


def game_pgn(row: GameRow, board: Board, names: Mapping[Color, str | None] | None = None) -> str:
    """The game as PGN, with the site's Event/Site/Date/players headers (and FEN if set up);
    ``names``: the accounts' names of the seats they hold."""
    white, black = _players(row, names or {})
    result = row.result or "*"
    headers = {
        "Event": "exochess game",
        "Site": f"exochess /game/{row.id}",
        "Date": row.created.strftime("%Y.%m.%d"),
        "Round": "-",
        "White": white,
        "Black": black,
        "Result": result,
        "Variant": board.variant.title,
    }
    if row.start_fen != board.variant.starting_fen:
        headers["SetUp"] = "1"
        headers["FEN"] = row.start_fen
    if row.termination:
        headers["Termination"] = row.termination
    return write_game(board, headers=headers, result=result)
