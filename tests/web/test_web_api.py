"""JSON API against a real server: creating, playing, errors, concurrency, takeback, rematch, PGN."""

from __future__ import annotations

import asyncio
import html
import time
from typing import Any

import httpx

from tests.helpers import wait_until
from tests.web.legaltree import whole_moves
from tests.web.serverproc import create, run_async

START = "wlqksaui/pppppppp/8/8/8/8/PPPPPPPP/IUASKQLW w"


def friend_game(client: httpx.Client, **extra: Any) -> tuple[str, str, str]:
    data = create(client, variant="fugue", opponent="friend", color="white", **extra)
    return data["id"], data["seats"]["white"]["secret"], data["seats"]["black"]["secret"]


def move(
    client: httpx.Client, gid: str, secret: str | None, text: str, ply: int | None = None
) -> httpx.Response:
    body: dict[str, Any] = {"move": text}
    if secret is not None:
        body["secret"] = secret
    if ply is not None:
        body["ply"] = ply
    return client.post(f"/api/games/{gid}/moves", json=body)


def test_variants_and_pages(client: httpx.Client) -> None:
    data = client.get("/api/variants").json()
    names = [v["name"] for v in data["variants"]]
    assert "fugue" in names
    for path in ["/", "/new", "/games", "/analysis", "/rules/fugue"]:
        res = client.get(path)
        assert res.status_code == 200, path
        assert "exochess" in res.text
    assert client.get("/rules/nonsense").status_code == 404
    assert client.get("/game/doesnotexist").status_code == 404


def test_friend_game_flow(client: httpx.Client) -> None:
    gid, white, black = friend_game(client)
    state = client.get(f"/api/games/{gid}").json()
    assert state["fen"] == START and state["ply"] == 0 and state["turn"] == "white"
    assert len(state["legal"]) == 22
    shot = next(m for m in whole_moves(state["legal"]) if m["text"] == "d2-d3")
    assert shot["from"] == "d2" and shot["to"] == "d3" and shot["actions"][0]["changes"]
    res = move(client, gid, white, "d2-d3", 0)
    assert res.status_code == 200, res.text
    state = res.json()
    assert state["ply"] == 1 and state["moves"][0]["text"] == "d2-d3" and state["turn"] == "black"
    assert move(client, gid, black, "e7-e6", 1).status_code == 200
    state = client.get(f"/api/games/{gid}").json()
    assert [m["text"] for m in state["moves"]] == ["d2-d3", "e7-e6"]
    assert len(state["fens"]) == 3


def test_bad_input(client: httpx.Client) -> None:
    gid, white, black = friend_game(client)
    url = f"/api/games/{gid}/moves"
    cases = [
        (
            client.post(url, content=b"{not json", headers={"content-type": "application/json"}),
            400,
            "malformed JSON",
        ),
        (client.post(url, json=[1, 2]), 400, "object"),
        (client.post("/api/games/nope/moves", json={"move": "d2-d3", "secret": white}), 404, "unknown game"),
        (move(client, gid, white, "d2-d5"), 422, "illegal"),
        (move(client, gid, white, "z9-q1"), 400, "malformed"),
        (move(client, gid, black, "e7-e6"), 409, "not your turn"),
        (move(client, gid, "wrong", "d2-d3"), 403, "wrong seat secret"),
        (move(client, gid, None, "d2-d3"), 401, "secret is required"),
        (move(client, gid, white, "d2-d3", ply=5), 409, "stale"),
        (
            client.post(
                url, content=b"{" + b" " * 20000 + b"}", headers={"content-type": "application/json"}
            ),
            413,
            "too large",
        ),
        (
            client.post(
                url, content=iter([b"{" + b" " * 10000] * 3), headers={"content-type": "application/json"}
            ),
            413,
            "too large",
        ),  # chunked, no length
        (client.post("/api/games", json={"variant": "chess", "opponent": "friend"}), 400, "unknown variant"),
        (
            client.post("/api/games", json={"variant": "fugue", "opponent": "friend", "fen": "xx w"}),
            400,
            "FEN",
        ),
        (
            client.post("/api/games", json={"variant": "fugue", "opponent": "computer", "level": 99}),
            400,
            "level",
        ),
        (client.post("/api/games", json={"variant": "fugue", "opponent": "martian"}), 400, "opponent"),
        (
            client.post(f"/api/games/{gid}/takeback", json={"secret": white, "action": "offer"}),
            409,
            "no move",
        ),
        (client.post(f"/api/games/{gid}/rematch", json={"secret": white}), 409, "still being played"),
        (client.post("/api/position", json={"variant": "fugue", "moves": ["d2-d5"]}), 422, "illegal"),
    ]
    for res, status, words in cases:
        assert res.status_code == status, (res.status_code, res.text)
        assert words.lower() in res.json()["error"].lower(), res.text
    state = client.get(f"/api/games/{gid}").json()
    assert state["ply"] == 0 and state["moves"] == []


