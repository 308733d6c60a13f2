"""Lessons and practice: the pages ``/learn``, ``/learn/<game>``, ``/learn/<game>/<stage>`` and
``/practice/<game>``, and the JSON API under ``/api/learn`` that judges a learner's moves and
keeps a signed-in player's stars.

The courses are the games' own data files (:mod:`exochess.lessons`, docs/lessons.md): nothing
here knows a game by name.  A practice position is played on the ordinary game page, against
the computer, from the position's FEN (``POST /api/games``).
"""

from __future__ import annotations

from typing import Annotated, Any

from anyio import to_thread
from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field, StrictInt, StrictStr

from exochess import Board
from exochess.lessons import Course, Stage
from exochess.variants import all_variants, find_variant
from exochess.web.accounts.progress import Progress, progress_of, record_stars
from exochess.web.accounts.sessions import current_user
from exochess.web.domain import N_, LessonNotFound
from exochess.web.game.lessonplay import MAX_LESSON_MOVES, course_of, lesson_answer
from exochess.web.game.newgames import MAX_LEVEL
from exochess.web.game.positions import color_name, variant_json
from exochess.web.http.deps import Service
from exochess.web.http.i18n import request_language
from exochess.web.http.templating import render, translated_variant
from exochess.web.routes.pages import tr

router = APIRouter()
MAX_PREFIX = 16


class LessonMoves(BaseModel):
    """``POST /api/learn/<game>/<stage>/<n>``: the learner's own moves in the exercise so far."""

    moves: Annotated[list[StrictStr], Field(max_length=MAX_LESSON_MOVES)] = Field(default_factory=list)
    prefix: list[StrictStr] = Field(default_factory=list)
    """First actions of a move already entered (an Interweave chain): ``legal`` is the tree after them."""
    spent: Annotated[StrictInt, Field(ge=0, le=1000)] = 0
    """Learner moves of the earlier failed attempts at this exercise (they cost stars)."""


class StageStars(BaseModel):
    """``POST /api/learn/progress``: a completed stage and its stars."""

    variant: StrictStr
    stage: StrictStr
    stars: Annotated[StrictInt, Field(ge=1, le=3)]


def _stage_summary(stage: Stage, lang: str) -> dict[str, Any]:
    return {
        "id": stage.id,
        "title": stage.title.get(lang),
        "intro": stage.intro.get(lang),
        "exercises": len(stage.exercises),
        "rules_section": stage.rules_section,
    }


def courses(lang: str) -> list[dict[str, Any]]:
    """Every game that has a course, in menu order: its stages and practice count."""
    out = []
    for v in all_variants():
        try:
            course = course_of(v.name)
        except LessonNotFound:  # a game without lessons is simply not listed
            continue
        out.append(
            {
                "name": v.name,
                "title": v.title,
                "stages": [_stage_summary(s, lang) for s in course.stages],
                "practice": len(course.practice),
            }
        )
    return out


def _game_context(request: Request, game: str) -> tuple[Course, dict[str, Any], str]:
    course = course_of(game)
    lang = request_language(request)
    return course, translated_variant(variant_json(find_variant(game)), lang), lang


@router.get("/learn", response_class=HTMLResponse)
async def learn_index(request: Request) -> HTMLResponse:
    lang = request_language(request)
    return render(request, "learn_index.html", title=tr(request, "Learn to play"), courses=courses(lang))


@router.get("/learn/{game}", response_class=HTMLResponse)
async def learn_game(request: Request, game: str) -> HTMLResponse:
    course, variant, lang = _game_context(request, game)
    stages = [_stage_summary(s, lang) for s in course.stages]
    title = tr(request, "Learn %(game)s") % {"game": variant["title"]}
    return render(
        request, "learn_game.html", title=title, variant=variant, stages=stages, practice=len(course.practice)
    )


@router.get("/learn/{game}/{stage_id}", response_class=HTMLResponse)
async def learn_stage(request: Request, game: str, stage_id: str) -> HTMLResponse:
    course, variant, lang = _game_context(request, game)
    stage = course.stage(stage_id)
    if stage is None:
        raise LessonNotFound(N_("There is no such lesson."))
    index = course.stages.index(stage)
    following = course.stages[index + 1].id if index + 1 < len(course.stages) else None
    data = {
        "variant": course.variant,
        "stage": stage.id,
        "title": stage.title.get(lang),
        "next": following,
        "number": index + 1,
        "count": len(course.stages),
        "exercises": [
            {
                "fen": e.fen,
                "task": e.task.get(lang),
                "hint": e.hint.get(lang),
                "explanation": e.explanation.get(lang),
                "par": e.par,
                "limit": e.limit,
                "history": list(e.history),
            }
            for e in stage.exercises
        ],
    }
    return render(
        request,
        "learn_stage.html",
        title=f"{stage.title.get(lang)} · {variant['title']}",
        variant=variant,
        stage=_stage_summary(stage, lang),
        lesson=data,
        number=index + 1,
        count=len(course.stages),
    )


@router.get("/practice/{game}", response_class=HTMLResponse)
async def practice(request: Request, game: str) -> HTMLResponse:
    course, variant, lang = _game_context(request, game)
    positions = [
        {
            "id": p.id,
            "fen": p.fen,
            "level": min(p.level, MAX_LEVEL),
            "title": p.title.get(lang),
            "hint": p.hint.get(lang),
            "color": color_name(Board(game, fen=p.fen).turn),
            "goal": p.goal,
            "moves": p.moves,
        }
        for p in course.practice
    ]
    title = tr(request, "Practice %(game)s") % {"game": variant["title"]}
    return render(
        request,
        "practice.html",
        title=title,
        variant=variant,
        positions=positions,
        page={"variant": course.variant, "positions": positions},
    )


@router.post("/api/learn/{game}/{stage_id}/{number}")
async def lesson_move(game: str, stage_id: str, number: int, body: LessonMoves, service: Service) -> Response:
    """The exercise after the learner's moves: verdict, stars and the position (see lessonplay)."""
    text = await service.cpu_free.run(
        "judging the exercise",
        lesson_answer,
        game,
        stage_id,
        number,
        body.moves,
        body.prefix[:MAX_PREFIX],
        body.spent,
    )
    return Response(text, media_type="application/json")


@router.get("/api/learn/progress")
async def get_progress(request: Request, service: Service) -> dict[str, Any]:
    """The signed-in player's stars per game and stage (a guest's live in their browser)."""
    user = current_user(request)
    if user is None:
        return {"signed_in": False, "progress": {}}
    progress: Progress = await to_thread.run_sync(progress_of, service.storage.engine, user.id)
    return {"signed_in": True, "progress": progress}


@router.post("/api/learn/progress")
async def save_progress(body: StageStars, request: Request, service: Service) -> dict[str, Any]:
    """Keep a completed stage's stars in the signed-in player's account (the best score stays)."""
    course = course_of(body.variant)
    if course.stage(body.stage) is None:
        raise LessonNotFound(N_("There is no such lesson."))
    user = current_user(request)
    if user is None:
        return {"saved": False, "stars": body.stars}
    best = await to_thread.run_sync(
        record_stars, service.storage.engine, user.id, course.variant, body.stage, body.stars
    )
    return {"saved": True, "stars": best}
