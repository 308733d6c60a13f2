"""Puzzles: the pages ``/puzzles``, ``/puzzles/<game>`` (``?theme=``), ``/puzzles/<game>/streak``,
``/puzzles/<game>/daily`` and ``/puzzles/<game>/<id>``, and the JSON API under ``/api/puzzles``
that serves puzzles, judges the solver's moves and keeps the ratings (docs/web.md, *Puzzles*).

The collections are the games' own files (:mod:`exochess.puzzles`); the work is
:class:`~exochess.web.puzzles.service.PuzzleService`'s.  A guest's puzzle rating lives in the
browser: the requests carry it (``rating`` to be served near it, ``guest`` to have it updated).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, cast

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field, StrictFloat, StrictInt, StrictStr
from starlette.requests import HTTPConnection

from exochess.puzzles import THEMES
from exochess.variants import find_variant
from exochess.web.accounts.ratings import MIN_RD, START_RD, Rating
from exochess.web.accounts.sessions import current_user
from exochess.web.domain import N_, InvalidRequest
from exochess.web.game.positions import variant_json
from exochess.web.http.disconnect import client_address
from exochess.web.http.i18n import request_language, translations
from exochess.web.http.templating import render, translated_variant
from exochess.web.puzzles import catalogue
from exochess.web.puzzles.judge import MAX_ATTEMPT_MOVES
from exochess.web.puzzles.service import PuzzleService
from exochess.web.routes.api import request_owner
from exochess.web.routes.pages import tr

router = APIRouter()
MAX_PREFIX = 16
"""Actions of a chain an attempt may name (an Interweave chain is far shorter)."""
MAX_EXCLUDED = 200
"""Puzzle ids a guest's request may ask not to be served (its latest plays)."""
MAX_ID = 64


async def get_puzzles(conn: HTTPConnection) -> PuzzleService:
    """The running puzzle service (made by the app's lifespan)."""
    return cast(PuzzleService, conn.app.state.puzzles)


Puzzles = Annotated[PuzzleService, Depends(get_puzzles)]


class GuestRating(BaseModel):
    """A guest's puzzle rating in one game, as the browser keeps it."""

    rating: Annotated[StrictFloat | StrictInt, Field(ge=0, le=4000)]
    rd: Annotated[StrictFloat | StrictInt, Field(ge=MIN_RD, le=START_RD)] = START_RD
    volatility: Annotated[StrictFloat | StrictInt, Field(gt=0, le=1)] = 0.06

    def as_rating(self) -> Rating:
        return Rating(float(self.rating), float(self.rd), float(self.volatility))


class Attempt(BaseModel):
    """``POST /api/puzzles/<game>/<id>/attempt`` (and ``.../solution``): the solver's own moves so far."""

    moves: Annotated[list[StrictStr], Field(max_length=MAX_ATTEMPT_MOVES)] = Field(default_factory=list)
    prefix: Annotated[list[StrictStr], Field(max_length=MAX_PREFIX)] = Field(default_factory=list)
    """First actions of a move already entered (an Interweave chain): ``legal`` is the tree after them."""
    mode: Literal["rated", "streak"] = "rated"
    """``streak``: a puzzle of a streak (never rated; a solved one may raise the best streak)."""
    streak: Annotated[StrictInt, Field(ge=0, le=catalogue.MAX_STREAK)] = 0
    """In a streak, the puzzles solved before this one."""
    guest: GuestRating | None = None
    """A guest's rating in this game: the reply gives it updated when the attempt ends."""


class RatingView(BaseModel):
    rating: int
    rd: float
    volatility: float
    provisional: bool
    before: int | None = None
    diff: int | None = None


class PuzzleView(BaseModel):
    """A puzzle as a client gets it: everything but its solution."""

    id: str
    variant: str
    fen: str
    rating: int
    """Its rating on the site now."""
    themes: list[str]
    moves: int
    """How many moves the solver plays."""
    color: Literal["white", "black"]
    """The solver's side (to move)."""
    position: dict[str, Any]
    """The position with its legal moves (the analysis board's shape, docs/web.md)."""
    target: int | None = None
    """The rating it was chosen near (``next``)."""
    day: str | None = None
    """The UTC day of a daily puzzle."""


