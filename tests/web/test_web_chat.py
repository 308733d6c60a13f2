"""The game chat on the websocket: players write, spectators read, limits, history, PGN."""

from __future__ import annotations

import json
import secrets
from typing import Any

import httpx
import websockets

from tests.web.serverproc import Server, recv_until, run_async


def lobby_game(server: Server) -> tuple[str, str, str]:
    """A game made through the lobby between "Ann" (White) and "Ben": (id, White's secret, Black's)."""
    with httpx.Client(base_url=server.url) as client:
        posted = client.post(
            "/api/challenges",
            json={
                "variant": "fugue",
                "time_control": "10+5",
                "color": "white",
                "name": "Ann",
                "player": secrets.token_urlsafe(18),
            },
        ).json()
        start = client.post(
            f"/api/challenges/{posted['challenge']['id']}/accept",
            json={"player": secrets.token_urlsafe(18), "name": "Ben"},
        ).json()
    return start["game"], posted["secret"], start["secret"]


async def seat(url: str, secret: str) -> Any:
    ws = await websockets.connect(url)
    await ws.send(json.dumps({"type": "auth", "secret": secret}))
    await recv_until(ws, "hello", lambda m: m["you"] is not None)
    return ws


def test_players_chat_and_spectators_read(server: Server) -> None:
    game, white, black = lobby_game(server)
    url = server.url.replace("http", "ws") + f"/ws/games/{game}"

    async def run() -> None:
        async with (
            await seat(url, white) as w,
            await seat(url, black) as b,
            websockets.connect(url) as spectator,
        ):
            await recv_until(spectator, "state")  # no chat yet: no history message
            markup = '<img src=x onerror="alert(1)"> hello  }{ there'
            await w.send(json.dumps({"type": "chat", "text": markup, "ref": "c1"}))
            for sock in (w, b, spectator):  # the writer too: the line, then the ack
                line = (await recv_until(sock, "chat", lambda m: not m.get("history")))["lines"][0]
                # kept as written (white space collapsed): pages show it as text, never as HTML
                assert line["text"] == '<img src=x onerror="alert(1)"> hello }{ there'
                assert (line["color"], line["name"], line["ply"]) == ("white", "Ann", 0)
            assert (await recv_until(w, "ack"))["ref"] == "c1"
            await b.send(json.dumps({"type": "move", "move": "d2-d3", "ply": 0}))
            assert "not your turn" in (await recv_until(b, "error"))["error"]
            await w.send(json.dumps({"type": "move", "move": "d2-d3", "ply": 0}))
            await recv_until(b, "state", lambda m: m["ply"] == 1)
            await b.send(json.dumps({"type": "chat", "text": "good luck", "ref": "c2"}))
            assert (await recv_until(spectator, "chat", lambda m: not m.get("history")))["lines"][0][
                "ply"
            ] == 1
            # spectators read only; limits are clear errors that store nothing
            await spectator.send(json.dumps({"type": "chat", "text": "hi all", "ref": "s"}))
            err = await recv_until(spectator, "error")
            assert err["status"] == 401 and "spectators" in err["error"] and err["ref"] == "s"
            await b.send(json.dumps({"type": "chat", "text": "x" * 141, "ref": "long"}))
            err = await recv_until(b, "error")
            assert err["status"] == 400 and "at most 140" in err["error"] and err["ref"] == "long"
            await b.send(json.dumps({"type": "chat", "text": "   ", "ref": "empty"}))
            assert "cannot be empty" in (await recv_until(b, "error"))["error"]
            await b.send(json.dumps({"type": "chat", "text": 5, "ref": "num"}))
            assert (await recv_until(b, "error"))["status"] == 400
            for i in range(8):
                await w.send(json.dumps({"type": "chat", "text": f"spam {i}", "ref": f"f{i}"}))
            err = await recv_until(w, "error")
            assert err["status"] == 429 and "chat: at most" in err["error"]
        # a newcomer gets the stored lines, oldest first
        async with websockets.connect(url) as late:
            lines = (await recv_until(late, "chat"))["lines"]
            assert lines[0]["name"] == "Ann" and lines[1]["text"] == "good luck"
            assert all(line["text"] != "x" * 141 for line in lines)
            assert len(lines) < 2 + 8

    run_async(run)
    with httpx.Client(base_url=server.url) as client:
        plain = client.get(f"/api/games/{game}/pgn").text
        # no chat without asking (the only comments are the moves' clocks)
        assert "[Ann]" not in plain and "[Ben]" not in plain
        assert '[White "Ann"]' in plain and '[Black "Ben"]' in plain
        with_chat = client.get(f"/api/games/{game}/pgn?chat=1").text
        # before the first move Ann's line, after it Ben's; a brace cannot end the comment early
        assert '{[Ann] <img src=x onerror="alert(1)"> hello ){ there' in with_chat
        assert "1. d2-d3 {[%clk 0:10:00] [Ben] good luck" in " ".join(
            with_chat.split()
        )  # wherever lines wrap
        assert client.get(f"/api/games/{game}/pgn?chat=maybe").status_code == 400
