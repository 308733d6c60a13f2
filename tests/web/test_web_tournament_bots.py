"""Bots in tournaments (issue 46, item 5) on a real server: an event marked open to bots takes
bot accounts (lichess's ``POST /api/tournament/{id}/join`` with a token), pairs them as anyone,
announces their games on the event stream (``gameStart``) and counts the games they play through
the bot API; an event not open to bots refuses them (403); people join either kind.

Every wait is on an observed state (a stream's line, the event's view), with a generous bound.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.web.apiclients import Stream, bearer, make_token, move_path, signup
from tests.web.serverproc import Server
from tests.web.test_web_tournaments import ENV, wait_for

_names = (f"tb{i}x{int(time.time()) % 10000}" for i in itertools.count())
OPENING = ("d2-d3", "e7-e6")
"""Two legal moves of Fugue's start: a game with both sides moved can be resigned."""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("tbots") / "site.sqlite", engine_workers=0, env=ENV).start()
    yield srv
    srv.stop()


def person(site: Server, *scopes: str) -> tuple[str, httpx.Client, httpx.Client | None]:
    """(name, signed-in client, token client or None) of a new person's account."""
    name = next(_names)
    session = signup(site.url, name)
    return name, session, bearer(site.url, make_token(session, *scopes)) if scopes else None


def bot_account(site: Server) -> tuple[str, httpx.Client, httpx.Client]:
    """(name, signed-in client, ``bot:play`` token client) of a new BOT account."""
    name = next(_names)
    session = signup(site.url, name)
    api = bearer(site.url, make_token(session, "bot:play"))
    assert api.post("/api/bot/account/upgrade").status_code == 200
    return name, session, api


def create(session: httpx.Client, **body: Any) -> dict[str, Any]:
    res = session.post(
        "/api/tournaments",
        json={
            "variant": "fugue",
            "time_control": "1+0",
            "starts_in": 0,
            "kind": "arena",
            "minutes": 5,
            **body,
        },
    )
    assert res.status_code == 201, res.text
    return dict(res.json())


def view(client: httpx.Client, tournament_id: str) -> dict[str, Any]:
    res = client.get(f"/api/tournaments/{tournament_id}")
    assert res.status_code == 200, res.text
    return dict(res.json())


def line_of(table: list[dict[str, Any]], name: str) -> dict[str, Any]:
    return next(line for line in table if line["name"] == name)


def test_a_bot_plays_an_arena_open_to_bots_and_its_game_counts(site: Server) -> None:
    host, session, _ = person(site)
    made = create(session, bots_allowed=True, name="Bots welcome")
    assert made["bots_allowed"] is True
    bot_name, _bs, bot = bot_account(site)
    events = Stream(bot, "/api/stream/event")  # connected: the arena may pair it
    joined = bot.post(f"/api/tournament/{made['id']}/join")  # a bot:play token does, as lichess-bot's
    assert joined.status_code == 200 and joined.json() == {"ok": True}, joined.text
    assert session.post(f"/api/tournaments/{made['id']}/join", json={}).status_code == 204

    start = events.until("gameStart")["game"]
    game_id, color = start["gameId"], start["color"]
    assert start["opponent"]["username"] == host and start["rated"] is True
    assert start["source"] == "arena"  # lichess's word for an arena's game
    now = view(session, made["id"])
    assert line_of(now["standings"], bot_name)["title"] == "BOT"
    assert line_of(now["standings"], host)["title"] is None
    (on,) = now["playing"]
    assert on["id"] == game_id and on[f"{color}_title"] == "BOT" and on[f"{color}"] == bot_name

    stream = Stream(bot, f"/api/bot/game/stream/{game_id}")
    full = stream.next()
    assert full is not None and full["type"] == "gameFull" and full["rated"] is True
    assert full[color]["title"] == "BOT"
    for mover, move in zip(("white", "black"), OPENING, strict=True):
        if mover == color:
            res = bot.post(move_path("bot", game_id, move))
        else:
            res = session.post(f"/api/games/{game_id}/moves", json={"move": move})
        assert res.status_code == 200, res.text
    assert bot.post(f"/api/bot/game/{game_id}/resign").json() == {"ok": True}
    ended = stream.until("gameState")
    while ended["status"] == "started":
        ended = stream.until("gameState")
    assert ended["status"] == "resign" and ended["winner"] != color
    assert events.until("gameFinish")["game"]["id"] == game_id

    def counted() -> dict[str, Any] | None:
        now = view(session, made["id"])
        return now if line_of(now["standings"], host)["sheet"] == [2] else None

    table = wait_for("the game in the standings", counted)["standings"]
    assert [line["name"] for line in table[:2]] == [host, bot_name]
    assert line_of(table, bot_name)["sheet"] == [0] and line_of(table, bot_name)["score"] == 0
    assert line_of(table, bot_name)["rating"] < 1500 < line_of(table, host)["rating"]  # a rated game
    games = session.get(f"/api/tournaments/{made['id']}/games").json()["games"]
    assert games[0]["id"] == game_id and games[0]["result"] == ("0-1" if color == "white" else "1-0")
    # the bot withdraws by its token: no more pairings for it
    assert bot.post(f"/api/tournament/{made['id']}/withdraw").json() == {"ok": True}
    assert not line_of(view(session, made["id"])["standings"], bot_name)["active"]
    stream.close()
    events.close()


