"""Tournaments: the pages ``/tournaments`` and ``/tournaments/{id}``, the JSON API under
``/api/tournaments``, the socket ``/ws/tournaments/{id}``, and lichess's paths for programs:
``POST /api/tournament/{id}/join|withdraw`` (arenas) and ``POST /api/swiss/{id}/join|withdraw``
(Swiss events), with a token of scope ``tournament:write`` (a bot account's ``bot:play`` token
will do: one token runs a bot) or the session.

The socket sends ``{"type": "tournament", "tournament": <view>}`` on connecting and whenever
what it shows changes (standings, pairings, start, end).  The view is the object of ``GET
/api/tournaments/{id}`` cut to one page (:mod:`exochess.web.social.viewpages`): ``standings``
holds ten lines, ``page`` and ``pages`` say which, ``playing`` the games of that page's players
and the socket's player's own, and ``mine`` that player's line when it is on another page.  A
socket opens on its signed-in player's page (page 1 for a visitor); the client may send
``{"type": "page", "page": N}`` (``null``: back to its own page) and gets that page at once, then
its changes; ``{"type": "ping"}`` gets ``pong``.  A player's own new game shows in ``playing``:
their page goes to it.
"""

from __future__ import annotations

import json
import logging
from typing import Annotated, Any, Literal, cast

from fastapi import APIRouter, Depends, Request, WebSocket, WebSocketDisconnect
from fastapi.requests import HTTPConnection
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, Field, StrictBool, StrictFloat, StrictInt, StrictStr

from exochess.web.accounts.sessions import current_user
from exochess.web.accounts.tokens import ScopeMissing
from exochess.web.accounts.users import User
from exochess.web.domain import N_, GameServiceError, InvalidRequest, SecretRequired, TooFast
from exochess.web.game.timecontrol import REALTIME_PRESETS
from exochess.web.http.bearer import Actor, actor_with
from exochess.web.http.errors import status_of
from exochess.web.http.i18n import localized, request_language
from exochess.web.http.security import BadJSON, parse_json_text
from exochess.web.http.templating import render
from exochess.web.limits import CLOSE_FLOOD, MessageLimit
from exochess.web.routes.pages import tr
from exochess.web.social.tournaments import ARENA_MINUTES, MAX_ROUNDS, Tournaments, room
from exochess.web.social.viewpages import Pages
from exochess.web.storage.tournaments import ARENA, SWISS

router = APIRouter()
log = logging.getLogger("exochess.web")

MAX_MESSAGE = 1024
MAX_PAGE = 10_000
"""The highest page a socket may ask for (a page past the table's end shows its last)."""
SOCKET_STRIKES = 5
"""Messages over the limit answered "slow down" before the socket is closed."""


async def get_tournaments(conn: HTTPConnection) -> Tournaments:
    return cast(Tournaments, conn.app.state.tournaments)


TournamentsDep = Annotated[Tournaments, Depends(get_tournaments)]
Entrant = Annotated[Actor, Depends(actor_with("tournament:write", "bot:play"))]
"""Who joins or withdraws by lichess's paths: a token's account, or the session's."""


class NewTournament(BaseModel):
    """``POST /api/tournaments``: a player's own event."""

    kind: Literal["arena", "swiss"]
    variant: StrictStr
    time_control: StrictStr
    minutes: StrictFloat | StrictInt | None = None
    """An arena's length (10, 20, 30, 45, 60, 90, 120 or 180)."""
    rounds: Annotated[StrictInt | None, Field(ge=1, le=MAX_ROUNDS)] = None
    """A Swiss event's rounds."""
    starts_in: Annotated[StrictFloat | StrictInt, Field(ge=0, le=7 * 24 * 60)] = 5
    """Minutes from now."""
    rated: StrictBool = True
    private: StrictBool = False
    """Reached by its link only (not listed)."""
    name: Annotated[StrictStr, Field(max_length=200)] = ""
    bots_allowed: StrictBool = False
    """Bot accounts may join (lichess's ``conditions.bots``); people always may."""


