"""Puzzles as data: a game's collection, each puzzle checked by the rules, and its themes.

A game's puzzles are ``puzzles.jsonl`` beside the module that defines its
:class:`~exochess.variant.Variant` (``variants/<game>/puzzles.jsonl``), one JSON object a line;
the format is described in docs/puzzles.md.  A puzzle is a position and the *whole* line that
solves it: the solver's move first, then the opponent's reply and the solver's next move
alternately, ending with a solver's move.  The collections are made by
``exochess puzzles generate`` (:mod:`exochess_lab.puzzlegen`), which writes its settings in
``puzzles.settings.json`` beside the file.

Themes are found from the moves alone (:func:`detect_themes`): what each action does (its kind
and its victims), the rule states the board reports before and after (frozen and petrified
pieces) and how the line ends.  :data:`THEMES` lists them with a line of description each.

This module is part of the rules core: it imports no web code and no engine.

>>> puzzle = Puzzle(id="x", variant="fugue", fen="3k4/8/8/8/8/8/8/3QK3 w",
...                 solution=["d1xd8"], rating=600, themes=["royal-capture-in-1", "one-move"])
>>> check_puzzle(puzzle)
>>> detect_themes("fugue", puzzle.fen, puzzle.solution)
['royal-capture-in-1', 'one-move']
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from exochess.annotations import FROZEN, PETRIFIED
from exochess.board import Board
from exochess.errors import ExochessError
from exochess.geometry import square_name
from exochess.move import Move
from exochess.outcome import Termination
from exochess.variant import Variant, resolve_variant

PUZZLES_FILE = "puzzles.jsonl"
"""The collection's file name, in the game's own folder."""
SETTINGS_FILE = "puzzles.settings.json"
"""The generator's settings for the collection beside it (command, seed, budget)."""
MIN_RATING, MAX_RATING = 400, 3000
"""The range a puzzle's rating must lie in (the generator's estimates lie in 600-2600)."""
WINNING_CP = 400
"""The least score (centipawns, the solver's view) of a winning move that is not a forced win:
the generator's default for a puzzle's move, and what the site asks of a move off the solution."""
MAX_SOLUTION = 15
"""Most moves (plies) a solution line may have."""

THEMES: dict[str, str] = {
    "royal-capture-in-1": "The first move captures the royal piece and wins at once.",
    "royal-capture-in-2": "The line ends by capturing the royal piece with the solver's second move.",
    "royal-capture-in-3": "The line ends by capturing the royal piece with the solver's third move.",
    "royal-capture-long": "The line ends by capturing the royal piece after four or more solver moves.",
    "no-move": "The line ends with the opponent left without a legal move, which loses.",
    "advantage": "The line wins decisive material without ending the game.",
    "one-move": "The solution is a single move.",
    "short": "The solution is two solver moves.",
    "long": "The solution is three solver moves or more.",
    "quiet-move": "The first move captures nothing: it prepares a threat the opponent cannot meet.",
    "defence": "The opponent threatens to capture the royal piece; the solution parries it and wins.",
    "long-leap": "A piece captures by leaping over its victim and landing three or more squares away.",
    "approach-withdrawal": "A piece captures a victim it neither lands on nor leaps over.",
    "multi-capture": "One move of the solution removes two or more enemy pieces.",
    "chain": "One move of the solution is a chain of several capturing actions.",
    "shot": "A piece captures without moving, by shooting or firing at its victims.",
    "swap": "A piece changes places with an enemy piece.",
    "mutual-destruction": "A piece destroys itself together with an enemy piece next to it.",
    "immobilization": "A move of the solution freezes an enemy piece that could move before.",
    "petrification": "A move of the solution petrifies an enemy piece that was free before.",
    "promotion": "A man is promoted during the solution (in Interweave, from the reserve).",
    "sacrifice": "The solver's first move lets the opponent capture more than it takes.",
}
"""Every theme name, with what it means (the web side translates the names)."""

ROYAL_THEMES = ("royal-capture-in-1", "royal-capture-in-2", "royal-capture-in-3", "royal-capture-long")
"""The royal-capture themes, by the number of solver moves (the last one for four or more)."""


class PuzzleError(ExochessError):
    """A puzzles file or a puzzle that does not follow the format or the rules."""


