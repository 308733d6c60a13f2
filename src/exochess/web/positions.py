"""Turning boards into the JSON the pages use (squares by name, pieces by FEN letter)."""

from __future__ import annotations

from typing import Any

from exochess.board import Board
from exochess.geometry import square_name
from exochess.move import Move
from exochess.outcome import Outcome, Termination
from exochess.rawmove import TRIPLE, RawMove, split_actions, to_move
from exochess.svg import piece_svg
from exochess.variant import Variant


def color_name(white: bool) -> str:
    return "white" if white else "black"


_NAMES = [square_name(sq) for sq in range(256)]


def _changes(variant: Variant, flat: tuple[int, ...]) -> list[list[str]]:
    letters = variant.letters
    names = _NAMES
    return [
        [names[flat[i]], letters.get(flat[i + 2], "") if flat[i + 2] else ""]
        for i in range(0, len(flat), TRIPLE)
    ]


def move_json(variant: Variant, move: Move, raw: RawMove | None = None) -> dict[str, Any]:
    """A move with its actions; with ``raw``, each action also lists its square changes."""
    per_action: list[tuple[int, ...]] | None = None
    if raw is not None:
        per_action = [changes for _action, changes in split_actions(raw)]
    names = _NAMES
    actions = []
    for i, a in enumerate(move.actions):
        item: dict[str, Any] = {
            "text": str(a),
            "from": names[a.from_square],
            "to": names[a.to_square],
            "kind": a.kind,
            "victims": [names[v] for v in a.victims],
            "promotion": a.promotion,
        }
        if per_action is not None:
            item["changes"] = _changes(variant, per_action[i])
        actions.append(item)
    first, last = actions[0], actions[-1]
    return {
        "text": first["text"] if len(actions) == 1 else ",".join(x["text"] for x in actions),
        "from": first["from"],
        "to": last["to"],
        "victims": [v for x in actions for v in x["victims"]],
        "actions": actions,
    }


def legal_json(board: Board) -> list[dict[str, Any]]:
    """Every legal move of the position, with the data a client needs to pick and show it."""
    out = [move_json(board.variant, to_move(raw), raw) for raw in board.raw_moves()]
    out.sort(key=lambda m: m["text"])
    return out


def reason_text(variant: Variant, outcome: Outcome) -> str:
    """Why the game ended, in words."""
    winner = "White" if outcome.winner else "Black"
    loser = "Black" if outcome.winner else "White"
    if outcome.termination is Termination.ROYAL_CAPTURE:
        return f"{winner} wins: {variant.royal_capture_text}"
    if outcome.termination is Termination.REPETITION:
        return f"{winner} wins: {loser} repeated a position for the third time"
    if outcome.termination is Termination.NO_LEGAL_MOVES:
        return f"{winner} wins: {loser} has no legal move"
    return f"{winner} wins: {loser} resigned"


def glyphs(variant: Variant) -> dict[str, str]:
    """SVG markup of every piece (FEN letter -> group in a 100x100 square), drawn by
    :func:`exochess.svg.piece_svg` so that boards match the rules diagrams."""
    out: dict[str, str] = {}
    for letter in variant.piece_letters:
        for white in (True, False):
            markup = piece_svg(letter, white, 50, 50, 100, variant=variant)
            out[letter if white else letter.lower()] = str(markup)
    return out


def variant_json(variant: Variant) -> dict[str, Any]:
    return {
        "name": variant.name,
        "title": variant.title,
        "description": variant.description,
        "width": variant.width,
        "height": variant.height,
        "starting_fen": variant.starting_fen,
        "starting_position_note": variant.starting_position_note,
        "piece_names": dict(variant.piece_names),
        "royal": variant.royal,
    }


def position_json(board: Board) -> dict[str, Any]:
    """A free position (analysis board): FENs along the line, moves, legal moves, outcome."""
    start = board.copy()
    history = board.move_stack
    while start.ply():
        start.pop()
    fens = [start.fen()]
    moves = []
    for move in history:
        moves.append(move_json(board.variant, move))
        start.push(move)
        fens.append(start.fen())
    outcome = board.outcome()
    return {
        "variant": variant_json(board.variant),
        "start_fen": board.starting_fen,
        "fen": board.fen(),
        "fens": fens,
        "moves": moves,
        "ply": board.ply(),
        "turn": color_name(board.turn),
        "legal": legal_json(board) if outcome is None else [],
        "result": outcome.result() if outcome else None,
        "reason": reason_text(board.variant, outcome) if outcome else None,
    }
