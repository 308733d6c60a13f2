"""Turning boards into the JSON the pages use (squares by name, pieces by FEN letter)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from exochess.board import Board
from exochess.errors import MoveSyntaxError
from exochess.fen import parse_placement
from exochess.geometry import square_name
from exochess.move import Action, Move
from exochess.outcome import Outcome, Termination
from exochess.phrase import phrase_json
from exochess.rawmove import (
    FROM,
    KIND,
    MORE,
    PROMOTION,
    TO,
    TRIPLE,
    VICTIMS,
    RawMove,
    split_actions,
)
from exochess.svg import piece_svg
from exochess.variant import Variant
from exochess.web.domain import Color


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
    actions = []
    for i, a in enumerate(move.actions):
        item = _action_fields(a)
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


NODE_BUDGET = 2000
"""Action nodes written in one legal-move tree; deeper actions are fetched step by step."""
MAX_LEGAL_MOVES = 200_000
"""Legal moves above which a position is refused as too large to serve."""


class PositionTooLargeError(ValueError):
    """The position has more legal moves than :data:`MAX_LEGAL_MOVES`."""


def _path(raw: RawMove) -> tuple[tuple[Any, ...], ...]:
    """A legal move as its actions, each a hashable tuple (the first action without its changes:
    two moves with the same first action share its changes, as they share the position)."""
    more = raw[MORE]
    first = raw[: PROMOTION + 1]
    return (first, *more) if more else (first,)


def _same_action(step: tuple[Any, ...], action: Action) -> bool:
    return (
        step[FROM] == action.from_square
        and step[TO] == action.to_square
        and step[KIND] == action.kind
        and tuple(step[VICTIMS]) == action.victims
        and step[PROMOTION] == action.promotion
    )


def _parse_actions(prefix: Sequence[str]) -> list[Action]:
    out = []
    for text in prefix:
        actions = Move.from_text(text).actions  # MoveSyntaxError (an ExochessError) when unreadable
        if len(actions) != 1:
            raise MoveSyntaxError(f"{text!r} is not one action")
        out.append(actions[0])
    return out


def legal_tree(board: Board, prefix: Sequence[str] = (), budget: int = NODE_BUDGET) -> dict[str, Any]:
    """The legal moves as a tree of actions with shared prefixes, for the board's input.

    Answers ``{"count": moves, "actions": nodes}`` where each node is one action (``text``,
    ``from``, ``to``, ``kind``, ``victims``, ``promotion``, ``changes``: square -> piece letter
    after the action), ``end`` (a legal move ends with it) and ``next`` (the actions that may
    follow it).  The size grows with the number of distinct action prefixes, not with whole
    chains written out.  Levels of the tree are added while the nodes stay within ``budget``;
    a node whose followers were left out has ``"next": null`` and the client asks for them
    with the actions played so far as ``prefix`` (the tree is then rooted after ``prefix``,
    and ``count`` counts the moves extending it).  Unreadable prefix text raises
    :class:`~exochess.errors.MoveSyntaxError`; more than :data:`MAX_LEGAL_MOVES` moves
    raise :class:`PositionTooLargeError`.
    """
    raws = board.raw_moves()
    if len(raws) > MAX_LEGAL_MOVES:
        raise PositionTooLargeError(
            f"position too large: {len(raws):,} legal moves (at most {MAX_LEGAL_MOVES:,} are served)"
        )
    wanted = _parse_actions(prefix)
    depth0 = len(wanted)
    paths: list[tuple[tuple[Any, ...], ...]] = []
    reps: list[RawMove] = []
    for raw in raws:
        path = _path(raw)
        if len(path) > depth0 and all(_same_action(path[i], a) for i, a in enumerate(wanted)):
            paths.append(path)
            reps.append(raw)
    nodes: dict[tuple[tuple[Any, ...], ...], dict[str, Any]] = {}
    roots: list[dict[str, Any]] = []
    live = list(range(len(paths)))  # moves still longer than the levels built so far
    depth = depth0
    while live:
        level = {paths[i][: depth + 1] for i in live}
        if depth > depth0 and len(nodes) + len(level) > budget:
            for i in live:  # cut here: the parents' followers are fetched on demand
                nodes[paths[i][:depth]]["next"] = None
            break
        for i in live:
            key = paths[i][: depth + 1]
            node = nodes.get(key)
            if node is None:
                action, changes = split_actions(reps[i])[depth]
                node = nodes[key] = _action_json(board.variant, action, changes)
                (roots if depth == depth0 else nodes[key[:-1]]["next"]).append(node)
            if len(paths[i]) == depth + 1:
                node["end"] = True
        depth += 1
        live = [i for i in live if len(paths[i]) > depth]
    _sort(roots)
    return {"count": len(paths), "actions": roots}


def _sort(nodes: list[dict[str, Any]]) -> None:
    nodes.sort(key=lambda n: n["text"])
    for node in nodes:
        if node["next"]:
            _sort(node["next"])


def _action_fields(action: Action) -> dict[str, Any]:
    """The fields every action carries to the browser (in moves and in the legal-move tree)."""
    names = _NAMES
    return {
        "text": str(action),
        "from": names[action.from_square],
        "to": names[action.to_square],
        "kind": action.kind,
        "victims": [names[v] for v in action.victims],
        "promotion": action.promotion,
    }


def _action_json(variant: Variant, action: Action, changes: tuple[int, ...]) -> dict[str, Any]:
    return {
        **_action_fields(action),
        "changes": _changes(variant, changes),
        "end": False,
        "next": [],
    }


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


# Why a game ended when the server, not the rules, ended it (clocks, an abort, a player who
# left).  Stored in English with the game like reason_text's words; the site translates them
# with these texts as message ids (extract_variant_texts lists every one).
def aborted_by_text(side: Color) -> str:
    """A player called the game off before both sides had moved."""
    return f"aborted by {side.capitalize()}"


def no_first_move_text(side: Color) -> str:
    """``side`` did not make its first move in time: the game is aborted."""
    return f"aborted: {side.capitalize()} did not make a first move in time"


def lost_on_time_text(loser: Color) -> str:
    """``loser``'s clock ran out."""
    return f"{loser.other.capitalize()} wins on time"


