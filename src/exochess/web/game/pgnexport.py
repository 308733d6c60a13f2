"""PGN of a stored game, written by :mod:`exochess.pgn` with the site's headers."""

from __future__ import annotations

from collections.abc import Mapping

from exochess.board import Board
from exochess.pgn import UNTERMINATED, pgn_termination, write_game
from exochess.web.domain import Color, PlayerKind, Stamp
from exochess.web.game.timecontrol import TimeControl, TimeControlKind, stored_time_control
from exochess.web.storage.store import ChatRow, GameRow


def _players(row: GameRow, names: Mapping[Color, str | None]) -> tuple[str, str]:
    def name(color: Color) -> str:
        # an account's name first (a house bot's, for the computer), then the display name
        # the player chose
        named = names.get(color) or row.name_of(color)
        if named:
            return named
        return f"Computer (level {row.level})" if row.kind_of(color) == PlayerKind.ENGINE else "Human"

    return name(Color.WHITE), name(Color.BLACK)


def pgn_comments(rows: list[ChatRow], plies: int) -> dict[int, str]:
    """The chat as PGN comments: each line after the move it followed (a line written at a ply
    since taken back goes after the last move)."""
    comments: dict[int, list[str]] = {}
    for row in rows:
        who = row.name or row.color.capitalize()
        comments.setdefault(min(row.ply, plies), []).append(f"[{who}] {row.text}")
    return {ply: " ".join(lines) for ply, lines in comments.items()}


def pgn_time_control(control: TimeControl) -> str:
    """The ``TimeControl`` tag as the PGN standard writes it: ``60+0`` (seconds + increment),
    ``1/259200`` (one move in three days: correspondence), ``-`` (no clock).

    >>> pgn_time_control(TimeControl.parse("1+0")), pgn_time_control(TimeControl.parse("3d"))
    ('60+0', '1/259200')
    """
    if control.kind == TimeControlKind.REALTIME:
        return f"{control.base_ms // 1000}+{control.increment_ms // 1000}"
    if control.kind == TimeControlKind.CORRESPONDENCE:
        return f"1/{control.days * 86400}"
    return "-"


def pgn_clocks(row: GameRow, stamps: list[Stamp]) -> dict[int, int]:
    """The mover's clock after each ply (``[%clk]``), from the stored clocks of the moves."""
    clocks: dict[int, int] = {}
    for ply, stamp in enumerate(stamps, start=1):
        mover = Color.to_move(row.start_fen, ply - 1)
        left = stamp.white_ms if mover == Color.WHITE else stamp.black_ms
        if left is not None:
            clocks[ply] = left
    return clocks


def game_pgn(
    row: GameRow,
    board: Board,
    names: Mapping[Color, str | None] | None = None,
    chat: list[ChatRow] | None = None,
    elos: Mapping[Color, int] | None = None,
) -> str:
    """The game as PGN, with the site's Event/Site/Date/players headers (and FEN if set up),
    its ``TimeControl``, ``Rated``, the players' ratings (``elos``, ``WhiteElo``/``BlackElo``),
    the clocks after each move (``[%clk]``) and how it ended (``Termination``); ``names``: the
    accounts' names of the seats they hold; with ``chat``, those lines as comments after the
    moves they followed; an imported game's own comments and clocks come back as it had them."""
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
    headers["Termination"] = pgn_termination(row.termination) if row.termination else UNTERMINATED
    headers["TimeControl"] = pgn_time_control(stored_time_control(row.time_control))
    headers["Rated"] = "true" if row.rated else "false"
    for color, tag in ((Color.WHITE, "WhiteElo"), (Color.BLACK, "BlackElo")):
        if elos and color in elos:
            headers[tag] = str(elos[color])
    plies = len(board.move_stack)
    comments, clocks = imported_notes(row, plies)
    for ply, text in (pgn_comments(chat, plies) if chat else {}).items():
        comments[ply] = f"{comments[ply]} {text}" if ply in comments else text
    # the stamps of the moves on the board (a row may hold one more while a takeback settles)
    if len(row.stamps) >= plies:
        clocks.update(pgn_clocks(row, row.stamps[:plies]))
    return write_game(board, headers=headers, result=result, comments=comments, clocks=clocks)


def imported_notes(row: GameRow, plies: int) -> tuple[dict[int, str], dict[int, int]]:
    """The comments and clocks an imported game's PGN had (``games.pgn_notes``), by ply (those
    of plies the board has)."""
    notes = row.pgn_notes or {}
    comments = {int(ply): str(text) for ply, text in notes.get("comments", {}).items() if int(ply) <= plies}
    clocks = {int(ply): int(ms) for ply, ms in notes.get("clocks", {}).items() if 0 < int(ply) <= plies}
    return comments, clocks
