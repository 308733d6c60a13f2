"""Accounts over HTTP: sign up, log in and out, change password, delete; profiles and leaderboards
(JSON under ``/api``, pages at ``/signup``, ``/login``, ``/account``, ``/@/<name>``, ``/leaderboard``).

Passwords travel only in JSON bodies (never in a URL, so never in an access log) and are never
logged; the session token travels only in its cookie.  Argon2 hashing runs in a worker thread.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Annotated, Any, TypeVar, cast

from anyio import CapacityLimiter, to_thread
from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from pydantic import BaseModel, Field, StrictStr
from starlette.requests import HTTPConnection

from exochess.board import Board
from exochess.variants import all_variants, find_variant
from exochess.web.accounts.bots import is_bot
from exochess.web.accounts.ratings import BOT_TITLE, DELETED_NAME, history_chart, leaderboard, user_ratings
from exochess.web.accounts.sessions import (
    COOKIE,
    Sessions,
    clear_session_cookie,
    cookie_token,
    current_user,
    set_session_cookie,
)
from exochess.web.accounts.users import MAX_NAME, MAX_PASSWORD, Accounts, BadCredentials, User
from exochess.web.domain import N_, Color, PlayerKind, PlayerNotFound
from exochess.web.game.pgnexport import game_pgn
from exochess.web.http.bearer import Actor, actor_with
from exochess.web.http.deps import Service
from exochess.web.http.disconnect import client_address
from exochess.web.http.loginguard import LoginGuard
from exochess.web.http.templating import render
from exochess.web.puzzles.records import puzzle_history, user_puzzles
from exochess.web.routes.pages import tr
from exochess.web.storage.store import GameRow

router = APIRouter()
T = TypeVar("T")

PASSWORD_WORKERS = 2
"""Password hashes computed at once: each argon2id hash takes 64 MiB and tens of milliseconds of
a core, so a flood of logins must queue rather than take the server's memory."""
MAX_CLAIMS = 200
RECENT_GAMES = 20
PGN_BATCH = 50


async def get_accounts(conn: HTTPConnection) -> Accounts:
    return cast(Accounts, conn.app.state.accounts)


async def get_sessions(conn: HTTPConnection) -> Sessions:
    return cast(Sessions, conn.app.state.sessions)


async def get_guard(conn: HTTPConnection) -> LoginGuard:
    return cast(LoginGuard, conn.app.state.login_guard)


async def get_password_work(conn: HTTPConnection) -> CapacityLimiter:
    """The app's limiter of password hashing threads (made on first use, in the app's loop)."""
    state = conn.app.state
    if getattr(state, "password_work", None) is None:
        state.password_work = CapacityLimiter(PASSWORD_WORKERS)
    return cast(CapacityLimiter, state.password_work)


AccountsDep = Annotated[Accounts, Depends(get_accounts)]
PasswordWork = Annotated[CapacityLimiter, Depends(get_password_work)]
SessionsDep = Annotated[Sessions, Depends(get_sessions)]
GuardDep = Annotated[LoginGuard, Depends(get_guard)]


async def signed_in(request: Request) -> User:
    """The signed-in account, or a 401."""
    user = current_user(request)
    if user is None:
        raise BadCredentials(N_("you are not signed in (or your session has expired)"))
    return user


UserDep = Annotated[User, Depends(signed_in)]


# --- request bodies -------------------------------------------------------------------------

Name = Annotated[StrictStr, Field(max_length=MAX_NAME * 4)]
Password = Annotated[StrictStr, Field(max_length=MAX_PASSWORD)]


class SeatClaim(BaseModel):
    """A seat this browser holds: the game and the seat's secret."""

    game: Annotated[StrictStr, Field(max_length=32)]
    secret: Annotated[StrictStr, Field(max_length=64)]


class Credentials(BaseModel):
    """``POST /api/account/signup`` and ``/login``: ``claim``, the browser's anonymous seats to
    give to the account."""

    name: Name
    password: Password
    claim: Annotated[list[SeatClaim], Field(max_length=MAX_CLAIMS)] = []


class PasswordChange(BaseModel):
    old: Password
    new: Password