class AttemptReply(BaseModel):
    status: Literal["playing", "solved", "failed"]
    alternative: bool
    """Solved by a move other than the solution's (it wins as clearly)."""
    line: list[str]
    """The moves played from the puzzle's position, the opponent's replies included."""
    position: dict[str, Any]
    rated: bool | None = None
    """Once over: whether it moved the ratings (an account's first play of the puzzle, a
    guest's rated attempt)."""
    rating: RatingView | None = None
    puzzle_rating: int | None = None
    best_streak: int | None = None


class SolutionReply(BaseModel):
    solution: list[str]
    position: dict[str, Any]
    """The whole solution played: its FENs and moves."""
    recorded: bool
    """Asked before the attempt was over: it counted as failed."""
    rated: bool | None = None
    rating: RatingView | None = None
    puzzle_rating: int | None = None
    best_streak: int | None = None


def _themes(lang: str) -> dict[str, str]:
    gettext = translations(lang).gettext
    return {name: gettext(catalogue.theme_name(name)) for name in THEMES}


def _theme(theme: str | None) -> str | None:
    if theme is None or theme == "":
        return None
    if theme not in THEMES:
        raise InvalidRequest(N_("unknown theme {theme}"), theme=repr(theme[:40]))
    return theme


def _excluded(exclude: str) -> set[str]:
    ids = [i for i in exclude.split(",") if i][:MAX_EXCLUDED]
    return {i for i in ids if len(i) <= MAX_ID}


def _uid(request: Request) -> int | None:
    user = current_user(request)
    return user.id if user is not None else None


# --- pages -------------------------------------------------------------------------------------


def _index_games(lang: str) -> list[dict[str, Any]]:
    day = catalogue.today()
    out = []
    for name in catalogue.games_with_puzzles():
        _n, puzzles = catalogue.collection(name)
        out.append(
            {
                "variant": translated_variant(variant_json(find_variant(name)), lang),
                "count": len(puzzles),
                "themes": catalogue.theme_counts(puzzles),
                "daily": catalogue.daily(puzzles, name, day),
            }
        )
    return out


@router.get("/puzzles", response_class=HTMLResponse)
async def puzzles_index(request: Request) -> HTMLResponse:
    lang = request_language(request)
    return render(
        request,
        "puzzles_index.html",
        title=tr(request, "Puzzles"),
        games=_index_games(lang),
        themes=_themes(lang),
    )


def _play_page(request: Request, game: str, mode: str, **extra: Any) -> HTMLResponse:
    name, puzzles = catalogue.collection(game)
    lang = request_language(request)
    variant = translated_variant(variant_json(find_variant(name)), lang)
    themes = _themes(lang)
    data = {
        "variant": name,
        "mode": mode,
        "themes": themes,
        "signed_in": current_user(request) is not None,
        **extra,
    }
    titles = {
        "streak": tr(request, "Puzzle streak: %(game)s"),
        "daily": tr(request, "Daily puzzle: %(game)s"),
    }
    title = titles.get(mode, tr(request, "%(game)s puzzles")) % {"game": variant["title"]}
    return render(
        request,
        "puzzle.html",
        title=title,
        heading=title,
        variant=variant,
        mode=mode,
        puzzle_page=data,
        counts=catalogue.theme_counts(puzzles),
        themes=themes,
        theme=extra.get("theme"),
    )


@router.get("/puzzles/{game}", response_class=HTMLResponse)
async def puzzles_page(request: Request, game: str, theme: str | None = None) -> HTMLResponse:
    return _play_page(request, game, "rated", theme=_theme(theme))


@router.get("/puzzles/{game}/streak", response_class=HTMLResponse)
async def streak_page(request: Request, game: str) -> HTMLResponse:
    return _play_page(request, game, "streak")


@router.get("/puzzles/{game}/daily", response_class=HTMLResponse)
async def daily_page(request: Request, game: str) -> HTMLResponse:
    return _play_page(request, game, "daily")


