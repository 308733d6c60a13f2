"""A lesson's exercise on the site: the learner's moves judged by :mod:`exochess.lessons`, with
the position to show (the same shape as the analysis board's) and the verdict.

CPU work (it lists legal moves): the routes run it in a worker, like the analysis board.
"""

from __future__ import annotations

import json
from typing import Any

from exochess.errors import ExochessError, UnknownVariantError
from exochess.lessons import PLAYING, Course, Exercise, LessonError, Practice, load_course, play, stars
from exochess.variants import find_variant
from exochess.web.domain import N_, IllegalMove, InvalidRequest, LessonNotFound
from exochess.web.game.analysis import tree_after
from exochess.web.game.positions import position_json

MAX_LESSON_MOVES = 8
"""Learner moves a request may carry (an exercise allows at most 4)."""


def course_of(game: str) -> Course:
    """The course of ``game``; :class:`LessonNotFound` when it has none."""
    try:
        course = load_course(find_variant(game))
    except UnknownVariantError as exc:
        raise LessonNotFound(N_("There is no game of that name.")) from exc
    if course is None:
        raise LessonNotFound(N_("This game has no lessons yet."))
    return course


def exercise_of(game: str, stage_id: str, number: int) -> Exercise:
    """Exercise ``number`` (from 1) of a stage; :class:`LessonNotFound` when there is none."""
    stage = course_of(game).stage(stage_id)
    if stage is None or not 1 <= number <= len(stage.exercises):
        raise LessonNotFound(N_("There is no such lesson."))
    return stage.exercises[number - 1]


def practice_of(game: str, practice_id: str) -> Practice:
    """A practice position; :class:`LessonNotFound` when there is none of that name."""
    position = course_of(game).position(practice_id)
    if position is None:
        raise LessonNotFound(N_("There is no such practice position."))
    return position


def lesson_answer(
    game: str, stage_id: str, number: int, moves: list[str], prefix: list[str], spent: int
) -> str:
    """The exercise after the learner's ``moves`` as JSON text: ``status`` (playing, solved or
    failed), ``used``, ``par``, ``limit``, the ``stars`` earned when solved (``spent``: learner
    moves of earlier failed attempts), and ``position`` (see :func:`position_json`), whose legal
    moves are those after the actions ``prefix``, and none once the attempt is over."""
    if len(moves) > MAX_LESSON_MOVES:
        raise InvalidRequest(N_("at most {count} moves"), count=MAX_LESSON_MOVES)
    exercise = exercise_of(game, stage_id, number)
    try:
        attempt = play(game, exercise, moves)
    except LessonError as exc:
        raise InvalidRequest(N_("the exercise is over: no more moves")) from exc
    except ExochessError as exc:
        raise IllegalMove(
            N_("move {number} ({move}): {reason}"), number=len(moves), move=moves[-1], reason=str(exc)
        ) from exc
    board = attempt.board
    if attempt.status == PLAYING and prefix:
        tree_after(board, prefix)  # checks the prefix: a clear error for a wrong one
    position: dict[str, Any] = position_json(board, prefix if attempt.status == PLAYING else ())
    if attempt.status != PLAYING:
        position["legal"], position["legal_count"] = [], 0
    reply: dict[str, Any] = {
        "status": attempt.status,
        "reason": attempt.reason,
        "used": attempt.used,
        "par": exercise.par,
        "limit": exercise.limit,
        "line": attempt.line,
        "stars": stars(exercise.par, attempt.used + max(0, spent)) if attempt.status == "solved" else 0,
        "position": position,
    }
    return json.dumps(reply)