@dataclass(frozen=True)
class Puzzle:
    """One puzzle: a position and the line that solves it.

    ``solution`` holds canonical move texts: the solver's move, then the opponent's reply and
    the solver's move alternately; it has an odd length (the solver moves last).
    """

    id: str
    """Unique in the game's collection: lower-case letters, digits and dashes."""
    variant: str
    """The game's registry name."""
    fen: str
    """The position; the side to move is the solver."""
    solution: list[str]
    """The whole line, solver's move first."""
    rating: int
    """The difficulty estimate on a puzzle-rating scale (:data:`MIN_RATING`-:data:`MAX_RATING`)."""
    themes: list[str]
    """Names from :data:`THEMES`."""
    source: str = ""
    """Where the position came from (``"engine game, seed 3"``, a PGN file's event...)."""
    score_cp: int = 0
    """The engine's score at the start, from the solver's side (a won game counts ``MATE``-like)."""
    alternatives: dict[str, list[str]] = field(default_factory=dict)
    """Optional: for a solver's ply index (as a string), other moves as good as the solution's."""

    @property
    def solver_moves(self) -> int:
        """How many moves the solver plays."""
        return (len(self.solution) + 1) // 2

    def to_json(self) -> dict[str, Any]:
        """The puzzle as the JSON object of its line in a puzzles file."""
        data: dict[str, Any] = {
            "id": self.id,
            "fen": self.fen,
            "solution": list(self.solution),
            "rating": self.rating,
            "themes": list(self.themes),
        }
        if self.source:
            data["source"] = self.source
        if self.score_cp:
            data["score_cp"] = self.score_cp
        if self.alternatives:
            data["alternatives"] = {k: list(v) for k, v in self.alternatives.items()}
        return data

    def to_line(self) -> str:
        """The puzzle as one line of a puzzles file (no newline)."""
        return json.dumps(self.to_json(), ensure_ascii=False, separators=(",", ":"))


def puzzle_id(variant: str, fen: str) -> str:
    """The id the generator gives a puzzle: a short hash of its game and position."""
    return hashlib.sha256(f"{variant}|{fen}".encode()).hexdigest()[:10]


def puzzles_path(variant: str | Variant) -> Path:
    """Where ``variant``'s puzzles file is (it may not exist)."""
    return Path(inspect.getfile(type(resolve_variant(variant)))).parent / PUZZLES_FILE


def settings_path(variant: str | Variant) -> Path:
    """Where the generator's settings for ``variant``'s puzzles are (beside the puzzles file)."""
    return puzzles_path(variant).with_name(SETTINGS_FILE)


def _need(cond: bool, where: str, problem: str) -> None:
    if not cond:
        raise PuzzleError(f"{where}: {problem}")


def parse_puzzle(variant: str | Variant, data: Any, where: str = "puzzle") -> Puzzle:
    """A puzzle from its JSON object; the fields are checked, the moves are not (see
    :func:`check_puzzle`).  Raises :class:`PuzzleError` naming ``where`` and the problem."""
    name = resolve_variant(variant).name
    _need(isinstance(data, dict), where, "a puzzle is a JSON object")
    pid = data.get("id")
    _need(
        isinstance(pid, str) and pid != "" and pid.replace("-", "").isalnum() and pid == pid.lower(),
        where,
        "'id' must be lower-case letters, digits and dashes",
    )
    _need(isinstance(data.get("fen"), str) and data["fen"].strip() != "", where, "no 'fen'")
    solution = data.get("solution")
    _need(
        isinstance(solution, list) and bool(solution) and all(isinstance(m, str) for m in solution),
        where,
        "'solution' must be a non-empty list of move texts",
    )
    _need(len(solution) % 2 == 1, where, "'solution' must end with the solver's move (odd length)")
    _need(len(solution) <= MAX_SOLUTION, where, f"'solution' has more than {MAX_SOLUTION} moves")
    rating = data.get("rating")
    _need(
        isinstance(rating, int) and not isinstance(rating, bool) and MIN_RATING <= rating <= MAX_RATING,
        where,
        f"'rating' must be a whole number from {MIN_RATING} to {MAX_RATING}",
    )
    themes = data.get("themes", [])
    _need(
        isinstance(themes, list) and all(isinstance(t, str) for t in themes), where, "'themes' must be a list"
    )
    unknown = [t for t in themes if t not in THEMES]
    _need(not unknown, where, f"unknown theme {', '.join(map(repr, unknown))}")
    source = data.get("source", "")
    _need(isinstance(source, str), where, "'source' must be a text")
    score = data.get("score_cp", 0)
    _need(isinstance(score, int) and not isinstance(score, bool), where, "'score_cp' must be a whole number")
    alternatives = data.get("alternatives", {})
    _need(
        isinstance(alternatives, dict)
        and all(
            isinstance(k, str) and k.isdigit() and isinstance(v, list) and all(isinstance(m, str) for m in v)
            for k, v in alternatives.items()
        ),
        where,
        "'alternatives' maps a ply index to a list of move texts",
    )
    return Puzzle(
        id=pid,
        variant=name,
        fen=data["fen"],
        solution=list(solution),
        rating=rating,
        themes=list(themes),
        source=source,
        score_cp=score,
        alternatives={k: list(v) for k, v in alternatives.items()},
    )


