"""The lobby: challenges posted, listed, accepted (once), cancelled and expired; display names;
the lobby websocket.  Against a real server of its own (a short grace for departed posters)."""

from __future__ import annotations

import asyncio
import json
import secrets
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from exochess.board import Board
from tests.web.serverproc import LOOSE_LOBBY, Server, recv_until, run_async

GRACE_S = "1"


@pytest.fixture(scope="module")
def lobby_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    # tiny clocks: "0.05+0" (3 seconds) is a time control, so a game can be played out to a flag
    env = {
        "EXOCHESS_LOBBY_GRACE_S": GRACE_S,
        "EXOCHESS_RATE_LIMITS": LOOSE_LOBBY,
        "EXOCHESS_TEST_TINY_CLOCKS": "1",
    }
    srv = Server(tmp_path_factory.mktemp("lobby") / "lobby.sqlite", env=env).start()
    yield srv
    srv.stop()


def token() -> str:
    return secrets.token_urlsafe(18)


def ws_url(server: Server, path: str) -> str:
    return server.url.replace("http", "ws") + path


def post(client: httpx.Client, who: str, **body: Any) -> httpx.Response:
    data = {"variant": "fugue", "time_control": "3+2", "color": "white", "name": "Alice", "player": who}
    return client.post("/api/challenges", json={**data, **body})


def listed(client: httpx.Client) -> set[str]:
    return {c["id"] for c in client.get("/api/challenges").json()["challenges"]}