def left_game_text(loser: Color) -> str:
    """``loser`` stayed away past the absence limit and the other side claimed the win."""
    return f"{loser.other.capitalize()} wins: {loser.capitalize()} left the game"


SERVER_ENDINGS = (aborted_by_text, no_first_move_text, lost_on_time_text, left_game_text)
"""Every way the server words an ending, each taking a side."""


def glyphs(variant: Variant) -> dict[str, str]:
    """SVG markup of every piece (FEN letter -> group in a 100x100 square), drawn by
    :func:`exochess.svg.piece_svg` so that boards match the rules diagrams."""
    out: dict[str, str] = {}
    for letter in variant.piece_letters:
        for white in (True, False):
            markup = piece_svg(letter, white, 50, 50, 100, variant=variant)
            out[letter if white else letter.lower()] = str(markup)
    return out


def pieces_json(variant: Variant) -> list[dict[str, Any]]:
    """The legend of a game: each piece type's letter, name, glyph text and one line of what it does."""
    return [
        {
            "letter": letter,
            "name": variant.piece_names.get(letter, letter),
            "label": variant.glyph_labels.get(letter, letter),
            "description": variant.piece_descriptions.get(letter, ""),
            "in_place": letter in variant.acts_in_place,
        }
        for letter in variant.piece_letters
    ]


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
        "pieces": pieces_json(variant),
    }


