"""Every game's lessons file, checked by the rules library (generic over the registry).

For each exercise: the goal is reached by some line of the learner's moves within the allowed
number (found by search, not read from the file), no shorter line reaches it (so ``par`` is
right), and some first move makes it unreachable (a wrong move fails the attempt).  Each
practice position is proved by playing it out with the engine (:mod:`exochess_lab.practice`:
a win is won by the engine at a deep budget against the position's level, a hold is survived by
it and lost by a random holder); a short tactic with ``win_within`` is also a forced win in
exactly that many moves, proved exhaustively.  The proofs use the tests' node budget
(``CI_BUDGET``); ``bench/practice_proof.py`` repeats them at a deeper one.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from exochess import Board
from exochess.compiled import COMPILED
from exochess.lessons import (
    FAILED,
    HOLD,
    LANGUAGES,
    SOLVED,
    WIN,
    Course,
    Exercise,
    LessonError,
    Practice,
    course_path,
    forced_win,
    load_course,
    parse_course,
    play,
    solvable_after,
    solve,
    start,
)
from exochess.variants import find_variant
from exochess_lab.practice import CI_BUDGET, prove
from tests.helpers import game_names

COURSES = [(name, load_course(name)) for name in game_names() if course_path(find_variant(name)).is_file()]
"""Every game under test that has a lessons file (a game may have none: it then has no course)."""
EXERCISES = [
    pytest.param(name, exercise, id=f"{name}-{stage.id}-{i + 1}")
    for name, course in COURSES
    if course is not None
    for stage in course.stages
    for i, exercise in enumerate(stage.exercises)
]
PRACTICE = [
    pytest.param(name, p, id=f"{name}-{p.id}")
    for name, course in COURSES
    if course is not None
    for p in course.practice
]


@pytest.mark.generic
def test_courses_are_found_beside_the_games() -> None:
    for name, course in COURSES:
        assert course is not None and course.variant == name


@pytest.mark.generic
@pytest.mark.parametrize(("game", "exercise"), EXERCISES)
def test_exercise_is_solved_by_the_library_and_failed_by_a_wrong_move(game: str, exercise: Exercise) -> None:
    line = solve(game, exercise)
    assert line is not None, "no line of the learner's moves reaches the goal"
    assert len(line) == exercise.par, f"the shortest solution takes {len(line)} moves, not {exercise.par}"
    attempt = play(game, exercise, line)
    assert attempt.status == SOLVED and attempt.used == exercise.par
    board = start(game, exercise)
    wrong = next(
        (str(m) for m in sorted(board.legal_moves, key=str) if not solvable_after(game, exercise, [str(m)])),
        None,
    )
    assert wrong is not None, "every first move can still reach the goal: nothing to get wrong"
    # played out with the scripted replies, a wrong start never solves the exercise
    moves = [wrong]
    while (attempt := play(game, exercise, moves)).status == "playing":
        moves.append(str(min(attempt.board.legal_moves, key=str)))
    assert attempt.status == FAILED


@pytest.mark.generic
@pytest.mark.parametrize(("game", "position"), PRACTICE)
def test_practice_position_is_proved_by_the_engine(game: str, position: Practice) -> None:
    if position.win_within is not None:
        board = Board(game, fen=position.fen)
        assert forced_win(board, position.win_within) is not None
        if position.win_within > 1:
            assert forced_win(board, position.win_within - 1) is None
    # the pure-Python build plays the first noise seed only (a subset of the same games)
    proof = prove(game, position, CI_BUDGET, quick=not COMPILED)
    assert proof.ok, proof.reason
    if position.goal == WIN:  # the win comes within the stated moves (play_out stops there)
        assert all(g.learner_moves <= position.moves for g in proof.games)


@pytest.mark.generic
@pytest.mark.parametrize(("game", "course"), COURSES, ids=[name for name, _ in COURSES])
def test_each_game_has_endgames_tactics_and_holds_to_practise(game: str, course: Course | None) -> None:
    """Issue 43: at least 12 positions, 2 of them holds, and wins that take several moves."""
    assert course is not None
    holds = [p for p in course.practice if p.goal == HOLD]
    long_wins = [p for p in course.practice if p.goal == WIN and p.moves >= 3]
    assert len(course.practice) >= 12
    assert len(holds) >= 2
    assert len(long_wins) >= 3
    for p in course.practice:
        for text in (p.title, p.hint):
            assert set(LANGUAGES) <= set(text.by_language)


def test_a_hold_is_held_after_its_moves_unless_lost() -> None:
    course = load_course("fugue")
    assert course is not None
    hold = next(p for p in course.practice if p.goal == HOLD)
    win = next(p for p in course.practice if p.goal == WIN)
    assert hold.held(hold.moves, lost=False)
    assert not hold.held(hold.moves - 1, lost=False)
    assert not hold.held(hold.moves, lost=True)
    assert not win.held(99, lost=False)


@pytest.mark.generic
def test_texts_exist_in_every_language() -> None:
    for _, course in COURSES:
        assert course is not None
        for stage in course.stages:
            for text in (stage.title, stage.intro):
                assert set(LANGUAGES) <= set(text.by_language)


def test_malformed_files_are_refused_with_the_problem_named() -> None:
    variant = find_variant("fugue")
    good = json.loads(course_path(variant).read_text(encoding="utf-8"))
    cases = {
        "format": ({**good, "format": 99}, "'format' must be 1"),
        "no stages": ({**good, "stages": []}, "no stages"),
        "bad FEN": (_with_exercise(good, fen="8/8 w"), "bad FEN"),
        "unknown goal": (_with_exercise(good, goal={"type": "checkmate"}), "unknown goal type"),
        "bad square": (_with_exercise(good, goal={"type": "capture", "squares": ["z9"]}), "not a square"),
        "off board": (_with_exercise(good, goal={"type": "capture", "squares": ["i9"]}), "not on the 8x8"),
        "missing French": (_with_exercise(good, hint={"en": "x", "es": "y"}), "no 'fr' text"),
        "limit": (_with_exercise(good, par=2, limit=1), "'limit' must be between"),
        "goal": (_with_practice(good, goal="draw"), "'goal' must be 'win' or 'hold'"),
        "hold without moves": (_with_practice(good, goal="hold", win_within=None), "'moves' must be"),
        "hold with win_within": (_with_practice(good, goal="hold", moves=5), "only for a win"),
        "moves": (_with_practice(good, moves=0), "'moves' must be 1 to"),
        "level": (_with_practice(good, level=9), "'level' must be 1 to 8"),
        "game over": (_with_practice(good, fen="8/8/8/8/8/8/1i6/K7 w"), "already over"),
    }
    for name, (data, message) in cases.items():
        with pytest.raises(LessonError, match=message):
            parse_course(variant, data)
        assert name


def _with_exercise(data: dict[str, object], **change: object) -> dict[str, object]:
    copy = json.loads(json.dumps(data))
    copy["stages"][0]["exercises"][0].update(change)
    return copy  # type: ignore[no-any-return]


def _with_practice(data: dict[str, object], **change: object) -> dict[str, object]:
    copy = json.loads(json.dumps(data))
    position = copy["practice"][0]
    position.update(change)
    for key in [k for k, v in position.items() if v is None]:
        del position[key]
    return copy  # type: ignore[no-any-return]


def test_a_move_after_the_end_and_an_illegal_move_are_refused() -> None:
    course = load_course("fugue")
    assert course is not None
    exercise = course.stages[0].exercises[0]
    line = solve("fugue", exercise)
    assert line
    with pytest.raises(LessonError, match="over"):
        play("fugue", exercise, [*line, "h8-g8"])
    from exochess.errors import ExochessError

    with pytest.raises(ExochessError):
        play("fugue", exercise, ["a1-a9"])


def test_lessons_files_ship_with_the_package() -> None:
    pyproject = (Path(__file__).parents[2] / "pyproject.toml").read_text(encoding="utf-8")
    assert '"variants/*/lessons.json"' in pyproject


def _stage_exercises(game: str, stage_id: str) -> tuple[Exercise, ...]:
    course = load_course(game)
    assert course is not None
    stage = course.stage(stage_id)
    assert stage is not None
    return stage.exercises


def test_an_exercise_starts_after_its_history_which_counts_for_repetition() -> None:
    exercise = _stage_exercises("fugue", "third-repetition")[0]
    board = start("fugue", exercise)
    assert len(exercise.history) == 6 and board.ply() == 6
    # the learner's return makes a position the second time; Black's only answer makes the
    # game's first position the third time: Black loses, which is the learner's win
    attempt = play("fugue", exercise, ["g1-h1"])
    assert attempt.status == SOLVED and attempt.line == ["g1-h1", "b8-a8"]
    assert attempt.board.outcome() is not None and attempt.board.outcome().winner is True  # type: ignore[union-attr]


def test_a_move_that_loses_by_repetition_never_reaches_a_goal() -> None:
    exercise = _stage_exercises("fugue", "third-repetition")[2]
    assert exercise.goal.type == "reach"
    # straight back to h1: the King stands on the goal square, but the move made the game's
    # first position a third time, so the learner lost
    attempt = play("fugue", exercise, ["g1-h1"])
    assert attempt.status == FAILED and attempt.reason == "game over"
    assert play("fugue", exercise, ["g1-h2", "h2-h1"]).status == SOLVED


def test_a_win_by_the_reply_counts_after_the_last_allowed_move() -> None:
    # Interweave: the Smasher's return is the only move allowed, and Black's forced King step
    # is the third occurrence of the first position
    exercise = _stage_exercises("interweave", "end")[2]
    assert exercise.limit == 1
    assert play("interweave", exercise, ["b2-a1"]).status == SOLVED
    wrong = play("interweave", exercise, ["b2-c3"])
    assert wrong.status == FAILED and wrong.reason == "too many moves"
    assert wrong.line == ["b2-c3"]  # out of moves: the reply is not played


def test_a_bad_history_is_refused_with_the_move_named() -> None:
    variant = find_variant("fugue")
    good = json.loads(course_path(variant).read_text(encoding="utf-8"))
    with pytest.raises(LessonError, match="'history' move 'a1-a9'"):
        parse_course(variant, _with_exercise(good, history=["a1-a9"]))
    with pytest.raises(LessonError, match="'history' must be a list"):
        parse_course(variant, _with_exercise(good, history="d4-d5"))