class PasswordConfirm(BaseModel):
    password: Password


# --- the API --------------------------------------------------------------------------------


async def _start_session(
    request: Request, sessions: Sessions, accounts: Accounts, user: User, claim: list[SeatClaim], status: int
) -> JSONResponse:
    token = await to_thread.run_sync(sessions.create, user)
    claimed = await to_thread.run_sync(accounts.claim, user, [(c.game, c.secret) for c in claim])
    response = JSONResponse({"name": user.name, "claimed": claimed}, status_code=status)
    set_session_cookie(response, request, token, sessions.lifetime.total_seconds() / 86400)
    return response


@router.post("/api/account/signup", status_code=201)
async def signup(
    body: Credentials,
    request: Request,
    accounts: AccountsDep,
    sessions: SessionsDep,
    work: PasswordWork,
) -> Response:
    """Make an account and sign in; the browser's anonymous games (``claim``) become its own."""
    user = await to_thread.run_sync(accounts.create, body.name, body.password, limiter=work)
    return await _start_session(request, sessions, accounts, user, body.claim, 201)


async def _password_checked(
    request: Request,
    guard: LoginGuard,
    work: CapacityLimiter,
    name: str,
    wrong: str | None,
    check: Callable[..., T],
    *args: Any,
) -> T:
    """``check(*args)``, an operation that verifies a password, run in a thread (at most
    ``work`` at once: each hash takes 64 MiB) behind the login guard of ``name`` and the
    client's address: refused while either is slowed; a wrong password counts as a failure and
    is answered with ``wrong`` (or the check's own message)."""
    address = client_address(request)
    await guard.check(name, address)
    try:
        return await to_thread.run_sync(check, *args, limiter=work)
    except BadCredentials:
        await guard.failed(name, address)
        if wrong is None:
            raise
        raise BadCredentials(wrong) from None


@router.post("/api/account/login")
async def login(
    body: Credentials,
    request: Request,
    accounts: AccountsDep,
    sessions: SessionsDep,
    guard: GuardDep,
    work: PasswordWork,
) -> Response:
    """Sign in (slowed after failures, per account and per address)."""
    user = await _password_checked(
        request, guard, work, body.name, None, accounts.authenticate, body.name, body.password
    )
    return await _start_session(request, sessions, accounts, user, body.claim, 200)


@router.post("/api/account/logout", status_code=204)
async def logout(request: Request, sessions: SessionsDep) -> Response:
    token = cookie_token(request.scope["headers"])
    if token:
        await to_thread.run_sync(sessions.revoke, token)
    response = Response(status_code=204)
    clear_session_cookie(response, request)
    return response


@router.get("/api/account")
async def me(actor: Annotated[Actor, Depends(actor_with())], service: Service) -> dict[str, Any]:
    """The signed-in account, or the account of the API token sent (as lichess's
    ``GET /api/account``: ``id``, ``username``, ``title``)."""
    user = actor.user
    bot = actor.bot if actor.token is not None else await service.db(is_bot, service.storage.engine, user.id)
    return {
        "name": user.name,
        "id": user.name.lower(),
        "username": user.name,
        "title": BOT_TITLE if bot else None,
    }


@router.post("/api/account/password")
async def change_password(
    body: PasswordChange,
    request: Request,
    user: UserDep,
    accounts: AccountsDep,
    sessions: SessionsDep,
    guard: GuardDep,
    work: PasswordWork,
) -> Response:
    """Change the password: every session of the account ends, this browser gets a new one."""
    await _password_checked(
        request,
        guard,
        work,
        user.name,
        N_("the current password is wrong"),
        accounts.change_password,
        user,
        body.old,
        body.new,
    )
    return await _start_session(request, sessions, accounts, user, [], 200)


@router.post("/api/account/delete", status_code=204)
async def delete_account(
    body: PasswordConfirm,
    request: Request,
    user: UserDep,
    accounts: AccountsDep,
    guard: GuardDep,
    service: Service,
    work: PasswordWork,
) -> Response:
    """Close the account (its games stay, under "deleted player")."""
    await _password_checked(
        request, guard, work, user.name, N_("the password is wrong"), accounts.delete, user, body.password
    )
    await service.reader.account_changed(user.id)
    response = Response(status_code=204)
    clear_session_cookie(response, request)
    return response