def annotations_json(board: Board) -> dict[str, Any]:
    """The board's :meth:`~exochess.board.Board.annotations` for the page (squares by name).

    ``marks``: ``{square, kind, reason, by, reason_t}`` each; ``gazes``: ``{square, color, cells,
    affects}``; ``stuck``: square -> why the piece there cannot move; ``stuck_t``: the same
    reasons as ``[template, fields]`` (``reason_t`` too: :func:`exochess.phrase.phrase_json`,
    what a page translates them with); ``reserves``: side ->
    letter -> count, or None for a game without reserves.  CPU work (it lists the legal
    moves): call it where the legal-move tree is built.
    """
    notes = board.annotations()
    names = _NAMES
    reserves: dict[str, dict[str, int]] | None = None
    if notes.reserves:
        reserves = {"white": {}, "black": {}}
        for r in notes.reserves:
            reserves[color_name(r.white)][r.letter] = r.count
    return {
        "marks": [
            {
                "square": names[m.square],
                "kind": m.kind,
                "reason": m.reason,
                "by": [names[s] for s in m.by],
                "reason_t": phrase_json(m.reason),
            }
            for m in notes.marks
        ],
        "gazes": [
            {
                "square": names[g.square],
                "color": color_name(g.white),
                "cells": [names[c] for c in g.cells],
                "affects": g.affects,
            }
            for g in notes.gazes
        ],
        "stuck": {names[sq]: reason for sq, reason in notes.stuck},
        # the reasons as [template, fields] (exochess.phrase), for the page to translate
        "stuck_t": {names[sq]: phrase_json(reason) for sq, reason in notes.stuck},
        "reserves": reserves,
    }


def captured_json(variant: Variant, fens: Sequence[str], moves: Sequence[Move]) -> dict[str, list[str]]:
    """The pieces each side has lost so far, as FEN letters in the order they fell.

    ``fens[i]`` is the position before ``moves[i]`` (see :func:`pieces_lost`).
    """
    lost: dict[str, list[str]] = {"white": [], "black": []}
    for fen, move in zip(fens, moves, strict=False):
        for color, letter in pieces_lost(variant, fen, move):
            lost[color].append(letter)
    return lost


def pieces_lost(variant: Variant, fen: str, move: Move) -> tuple[tuple[str, str], ...]:
    """The pieces ``move`` removes, as (side, FEN letter), played from the position ``fen``.

    A victim is read on the position before its move (the pieces a move removes never move
    during it); a Swapper's mutual destruction also costs the Swapper itself.
    """
    if not any(a.victims or a.kind == "*" for a in move.actions):
        return ()
    squares = parse_placement(fen.split()[0], variant.geometry, variant.codes)
    fallen: list[tuple[str, str]] = []
    for action in move.actions:
        removed = [*action.victims, action.from_square] if action.kind == "*" else list(action.victims)
        for sq in removed:
            code = squares[sq]
            if code:
                fallen.append((color_name(code > 0), variant.letters[code]))
    return tuple(fallen)


def game_view(board: Board) -> dict[str, Any]:
    """The legal-move tree of a live game's position with its annotations (CPU work: run it in
    a worker, on a board of the caller's own)."""
    view = legal_tree(board)
    view["annotations"] = annotations_json(board)
    return view


def position_json(board: Board, prefix: Sequence[str] = ()) -> dict[str, Any]:
    """A free position (analysis board): FENs along the line, moves, legal moves, outcome.

    ``legal`` is the :func:`legal_tree` (rooted after the actions ``prefix``), ``legal_count``
    its number of moves.  CPU work growing with the position: the site calls it off the loop.
    """
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
    tree = legal_tree(board, prefix) if outcome is None else {"count": 0, "actions": []}
    return {
        "variant": variant_json(board.variant),
        "start_fen": board.starting_fen,
        "fen": board.fen(),
        "fens": fens,
        "moves": moves,
        "ply": board.ply(),
        "turn": color_name(board.turn),
        "legal": tree["actions"],
        "legal_count": tree["count"],
        "result": outcome.result() if outcome else None,
        "reason": reason_text(board.variant, outcome) if outcome else None,
        "annotations": annotations_json(board),
        "captured": captured_json(board.variant, fens, history),
    }