def test_a_bot_plays_a_swiss_round_and_wins_the_event(site: Server) -> None:
    host, session, _ = person(site)
    made = create(session, kind="swiss", rounds=1, minutes=None, starts_in=60, bots_allowed=True)
    bot_name, _bs, bot = bot_account(site)
    events = Stream(bot, "/api/stream/event")
    assert bot.post(f"/api/swiss/{made['id']}/join").json() == {"ok": True}
    assert session.post(f"/api/tournaments/{made['id']}/join", json={}).status_code == 204
    assert session.post(f"/api/tournaments/{made['id']}/start", json={}).status_code == 204
    start = events.until("gameStart")["game"]
    game_id, color = start["gameId"], start["color"]
    for mover, move in zip(("white", "black"), OPENING, strict=True):
        if mover == color:
            res = bot.post(move_path("bot", game_id, move))
        else:
            res = session.post(f"/api/games/{game_id}/moves", json={"move": move})
        assert res.status_code == 200, res.text
    assert session.post(f"/api/games/{game_id}/resign", json={}).status_code == 200
    assert events.until("gameFinish")["game"]["winner"] == color
    done = wait_for(
        "the end of the event", lambda: (v := view(session, made["id"]))["status"] == "finished" and v
    )
    assert done["podium"] == [bot_name, host]
    assert (
        line_of(done["standings"], bot_name)["score"] == 1
        and line_of(done["standings"], bot_name)["title"] == "BOT"
    )
    events.close()


def test_an_arena_pairs_a_bot_only_while_its_event_stream_is_open(site: Server) -> None:
    """The absent-player guard, for bots: a bot entered but not connected is left waiting (a
    person paired with it would wait for an abort); once connected it is paired."""
    _h, session, _ = person(site)
    made = create(session, bots_allowed=True)
    bot_name, _bs, bot = bot_account(site)
    assert bot.post(f"/api/tournament/{made['id']}/join").status_code == 200
    players = [person(site) for _ in range(2)]
    for _name, client, _ in players:
        assert client.post(f"/api/tournaments/{made['id']}/join", json={}).status_code == 204
    # three waiting players, one pairing: the two people, never the bot that is not connected
    first = wait_for("a pairing", lambda: view(session, made["id"])["playing"])
    assert {first[0]["white"], first[0]["black"]} == {players[0][0], players[1][0]}
    events = Stream(bot, "/api/stream/event")
    game = first[0]
    clients = {name: client for name, client, _ in players}
    for mover, move in zip((game["white"], game["black"]), OPENING, strict=True):
        assert clients[mover].post(f"/api/games/{game['id']}/moves", json={"move": move}).status_code == 200
    assert clients[game["black"]].post(f"/api/games/{game['id']}/resign", json={}).status_code == 200
    start = events.until("gameStart")["game"]  # the bot, now connected, is paired next
    assert start["opponent"]["username"] in clients
    assert any(bot_name in (g["white"], g["black"]) for g in view(session, made["id"])["playing"])
    events.close()