def test_two_moves_at_once_exactly_one_accepted(server: Any) -> None:
    async def race() -> list[httpx.Response]:
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as ac:
            res = await ac.post(
                "/api/games", json={"variant": "fugue", "opponent": "friend", "color": "white"}
            )
            data = res.json()
            gid, white = data["id"], data["seats"]["white"]["secret"]
            texts = ["d2-d3", "e2-e3", "a2-a3", "h2-h3", "c2-c3", "f2-f3"]
            results = await asyncio.gather(
                *(
                    ac.post(f"/api/games/{gid}/moves", json={"move": t, "secret": white, "ply": 0})
                    for t in texts
                )
            )
            state = (await ac.get(f"/api/games/{gid}")).json()
            assert state["ply"] == 1
            return list(results)

    results = run_async(race)
    codes = sorted(r.status_code for r in results)
    assert codes == [200, 409, 409, 409, 409, 409], codes


def test_resign_takeback_rematch_pgn(client: httpx.Client) -> None:
    gid, white, black = friend_game(client)
    assert move(client, gid, white, "d2-d3").status_code == 200
    assert move(client, gid, black, "e7-e6").status_code == 200
    # White asks to take back d2-d3 (two plies), Black accepts
    res = client.post(f"/api/games/{gid}/takeback", json={"secret": white, "action": "offer"})
    assert res.status_code == 200 and res.json()["takeback_offer"] == "white"
    res = client.post(f"/api/games/{gid}/takeback", json={"secret": white, "action": "accept"})
    assert res.status_code == 409
    res = client.post(f"/api/games/{gid}/takeback", json={"secret": black, "action": "accept"})
    assert res.status_code == 200, res.text
    assert res.json()["ply"] == 0 and res.json()["takeback_offer"] is None
    assert move(client, gid, white, "a2-a3").status_code == 200
    res = client.post(f"/api/games/{gid}/resign", json={"secret": black})
    state = res.json()
    assert state["status"] == "finished" and state["result"] == "1-0" and "resigned" in state["reason"]
    assert move(client, gid, black, "e7-e6").status_code == 409
    pgn = client.get(f"/api/games/{gid}/pgn")
    assert pgn.status_code == 200 and "a2-a3" in pgn.text and '[Result "1-0"]' in pgn.text
    r1 = client.post(f"/api/games/{gid}/rematch", json={"secret": white}).json()
    r2 = client.post(f"/api/games/{gid}/rematch", json={"secret": black}).json()
    assert r1["id"] == r2["id"] and r1["color"] == "black" and r2["color"] == "white"
    assert move(client, r1["id"], r2["secret"], "d2-d3").status_code == 200
    assert move(client, r1["id"], r1["secret"], "d7-d6").status_code == 200
    ids = {g["id"] for g in client.get(f"/api/games?ids={gid},{r1['id']}").json()["games"]}
    assert ids == {gid, r1["id"]}


