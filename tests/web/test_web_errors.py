"""Bad input gets a 4xx JSON error naming the problem, never a 500, on every endpoint; service
errors map to HTTP statuses in one table (web/http/errors.py); the storage table and its row type agree."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import httpx
import pytest
import websockets

from exochess.web import domain
from exochess.web.http.errors import STATUS, status_of, validation_message
from exochess.web.storage.store import GameRow, games
from tests.web.serverproc import Server, create, run_async


def service_error_classes() -> list[type[domain.GameServiceError]]:
    found = []
    todo: list[type[domain.GameServiceError]] = [domain.GameServiceError]
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo.extend(cls.__subclasses__())
    return found


@pytest.mark.parametrize("cls", [c for c in service_error_classes() if c is not domain.GameServiceError])
def test_every_service_error_has_a_client_error_status(cls: type[domain.GameServiceError]) -> None:
    exc = cls("x") if cls is not domain.GameNotFound else domain.GameNotFound("x")
    status = status_of(exc)
    assert any(issubclass(cls, listed) for listed in STATUS), cls
    # the engine being off, failing or saturated, or the database busy, is the server's
    # condition, not the client's
    server_side = (domain.EngineDisabled, domain.EngineBusy, domain.StorageUnavailable, domain.ServerBusy)
    assert 400 <= status < 500 or (
        issubclass(cls, server_side) and cls is not domain.TooManyEngineJobs and status == 503
    )


def test_conflicts_are_409_and_the_rest_keep_their_codes() -> None:
    assert {status_of(e("m")) for e in (domain.GameOver, domain.NotYourTurn, domain.StalePosition)} == {409}
    assert status_of(domain.IllegalMove("m")) == 422
    assert status_of(domain.SecretRequired("m")) == 401
    assert status_of(domain.WrongSeat("m")) == 403
    assert status_of(domain.GameNotFound("g")) == 404


def test_validation_messages_name_the_field() -> None:
    errors = [{"type": "int_type", "loc": ("body", "ply"), "msg": "Input should be a valid integer"}]
    assert validation_message(errors) == "bad request: 'ply': Input should be a valid integer"
    assert validation_message([{"type": "missing", "loc": ("body",), "msg": "Field required"}]) == (
        "a JSON object body is required"
    )


def test_the_row_type_has_one_field_per_column() -> None:
    fields = [f.name for f in dataclasses.fields(GameRow)]
    assert fields == [c.name for c in games.columns] + ["moves", "stamps"]


def friend_game(client: httpx.Client) -> tuple[str, str, str]:
    data = create(client, variant="fugue", opponent="friend", color="white")
    return data["id"], data["seats"]["white"]["secret"], data["seats"]["black"]["secret"]


def test_wrong_types_and_shapes_are_400_naming_the_field(client: httpx.Client) -> None:
    gid, white, _black = friend_game(client)
    moves = f"/api/games/{gid}/moves"
    cases: list[tuple[str, Any, str]] = [
        (moves, {"move": "d2-d3", "secret": white, "ply": True}, "ply"),
        (moves, {"move": "d2-d3", "secret": white, "ply": "0"}, "ply"),
        (moves, {"move": 5, "secret": white}, "move"),
        (moves, {"secret": white}, "move"),
        (moves, {"move": "d2-d3", "secret": 12}, "secret"),
        (moves, {"move": "   ", "secret": white}, "move is required"),
        (f"/api/games/{gid}/takeback", {"secret": white, "action": "maybe"}, "action"),
        ("/api/games", {"variant": 3, "opponent": "friend"}, "variant"),
        ("/api/games", {"variant": "fugue"}, "opponent"),
        ("/api/games", {"variant": "fugue", "opponent": "friend", "color": "green"}, "color"),
        ("/api/games", {"variant": "fugue", "opponent": "computer", "level": "3"}, "level"),
        ("/api/games", {"variant": "fugue", "opponent": "friend", "fen": 1}, "fen"),
        ("/api/position", {"variant": "fugue", "moves": "d2-d3"}, "moves"),
        ("/api/position", {"variant": "fugue", "moves": [1]}, "moves"),
        ("/api/position", {"variant": "chess"}, "unknown variant"),
        ("/api/position", {"variant": "fugue", "fen": "nonsense w"}, "fen"),
        ("/api/analyse", {"variant": "fugue", "movetime_ms": 5}, "movetime_ms"),
        ("/api/analyse", {"variant": "fugue", "movetime_ms": 1.5}, "movetime_ms"),
    ]
    for url, body, words in cases:
        res = client.post(url, json=body)
        assert res.status_code == 400, (url, body, res.status_code, res.text)
        assert words.lower() in res.json()["error"].lower(), (body, res.text)
    assert client.get("/api/games?limit=many").status_code == 400
    assert client.get(f"/api/games/{gid}").json()["ply"] == 0


def test_bodies_that_are_not_json_objects(client: httpx.Client) -> None:
    gid, _white, _black = friend_game(client)
    url = f"/api/games/{gid}/resign"
    json_type = {"content-type": "application/json"}
    cases = [
        (client.post(url, content=b"", headers=json_type), "body is required"),
        (client.post(url, content=b'"text"', headers=json_type), "object"),
        (client.post(url, content=b"null", headers=json_type), "object"),
        (client.post(url, content=b"\xff\xfe", headers=json_type), "malformed JSON"),
        (client.post(url, content=b'{"secret": ', headers=json_type), "malformed JSON"),
    ]
    for res, words in cases:
        assert res.status_code == 400, (res.status_code, res.text)
        assert words.lower() in res.json()["error"].lower(), res.text
    # without the JSON content type nothing is read at all (see test_web_hardening.py)
    for res in (
        client.post(url),
        client.post(url, content=b"secret=x", headers={"content-type": "text/plain"}),
    ):
        assert res.status_code == 415, res.text
    assert client.get(f"/api/games/{gid}").json()["status"] == "active"


def test_unknown_game_is_404_on_every_game_endpoint(client: httpx.Client) -> None:
    for method, path, body in [
        ("GET", "/api/games/nope", None),
        ("GET", "/api/games/nope/pgn", None),
        ("POST", "/api/games/nope/moves", {"move": "d2-d3", "secret": "s"}),
        ("POST", "/api/games/nope/resign", {"secret": "s"}),
        ("POST", "/api/games/nope/takeback", {"secret": "s", "action": "offer"}),
        ("POST", "/api/games/nope/rematch", {"secret": "s"}),
        ("POST", "/api/games/nope/evaluate", {}),
        ("GET", "/api/games/" + "x" * 200, None),
    ]:
        res = client.request(method, path, json=body)
        assert res.status_code == 404, (path, res.text)
        assert "unknown game" in res.json()["error"]
    page = client.get("/game/nope")
    assert page.status_code == 404 and "unknown game" in page.text and "<html" in page.text
    assert 'href="/rules/fugue"' in page.text  # the error page keeps the site's menu
    missing = client.get("/no/such/page")
    assert missing.status_code == 404 and "does not exist" in missing.text
    api_missing = client.get("/api/no/such/thing")
    assert api_missing.status_code == 404 and api_missing.json()["error"]


def test_method_not_allowed_is_a_json_error(client: httpx.Client) -> None:
    res = client.get("/api/position")
    assert res.status_code == 405 and res.json()["error"]


def test_websocket_messages_with_wrong_types(server: Server) -> None:
    async def run() -> None:
        async with httpx.AsyncClient(base_url=server.url) as ac:
            data = (await ac.post("/api/games", json={"variant": "fugue", "opponent": "friend"})).json()
        url = server.url.replace("http", "ws") + f"/ws/games/{data['id']}"
        async with websockets.connect(url) as ws:
            await ws.send(json.dumps({"type": "auth", "secret": data["seats"]["white"]["secret"]}))

            async def reply_to(message: Any) -> dict[str, Any]:
                await ws.send(json.dumps(message))
                while True:
                    msg: dict[str, Any] = json.loads(await ws.recv())
                    if msg["type"] in ("error", "ack", "pong"):
                        return msg

            pong = await reply_to({"type": "ping", "ref": 3})
            assert (pong["type"], pong["ref"], type(pong["now"])) == ("pong", 3, int)
            err = await reply_to({"type": "dance", "ref": 4})
            assert "unknown message type" in err["error"] and err["ref"] == 4
            err = await reply_to({"type": "move", "move": 17, "ref": 5})
            assert err["status"] == 400 and "'move'" in err["error"] and err["ref"] == 5
            err = await reply_to({"type": "move", "move": "d2-d3", "ply": "zero"})
            assert err["status"] == 400 and "'ply'" in err["error"]
            err = await reply_to({"type": "move", "move": "d2-d5"})
            assert err["status"] == 422 and "illegal" in err["error"]
            err = await reply_to({"type": "auth", "secret": 42})
            assert err["status"] == 403 and "wrong seat secret" in err["error"]
            assert (await reply_to({"type": "move", "move": "d2-d3", "ply": 0, "ref": 6}))["type"] == "ack"

    run_async(run)
