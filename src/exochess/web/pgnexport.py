"""PGN of a stored game, written by :mod:`exochess.pgn` with the site's headers."""

from __future__ import annotations

from exochess.board import Board
from exochess.pgn import write_game
from exochess.web.domain import PlayerKind
from exochess.web.storage import GameRow


def _players(row: GameRow) -> tuple[str, str]:
    def name(kind: PlayerKind) -> str:
        return f"Computer (level {row.level})" if kind == PlayerKind.ENGINE else "Human"

    return name(row.white), name(row.black)


def game_pgn(row: GameRow, board: Board) -> str:
    """The game as PGN, with the site's Event/Site/Date/players headers (and FEN if set up)."""
    white, black = _players(row)
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
