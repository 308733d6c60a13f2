"""Lessons and practice positions as data: load a game's course, check it, judge a learner's moves.

A game's course is ``lessons.json`` beside the module that defines its
:class:`~exochess.variant.Variant` (``variants/<game>/lessons.json``); the format is described in
docs/lessons.md.  A course is a list of *stages* (one per piece or rule), each a list of
*exercises*: a position, a goal the library evaluates (a :class:`Goal`), how many moves the
learner has, optional scripted replies of the opponent, and texts in several languages.  Any
line of moves that reaches the goal solves an exercise, not one scripted answer.

This module is part of the rules core: it imports no web code and no engine.

>>> course = load_course("fugue")
>>> exercise = course.stages[0].exercises[0]
>>> attempt = play("fugue", exercise, solve("fugue", exercise) or [])
>>> attempt.status
'solved'
"""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from exochess.board import Board
from exochess.errors import ExochessError
from exochess.geometry import parse_square
from exochess.move import Move
from exochess.variant import Variant, resolve_variant

LESSONS_FILE = "lessons.json"
"""The course's file name, in the game's own folder."""
FORMAT = 1
"""The format version this module reads (the file's ``"format"``)."""
LANGUAGES = ("en", "fr", "es")
"""Languages every text must have (English is the fallback for any other)."""
PLAYING, SOLVED, FAILED = "playing", "solved", "failed"
"""An attempt's status."""
GOAL_TYPES = ("reach", "capture", "capture_count", "win", "no_move", "mark", "all")
"""The goal predicates (docs/lessons.md)."""
MAX_STAGE_EXERCISES = 8
MIN_STAGE_EXERCISES = 3
MAX_LIMIT = 4
"""Most moves an exercise may give the learner (keeps the solver and the server's check small)."""
WIN, HOLD = "win", "hold"
"""A practice position's goal: win the game, or survive a number of moves without losing it."""
MAX_PRACTICE_MOVES = 40
"""Most moves a practice position may count (a win's proof or a hold's length)."""


class LessonError(ExochessError):
    """A lessons file that does not follow the format, or a learner's line that cannot be judged."""


@dataclass(frozen=True)
class Text:
    """One text in several languages."""

    by_language: Mapping[str, str]

    def get(self, language: str) -> str:
        """The text in ``language``, or in English when it has none."""
        return self.by_language.get(language) or self.by_language["en"]


@dataclass(frozen=True)
class Goal:
    """A predicate on the position after a learner's move (docs/lessons.md lists the types)."""

    type: str
    squares: tuple[int, ...] = ()
    """``reach``: at most one square; ``capture``: the squares of the pieces to capture;
    ``mark``: the marked square."""
    piece: str | None = None
    """``reach``: the FEN letter (its case is the colour) of the piece that must stand there."""
    count: int = 0
    """``capture_count``: enemy pieces to remove in one move."""
    side: bool | None = None
    """``no_move``: the side (True = White) that must be left without a legal move."""
    kind: str = ""
    """``mark``: the annotation kind (``frozen``, ``petrified``, ``shielded``, ...)."""
    goals: tuple[Goal, ...] = ()
    """``all``: every one of these."""


@dataclass(frozen=True)
class Exercise:
    """One position to solve."""

    fen: str
    goal: Goal
    par: int
    """The fewest learner moves that reach the goal (the test checks it is exactly that)."""
    limit: int
    """Learner moves allowed before the attempt fails (at least ``par``)."""
    replies: tuple[str, ...]
    """The opponent's scripted answers: at each turn, the first one that is legal is played."""
    task: Text
    hint: Text
    explanation: Text
    history: tuple[str, ...] = ()
    """Moves already played from ``fen`` before the learner's first move: the game's past, which
    counts for repetition (the learner is the side to move after them)."""


@dataclass(frozen=True)
class Stage:
    """A piece or a rule, taught by a few exercises."""

    id: str
    title: Text
    intro: Text
    exercises: tuple[Exercise, ...]
    rules_section: str | None = None
    """The id of the rules page's heading this stage teaches (for links both ways)."""


