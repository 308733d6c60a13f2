"""PGN of a stored game: through :mod:`exochess.pgn` when it is installed.

Until that module lands, a plain export (Seven Tag Roster + Variant/FEN tags
and the canonical move texts) is written here; :mod:`exochess.pgn` replaces it
automatically once present.
"""

from __future__ import annotations

from exochess.board import Board
from exochess.web import optional
from exochess.web.storage import GameRow


def _players(row: GameRow) -> tuple[str, str]:
    def name(kind: str) -> str:
        return f"Computer (level {row.level})" if kind == "engine" else "Human"

    return name(row.white), name(row.black)


def game_pgn(row: GameRow, board: Board) -> str:
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
    mod = optional.pgn()
    writer = getattr(mod, "write_game", None) if mod is not None else None
    if writer is not None:
        try:
            return str(writer(board, headers=headers, result=result))
        except TypeError:
            pass
    lines = [f'[{k} "{v}"]' for k, v in headers.items()]
    white_first = row.start_fen.split()[1] == "w"
    tokens: list[str] = []
    number = 1
    for i, text in enumerate(row.moves):
        white_moves = (i % 2 == 0) == white_first
        if white_moves:
            tokens.append(f"{number}. {text}")
        else:
            tokens.append(f"{number}... {text}" if i == 0 else text)
            number += 1
    tokens.append(result)
    body: list[str] = []
    line = ""
    for tok in tokens:
        if len(line) + len(tok) + 1 > 79 and line:
            body.append(line)
            line = tok
        else:
            line = f"{line} {tok}" if line else tok
    body.append(line)
    return "\n".join(lines) + "\n\n" + "\n".join(body) + "\n"
