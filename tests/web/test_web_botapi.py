"""The public API of issue 47 on a real server: personal tokens (scopes, revocation, rate limit),
bot accounts, direct challenges, the ndjson event and game streams, and acting in a game."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from exochess.board import Board
from tests.web.apiclients import Stream, bearer, make_token, move_path, signup
from tests.web.serverproc import Server

NAMES = (f"user{i}" for i in itertools.count())


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(
        tmp_path_factory.mktemp("botapi") / "site.sqlite", env={"EXOCHESS_TEST_TINY_CLOCKS": "1"}
    ).start()
    yield srv
    srv.stop()


def account(site: Server, *scopes: str, bot: bool = False) -> tuple[str, httpx.Client, httpx.Client]:
    """(name, signed-in client, token client) of a new account; ``bot``: upgraded to BOT."""
    name = next(NAMES)
    session = signup(site.url, name)
    token = make_token(session, *scopes)
    api = bearer(site.url, token)
    if bot:
        res = api.post("/api/bot/account/upgrade")
        assert res.status_code == 200, res.text
    return name, session, api


def start_game(site: Server, **fields: str) -> tuple[str, httpx.Client, str, httpx.Client, str]:
    """A game between a person (White) and a bot, through a direct challenge: (game id, the
    person's token client, their name, the bot's token client, its name)."""
    bot_name, _s, bot = account(site, "bot:play", bot=True)
    human_name, _h, human = account(site, "board:play", "challenge:write")
    res = human.post(f"/api/challenge/{bot_name}", data={"variant": "fugue", "color": "white", **fields})
    assert res.status_code == 200, res.text
    accepted = bot.post(f"/api/challenge/{res.json()['id']}/accept")
    assert accepted.status_code == 200, accepted.text
    return accepted.json()["game"], human, human_name, bot, bot_name


# --- tokens ----------------------------------------------------------------------------------------


def test_a_token_is_shown_once_acts_for_its_account_and_stops_when_revoked(site: Server) -> None:
    name, session, _api = account(site, "board:play")
    made = session.post("/api/account/tokens", json={"description": "my bot", "scopes": ["bot:play"]})
    assert made.status_code == 201
    token = made.json()["token"]
    assert token.startswith("exo_") and len(token) > 40
    listed = session.get("/api/account/tokens").json()["tokens"]
    assert {t["description"] for t in listed} == {"test", "my bot"}
    assert token not in str(listed)  # shown once: never listed again
    api = bearer(site.url, token)
    assert api.get("/api/account").json() == {"name": name, "id": name, "username": name, "title": None}
    token_id = made.json()["id"]
    assert session.post(f"/api/account/tokens/{token_id}/revoke", json={}).status_code == 200
    refused = api.get("/api/account")
    assert refused.status_code == 401 and refused.json()["error"] == "this API token was revoked"
    assert session.post(f"/api/account/tokens/{token_id}/revoke", json={}).status_code == 404
    assert [t["id"] for t in session.get("/api/account/tokens").json()["tokens"]] != [token_id]


def test_wrong_missing_and_malformed_tokens_are_401_and_a_missing_scope_is_403(site: Server) -> None:
    wrong = bearer(site.url, "exo_" + "x" * 43).get("/api/stream/event")
    assert wrong.status_code == 401 and "unknown API token" in wrong.json()["error"]
    plain = httpx.post(site.url + "/api/bot/account/upgrade", json={})
    assert plain.status_code == 401 and "Authorization: Bearer" in plain.json()["error"]
    basic = httpx.get(site.url + "/api/bot/game/stream/abc", headers={"Authorization": "Basic eDp5"})
    assert basic.status_code == 401 and "Bearer" in basic.json()["error"]
    _name, _session, api = account(site, "board:play")
    no_scope = api.post("/api/bot/account/upgrade")
    assert no_scope.status_code == 403 and no_scope.json()["error"] == "this token lacks the scope bot:play"
    assert api.post("/api/challenge/nobody", data={"variant": "fugue"}).status_code == 403


def test_tokens_are_made_only_by_a_signed_in_session_with_known_scopes(site: Server) -> None:
    _name, session, api = account(site, "bot:play")
    # a token cannot make tokens (it is no session)
    assert (
        api.post("/api/account/tokens", json={"description": "x", "scopes": ["bot:play"]}).status_code == 401
    )
    bad = session.post("/api/account/tokens", json={"description": "x", "scopes": ["admin"]})
    assert bad.status_code == 400 and "unknown scope 'admin'" in bad.json()["error"]
    empty = session.post("/api/account/tokens", json={"description": "x", "scopes": []})
    assert empty.status_code == 400
    blank = session.post("/api/account/tokens", json={"description": "  ", "scopes": ["bot:play"]})
    assert blank.status_code == 400 and "description" in blank.json()["error"]


def test_each_token_has_its_own_rate_limit(tmp_path: Path) -> None:
    limited = Server(
        tmp_path / "limited.sqlite", env={"EXOCHESS_RATE_LIMITS": "misses=off;signups=off;api-token=3/minute"}
    ).start()
    try:
        session = signup(limited.url, "ratey")
        one, two = (bearer(limited.url, make_token(session, "board:play")) for _ in range(2))
        assert [one.get("/api/account").status_code for _ in range(3)] == [200, 200, 200]
        refused = one.get("/api/account")
        assert refused.status_code == 429
        assert "too many API requests with this token" in refused.json()["error"]
        assert two.get("/api/account").status_code == 200  # another token counts on its own
    finally:
        limited.stop()


# --- bot accounts -----------------------------------------------------------------------------------


def test_an_account_becomes_a_bot_once_and_only_before_it_has_played(site: Server) -> None:
    name, session, api = account(site, "bot:play", bot=True)
    assert api.get("/api/account").json()["title"] == "BOT"
    assert session.get(f"/api/users/{name}").json()["title"] == "BOT"
    assert "BOT" in session.get(f"/@/{name}").text
    online = Stream(api, "/api/stream/event")
    assert online.next(blanks=True) == {}  # open: the first bare line follows the opening list
    listed = httpx.get(site.url + "/api/bot/online")
    assert listed.headers["content-type"] == "application/x-ndjson"
    assert {"id": name, "username": name, "title": "BOT", "online": True} in [
        json.loads(x) for x in listed.text.splitlines()
    ]
    page = httpx.get(site.url + "/bots").text
    assert name in page and "player-title" in page
    online.close()
    # a person's account that has played cannot become a bot
    game_id, _human, human_name, _bot, _ = start_game(site)
    assert game_id
    played = bearer(site.url, make_token(signup_again(site, human_name), "bot:play"))
    refused = played.post("/api/bot/account/upgrade")
    assert refused.status_code == 409 and "has played a game" in refused.json()["error"]


def signup_again(site: Server, name: str) -> httpx.Client:
    client = httpx.Client(base_url=site.url, headers={"Origin": site.url}, timeout=60.0)
    res = client.post("/api/account/login", json={"name": name, "password": "pass-word-1", "claim": []})
    assert res.status_code == 200, res.text
    return client


def test_bot_endpoints_are_for_bots_and_board_endpoints_for_people(site: Server) -> None:
    game_id, human, _hn, bot, _bn = start_game(site)
    both = account(site, "bot:play", "board:play")[2]  # a person's account with a bot:play token
    refused = both.get(f"/api/bot/game/stream/{game_id}")
    assert refused.status_code == 403 and "for bot accounts" in refused.json()["error"]
    assert bot.post(move_path("board", game_id, "a2-a3")).status_code == 403
    stranger = both.get(f"/api/board/game/stream/{game_id}")
    assert stranger.status_code == 403 and stranger.json()["error"] == "you do not play in this game"
    assert human.get("/api/board/game/stream/nosuchgame").status_code == 404


# --- challenges and the event stream ----------------------------------------------------------------


def test_challenges_reach_both_event_streams_declined_cancelled_and_accepted(site: Server) -> None:
    bot_name, _s, bot = account(site, "bot:play", bot=True)
    human_name, _h, human = account(site, "challenge:write", "board:play")
    bot_events, human_events = Stream(bot, "/api/stream/event"), Stream(human, "/api/stream/event")
    assert bot_events.status == 200 and bot_events.content_type == "application/x-ndjson"
    form = {"variant": "fugue", "clock.limit": "60", "clock.increment": "1", "rated": "true"}
    sent = human.post(f"/api/challenge/{bot_name}", data=form).json()
    assert sent["timeControl"] == {"type": "clock", "limit": 60, "increment": 1, "show": "1+1"}
    assert sent["speed"] == "bullet" and sent["rated"] is True and sent["variant"]["key"] == "fugue"
    seen = bot_events.until("challenge")["challenge"]
    assert seen["id"] == sent["id"] and seen["challenger"]["name"] == human_name
    assert seen["destUser"] == {
        "id": bot_name,
        "name": bot_name,
        "title": "BOT",
        "rating": 1500,
        "provisional": True,
    }
    assert human_events.until("challenge")["challenge"]["id"] == sent["id"]
    assert human.post(f"/api/challenge/{sent['id']}/accept").status_code == 403  # not addressed to them
    bad_reason = bot.post(f"/api/challenge/{sent['id']}/decline", data={"reason": "bored"})
    assert bad_reason.status_code == 400 and "unknown reason" in bad_reason.json()["error"]
    assert bot.post(f"/api/challenge/{sent['id']}/decline", data={"reason": "tooFast"}).status_code == 200
    declined = human_events.until("challengeDeclined")["challenge"]
    assert declined["id"] == sent["id"] and declined["declineReasonKey"] == "tooFast"
    assert bot_events.until("challengeDeclined")["challenge"]["status"] == "declined"
    assert bot.post(f"/api/challenge/{sent['id']}/accept").status_code == 404  # gone
    # cancelled by its challenger (JSON this time, as a page sends it)
    again = human.post(f"/api/challenge/{bot_name}", json={"variant": "interweave", "days": 2}).json()
    assert again["timeControl"] == {"type": "correspondence", "daysPerTurn": 2}
    assert bot.post(f"/api/challenge/{again['id']}/cancel").status_code == 403
    assert human.post(f"/api/challenge/{again['id']}/cancel").status_code == 200
    assert bot_events.until("challengeCanceled")["challenge"]["id"] == again["id"]
    # accepted: the game starts on both streams
    third = human.post(f"/api/challenge/{bot_name}", data={"variant": "fugue", "color": "black"}).json()
    accepted = bot.post(f"/api/challenge/{third['id']}/accept").json()
    start = bot_events.until("gameStart")["game"]
    assert start["gameId"] == accepted["game"] and start["color"] == "white" and start["isMyTurn"] is True
    assert start["opponent"]["username"] == human_name and start["variant"]["key"] == "fugue"
    assert start["source"] == "friend"  # a challenge
    assert human_events.until("gameStart")["game"]["color"] == "black"
    assert human.post(f"/api/challenge/{third['id']}/accept").status_code in (403, 409)
    # a new stream lists the game being played first (how a bot picks its games up again)
    reopened = Stream(bot, "/api/stream/event")
    assert reopened.next()["game"]["gameId"] == accepted["game"]  # type: ignore[index]
    for stream in (bot_events, human_events, reopened):
        stream.close()


def test_bad_challenges_are_refused_with_the_reason(site: Server) -> None:
    bot_name, _s, _bot = account(site, "bot:play", bot=True)
    me, _h, human = account(site, "challenge:write")
    cases = [
        ({"variant": "chess"}, 400, "unknown"),
        ({}, 400, "variant is required"),
        ({"variant": "fugue", "clock.limit": "abc"}, 400, "bad time control"),
        ({"variant": "fugue", "rated": "true"}, 400, "rated challenge needs a time control"),
        ({"variant": "fugue", "rated": "maybe"}, 400, "rated must be true or false"),
        ({"variant": "fugue", "color": "green"}, 400, "color must be"),
    ]
    for form, status, words in cases:
        res = human.post(f"/api/challenge/{bot_name}", data=form)
        assert res.status_code == status and words in res.json()["error"], (form, res.text)
    assert human.post("/api/challenge/nobody-here", data={"variant": "fugue"}).status_code == 404
    assert human.post(f"/api/challenge/{me}", data={"variant": "fugue"}).status_code == 409


def test_the_event_stream_sends_keepalive_newlines(site: Server) -> None:
    _name, _s, api = account(site, "board:play")
    events = Stream(api, "/api/stream/event")
    assert events.next(blanks=True) == {}  # at once, after the (empty) opening list
    assert events.next(blanks=True) == {}  # and again after a few silent seconds
    assert all(set(chunk) <= {ord("\n")} for chunk in events.raw)
    events.close()


# --- playing -----------------------------------------------------------------------------------------


def test_a_game_stream_moves_clocks_chat_and_resignation(site: Server) -> None:
    game_id, human, human_name, bot, bot_name = start_game(
        site, **{"clock.limit": "60", "clock.increment": "2"}
    )
    stream = Stream(bot, f"/api/bot/game/stream/{game_id}")
    full = stream.next()
    assert full is not None and full["type"] == "gameFull" and full["id"] == game_id
    assert full["clock"] == {"initial": 60000, "increment": 2000} and full["speed"] == "bullet"
    assert full["white"]["name"] == human_name and full["black"] == {
        "id": bot_name,
        "name": bot_name,
        "title": "BOT",
        "rating": 1500,
        "provisional": True,
    }
    assert full["initialFen"] == "startpos" and full["variant"]["key"] == "fugue"
    assert full["state"] == {
        "type": "gameState",
        "moves": "",
        "wtime": 60000,
        "btime": 60000,
        "winc": 2000,
        "binc": 2000,
        "status": "started",
        "wtakeback": False,
        "btakeback": False,
    }
    # not the bot's turn; a stale ply; an illegal move; then the person's move
    early = bot.post(move_path("bot", game_id, "a7-a6"))
    assert early.status_code == 409
    illegal = human.post(move_path("board", game_id, "a2-a5"))
    assert illegal.status_code == 422 and illegal.json()["error"]
    assert human.post(move_path("board", game_id, "b2-a3", ply=3)).status_code == 409
    assert human.post(move_path("board", game_id, "b2-a3", ply=0)).json() == {"ok": True}
    state = stream.until("gameState")
    assert state["moves"] == "b2-a3" and state["status"] == "started"
    assert 0 < state["btime"] <= 60000 and state["wtime"] == 60000  # White's move started the clocks
    board = Board("fugue")
    board.push_text("b2-a3")
    reply = str(next(iter(board.legal_moves)))
    assert bot.post(move_path("bot", game_id, reply, ply=1)).status_code == 200
    assert bot.post(move_path("bot", game_id, reply, ply=1)).status_code == 409  # sent again: refused
    after = stream.until("gameState")
    assert after["moves"] == f"b2-a3 {reply}" and after["wtime"] <= 60000 + 2000
    assert (
        bot.post(f"/api/bot/game/{game_id}/chat", data={"room": "player", "text": "good luck"}).status_code
        == 200
    )
    line = stream.until("chatLine")
    assert line == {"type": "chatLine", "room": "player", "username": bot_name, "text": "good luck"}
    assert bot.post(f"/api/bot/game/{game_id}/chat", data={"room": "lobby", "text": "x"}).status_code == 400
    assert bot.post(f"/api/bot/game/{game_id}/abort").status_code == 409  # both have moved
    assert bot.post(f"/api/bot/game/{game_id}/resign").status_code == 200
    end = stream.until("gameState")
    assert end["status"] == "resign" and end["winner"] == "white"
    assert stream.next() is None  # the stream ends with the game
    again = Stream(human, f"/api/board/game/stream/{game_id}")
    assert again.next()["state"]["status"] == "resign"  # type: ignore[index]
    assert again.next() == line  # the chat so far follows the game
    assert again.next() is None


def test_abort_before_both_moved_and_game_finish_events(site: Server) -> None:
    game_id, human, _hn, bot, _bn = start_game(site)
    events = Stream(bot, "/api/stream/event")
    assert events.until("gameStart")["game"]["gameId"] == game_id  # listed on opening
    assert human.post(f"/api/board/game/{game_id}/abort").status_code == 200
    finish = events.until("gameFinish")["game"]
    assert finish["gameId"] == game_id and finish["status"]["name"] == "aborted"
    events.close()


def test_moves_with_slashes_and_parentheses_travel_url_encoded(site: Server) -> None:
    """Move text may hold characters a URL path gives meaning to: it is percent-encoded."""
    game_id, human, _hn, _bot, _bn = start_game(site)
    # a move text that does not parse: the error names it, nothing is played
    res = human.post(move_path("board", game_id, "a2-a3/x(b7),c"))
    assert res.status_code in (400, 422) and res.json()["error"]
    assert httpx.get(f"{site.url}/api/games/{game_id}").json()["ply"] == 0


def test_posts_with_a_token_need_no_json_and_no_origin(site: Server) -> None:
    game_id, human, _hn, _bot, _bn = start_game(site)
    # no body, no content type at all: as lichess's clients send a move
    res = human.post(move_path("board", game_id, "b2-a3"), headers={"Content-Type": ""})
    assert res.status_code == 200, res.text
    # a foreign Origin is still refused, token or not
    foreign = human.post(f"/api/board/game/{game_id}/resign", headers={"Origin": "https://evil.example"})
    assert foreign.status_code == 403
    # without a token, forms stay refused (cross-site forms must not act)
    assert httpx.post(f"{site.url}/api/challenge/x", data={"variant": "fugue"}).status_code == 415


def test_openapi_documents_the_api(site: Server) -> None:
    paths = httpx.get(site.url + "/openapi.json").json()["paths"]
    for path in (
        "/api/stream/event",
        "/api/bot/game/stream/{game_id}",
        "/api/bot/game/{game_id}/move/{move}",
        "/api/bot/game/{game_id}/resign",
        "/api/bot/game/{game_id}/abort",
        "/api/bot/game/{game_id}/claim-victory",
        "/api/board/game/{game_id}/resign",
        "/api/board/game/{game_id}/takeback/{accept}",
        "/api/bot/game/{game_id}/chat",
        "/api/challenge/{username}",
        "/api/challenge/{challenge_id}/accept",
        "/api/challenge/{challenge_id}/decline",
        "/api/bot/account/upgrade",
        "/api/account/tokens",
    ):
        assert path in paths, path


def test_a_game_against_the_computer_starts_with_source_ai(site: Server) -> None:
    _name, session, api = account(site, "board:play")
    events = Stream(api, "/api/stream/event")
    res = session.post(
        "/api/games", json={"variant": "fugue", "opponent": "computer", "level": 1, "color": "white"}
    )
    assert res.status_code in (200, 201), res.text
    start = events.until("gameStart")["game"]
    assert start["gameId"] == res.json()["id"] and start["source"] == "ai"  # lichess's word for it
    assert start["opponent"]["username"] == "ExoBot-L1" and start["opponent"]["title"] == "BOT"  # house bot
    events.close()