@router.get("/puzzles/{game}/{puzzle_id}", response_class=HTMLResponse)
async def puzzle_page(request: Request, game: str, puzzle_id: str) -> HTMLResponse:
    catalogue.find(game, puzzle_id)  # an unknown id: the 404 page
    return _play_page(request, game, "one", puzzle=puzzle_id)


# --- API ---------------------------------------------------------------------------------------


@router.get("/api/puzzles")
async def puzzles_api(request: Request) -> dict[str, Any]:
    """Every game with puzzles: how many, by theme, and today's puzzle; the themes' names."""
    lang = request_language(request)
    games = [
        {"variant": g["variant"]["name"], "count": g["count"], "themes": g["themes"], "daily": g["daily"].id}
        for g in _index_games(lang)
    ]
    return {"games": games, "themes": _themes(lang)}


@router.get("/api/puzzles/player")
async def player_api(request: Request, puzzles: Puzzles) -> dict[str, Any]:
    """The signed-in player's puzzle rating and best streak in each game (a guest's live in the browser)."""
    user_id = _uid(request)
    if user_id is None:
        return {"signed_in": False, "games": {}}
    games = {name: await puzzles.player(user_id, name) for name in catalogue.games_with_puzzles()}
    return {"signed_in": True, "games": games}


@router.get("/api/puzzles/{game}/next")
async def next_puzzle(
    request: Request,
    game: str,
    puzzles: Puzzles,
    theme: str | None = None,
    exclude: Annotated[str, Query(max_length=MAX_EXCLUDED * (MAX_ID + 1))] = "",
    rating: Annotated[float | None, Query(ge=0, le=4000)] = None,
    streak: Annotated[int | None, Query(ge=0, le=catalogue.MAX_STREAK)] = None,
) -> PuzzleView:
    """A puzzle near the player's puzzle rating (an account's, else ``rating``, the guest's),
    with ``theme``, not among ``exclude`` (comma-separated ids) nor an account's latest plays;
    with ``streak`` (puzzles solved so far in a streak), near that step of the streak's ladder."""
    guest = Rating(rating) if rating is not None else None
    reply = await puzzles.next(game, _uid(request), guest, _excluded(exclude), _theme(theme), streak)
    return PuzzleView(**reply)


@router.get("/api/puzzles/{game}/daily")
async def daily_puzzle(game: str, puzzles: Puzzles) -> PuzzleView:
    """Today's puzzle (UTC): the same for everyone all day."""
    return PuzzleView(**await puzzles.daily(game))


@router.get("/api/puzzles/{game}/{puzzle_id}")
async def one_puzzle(game: str, puzzle_id: str, puzzles: Puzzles) -> PuzzleView:
    return PuzzleView(**await puzzles.one(game, puzzle_id))


@router.post("/api/puzzles/{game}/{puzzle_id}/attempt")
async def attempt(
    game: str, puzzle_id: str, body: Attempt, request: Request, puzzles: Puzzles
) -> AttemptReply:
    """The attempt after the solver's ``moves``: ``playing`` (the opponent's reply is in
    ``line`` and ``position``), ``solved`` or ``failed``; once over, the ratings it moved."""
    reply = await puzzles.attempt(
        game,
        puzzle_id,
        body.moves,
        body.prefix,
        mode=body.mode,
        streak=body.streak,
        user_id=_uid(request),
        guest=body.guest.as_rating() if body.guest is not None else None,
        client=client_address(request),
        owner=request_owner(request),
    )
    return AttemptReply(**reply)


@router.post("/api/puzzles/{game}/{puzzle_id}/solution")
async def solution(
    game: str, puzzle_id: str, body: Attempt, request: Request, puzzles: Puzzles
) -> SolutionReply:
    """The solution line; asked while the attempt (``moves``) is not over, it counts as failed."""
    reply = await puzzles.solution(
        game,
        puzzle_id,
        body.moves,
        mode=body.mode,
        streak=body.streak,
        user_id=_uid(request),
        guest=body.guest.as_rating() if body.guest is not None else None,
    )
    return SolutionReply(**reply)