def _signed_in(request: Request) -> User:
    user = current_user(request)
    if user is None:
        raise SecretRequired(N_("sign in to play in tournaments"))
    return user


@router.get("/tournaments", response_class=HTMLResponse)
async def tournaments_page(request: Request, tournaments: TournamentsDep) -> HTMLResponse:
    return render(
        request,
        "tournaments.html",
        title=tr(request, "Tournaments"),
        listing=await tournaments.listing(),
        presets=REALTIME_PRESETS,
        arena_minutes=ARENA_MINUTES,
        max_rounds=MAX_ROUNDS,
    )


@router.get("/tournaments/{tournament_id}", response_class=HTMLResponse)
async def tournament_page(request: Request, tournament_id: str, tournaments: TournamentsDep) -> HTMLResponse:
    view = await tournaments.view(tournament_id)
    user = current_user(request)
    # the page the socket will show: the player's own (viewpages), so nothing jumps when it opens
    shown = Pages(view).cut(None, user.name if user is not None else None)
    return render(request, "tournament.html", title=view["name"], tournament=shown)


@router.get("/api/tournaments")
async def list_tournaments(tournaments: TournamentsDep) -> dict[str, Any]:
    """Public events: upcoming, running, and finished in the last day."""
    return {"tournaments": await tournaments.listing()}


@router.post("/api/tournaments", status_code=201)
async def create_tournament(
    body: NewTournament, request: Request, tournaments: TournamentsDep
) -> dict[str, Any]:
    """Create an event (signed in); its creator is not entered automatically."""
    user = _signed_in(request)
    row = await tournaments.create(
        kind=body.kind,
        variant=body.variant,
        time_control=body.time_control,
        minutes=None if body.minutes is None else float(body.minutes),
        rounds=body.rounds,
        starts_in_min=float(body.starts_in),
        rated=body.rated,
        private=body.private,
        name=body.name,
        creator=user,
        bots_allowed=body.bots_allowed,
    )
    assert row is not None  # only a schedule's event can already exist
    return await tournaments.view(row.id)


@router.get("/api/tournaments/{tournament_id}")
async def get_tournament(tournament_id: str, tournaments: TournamentsDep) -> dict[str, Any]:
    """The event: settings, standings (best first), games on, podium once finished."""
    return await tournaments.view(tournament_id)


@router.get("/api/tournaments/{tournament_id}/games")
async def tournament_games(tournament_id: str, tournaments: TournamentsDep) -> dict[str, Any]:
    """Every game of the event, oldest first, with its result as the event counts it."""
    return {"games": await tournaments.results(tournament_id)}


@router.post("/api/tournaments/{tournament_id}/start", status_code=204)
async def start_tournament(tournament_id: str, request: Request, tournaments: TournamentsDep) -> Response:
    """The creator starts the event now instead of at its time."""
    await tournaments.start_now(tournament_id, _signed_in(request))
    return Response(status_code=204)


@router.post("/api/tournaments/{tournament_id}/join", status_code=204)
async def join_tournament(tournament_id: str, request: Request, tournaments: TournamentsDep) -> Response:
    await tournaments.join(tournament_id, _signed_in(request))
    return Response(status_code=204)


@router.post("/api/tournaments/{tournament_id}/withdraw", status_code=204)
async def withdraw_from_tournament(
    tournament_id: str, request: Request, tournaments: TournamentsDep
) -> Response:
    await tournaments.withdraw(tournament_id, _signed_in(request))
    return Response(status_code=204)


def _entrant(actor: Actor) -> User:
    """The account of a join or withdraw by lichess's paths: a token needs ``tournament:write``,
    or ``bot:play`` on a bot account."""
    token = actor.token
    if token is not None and "tournament:write" not in token.scopes and not token.bot:
        raise ScopeMissing(N_("this token lacks the scope {scope}"), scope="tournament:write")
    return actor.user