def test_game_end_by_king_capture_and_fen_start(client: httpx.Client) -> None:
    data = create(client, variant="fugue", opponent="friend", color="white", fen="kK5p/1I6/8/8/8/8/8/8 w")
    gid, white = data["id"], data["seats"]["white"]["secret"]
    res = move(client, gid, white, "b8xa8")
    state = res.json()
    assert state["status"] == "finished" and state["result"] == "1-0"
    assert state["termination"] == "royal capture" and "King captured" in state["reason"]
    assert state["legal"] == []


def test_computer_random_level(client: httpx.Client) -> None:
    data = create(client, variant="fugue", opponent="computer", level=0, color="black")
    gid = data["id"]
    assert "black" in data["seats"] and "white" not in data["seats"]
    state = wait_until(lambda: client.get(f"/api/games/{gid}").json(), lambda s: s["ply"] == 1)
    assert state["ply"] == 1 and state["turn"] == "black"
    secret = data["seats"]["black"]["secret"]
    text = whole_moves(state["legal"])[0]["text"]
    assert move(client, gid, secret, text, 1).status_code == 200


def test_analysis_position(client: httpx.Client) -> None:
    res = client.post("/api/position", json={"variant": "fugue", "moves": ["d2-d3", "e7-e6"]})
    pos = res.json()
    assert pos["ply"] == 2 and pos["turn"] == "white" and len(pos["fens"]) == 3 and pos["legal"]
    res = client.post("/api/position", json={"variant": "fugue", "fen": "kK5p/1I6/8/8/8/8/8/8 w"})
    assert any(m["text"] == "b8xa8" for m in whole_moves(res.json()["legal"]))


def test_engine_levels_follow_what_is_installed(client: httpx.Client) -> None:
    info = client.get("/api/variants").json()
    res = client.post(
        "/api/games", json={"variant": "fugue", "opponent": "computer", "level": 2, "color": "black"}
    )
    evaluation = client.post("/api/analyse", json={"variant": "fugue", "movetime_ms": 200})
    if not info["engine"]:
        assert res.status_code == 503 and "engine" in res.json()["error"]
        assert evaluation.status_code == 503 and "engine" in evaluation.json()["error"]
        return
    assert res.status_code == 201, res.text
    gid = res.json()["id"]
    state = wait_until(lambda: client.get(f"/api/games/{gid}").json(), lambda s: s["ply"] == 1)
    assert state["ply"] == 1
    assert evaluation.status_code == 200, evaluation.text
    body = evaluation.json()
    assert body["pv"] and isinstance(body["depth"], int)


def test_rules_pages(client: httpx.Client) -> None:
    for v in client.get("/api/variants").json()["variants"]:
        page = client.get(f"/rules/{v['name']}")
        assert page.status_code == 200 and v["title"] in page.text
        assert "<article" in page.text  # the rendered rules HTML is inserted as markup, not escaped
        if v["starting_position_note"]:
            assert v["starting_position_note"] in html.unescape(page.text)


def test_takeback_and_rematch_against_the_computer(client: httpx.Client) -> None:
    data = create(client, variant="fugue", opponent="computer", level=0, color="white")
    gid, secret = data["id"], data["seats"]["white"]["secret"]
    assert move(client, gid, secret, "d2-d3", 0).status_code == 200
    wait_until(lambda: client.get(f"/api/games/{gid}").json()["ply"] == 2)
    res = client.post(f"/api/games/{gid}/takeback", json={"secret": secret, "action": "offer"})
    assert res.status_code == 200, res.text
    state = res.json()
    assert state["ply"] == 0 and state["turn"] == "white" and state["moves"] == []
    time.sleep(0.3)
    assert client.get(f"/api/games/{gid}").json()["ply"] == 0  # the computer waits for White
    assert client.post(f"/api/games/{gid}/resign", json={"secret": secret}).json()["result"] == "0-1"
    again = client.post(f"/api/games/{gid}/rematch", json={"secret": secret}).json()
    assert again["color"] == "black"
    # the computer has White now and moves first
    st = wait_until(lambda: client.get(f"/api/games/{again['id']}").json(), lambda s: s["ply"] == 1)
    assert st["ply"] == 1 and st["players"]["white"]["kind"] == "engine"
