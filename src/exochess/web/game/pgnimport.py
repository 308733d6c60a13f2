"""PGN import (issue 45): a pasted or uploaded PGN read by :mod:`exochess.pgn`, to open on the
analysis board or to store as an imported game (finished, unrated, marked imported).

Reading is CPU work on text a client sends: run :func:`read_pgn` in the bounded pool of free
positions.  A bad PGN is refused with the library's reason, which names the line (and the move).
"""

from __future__ import annotations

import secrets
from typing import Any

from exochess.errors import ExochessError
from exochess.pgn import UNTERMINATED, PgnError, read_game
from exochess.web.domain import N_, InvalidRequest, TooLarge
from exochess.web.storage.store import NAME_LENGTH

MAX_PGN_BYTES = 200_000
"""Longest PGN text accepted (characters): a thousand-move game with a clock comment on every
move is about a tenth of it."""
MAX_IMPORT_BODY = 2 * MAX_PGN_BYTES + 4096
"""The request body limit of the import routes (a PGN's JSON escapes can double it)."""
MAX_COMMENT = 2000
"""Longest comment accepted at one ply (characters, after its ``[%clk]`` command): comments are
someone's text shown to everyone who opens the game; a PGN with a longer one is refused, naming
its line."""
IMPORT_PATHS = ("/api/import", "/api/import/read")
"""The routes that receive a PGN (their body limit is :data:`MAX_IMPORT_BODY`)."""


def check_size(text: str) -> None:
    """Raise :class:`TooLarge` for a PGN over :data:`MAX_PGN_BYTES`, and
    :class:`InvalidRequest` for an empty one."""
    if len(text) > MAX_PGN_BYTES:
        raise TooLarge(N_("a PGN of at most {count} characters, please"), count=MAX_PGN_BYTES)
    if not text.strip():
        raise InvalidRequest(N_("bad PGN: {reason}"), reason="the text contains no game")


def read_pgn(text: str) -> dict[str, Any]:
    """The first game of ``text`` as the analysis board and the import need it: ``variant``,
    ``fen`` (start), ``moves`` (canonical texts), ``result``, ``comments`` and ``clocks`` (by
    ply, as text keys), ``headers``; or :class:`InvalidRequest` with the library's reason
    (a comment over :data:`MAX_COMMENT` characters is one) (CPU work: run it in a worker)."""
    check_size(text)
    try:
        game = read_game(text, max_comment=MAX_COMMENT)
    except PgnError as exc:
        raise InvalidRequest(N_("bad PGN: {reason}"), reason=str(exc)) from exc
    except ExochessError as exc:  # any other refusal of the library still names its reason
        raise InvalidRequest(N_("bad PGN: {reason}"), reason=str(exc)) from exc
    return {
        "variant": game.variant,
        "fen": game.fen,
        "moves": [str(m) for m in game.moves],
        "result": game.result,
        "comments": {str(ply): text for ply, text in game.comments.items()},
        "clocks": {str(ply): ms for ply, ms in game.clocks.items()},
        "headers": game.headers,
    }


def _name(headers: dict[str, str], tag: str) -> str | None:
    name = " ".join(headers.get(tag, "").split())
    return name[:NAME_LENGTH] if name and name != "?" else None


def import_fields(game: dict[str, Any], game_id: str) -> dict[str, Any]:
    """The keyword arguments of :meth:`Storage.import_game` for a game :func:`read_pgn` read."""
    termination = game["headers"].get("Termination")
    return {
        "id": game_id,
        "variant": game["variant"],
        "start_fen": game["fen"],
        "texts": game["moves"],
        "result": game["result"],
        "termination": termination[:32] if termination and termination != UNTERMINATED else None,
        "white_name": _name(game["headers"], "White"),
        "black_name": _name(game["headers"], "Black"),
        # nobody is given these: no one can act in an imported game
        "white_secret": secrets.token_urlsafe(16),
        "black_secret": secrets.token_urlsafe(16),
        "pgn_notes": pgn_notes(game),
    }


def pgn_notes(game: dict[str, Any]) -> dict[str, dict[str, Any]] | None:
    """What ``games.pgn_notes`` keeps of a game :func:`read_pgn` read: its comments and clocks
    by ply (text keys), or None when it has neither.

    >>> pgn_notes({"comments": {"0": "hi"}, "clocks": {}})
    {'comments': {'0': 'hi'}, 'clocks': {}}
    >>> pgn_notes({"comments": {}, "clocks": {}}) is None
    True
    """
    if not game["comments"] and not game["clocks"]:
        return None
    return {"comments": dict(game["comments"]), "clocks": dict(game["clocks"])}