def _lichess_path(kind: str, prefix: str) -> None:
    """Register ``POST {prefix}/{id}/join`` and ``/withdraw`` for events of ``kind``, answering
    ``{"ok": true}`` as lichess does (its ``password``, ``team`` and ``pairMeAsap`` fields, which
    these events lack, are ignored)."""

    async def join(tournament_id: str, actor: Entrant, tournaments: TournamentsDep) -> dict[str, bool]:
        await tournaments.join(tournament_id, _entrant(actor), kind)
        return {"ok": True}

    async def withdraw(tournament_id: str, actor: Entrant, tournaments: TournamentsDep) -> dict[str, bool]:
        await tournaments.withdraw(tournament_id, _entrant(actor), kind)
        return {"ok": True}

    what = "an arena" if kind == ARENA else "a Swiss event"
    router.add_api_route(
        prefix + "/{tournament_id}/join",
        join,
        methods=["POST"],
        name=f"{kind}_join",
        summary=f"Join {what}",
        description=f"Enter {what} (or come back to it) with a token of scope tournament:write (a bot "
        "account's bot:play will do). 403 for a bot account when the event is not open to bots.",
    )
    router.add_api_route(
        prefix + "/{tournament_id}/withdraw",
        withdraw,
        methods=["POST"],
        name=f"{kind}_withdraw",
        summary=f"Withdraw from {what}",
        description="Leave the pairings; the games played so far still count.",
    )


_lichess_path(ARENA, "/api/tournament")
_lichess_path(SWISS, "/api/swiss")


@router.websocket("/ws/tournaments/{tournament_id}")
async def tournament_socket(websocket: WebSocket, tournament_id: str, tournaments: TournamentsDep) -> None:
    await websocket.accept()
    hub = tournaments.hub
    lang = request_language(websocket)
    address = websocket.client.host if websocket.client is not None else ""
    try:
        await tournaments.get(tournament_id)
    except Exception as exc:  # an unknown id: say so and close
        await websocket.close(code=4404, reason=str(exc)[:120])
        return
    refusal = await hub.refusal_anywhere(room(tournament_id), address)
    if refusal is not None:
        await websocket.close(code=4429, reason=refusal)
        return
    user = current_user(websocket)
    conn = hub.join(room(tournament_id), websocket, None, address)
    throttle = MessageLimit(tournaments.limits, "tournament-messages", strikes=SOCKET_STRIKES)
    try:
        await conn.send(await tournaments.watch(tournament_id, conn, user.name if user is not None else None))
        while True:
            raw = await websocket.receive_text()
            verdict = throttle.check()
            if verdict == "close":
                await conn.finish()
                await websocket.close(code=CLOSE_FLOOD, reason=throttle.reason())
                break
            error: GameServiceError | None = None
            if verdict == "slow":
                error = TooFast(N_("too many messages: slow down"))
            if error is None:
                try:
                    message = parse_json_text(raw) if len(raw) <= MAX_MESSAGE else None
                except (BadJSON, ValueError):
                    message = None
                if isinstance(message, dict) and message.get("type") == "ping":
                    await conn.send(json.dumps({"type": "pong"}))
                    continue
                if isinstance(message, dict) and message.get("type") == "page":
                    page = message.get("page")
                    if page is None or (type(page) is int and 1 <= page <= MAX_PAGE):
                        await conn.send(await tournaments.show_page(tournament_id, conn, page))
                        continue
                    error = InvalidRequest(
                        N_("page must be a whole number from 1 to {max}, or null for your own page"),
                        max=MAX_PAGE,
                    )
            reply: dict[str, Any] = {
                "type": "error",
                "error": localized(error.template, error.params, lang)
                if error is not None
                else localized(N_("this socket answers only pings and page requests"), {}, lang),
            }
            if error is not None:
                reply["status"] = status_of(error)
            await conn.send(json.dumps(reply))
    except WebSocketDisconnect:
        pass
    except Exception:  # a binary frame, a closed transport...: drop this connection only
        log.debug("tournament websocket closed on error", exc_info=True)
    finally:
        hub.leave(room(tournament_id), websocket)
        tournaments.unwatch(tournament_id, conn)