@dataclass(frozen=True)
class Practice:
    """A position to win, or to hold, against the engine at a set level."""

    id: str
    fen: str
    level: int
    title: Text
    hint: Text
    goal: str = WIN
    """:data:`WIN` or :data:`HOLD`."""
    moves: int = 1
    """A win: the learner's moves within which the engine's proof wins it (a guide, not a limit);
    a hold: the learner's moves to survive (the game not lost after the engine's answer to the
    last of them)."""
    win_within: int | None = None
    """A win: the learner's moves within which a forced win exists whatever the engine answers,
    and none sooner (proved exhaustively; only for short tactics, at most :data:`MAX_LIMIT`)."""

    def held(self, learner_moves: int, lost: bool) -> bool:
        """Whether a hold is achieved after ``learner_moves`` of the learner's moves (each one
        answered) without the game being ``lost``."""
        return self.goal == HOLD and not lost and learner_moves >= self.moves


@dataclass(frozen=True)
class Course:
    """A game's lessons and practice positions."""

    variant: str
    stages: tuple[Stage, ...]
    practice: tuple[Practice, ...] = field(default=())

    def stage(self, stage_id: str) -> Stage | None:
        """The stage called ``stage_id``, or None."""
        return next((s for s in self.stages if s.id == stage_id), None)

    def position(self, practice_id: str) -> Practice | None:
        """The practice position called ``practice_id``, or None."""
        return next((p for p in self.practice if p.id == practice_id), None)


# --- loading and checking ------------------------------------------------------------------


def course_path(variant: Variant) -> Path:
    """Where ``variant``'s lessons file is (it may not exist)."""
    return Path(inspect.getfile(type(variant))).parent / LESSONS_FILE


@functools.cache
def _load(name: str) -> Course | None:
    variant = resolve_variant(name)
    path = course_path(variant)
    if not path.is_file():
        return None
    return parse_course(variant, json.loads(path.read_text(encoding="utf-8")))


def load_course(variant: str | Variant) -> Course | None:
    """The course of a registered game, checked (None when the game has no lessons file).

    Raises :class:`LessonError` naming the first problem of a malformed file."""
    return _load(resolve_variant(variant).name)


def _need(cond: bool, where: str, problem: str) -> None:
    if not cond:
        raise LessonError(f"{where}: {problem}")


def _text(data: Any, where: str) -> Text:
    _need(isinstance(data, dict), where, "a text is an object of language -> text")
    for lang in LANGUAGES:
        _need(isinstance(data.get(lang), str) and data[lang].strip() != "", where, f"no {lang!r} text")
    return Text({k: v for k, v in data.items() if isinstance(v, str)})


def _square(variant: Variant, text: Any, where: str) -> int:
    _need(isinstance(text, str), where, f"a square is a text, not {text!r}")
    try:
        square = parse_square(text)
    except (ExochessError, ValueError) as exc:
        raise LessonError(f"{where}: {exc}") from exc
    _need(
        square % 16 < variant.width and square // 16 < variant.height,
        where,
        f"{text} is not on the {variant.width}x{variant.height} board",
    )
    return square


def parse_goal(variant: Variant, data: Any, where: str) -> Goal:
    """A goal from its JSON object (see docs/lessons.md)."""
    _need(isinstance(data, dict), where, "a goal is an object")
    kind = data.get("type")
    _need(kind in GOAL_TYPES, where, f"unknown goal type {kind!r} (one of {', '.join(GOAL_TYPES)})")
    if kind == "reach":
        square = data.get("square")
        piece = data.get("piece")
        _need(square is not None or piece is not None, where, "'reach' needs a square, a piece or both")
        _need(
            piece is None or (isinstance(piece, str) and piece.upper() in variant.piece_letters),
            where,
            f"unknown piece {piece!r}",
        )
        squares = (_square(variant, square, where),) if square is not None else ()
        return Goal("reach", squares=squares, piece=piece)
    if kind == "capture":
        squares = data.get("squares")
        _need(isinstance(squares, list) and bool(squares), where, "'capture' needs a list of squares")
        return Goal("capture", squares=tuple(_square(variant, s, where) for s in squares))
    if kind == "capture_count":
        count = data.get("count")
        _need(isinstance(count, int) and count >= 1, where, "'capture_count' needs a count of at least 1")
        return Goal("capture_count", count=count)
    if kind == "no_move":
        side = data.get("side")
        _need(side in ("white", "black"), where, "'no_move' needs a side, white or black")
        return Goal("no_move", side=side == "white")
    if kind == "mark":
        _need(isinstance(data.get("kind"), str), where, "'mark' needs a kind")
        return Goal("mark", kind=data["kind"], squares=(_square(variant, data.get("square"), where),))
    if kind == "all":
        goals = data.get("goals")
        _need(isinstance(goals, list) and bool(goals), where, "'all' needs a list of goals")
        parts = tuple(parse_goal(variant, g, f"{where}.goals[{i}]") for i, g in enumerate(goals))
        return Goal("all", goals=parts)
    return Goal("win")