async def _profile(service: Service, accounts: Accounts, name: str, viewer: User | None) -> dict[str, Any]:
    """A player's public profile; their puzzle history only for themselves (as lichess keeps a
    player's puzzle history private: what they failed is theirs)."""
    user = await to_thread.run_sync(accounts.by_name, name)
    if user is None:
        raise PlayerNotFound(name[:40])
    engine = service.storage.engine
    lines = await to_thread.run_sync(user_ratings, engine, user.id)
    results = await service.db(service.storage.user_results, user.id)
    rows = await service.db(service.storage.user_games, user.id, RECENT_GAMES)
    names = await to_thread.run_sync(accounts.names, _user_ids(rows))
    titles = {v.name: v.title for v in all_variants()}
    puzzle_lines = await service.db(user_puzzles, engine, user.id)
    own = viewer is not None and viewer.id == user.id
    puzzle_plays = await service.db(puzzle_history, engine, user.id) if own else None
    bot = await to_thread.run_sync(is_bot, engine, user.id)
    return {
        "name": user.name,
        "title": BOT_TITLE if bot else None,
        "results": results,
        "ratings": [
            {
                "variant": line.variant,
                "title": titles.get(line.variant, line.variant),
                "rating": round(line.rating.rating),
                "rd": round(line.rating.rd),
                "provisional": line.rating.provisional,
                "games": line.games,
                "history": [{"at": at.isoformat() + "Z", "rating": round(r)} for at, r in line.history],
                "chart": history_chart(line.history),
            }
            for line in lines
        ],
        "games": [_game_line(r, user.id, names, titles) for r in rows],
        "puzzles": {
            "ratings": [
                {
                    "variant": line.variant,
                    "title": titles.get(line.variant, line.variant),
                    "rating": round(line.rating.rating),
                    "provisional": line.rating.provisional,
                    "plays": line.plays,
                    "best_streak": line.best_streak,
                }
                for line in puzzle_lines
            ],
            "history": None
            if puzzle_plays is None
            else [{**play, "title": titles.get(play["variant"], play["variant"])} for play in puzzle_plays],
        },
    }


def _user_ids(rows: list[GameRow]) -> set[int]:
    return {u for r in rows for u in (r.white_user, r.black_user) if u is not None}


def _seat_name(row: GameRow, color: Color, names: dict[int, str | None]) -> str:
    user_id = row.user_of(color)
    if row.kind_of(color) == PlayerKind.ENGINE and names.get(user_id or 0) is None:
        return f"Computer (level {row.level})"  # level 0, or a game from before the house bots
    if user_id is None:
        return "Anonymous"
    return names.get(user_id) or DELETED_NAME


def _game_line(
    row: GameRow,
    user_id: int,
    names: dict[int, str | None],
    titles: dict[str, str],
) -> dict[str, Any]:
    color = Color.WHITE if row.white_user == user_id else Color.BLACK
    won = {"1-0": Color.WHITE, "0-1": Color.BLACK}.get(row.result or "")
    if row.result is None:
        outcome = "playing"
    else:
        outcome = "draw" if won is None else "win" if won == color else "loss"
    return {
        "id": row.id,
        "variant": titles.get(row.variant, row.variant),
        "color": color,
        "opponent": _seat_name(row, color.other, names),
        "result": row.result,
        "outcome": outcome,
        "opponent_profile": names.get(row.user_of(color.other) or 0) is not None,
        # the computer's level, for the page to word "Computer (level n)" in its language
        "opponent_level": row.level if row.kind_of(color.other) == PlayerKind.ENGINE else None,
        # a house bot (the computer's seat held by an account) shows its title
        "opponent_title": BOT_TITLE
        if row.kind_of(color.other) == PlayerKind.ENGINE and row.user_of(color.other) is not None
        else None,
        "rated": row.rated,
        "created": row.created.isoformat() + "Z",
        "moves": row.ply,
    }