def check_puzzle(puzzle: Puzzle, where: str | None = None) -> None:
    """Check ``puzzle`` against the rules: its position is a valid FEN of its game, the game is
    not over there, the solver has more than one move (a forced move is no puzzle), every move
    of the solution is legal in turn and written canonically, only
    the last move may end the game, and its fields are valid.

    Raises :class:`PuzzleError` naming ``where`` (default: the puzzle's id) and the problem.
    """
    where = where or f"puzzle {puzzle.id}"
    parse_puzzle(puzzle.variant, puzzle.to_json(), where)  # the fields
    try:
        board = Board(puzzle.variant, fen=puzzle.fen)
    except ExochessError as exc:
        raise PuzzleError(f"{where}: bad FEN: {exc}") from exc
    _need(not board.is_game_over(), where, "the game is already over in the position")
    _need(len(board.legal_moves) > 1, where, "the solver's first move is forced (one legal move)")
    for i, text in enumerate(puzzle.solution):
        _need(board.outcome() is None, where, f"the game ends before move {i + 1} ({text})")
        try:
            move = board.parse_move(text)
        except ExochessError as exc:
            raise PuzzleError(f"{where}: move {i + 1} ({text}): {exc}") from exc
        _need(
            str(move) == text, where, f"move {i + 1} is not written canonically: {text!r}, not {str(move)!r}"
        )
        board.push(move)
    for ply, texts in puzzle.alternatives.items():
        index = int(ply)
        _need(
            index % 2 == 0 and index < len(puzzle.solution),
            where,
            f"alternatives at {ply}: not a solver's move",
        )
        before = Board(puzzle.variant, fen=puzzle.fen)
        for text in puzzle.solution[:index]:
            before.push_text(text)
        for text in texts:
            try:
                before.parse_move(text)
            except ExochessError as exc:
                raise PuzzleError(f"{where}: alternative {text!r} at move {index + 1}: {exc}") from exc


@functools.cache
def _load(name: str) -> tuple[Puzzle, ...]:
    path = puzzles_path(name)
    if not path.is_file():
        return ()
    return tuple(read_puzzles(name, path.read_text(encoding="utf-8").splitlines(), str(path.name)))


def read_puzzles(variant: str | Variant, lines: Iterable[str], source: str = "puzzles") -> list[Puzzle]:
    """The puzzles of the lines of a puzzles file (blank lines skipped), fields checked.

    Raises :class:`PuzzleError` naming the line and the problem; two puzzles with one id are
    an error too."""
    found: list[Puzzle] = []
    seen: set[str] = set()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{source} line {number}"
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise PuzzleError(f"{where}: not JSON: {exc.msg}") from exc
        puzzle = parse_puzzle(variant, data, where)
        _need(puzzle.id not in seen, where, f"a puzzle with id {puzzle.id!r} came before")
        seen.add(puzzle.id)
        found.append(puzzle)
    return found


def load_puzzles(variant: str | Variant) -> list[Puzzle]:
    """The puzzles of a registered game, fields checked (an empty list when it has no file).

    The moves are not replayed here (the generic test does it for every shipped puzzle with
    :func:`check_puzzle`).  Raises :class:`PuzzleError` naming the line of a malformed one."""
    return list(_load(resolve_variant(variant).name))


# --- themes ----------------------------------------------------------------------------------


def _marked(board: Board, kind: str, side_positive: bool) -> set[int]:
    """Squares of the pieces of one side that carry the mark ``kind``."""
    return {
        m.square
        for m in board.variant.annotate(board).marks
        if m.kind == kind and (board.squares[m.square] > 0) == side_positive
    }


def _between(a: int, b: int, v: int) -> bool:
    """Whether square ``v`` lies on the straight segment strictly between ``a`` and ``b`` (0x88-like
    squares: file = sq % 16, rank = sq // 16)."""
    fa, ra, fb, rb, fv, rv = a % 16, a // 16, b % 16, b // 16, v % 16, v // 16
    df, dr = fb - fa, rb - ra
    if (df, dr) == (0, 0) or (df and dr and abs(df) != abs(dr)):
        return False
    steps = max(abs(df), abs(dr))
    sf, sr = (df > 0) - (df < 0), (dr > 0) - (dr < 0)
    return any((fa + k * sf, ra + k * sr) == (fv, rv) for k in range(1, steps))