def _board(variant: Variant, fen: Any, where: str) -> Board:
    _need(isinstance(fen, str), where, "no FEN")
    try:
        return Board(variant, fen=fen)
    except ExochessError as exc:
        raise LessonError(f"{where}: bad FEN: {exc}") from exc


def parse_exercise(variant: Variant, data: Any, where: str) -> Exercise:
    """An exercise from its JSON object; its FEN and scripted replies are checked for syntax."""
    _need(isinstance(data, dict), where, "an exercise is an object")
    _board(variant, data.get("fen"), where)
    par = data.get("par", 1)
    limit = data.get("limit", par)
    _need(isinstance(par, int) and par >= 1, where, "'par' must be a whole number of at least 1")
    _need(
        isinstance(limit, int) and par <= limit <= MAX_LIMIT,
        where,
        f"'limit' must be between 'par' and {MAX_LIMIT}",
    )
    replies = data.get("replies", [])
    _need(
        isinstance(replies, list) and all(isinstance(r, str) for r in replies),
        where,
        "'replies' must be a list of move texts",
    )
    for reply in replies:
        try:
            Move.from_text(reply)
        except ExochessError as exc:
            raise LessonError(f"{where}: reply {reply!r}: {exc}") from exc
    history = data.get("history", [])
    _need(
        isinstance(history, list) and all(isinstance(h, str) for h in history),
        where,
        "'history' must be a list of move texts",
    )
    board = _board(variant, data["fen"], where)
    for text in history:  # a few moves: checking them here names a bad one at load time
        _need(not board.is_game_over(), where, f"'history': the game is over before {text!r}")
        try:
            board.push(board.parse_move(text))
        except ExochessError as exc:
            raise LessonError(f"{where}: 'history' move {text!r}: {exc}") from exc
    _need(not board.is_game_over(), where, "'history': the game is over after it")
    return Exercise(
        fen=data["fen"],
        goal=parse_goal(variant, data.get("goal"), f"{where}.goal"),
        par=par,
        limit=limit,
        replies=tuple(replies),
        task=_text(data.get("task"), f"{where}.task"),
        hint=_text(data.get("hint"), f"{where}.hint"),
        explanation=_text(data.get("explanation"), f"{where}.explanation"),
        history=tuple(history),
    )