def _json_profile(profile: dict[str, Any]) -> dict[str, Any]:
    out = dict(profile)
    out["ratings"] = [{k: v for k, v in line.items() if k != "chart"} for line in profile["ratings"]]
    return out


@router.get("/api/users/{name}")
async def profile_api(name: str, request: Request, service: Service, accounts: AccountsDep) -> dict[str, Any]:
    """A player's ratings (with history), results and recent games; their puzzle history
    (``puzzles.history``) only when they ask for themselves, else null."""
    return _json_profile(await _profile(service, accounts, name, current_user(request)))


@router.get("/api/users/{name}/games.pgn")
async def profile_pgn(name: str, service: Service, accounts: AccountsDep) -> StreamingResponse:
    """All of a player's games as one PGN file, streamed a batch of games at a time."""
    user = await to_thread.run_sync(accounts.by_name, name)
    if user is None:
        raise PlayerNotFound(name[:40])
    storage = service.storage

    def games_text() -> Iterator[str]:
        # a sync generator: Starlette runs it in a worker thread, one batch of rows at a time
        before = None
        while True:
            rows = storage.user_games(user.id, PGN_BATCH, before, with_moves=True)
            if not rows:
                return
            names = accounts.names(_user_ids(rows))
            for row in rows:
                board = Board(row.variant, fen=row.start_fen)
                for text in row.moves:
                    board.push_text(text)
                seat_names = {c: _seat_name(row, c, names) for c in Color}
                yield game_pgn(row, board, seat_names) + "\n"
            before = (rows[-1].created, rows[-1].id)

    return StreamingResponse(
        games_text(),
        media_type="application/x-chess-pgn",
        headers={"Content-Disposition": f'attachment; filename="exochess-{user.name}.pgn"'},
    )


@router.get("/api/leaderboard")
async def leaderboard_api(service: Service, variant: str | None = None) -> dict[str, Any]:
    """The best non-provisional players of each game (or of ``variant``)."""
    return {"leaderboards": await _leaderboards(service, variant)}


async def _leaderboards(service: Service, variant: str | None) -> list[dict[str, Any]]:
    chosen = all_variants() if variant is None else [_variant(variant)]
    engine = service.storage.engine
    boards = []
    for v in chosen:
        leaders = await to_thread.run_sync(leaderboard, engine, v.name)
        boards.append(
            {
                "variant": v.name,
                "title": v.title,
                "players": [
                    {"name": p.name, "rating": p.rating, "games": p.games, "bot": p.bot} for p in leaders
                ],
            }
        )
    return boards


def _variant(name: str) -> Any:
    try:
        return find_variant(name)
    except Exception as exc:
        raise HTTPException(404, f"unknown game {name[:40]!r}") from exc


# --- pages --------------------------------------------------------------------------------


def _home() -> Response:
    return Response(status_code=303, headers={"Location": "/"})


@router.get("/signup", response_class=HTMLResponse)
async def signup_page(request: Request) -> Response:
    if current_user(request) is not None:  # already signed in
        return _home()
    return render(request, "signup.html", title=tr(request, "Sign up"), max_name=MAX_NAME)


@router.get("/login", response_class=HTMLResponse)
async def login_page(request: Request) -> Response:
    if current_user(request) is not None:
        return _home()
    return render(request, "login.html", title=tr(request, "Log in"))


@router.get("/account", response_class=HTMLResponse)
async def account_page(request: Request) -> Response:
    if current_user(request) is None:
        return Response(status_code=303, headers={"Location": "/login"})
    return render(request, "account.html", title=tr(request, "Account"))


@router.get("/@/{name}", response_class=HTMLResponse)
async def profile_page(request: Request, name: str, service: Service, accounts: AccountsDep) -> HTMLResponse:
    profile = await _profile(service, accounts, name, current_user(request))
    return render(request, "profile.html", title=profile["name"], profile=profile)


@router.get("/leaderboard", response_class=HTMLResponse)
async def leaderboard_page(request: Request, service: Service) -> HTMLResponse:
    boards = await _leaderboards(service, None)
    return render(request, "leaderboard.html", title=tr(request, "Leaderboard"), boards=boards)


__all__ = ["COOKIE", "router"]