def _distance(a: int, b: int) -> int:
    """Squares between ``a`` and ``b`` as a King counts them."""
    return max(abs(a % 16 - b % 16), abs(a // 16 - b // 16))


def _threatens_royal(board: Board) -> bool:
    """Whether the side not to move could capture a royal (and win) if it moved now."""
    board.push_null()
    try:
        for raw in board.raw_captures():
            board.push_raw(raw)
            won = board.decided is not None and board.decided.termination == Termination.ROYAL_CAPTURE
            board.pop_raw()
            if won:
                return True
        return False
    finally:
        board.pop_null()


def _material(board: Board, values: dict[str, int]) -> int:
    """Material of the side to move minus the other's, by ``values`` (unknown letters count 300)."""
    letters = board.variant.letters
    total = 0
    for code in board.squares:
        if code and abs(code) != board.variant.royal_code:
            total += values.get(letters[abs(code)], 300) * (1 if code * board.side > 0 else -1)
    return total


def detect_themes(
    variant: str | Variant, fen: str, solution: Sequence[str], values: dict[str, int] | None = None
) -> list[str]:
    """The themes of the line ``solution`` from ``fen``, in :data:`THEMES` order.

    ``values`` (letter -> centipawns) judges a sacrifice; without it the game's
    :attr:`~exochess.variant.Variant.piece_values` are used (a game without any gets no
    ``sacrifice`` theme).  Raises :class:`~exochess.errors.ExochessError` for an illegal line.
    """
    var = resolve_variant(variant)
    board = Board(var, fen=fen)
    solver = board.side > 0
    found: set[str] = set()
    if _threatens_royal(board):
        found.add("defence")
    values = values if values is not None else dict(var.piece_values)
    start_material = _material(board, values) if values else 0
    for i, text in enumerate(solution):
        move = board.parse_move(text)
        mine = i % 2 == 0
        if mine:
            frozen_before = _marked(board, FROZEN, not solver)
            petrified_before = _marked(board, PETRIFIED, not solver)
            if i == 0 and not move.is_capture():
                found.add("quiet-move")
            if len(move.victims) >= 2:
                found.add("multi-capture")
            if len(move.actions) >= 2:
                found.add("chain")
            if move.promotion:
                found.add("promotion")
            for a in move.actions:
                if a.kind == "~":
                    found.add("swap")
                elif a.kind == "*":
                    found.add("mutual-destruction")
                elif a.kind == "@":
                    found.add("shot")
                elif a.kind == "x":
                    for v in a.victims:
                        if v == a.to_square:
                            continue
                        if _between(a.from_square, a.to_square, v):
                            if _distance(a.from_square, a.to_square) >= 3:
                                found.add("long-leap")
                        else:
                            found.add("approach-withdrawal")
        board.push(move)
        if mine and board.decided is None:
            if _marked(board, FROZEN, not solver) - frozen_before:
                found.add("immobilization")
            if _marked(board, PETRIFIED, not solver) - petrified_before:
                found.add("petrification")
        # after the solver's first move and the reply: down on material from the start
        if i == 1 and values and _material(board, values) < start_material - 150:
            found.add("sacrifice")
    outcome = board.outcome()
    moves = (len(solution) + 1) // 2
    if outcome is not None and outcome.winner == solver:
        if outcome.termination == Termination.ROYAL_CAPTURE:
            found.add(ROYAL_THEMES[min(moves, 4) - 1])
        elif outcome.termination == Termination.NO_LEGAL_MOVES:
            found.add("no-move")
    else:
        found.add("advantage")
    found.add("one-move" if moves == 1 else "short" if moves == 2 else "long")
    return [t for t in THEMES if t in found]


def describe(puzzle: Puzzle) -> str:
    """One line about a puzzle, for listings: id, rating, first move and themes."""
    first = Move.from_text(puzzle.solution[0])
    return f"{puzzle.id} {puzzle.rating} {square_name(first.from_square)}.. {' '.join(puzzle.themes)}"


__all__ = [
    "MAX_RATING",
    "MIN_RATING",
    "PUZZLES_FILE",
    "SETTINGS_FILE",
    "THEMES",
    "Puzzle",
    "PuzzleError",
    "check_puzzle",
    "describe",
    "detect_themes",
    "load_puzzles",
    "parse_puzzle",
    "puzzle_id",
    "puzzles_path",
    "read_puzzles",
    "settings_path",
]