def parse_course(variant: Variant, data: Any) -> Course:
    """A course from the JSON of a lessons file (raises :class:`LessonError` on any problem)."""
    top = f"{variant.name} lessons"
    _need(isinstance(data, dict), top, "the file holds one object")
    _need(data.get("format") == FORMAT, top, f"'format' must be {FORMAT}")
    stages_data = data.get("stages")
    _need(isinstance(stages_data, list) and bool(stages_data), top, "no stages")
    stages, seen = [], set()
    for i, s in enumerate(stages_data):
        where = f"{top}: stages[{i}]"
        _need(isinstance(s, dict), where, "a stage is an object")
        sid = s.get("id")
        _need(
            isinstance(sid, str) and sid.replace("-", "").isalnum() and sid.islower(),
            where,
            "'id' must be lower-case letters, digits and dashes",
        )
        _need(sid not in seen, where, f"two stages are called {sid!r}")
        seen.add(sid)
        ex = s.get("exercises")
        _need(
            isinstance(ex, list) and MIN_STAGE_EXERCISES <= len(ex) <= MAX_STAGE_EXERCISES,
            where,
            f"a stage has {MIN_STAGE_EXERCISES} to {MAX_STAGE_EXERCISES} exercises",
        )
        section = s.get("rules_section")
        _need(section is None or isinstance(section, str), where, "'rules_section' must be a text")
        stages.append(
            Stage(
                id=sid,
                title=_text(s.get("title"), f"{where}.title"),
                intro=_text(s.get("intro"), f"{where}.intro"),
                exercises=tuple(
                    parse_exercise(variant, e, f"{where}.exercises[{j}]") for j, e in enumerate(ex)
                ),
                rules_section=section,
            )
        )
    practice, seen = [], set()
    for i, p in enumerate(data.get("practice", [])):
        where = f"{top}: practice[{i}]"
        _need(isinstance(p, dict), where, "a practice position is an object")
        pid = p.get("id")
        _need(
            isinstance(pid, str) and pid.replace("-", "").isalnum() and pid not in seen,
            where,
            "'id' must be a new name of letters, digits and dashes",
        )
        seen.add(pid)
        practice.append(parse_practice(variant, p, where))
    return Course(variant=variant.name, stages=tuple(stages), practice=tuple(practice))


def parse_practice(variant: Variant, p: dict[str, Any], where: str) -> Practice:
    """A practice position from its JSON object (its id already checked)."""
    board = _board(variant, p.get("fen"), where)
    _need(not board.is_game_over(), where, "the game is already over in this position")
    goal = p.get("goal", WIN)
    _need(goal in (WIN, HOLD), where, f"'goal' must be {WIN!r} or {HOLD!r}")
    level = p.get("level")
    _need(
        isinstance(level, int) and not isinstance(level, bool) and 1 <= level <= 8,
        where,
        "'level' must be 1 to 8",
    )
    within = p.get("win_within")
    _need(
        within is None or (goal == WIN and isinstance(within, int) and 1 <= within <= MAX_LIMIT),
        where,
        f"'win_within' must be 1 to {MAX_LIMIT}, and only for a win",
    )
    moves: Any = p.get("moves", within)
    _need(
        isinstance(moves, int) and 1 <= moves <= MAX_PRACTICE_MOVES,
        where,
        f"'moves' must be 1 to {MAX_PRACTICE_MOVES} (needed unless 'win_within' gives it)",
    )
    _need(within is None or moves >= within, where, "'moves' cannot be fewer than 'win_within'")
    return Practice(
        id=p["id"],
        fen=p["fen"],
        level=p["level"],
        title=_text(p.get("title"), f"{where}.title"),
        hint=_text(p.get("hint"), f"{where}.hint"),
        goal=goal,
        moves=moves,
        win_within=within,
    )


# --- judging ---------------------------------------------------------------------------


class Tracker:
    """Follows the pieces of the starting position through the moves, so that a goal can ask
    whether the piece that stood on a square has been captured (wherever it went since)."""

    def __init__(self, board: Board) -> None:
        self.where: dict[int, int] = {sq: sq for sq in board.piece_map()}
        """Square now -> the square the piece stood on at the start."""
        self.removed: set[int] = set()
        """Start squares of the pieces removed so far."""
        self.last_victims = 0
        """Enemy pieces the last move removed."""

    def follow(self, move: Move) -> None:
        """Move the identities as ``move`` moves the pieces."""
        self.last_victims = len(move.victims)
        for a in move.actions:
            for v in a.victims:
                if v in self.where:
                    self.removed.add(self.where.pop(v))
            if a.kind == "@":
                continue
            if a.kind == "*":  # the Swapper goes too
                if a.from_square in self.where:
                    self.removed.add(self.where.pop(a.from_square))
            elif a.kind == "~":
                mine, theirs = self.where.pop(a.from_square, None), self.where.pop(a.to_square, None)
                if mine is not None:
                    self.where[a.to_square] = mine
                if theirs is not None:
                    self.where[a.from_square] = theirs
            elif a.from_square != a.to_square and a.from_square in self.where:
                self.where[a.to_square] = self.where.pop(a.from_square)

    def copy(self) -> Tracker:
        other = Tracker.__new__(Tracker)
        other.where, other.removed = dict(self.where), set(self.removed)
        other.last_victims = self.last_victims
        return other


