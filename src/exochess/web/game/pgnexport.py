"""PGN of a stored game, written by :mod:`exochess.pgn` with the site's headers."""

from __future__ import annotations

from collections.abc import Mapping

from exochess.board import Board
from exochess.pgn import write_game
from exochess.web.domain import Color, PlayerKind
from exochess.web.storage.store import ChatRow, GameRow


def _players(row: GameRow, names: Mapping[Color, str | None]) -> tuple[str, str]:
    def name(color: Color) -> str:
        if row.kind_of(color) == PlayerKind.ENGINE:
            return f"Computer (level {row.level})"
        # an account's name first, then the display name the player chose
        return names.get(color) or row.name_of(color) or "Human"

    return name(Color.WHITE), name(Color.BLACK)


def pgn_comments(rows: list[ChatRow], plies: int) -> dict[int, str]:
    """The chat as PGN comments: each line after the move it followed (a line written at a ply
    since taken back goes after the last move)."""
    comments: dict[int, list[str]] = {}
    for row in rows:
        who = row.name or row.color.capitalize()
        comments.setdefault(min(row.ply, plies), []).append(f"[{who}] {row.text}")
    return {ply: " ".join(lines) for ply, lines in comments.items()}


def game_pgn(
    row: GameRow, board: Board, names: Mapping[Color, str | None] | None = None,
    chat: list[ChatRow] | None = None,
) -> str:
    """The game as PGN, with the site's Event/Site/Date/players headers (and FEN if set up);
    ``names``: the accounts' names of the seats they hold; with ``chat``, those lines as
    comments after the moves they followed."""
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
    comments = pgn_comments(chat, len(board.move_stack)) if chat else None
    return write_game(board, headers=headers, result=result, comments=comments)