def test_a_bot_is_refused_by_an_event_not_open_to_bots_and_people_join_either(site: Server) -> None:
    _h, session, _ = person(site)
    arena = create(session)  # bots not allowed: the default
    swiss = create(session, kind="swiss", rounds=3, minutes=None, starts_in=60)
    assert arena["bots_allowed"] is False and swiss["bots_allowed"] is False
    _bn, bot_session, bot = bot_account(site)
    for path in (f"/api/tournament/{arena['id']}/join", f"/api/swiss/{swiss['id']}/join"):
        refused = bot.post(path)
        assert refused.status_code == 403, refused.text
        assert refused.json()["error"] == "this tournament is not open to bots: a bot account cannot join it"
    # the site's own path, by the bot account's session: the same answer, in the asker's language
    by_page = bot_session.post(
        f"/api/tournaments/{arena['id']}/join", json={}, headers={"Accept-Language": "fr"}
    )
    assert by_page.status_code == 403 and "bot" in by_page.json()["error"]
    assert by_page.json()["error"] != refused.json()["error"]  # translated
    assert not view(session, arena["id"])["standings"]  # nothing changed
    # a person's token joins either kind, open to bots or not, at lichess's paths
    name, _s, api = person(site, "tournament:write")
    assert api is not None
    assert api.post(f"/api/swiss/{swiss['id']}/join").json() == {"ok": True}
    assert api.post(f"/api/tournament/{arena['id']}/join").json() == {"ok": True}
    assert [line["name"] for line in view(session, swiss["id"])["standings"]] == [name]
    assert api.post(f"/api/swiss/{swiss['id']}/withdraw").json() == {"ok": True}
    # the kind must match the path; a token needs the scope
    wrong = api.post(f"/api/tournament/{swiss['id']}/join")
    assert wrong.status_code == 404 and wrong.json()["error"] == f"no arena has the id '{swiss['id']}'"
    assert api.post(f"/api/swiss/{arena['id']}/withdraw").status_code == 404
    _n, _s2, board = person(site, "board:play")
    assert board is not None
    lacking = board.post(f"/api/tournament/{arena['id']}/join")
    assert lacking.status_code == 403 and lacking.json()["error"].startswith(
        "this token lacks the scope tournament:write"
    )
    anonymous = httpx.post(
        f"{site.url}/api/tournament/{arena['id']}/join", json={}, headers={"Origin": site.url}
    )
    assert anonymous.status_code == 401


def test_open_to_bots_is_set_at_creation_listed_and_shown(site: Server) -> None:
    _h, session, _ = person(site)
    open_one = create(session, bots_allowed=True, starts_in=30, name="Open arena")
    closed_one = create(session, starts_in=30, name="Closed arena")
    listed = {t["id"]: t for t in session.get("/api/tournaments").json()["tournaments"]}
    assert listed[open_one["id"]]["bots_allowed"] is True
    assert listed[closed_one["id"]]["bots_allowed"] is False
    page = session.get("/tournaments").text
    assert 'name="bots_allowed"' in page  # the form's checkbox
    row = page.split(f'data-tournament="{open_one["id"]}"', 1)[1].split("</tr>", 1)[0]
    assert "bots may join" in row
    assert (
        "bots may join" not in page.split(f'data-tournament="{closed_one["id"]}"', 1)[1].split("</tr>", 1)[0]
    )
    bad = session.post(
        "/api/tournaments",
        json={
            "kind": "arena",
            "variant": "fugue",
            "time_control": "1+0",
            "minutes": 5,
            "bots_allowed": "yes",
        },
    )
    assert bad.status_code in (400, 422) and "bots_allowed" in bad.text, bad.text