def wait_for(check: Any, timeout: float = 15.0) -> None:
    """Poll ``check()`` until it is true (the grace time runs on the server's clock)."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.1)


def test_two_clients_meet_through_the_lobby(lobby_server: Server) -> None:
    async def run() -> None:
        alice, bob = token(), token()
        async with (
            websockets.connect(ws_url(lobby_server, "/ws/lobby")) as poster,
            websockets.connect(ws_url(lobby_server, "/ws/lobby")) as watcher,
        ):
            await recv_until(poster, "lobby")
            await recv_until(watcher, "lobby")
            await poster.send(json.dumps({"type": "hello", "player": alice, "ref": 1}))
            assert (await recv_until(poster, "hello"))["ref"] == 1
            await poster.send(
                json.dumps(
                    {
                        "type": "post",
                        "variant": "interweave",
                        "time_control": "3+2",
                        "color": "white",
                        "name": "Alice  Archer",
                        "player": alice,
                        "ref": "p",
                    }
                )
            )
            posted = await recv_until(poster, "posted")
            cid, poster_secret = posted["challenge"]["id"], posted["secret"]
            assert posted["ref"] == "p" and posted["challenge"]["player"] == {
                "name": "Alice Archer",
                "rating": None,
                "provisional": None,
                "account": None,
                "title": None,
            }
            # the watcher sees it without asking; nothing secret is listed
            view = await recv_until(watcher, "lobby", lambda m: any(c["id"] == cid for c in m["challenges"]))
            entry = next(c for c in view["challenges"] if c["id"] == cid)
            assert entry["time_control"]["text"] == "3+2" and entry["color"] == "white"
            assert entry["rated"] is False and entry["variant"] == "interweave"
            assert poster_secret not in json.dumps(view) and "poster_key" not in entry
            # Bob accepts over REST: he gets Black and his secret; Alice's socket learns the game
            async with httpx.AsyncClient(base_url=lobby_server.url) as ac:
                res = await ac.post(f"/api/challenges/{cid}/accept", json={"player": bob, "name": "Bob"})
                assert res.status_code == 200, res.text
                start = res.json()
                assert start["color"] == "black" and start["url"] == f"/game/{start['game']}"
                assert start["secret"] not in start["url"]
                accepted = await recv_until(poster, "accepted", lambda m: m["challenge"] == cid)
                assert accepted == {
                    "type": "accepted",
                    "challenge": cid,
                    "game": start["game"],
                    "poster_color": "white",
                }
                view = await recv_until(
                    watcher, "lobby", lambda m: all(c["id"] != cid for c in m["challenges"])
                )
                live = next(g for g in view["games"] if g["id"] == start["game"])
                assert live["white"]["name"] == "Alice Archer" and live["black"]["name"] == "Bob"
                assert live["time_control"]["text"] == "3+2"
                state = (await ac.get(f"/api/games/{start['game']}")).json()
                assert state["players"]["white"]["name"] == "Alice Archer"
                assert state["players"]["black"]["name"] == "Bob"
                assert state["players"]["white"]["kind"] == state["players"]["black"]["kind"] == "human"
                assert state["time_control"]["text"] == "3+2"
                summary = (await ac.get(f"/api/games?ids={start['game']}")).json()["games"][0]
                assert (summary["white_name"], summary["black_name"]) == ("Alice Archer", "Bob")
                challenge = (await ac.get(f"/api/challenges/{cid}")).json()
                assert challenge["status"] == "accepted" and challenge["game"] == start["game"]
            # both play with the secrets they were given
            game_ws = ws_url(lobby_server, f"/ws/games/{start['game']}")
            async with websockets.connect(game_ws) as w, websockets.connect(game_ws) as b:
                await w.send(json.dumps({"type": "auth", "secret": poster_secret}))
                assert (await recv_until(w, "hello", lambda m: m["you"] is not None))["you"] == "white"
                await b.send(json.dumps({"type": "auth", "secret": start["secret"]}))
                assert (await recv_until(b, "hello", lambda m: m["you"] is not None))["you"] == "black"
                await w.send(json.dumps({"type": "move", "move": "d2-c3", "ply": 0, "ref": 1}))
                await recv_until(w, "ack")
                assert (await recv_until(b, "state", lambda m: m["ply"] == 1))["moves"][0]["text"] == "d2-c3"

    run_async(run)


def test_a_challenge_is_accepted_once_and_never_by_its_poster(lobby_server: Server) -> None:
    async def run() -> None:
        alice = token()
        async with httpx.AsyncClient(base_url=lobby_server.url) as ac:
            res = await ac.post(
                "/api/challenges",
                json={
                    "variant": "fugue",
                    "time_control": "5d",
                    "color": "random",
                    "name": "Alice",
                    "player": alice,
                },
            )
            assert res.status_code == 201, res.text
            cid = res.json()["challenge"]["id"]
            own = await ac.post(f"/api/challenges/{cid}/accept", json={"player": alice, "name": "Alice"})
            assert own.status_code == 409 and "your own" in own.json()["error"]
            # ten acceptors at once: exactly one game
            answers = await asyncio.gather(
                *(
                    ac.post(f"/api/challenges/{cid}/accept", json={"player": token(), "name": f"P{i}"})
                    for i in range(10)
                )
            )
            codes = sorted(a.status_code for a in answers)
            assert codes == [200] + [409] * 9, [a.text for a in answers]
            assert all("accepted" in a.json()["error"] for a in answers if a.status_code == 409)
            winner = next(a.json() for a in answers if a.status_code == 200)
            late = await ac.post(f"/api/challenges/{cid}/accept", json={"player": token(), "name": "Late"})
            assert late.status_code == 409
            cancel = await ac.post(f"/api/challenges/{cid}/cancel", json={"player": alice})
            assert cancel.status_code == 409
            challenge = (await ac.get(f"/api/challenges/{cid}")).json()
            assert challenge["game"] == winner["game"] and challenge["poster_color"] != winner["color"]
            assert cid not in {c["id"] for c in (await ac.get("/api/challenges")).json()["challenges"]}

    run_async(run)
    # the database holds one game for the challenge, not ten
    con = sqlite3.connect(lobby_server.db_path)
    game = con.execute(
        "SELECT game_id FROM challenges WHERE status = 'accepted' AND time_control = '5d'"
    ).fetchall()
    assert len(game) == 1
    con.close()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"time_control": "999+0"}, "at most 180 minutes"),
        ({"time_control": "0+0"}, "some time or an increment"),
        ({"time_control": "4d"}, "days per move must be one of"),
        ({"time_control": "fast"}, "not understood"),
        ({"variant": "checkers"}, "checkers"),
        ({"color": "green"}, "'color'"),
        ({"name": "   "}, "display name is required"),
        ({"name": "x" * 25}, "at most 24 characters"),
        ({"name": "bad\u0007name"}, "control"),
        ({"player": "short"}, "player must be a random token"),
        ({"player": 12345678901234567890}, "'player'"),
    ],
)
def test_bad_challenges_are_refused_and_change_nothing(
    lobby_server: Server, body: dict[str, Any], message: str
) -> None:
    with httpx.Client(base_url=lobby_server.url) as client:
        before = listed(client)
        res = post(client, token(), **body)
        assert res.status_code == 400, res.text
        assert message in res.json()["error"]
        assert listed(client) == before


def test_open_challenges_per_player_are_capped_and_only_the_poster_cancels(lobby_server: Server) -> None:
    alice = token()
    with httpx.Client(base_url=lobby_server.url) as client:
        ids = [post(client, alice, time_control=f"{d}d").json()["challenge"]["id"] for d in (1, 2, 3)]
        fourth = post(client, alice, time_control="7d")
        assert fourth.status_code == 409 and "at most 3" in fourth.json()["error"]
        assert set(ids) <= listed(client)
        other = client.post(f"/api/challenges/{ids[0]}/cancel", json={"player": token()})
        assert other.status_code == 409 and "only its poster" in other.json()["error"]
        unknown = client.post("/api/challenges/nosuchid/cancel", json={"player": alice})
        assert unknown.status_code == 404 and "unknown challenge" in unknown.json()["error"]
        for cid in ids:
            assert client.post(f"/api/challenges/{cid}/cancel", json={"player": alice}).status_code == 200
        assert not set(ids) & listed(client)
        assert client.get(f"/api/challenges/{ids[0]}").status_code == 404
        again = post(client, alice, time_control="7d")
        assert again.status_code == 201
        cid = again.json()["challenge"]["id"]
        assert client.post(f"/api/challenges/{cid}/cancel", json={"player": alice}).status_code == 200


def test_real_time_challenge_leaves_with_its_poster(lobby_server: Server) -> None:
    alice = token()

    async def post_and_leave(reload: bool) -> tuple[str, str]:
        url = ws_url(lobby_server, "/ws/lobby")
        async with websockets.connect(url) as ws:
            await ws.send(json.dumps({"type": "hello", "player": alice}))
            await recv_until(ws, "hello")
            for tc in ("1+0", "2d"):
                await ws.send(
                    json.dumps(
                        {
                            "type": "post",
                            "variant": "rebelfury",
                            "time_control": tc,
                            "color": "black",
                            "name": "Alice",
                            "player": alice,
                        }
                    )
                )
            realtime = (await recv_until(ws, "posted"))["challenge"]["id"]
            lasting = (await recv_until(ws, "posted"))["challenge"]["id"]
        if reload:  # a reload: a new socket of the same player within the grace time
            async with websockets.connect(url) as ws:
                await ws.send(json.dumps({"type": "hello", "player": alice}))
                await recv_until(ws, "hello")
                await asyncio.sleep(2.5 * float(GRACE_S))
                async with httpx.AsyncClient(base_url=lobby_server.url) as ac:
                    ids = {c["id"] for c in (await ac.get("/api/challenges")).json()["challenges"]}
                assert realtime in ids, "a reload within the grace time keeps the challenge"
        return realtime, lasting

    with httpx.Client(base_url=lobby_server.url) as client:
        realtime, lasting = run_async(lambda: post_and_leave(reload=True))
        # the socket of the reload closed too: now the real-time one goes, the correspondence one stays
        wait_for(lambda: realtime not in listed(client))
        assert lasting in listed(client)
        assert client.get(f"/api/challenges/{realtime}").status_code == 404
        assert client.post(f"/api/challenges/{lasting}/cancel", json={"player": alice}).status_code == 200


def test_lobby_socket_errors_and_floods(lobby_server: Server) -> None:
    async def run() -> None:
        async with websockets.connect(ws_url(lobby_server, "/ws/lobby")) as ws:
            await recv_until(ws, "lobby")
            await ws.send("{nope")
            assert "malformed JSON" in (await recv_until(ws, "error"))["error"]
            await ws.send(json.dumps({"type": "dance", "ref": 3}))
            err = await recv_until(ws, "error")
            assert "unknown message type" in err["error"] and err["ref"] == 3
            await ws.send(
                json.dumps({"type": "accept", "id": "nosuch", "name": "X", "player": token(), "ref": 4})
            )
            err = await recv_until(ws, "error")
            assert err["status"] == 404 and err["ref"] == 4
            for _ in range(40):
                await ws.send(json.dumps({"type": "ping"}))
            err = await recv_until(ws, "error")
            assert err["status"] == 429 and "slow down" in err["error"]

    run_async(run)


def test_correspondence_challenge_survives_a_restart(tmp_path: Path) -> None:
    env = {"EXOCHESS_LOBBY_GRACE_S": GRACE_S}
    server = Server(tmp_path / "restart.sqlite", env=env).start()
    alice = token()
    try:
        with httpx.Client(base_url=server.url) as client:
            lasting = post(client, alice, time_control="3d", name="Alice").json()
            realtime = post(client, alice, time_control="10+5").json()["challenge"]["id"]
        server.kill()
        server.start()
        with httpx.Client(base_url=server.url) as client:
            wait_for(lambda: realtime not in listed(client))
            cid = lasting["challenge"]["id"]
            assert cid in listed(client)
            res = client.post(f"/api/challenges/{cid}/accept", json={"player": token(), "name": "Bob"})
            assert res.status_code == 200, res.text
            game = res.json()["game"]
            # the poster, back days later, finds the game and takes its seat with the secret it kept
            challenge = client.get(f"/api/challenges/{cid}").json()
            assert challenge["game"] == game and challenge["poster_color"] == "white"

        async def seat() -> str | None:
            async with websockets.connect(ws_url(server, f"/ws/games/{game}")) as ws:
                await ws.send(json.dumps({"type": "auth", "secret": lasting["secret"]}))
                return (await recv_until(ws, "hello", lambda m: m["you"] is not None))["you"]  # type: ignore[no-any-return]

        assert run_async(seat) == "white"
    finally:
        server.stop()


def test_watchers_see_every_change_of_a_burst(lobby_server: Server) -> None:
    """Challenges posted and cancelled all at once: the watcher's last view has them all, then
    none (a change that lands while the view is being built is sent in a view after it)."""
    players = [token() for _ in range(8)]

    async def run() -> None:
        # each player from an address of its own: the view lists at most 3 of one address
        clients = [
            httpx.AsyncClient(
                base_url=lobby_server.url,
                transport=httpx.AsyncHTTPTransport(local_address=f"127.0.7.{i + 1}"),
            )
            for i in range(len(players))
        ]
        async with websockets.connect(ws_url(lobby_server, "/ws/lobby")) as watcher:
            await recv_until(watcher, "lobby")
            body = {"variant": "fugue", "time_control": "5d", "color": "random", "name": "Burst"}
            answers = await asyncio.gather(
                *(
                    ac.post("/api/challenges", json={**body, "player": p})
                    for ac, p in zip(clients, players, strict=True)
                )
            )
            assert all(res.status_code == 201 for res in answers)
            ids = {res.json()["challenge"]["id"] for res in answers}
            await recv_until(watcher, "lobby", lambda m: ids <= {c["id"] for c in m["challenges"]})
            cancels = await asyncio.gather(
                *(
                    ac.post(f"/api/challenges/{r.json()['challenge']['id']}/cancel", json={"player": p})
                    for ac, r, p in zip(clients, answers, players, strict=True)
                )
            )
            assert all(res.status_code == 200 for res in cancels)
            await recv_until(watcher, "lobby", lambda m: not ids & {c["id"] for c in m["challenges"]})
        for ac in clients:
            await ac.aclose()

    run_async(run)


def test_strangers_meet_and_the_one_who_leaves_loses_on_time(lobby_server: Server) -> None:
    """Two guests meet through the lobby on a 3-second clock, play, and both go away: the
    server alone flags Black, who was to move (read from its database, asked nothing)."""
    with httpx.Client(base_url=lobby_server.url) as client:
        posted = post(client, token(), time_control="0.05+0", name="Ann").json()
        res = client.post(
            f"/api/challenges/{posted['challenge']['id']}/accept", json={"player": token(), "name": "Ben"}
        )
        assert res.status_code == 200, res.text
        start = res.json()
    game = start["game"]
    secrets_by_color = {"white": posted["secret"], "black": start["secret"]}
    url = ws_url(lobby_server, f"/ws/games/{game}")

    async def play_three_moves() -> dict[str, Any]:
        async with websockets.connect(url) as w, websockets.connect(url) as b:
            socks = {"white": w, "black": b}
            for color, sock in socks.items():
                await sock.send(json.dumps({"type": "auth", "secret": secrets_by_color[color]}))
                await recv_until(sock, "hello", lambda m: m["you"] is not None)
            async with httpx.AsyncClient(base_url=lobby_server.url) as ac:
                state: dict[str, Any] = (await ac.get(f"/api/games/{game}")).json()
            for ply in range(3):
                mover = socks[state["turn"]]
                move = sorted(str(m) for m in Board("fugue", fen=state["fen"]).legal_moves)[0]
                await mover.send(json.dumps({"type": "move", "move": move, "ply": ply, "ref": ply}))
                state = await recv_until(mover, "state", lambda m, p=ply: m["ply"] == p + 1)
            return state

    state = run_async(play_three_moves)
    assert state["clock"]["running"] == "black" and state["clock"]["black_ms"] == 3000

    def stored() -> tuple[str, str | None, str | None]:
        with sqlite3.connect(lobby_server.db_path) as db:
            row = db.execute("SELECT status, result, termination FROM games WHERE id = ?", (game,)).fetchone()
        return row[0], row[1], row[2]

    wait_for(lambda: stored()[0] == "finished", timeout=30.0)
    assert stored() == ("finished", "1-0", "time forfeit")
    with httpx.Client(base_url=lobby_server.url) as client:
        final = client.get(f"/api/games/{game}").json()
        assert final["reason"] == "White wins on time"
        assert (final["players"]["white"]["name"], final["players"]["black"]["name"]) == ("Ann", "Ben")