def reached(goal: Goal, board: Board, tracker: Tracker, learner: bool) -> bool:
    """Whether ``goal`` holds after a learner's move (``learner``: the learner's side, True = White)."""
    if goal.type == "all":
        return all(reached(g, board, tracker, learner) for g in goal.goals)
    if goal.type == "reach":
        squares = goal.squares or tuple(board.piece_map())
        for sq in squares:
            piece = board.piece_at(sq)
            if piece is None:
                continue
            if goal.piece is None:
                if piece.color == learner:
                    return True
            elif piece.symbol() == goal.piece:
                return True
        return False
    if goal.type == "capture":
        return all(sq in tracker.removed for sq in goal.squares)
    if goal.type == "capture_count":
        return tracker.last_victims >= goal.count
    if goal.type == "win":
        outcome = board.outcome()
        return outcome is not None and outcome.winner == learner
    if goal.type == "no_move":
        return board.turn == goal.side and not board.raw_moves()
    if goal.type == "mark":
        return any(m.kind == goal.kind for m in board.annotations().marks_on(goal.squares[0]))
    raise LessonError(f"unknown goal type {goal.type!r}")


def reply(exercise: Exercise, board: Board) -> Move | None:
    """The opponent's answer: the first scripted reply that is legal, else the first legal move
    in the order of their texts (deterministic), or None when there is none."""
    legal = {str(m): m for m in board.legal_moves}
    for text in exercise.replies:
        try:
            move = board.parse_move(text)
        except ExochessError:
            continue
        return move
    return legal[min(legal)] if legal else None


@dataclass
class Attempt:
    """A learner's line in an exercise, as judged so far."""

    board: Board
    status: str
    used: int
    """Learner moves played."""
    line: list[str]
    """Every move of the line, the opponent's replies included."""
    reason: str = ""
    """Why the attempt failed (English; ``too many moves``, ``game over``)."""


def start(variant: str | Variant, exercise: Exercise) -> Board:
    """The position the learner starts from: ``fen`` with the exercise's ``history`` played (so
    the board knows the positions already seen, for the repetition rules)."""
    board = Board(variant, fen=exercise.fen)
    for text in exercise.history:
        board.push(board.parse_move(text))
    return board


def lost(board: Board, learner: bool) -> bool:
    """Whether the game is over and the learner did not win it (a move that loses, by a third
    repetition for instance, never reaches a goal)."""
    outcome = board.outcome()
    return outcome is not None and outcome.winner != learner


def won_by_reply(goal: Goal, board: Board, learner: bool) -> bool:
    """Whether an opponent's reply has just lost the game and the goal is to win: the opponent,
    left with nothing else, made a position for the third time (the learner's win)."""
    return goal.type == "win" and reached(goal, board, Tracker(board), learner)


def _replayed(variant: str | Variant, exercise: Exercise, line: Sequence[str]) -> tuple[Board, Tracker]:
    board = start(variant, exercise)
    tracker = Tracker(board)
    for text in line:
        move = board.parse_move(text)
        board.push(move)
        tracker.follow(move)
    return board, tracker


