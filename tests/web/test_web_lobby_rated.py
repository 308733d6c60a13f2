"""The lobby with accounts: signed-in players post and accept as their accounts, rated
challenges become rated games whose result moves both ratings exactly as ``ratings.py``
computes, guests keep playing casual games, and the rating-range filter.  Against a real
server of its own (a long grace, so that challenges posted over REST stay listed)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import websockets
from sqlalchemy import insert

from exochess.web.accounts.ratings import Rating, rated_pair
from exochess.web.accounts.users import Accounts
from exochess.web.storage.store import Storage, now, ratings
from tests.web.serverproc import LOOSE_LOBBY, Server, recv_until, run_async
from tests.web.test_web_accounts import fresh_name, signed_client
from tests.web.test_web_lobby import token, ws_url

PASSWORD = "a long password"


@pytest.fixture(scope="module")
def rated_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    env = {"EXOCHESS_LOBBY_GRACE_S": "120", "EXOCHESS_RATE_LIMITS": LOOSE_LOBBY}
    srv = Server(tmp_path_factory.mktemp("rated") / "rated.sqlite", env=env).start()
    yield srv
    srv.stop()


def account(server: Server, prefix: str) -> tuple[httpx.Client, str]:
    """A client signed in to a new account (it sends Origin, as a browser does)."""
    client = signed_client(server)
    name = fresh_name(prefix)
    res = client.post("/api/account/signup", json={"name": name, "password": PASSWORD})
    assert res.status_code == 201, res.text
    return client, name


def set_rating(server: Server, name: str, variant: str, rating: float, rd: float = 60.0) -> None:
    storage = Storage(server.database_url)
    try:
        user = Accounts(storage.engine).by_name(name)
        assert user is not None
        with storage.engine.begin() as conn:
            conn.execute(
                insert(ratings).values(
                    user_id=user.id,
                    variant=variant,
                    rating=rating,
                    rd=rd,
                    volatility=0.06,
                    games=30,
                    updated=now(),
                )
            )
    finally:
        storage.close()


def challenges(client: httpx.Client, **params: Any) -> list[dict[str, Any]]:
    res = client.get("/api/challenges", params=params)
    assert res.status_code == 200, res.text
    return list(res.json()["challenges"])


def test_two_accounts_meet_in_the_lobby_and_play_a_rated_game(rated_server: Server) -> None:
    alice, alice_name = account(rated_server, "alice")
    bob, bob_name = account(rated_server, "bob")
    cookie = f"exochess_session={alice.cookies['exochess_session']}"

    async def run() -> dict[str, Any]:
        headers = {"Cookie": cookie, "Origin": rated_server.url}
        async with websockets.connect(ws_url(rated_server, "/ws/lobby"), additional_headers=headers) as ws:
            await recv_until(ws, "lobby")
            # a signed-in socket is its account: no name and no player token needed
            await ws.send(json.dumps({"type": "hello", "ref": 1}))
            await recv_until(ws, "hello")
            await ws.send(
                json.dumps(
                    {
                        "type": "post",
                        "variant": "fugue",
                        "time_control": "3+2",
                        "color": "white",
                        "rated": True,
                        "name": "ignored",
                        "ref": "p",
                    }
                )
            )
            posted = await recv_until(ws, "posted")
            challenge = posted["challenge"]
            assert challenge["rated"] is True
            assert challenge["player"] == {
                "name": alice_name,
                "rating": 1500,
                "provisional": True,
                "account": alice_name,
                "title": None,
            }
            listed = next(c for c in await asyncio.to_thread(challenges, bob) if c["id"] == challenge["id"])
            assert listed["player"]["account"] == alice_name and listed["rated"] is True
            res = await asyncio.to_thread(bob.post, f"/api/challenges/{challenge['id']}/accept", json={})
            assert res.status_code == 200, res.text
            start = res.json()
            accepted = await recv_until(ws, "accepted", lambda m: m["challenge"] == challenge["id"])
            assert accepted["game"] == start["game"] and accepted["poster_color"] == "white"
            return {"start": start, "secret": posted["secret"]}

    met = run_async(run)
    game = met["start"]["game"]
    assert met["start"]["color"] == "black"
    state = alice.get(f"/api/games/{game}").json()
    assert state["rated"] is True and state["time_control"]["text"] == "3+2"
    assert state["clock"] is not None
    for color, name in (("white", alice_name), ("black", bob_name)):
        assert state["players"][color]["name"] == name
        assert state["players"][color]["user"] == {
            "name": name,
            "rating": 1500,
            "provisional": True,
            "diff": None,
            "title": None,
        }
    # the seats belong to the accounts: both play with their sessions, no secret
    for client, move, ply in ((alice, "d2-d3", 0), (bob, "e7-e6", 1), (alice, "e2-e3", 2)):
        res = client.post(f"/api/games/{game}/moves", json={"move": move, "ply": ply})
        assert res.status_code == 200, res.text
    # the seat secrets still work too (a seat link)
    res = bob.post(f"/api/games/{game}/moves", json={"move": "e6-e5", "ply": 3, "secret": met["secret"]})
    assert res.status_code == 409  # the poster's secret opens White's seat, and it is Black's turn
    live = next(g for g in alice.get("/api/lobby").json()["games"] if g["id"] == game)
    assert live["rated"] is True
    assert live["white"] == {
        "name": alice_name,
        "rating": 1500,
        "provisional": True,
        "account": alice_name,
        "title": None,
    }
    assert live["black"]["account"] == bob_name and live["black"]["rating"] == 1500

    res = bob.post(f"/api/games/{game}/resign", json={})
    assert res.status_code == 200, res.text
    assert bob.post(f"/api/games/{game}/resign", json={}).status_code == 409  # once
    new_white, new_black = rated_pair(Rating(), Rating(), 1.0)
    for name, expected in ((alice_name, new_white), (bob_name, new_black)):
        lines = alice.get(f"/api/users/{name}").json()["ratings"]
        assert [(ln["variant"], ln["rating"], len(ln["history"])) for ln in lines] == [
            ("fugue", round(expected.rating), 1)
        ]
        games = alice.get(f"/api/users/{name}").json()["games"]
        assert games[0]["id"] == game and games[0]["rated"] is True
    # the next challenge shows the new rating
    res = alice.post("/api/challenges", json={"variant": "fugue", "time_control": "5+3", "rated": True})
    assert res.status_code == 201, res.text
    assert res.json()["challenge"]["player"]["rating"] == round(new_white.rating)
    cid = res.json()["challenge"]["id"]
    assert alice.post(f"/api/challenges/{cid}/cancel", json={}).status_code == 200
    for client in (alice, bob):
        client.close()


def test_rated_challenges_need_accounts_and_a_clock(rated_server: Server) -> None:
    alice, alice_name = account(rated_server, "ralice")
    with httpx.Client(base_url=rated_server.url) as guest:
        guest_body = {"variant": "interweave", "time_control": "3+2", "name": "Wanderer", "player": token()}
        before = {c["id"] for c in challenges(guest)}
        res = guest.post("/api/challenges", json={**guest_body, "rated": True})
        assert res.status_code == 401 and "sign in to post a rated challenge" in res.json()["error"]
        res = alice.post(
            "/api/challenges", json={"variant": "interweave", "time_control": "-", "rated": True}
        )
        assert res.status_code == 400 and "needs a time control" in res.json()["error"]
        res = alice.post(
            "/api/challenges", json={"variant": "interweave", "time_control": "3+2", "rated": "yes"}
        )
        assert res.status_code == 400
        assert {c["id"] for c in challenges(guest)} == before  # nothing was posted

        res = alice.post(
            "/api/challenges", json={"variant": "interweave", "time_control": "2d", "rated": True}
        )
        assert res.status_code == 201, res.text
        cid = res.json()["challenge"]["id"]
        res = guest.post(f"/api/challenges/{cid}/accept", json={"player": token(), "name": "Wanderer"})
        assert res.status_code == 401 and "sign in to accept a rated challenge" in res.json()["error"]
        # the same account in a second browser is still the poster
        with signed_client(rated_server) as again:
            login = again.post("/api/account/login", json={"name": alice_name, "password": PASSWORD})
            assert login.status_code == 200
            res = again.post(f"/api/challenges/{cid}/accept", json={})
            assert res.status_code == 409 and "your own" in res.json()["error"]
            mine = next(c for c in challenges(again) if c["id"] == cid)
            assert mine["status"] == "open"
            # ...and may cancel it from there
            assert again.post(f"/api/challenges/{cid}/cancel", json={}).status_code == 200
        assert cid not in {c["id"] for c in challenges(guest)}

        # a guest's casual challenge accepted by an account: that seat is the account's
        res = guest.post("/api/challenges", json=guest_body)
        assert res.status_code == 201
        cid, guest_secret = res.json()["challenge"]["id"], res.json()["secret"]
        assert res.json()["challenge"]["player"] == {
            "name": "Wanderer",
            "rating": None,
            "provisional": None,
            "account": None,
            "title": None,
        }
        res = alice.post(f"/api/challenges/{cid}/accept", json={})
        assert res.status_code == 200, res.text
        start = res.json()
        state = alice.get(f"/api/games/{start['game']}").json()
        assert state["rated"] is False
        mine, theirs = start["color"], "white" if start["color"] == "black" else "black"
        assert state["players"][mine]["name"] == alice_name
        assert state["players"][mine]["user"]["name"] == alice_name
        assert state["players"][theirs]["name"] == "Wanderer" and state["players"][theirs]["user"] is None
        # the guest plays with the secret they were given when posting
        first = alice if mine == "white" else guest
        body: dict[str, Any] = {"move": "d2-c3", "ply": 0}
        if first is guest:
            body["secret"] = guest_secret
        assert first.post(f"/api/games/{start['game']}/moves", json=body).status_code == 200
    alice.close()


def test_challenges_filtered_by_rating_range(rated_server: Server) -> None:
    variant = "rebelfury"
    me, my_name = account(rated_server, "viewer")
    set_rating(rated_server, my_name, variant, 1600)
    posted: dict[str, str] = {}
    clients = [me]
    for rating in (1550, 1690, 1850, 2100):
        client, name = account(rated_server, f"r{rating}x")
        clients.append(client)
        set_rating(rated_server, name, variant, rating)
        res = client.post("/api/challenges", json={"variant": variant, "time_control": "10+5", "rated": True})
        assert res.status_code == 201, res.text
        posted[res.json()["challenge"]["id"]] = str(rating)
        assert res.json()["challenge"]["player"]["rating"] == rating
        assert res.json()["challenge"]["player"]["provisional"] is False
    res = me.post("/api/challenges", json={"variant": variant, "time_control": "10+5"})
    assert res.status_code == 201
    own = res.json()["challenge"]["id"]
    with httpx.Client(base_url=rated_server.url) as guest:
        res = guest.post(
            "/api/challenges",
            json={"variant": variant, "time_control": "10+5", "name": "G", "player": token()},
        )
        guest_cid = res.json()["challenge"]["id"]

        def seen(spread: int) -> set[str]:
            ids = {c["id"] for c in challenges(me, rating_range=spread)}
            assert own in ids  # one's own challenge is always listed
            assert guest_cid not in ids  # a guest has no rating to compare
            return {posted[c] for c in ids if c in posted}

        assert seen(100) == {"1550", "1690"}
        assert seen(200) == {"1550", "1690"}
        assert seen(300) == {"1550", "1690", "1850"}
        assert seen(3000) == {"1550", "1690", "1850", "2100"}
        everything = {c["id"] for c in challenges(me)}
        assert set(posted) | {own, guest_cid} <= everything
        res = guest.get("/api/challenges", params={"rating_range": 100})
        assert res.status_code == 401 and "a guest has no rating" in res.json()["error"]
        for bad in ("-5", "99999", "wide"):
            res = me.get("/api/challenges", params={"rating_range": bad})
            assert res.status_code in (400, 422), res.text
    # a new account is rated 1500 (provisional) in every game: its range centres there
    newcomer, _ = account(rated_server, "newbie")
    clients.append(newcomer)
    assert {posted[c["id"]] for c in challenges(newcomer, rating_range=100) if c["id"] in posted} == {"1550"}
    for client in clients:
        client.close()


def test_lobby_page_knows_the_signed_in_player(rated_server: Server) -> None:
    alice, name = account(rated_server, "page")
    set_rating(rated_server, name, "interweave", 1712.4, rd=80)
    page = alice.get("/lobby").text
    assert 'id="lobby-me"' in page
    data = page.split('id="lobby-me">', 1)[1].split("</script>", 1)[0]
    me = json.loads(data)
    assert me["name"] == name
    assert me["ratings"]["interweave"] == {"rating": 1712, "provisional": False}
    assert me["ratings"]["fugue"] == {"rating": 1500, "provisional": True}
    with httpx.Client(base_url=rated_server.url) as guest:
        data = guest.get("/lobby").text.split('id="lobby-me">', 1)[1].split("</script>", 1)[0]
        assert json.loads(data) is None
    alice.close()