def play(variant: str | Variant, exercise: Exercise, moves: Sequence[str]) -> Attempt:
    """Judge the learner's ``moves`` (their own moves only: the replies are the exercise's).

    Raises :class:`~exochess.errors.ExochessError` (an illegal or unreadable move) or
    :class:`LessonError` (a move after the attempt ended)."""
    board, tracker = _replayed(variant, exercise, [])
    learner = board.turn
    attempt = Attempt(board=board, status=PLAYING, used=0, line=[])
    for text in moves:
        if attempt.status != PLAYING:
            raise LessonError("the exercise is over: no more moves")
        move = board.parse_move(text)
        board.push(move)
        tracker.follow(move)
        attempt.used += 1
        attempt.line.append(str(move))
        if lost(board, learner):
            attempt.status, attempt.reason = FAILED, "game over"
        elif reached(exercise.goal, board, tracker, learner):
            attempt.status = SOLVED
        elif board.is_game_over():
            attempt.status, attempt.reason = FAILED, "game over"
        else:
            answer = reply(exercise, board)
            if answer is None:  # cannot happen: the game would be over
                attempt.status, attempt.reason = FAILED, "game over"
                continue
            board.push(answer)
            if won_by_reply(exercise.goal, board, learner):  # even after the last allowed move
                tracker.follow(answer)
                attempt.line.append(str(answer))
                attempt.status = SOLVED
            elif attempt.used >= exercise.limit:  # out of moves: the reply is not played
                board.pop()
                attempt.status, attempt.reason = FAILED, "too many moves"
            else:
                tracker.follow(answer)
                attempt.line.append(str(answer))
                if board.is_game_over():
                    attempt.status, attempt.reason = FAILED, "game over"
    return attempt


def _lines(
    exercise: Exercise, board: Board, tracker: Tracker, learner: bool, left: int
) -> Iterator[list[str]]:
    """Every learner line of at most ``left`` moves from here that reaches the goal (depth first)."""
    for move in sorted(board.legal_moves, key=str):
        board.push(move)
        after = tracker.copy()
        after.follow(move)
        if not lost(board, learner) and reached(exercise.goal, board, after, learner):
            board.pop()
            yield [str(move)]
            continue
        # at the last move only a win can still come, from the reply (a third repetition)
        if not board.is_game_over() and (left > 1 or exercise.goal.type == "win"):
            answer = reply(exercise, board)
            if answer is not None:
                board.push(answer)
                after.follow(answer)
                if won_by_reply(exercise.goal, board, learner):
                    board.pop()
                    board.pop()
                    yield [str(move)]
                    continue
                if left > 1 and not board.is_game_over():
                    for rest in _lines(exercise, board, after, learner, left - 1):
                        yield [str(move), *rest]
                board.pop()
        board.pop()


def solve(variant: str | Variant, exercise: Exercise, within: int | None = None) -> list[str] | None:
    """A shortest learner line (their moves only) that reaches the goal within ``within`` moves
    (default: the exercise's limit), or None."""
    board, tracker = _replayed(variant, exercise, [])
    for depth in range(1, (exercise.limit if within is None else within) + 1):
        for line in _lines(exercise, board, tracker, board.turn, depth):
            if len(line) == depth:
                return line
    return None


def solvable_after(variant: str | Variant, exercise: Exercise, moves: Sequence[str]) -> bool:
    """Whether the learner's ``moves`` solve the exercise or still can, in the moves left."""
    attempt = play(variant, exercise, moves)
    if attempt.status != PLAYING:
        return attempt.status == SOLVED
    board, tracker = _replayed(variant, exercise, attempt.line)
    learner = start(variant, exercise).turn
    return next(_lines(exercise, board, tracker, learner, exercise.limit - attempt.used), None) is not None


def stars(par: int, used: int) -> int:
    """Stars for an exercise solved with ``used`` learner moves in all (failed attempts count):
    three at par, one fewer per extra move, at least one."""
    return max(1, min(3, 3 - (used - par)))


def forced_win(board: Board, moves: int) -> str | None:
    """A first move with which the side to move wins by force within ``moves`` of its own moves,
    whatever the opponent answers (AND-OR search; for checking small practice positions)."""
    side = board.turn
    for move in sorted(board.legal_moves, key=str):
        board.push(move)
        try:
            outcome = board.outcome()
            if outcome is not None:
                if outcome.winner == side:
                    return str(move)
                continue
            answers = list(board.legal_moves)
            if moves > 1 and all(_wins_after(board, answer, side, moves - 1) for answer in answers):
                return str(move)
        finally:
            board.pop()
    return None


def _wins_after(board: Board, answer: Move, side: bool, moves: int) -> bool:
    board.push(answer)
    try:
        outcome = board.outcome()
        if outcome is not None:
            return outcome.winner == side
        return forced_win(board, moves) is not None
    finally:
        board.pop()
