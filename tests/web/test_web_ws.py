"""Websockets: live updates to players and spectators, errors, reconnection; restart durability."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import websockets

from tests.helpers import wait_until
from tests.web.legaltree import whole_moves
from tests.web.serverproc import Server, recv_until, run_async


async def seated(url: str, secret: str) -> Any:
    """A connection that claims its seat with an ``auth`` message (secrets never go in a URL)."""
    ws = await websockets.connect(url)
    await ws.send(json.dumps({"type": "auth", "secret": secret}))
    return ws


def you(seat: str | None) -> Any:
    return lambda m: m["you"] == seat


def test_live_updates_and_errors(server: Server) -> None:
    async def run() -> None:
        async with httpx.AsyncClient(base_url=server.url) as ac:
            data = (await ac.post("/api/games", json={"variant": "fugue", "opponent": "friend"})).json()
        gid = data["id"]
        white = data["seats"]["white"]["secret"]
        black = data["seats"]["black"]["secret"]
        ws_url = server.url.replace("http", "ws") + f"/ws/games/{gid}"
        async with (
            await seated(ws_url, white) as w,
            await seated(ws_url, black) as b,
            websockets.connect(ws_url) as spectator,
        ):
            await recv_until(w, "hello", you("white"))
            await recv_until(b, "hello", you("black"))
            assert (await recv_until(spectator, "hello"))["you"] is None
            # the spectator sees both seats online: in its first state, or in a presence message after
            both = {"white": True, "black": True}
            while (msg := json.loads(await asyncio.wait_for(spectator.recv(), 10))).get("online") != both:
                assert msg["type"] in ("state", "presence"), msg
            await w.send(json.dumps({"type": "move", "move": "d2-d3", "ply": 0, "ref": 1}))
            assert (await recv_until(w, "ack"))["ref"] == 1
            for sock in (b, spectator):
                st = await recv_until(sock, "state", lambda m: m["ply"] == 1)
                assert st["moves"][0]["text"] == "d2-d3"
            # a spectator cannot move; errors name the problem
            await spectator.send(json.dumps({"type": "move", "move": "e7-e6", "ply": 1}))
            assert "secret is required" in (await recv_until(spectator, "error"))["error"]
            await b.send("{oops")
            assert "malformed JSON" in (await recv_until(b, "error"))["error"]
            await b.send(json.dumps({"type": "move", "move": "x" * 20000}))
            assert "too large" in (await recv_until(b, "error"))["error"]
            await b.send(json.dumps({"type": "move", "move": "e7-e5", "ply": 1}))
            assert "illegal" in (await recv_until(b, "error"))["error"]
            await w.send(json.dumps({"type": "move", "move": "e2-e3", "ply": 1}))
            assert "not your turn" in (await recv_until(w, "error"))["error"]
            # black reconnects and resumes where it was
        async with await seated(ws_url, black) as b2:
            st = await recv_until(b2, "state")  # at once on connecting, before the seat is proved
            assert st["ply"] == 1 and st["turn"] == "black"
            await recv_until(b2, "hello", you("black"))
            await b2.send(json.dumps({"type": "move", "move": "e7-e6", "ply": 1, "ref": 7}))
            assert (await recv_until(b2, "ack"))["ref"] == 7
        # a secret in the URL is refused (URLs end up in access logs): the connection only watches
        async with websockets.connect(f"{ws_url}?secret={white}") as leaky:
            assert (await recv_until(leaky, "hello"))["you"] is None
            assert "not accepted in the URL" in (await recv_until(leaky, "error"))["error"]
            await leaky.send(json.dumps({"type": "move", "move": "a2-a3", "ply": 2}))
            assert "secret is required" in (await recv_until(leaky, "error"))["error"]
        async with websockets.connect(ws_url) as w2:
            assert (await recv_until(w2, "hello"))["you"] is None
            await w2.send(json.dumps({"type": "auth", "secret": "nonsense"}))
            assert "wrong seat secret" in (await recv_until(w2, "error"))["error"]
            await w2.send(json.dumps({"type": "auth", "secret": white}))
            assert (await recv_until(w2, "hello"))["you"] == "white"
            await w2.send(json.dumps({"type": "move", "move": "a2-a3", "ply": 2, "ref": 9}))
            assert (await recv_until(w2, "ack"))["ref"] == 9
        async with websockets.connect(server.url.replace("http", "ws") + "/ws/games/nope") as bad:
            assert "unknown game" in (await recv_until(bad, "error"))["error"]

    run_async(run)


def test_restart_resumes_every_game(tmp_path: Path) -> None:
    srv = Server(tmp_path / "restart.sqlite").start()
    try:
        with httpx.Client(base_url=srv.url, timeout=30) as c:
            data = c.post("/api/games", json={"variant": "fugue", "opponent": "friend"}).json()
            gid, w, b = data["id"], data["seats"]["white"]["secret"], data["seats"]["black"]["secret"]
            played = ["d2-d3", "e7-e6", "a2-a3"]
            for i, text in enumerate(played):
                res = c.post(
                    f"/api/games/{gid}/moves", json={"move": text, "secret": [w, b][i % 2], "ply": i}
                )
                assert res.status_code == 200
            comp = c.post(
                "/api/games", json={"variant": "fugue", "opponent": "computer", "level": 0, "color": "white"}
            ).json()
            cid, cw = comp["id"], comp["seats"]["white"]["secret"]
            assert c.post(f"/api/games/{cid}/moves", json={"move": "d2-d3", "secret": cw}).status_code == 200
        srv.kill()  # SIGKILL right after the acknowledgements: nothing may be lost
        srv.start()
        with httpx.Client(base_url=srv.url, timeout=30) as c:
            state = c.get(f"/api/games/{gid}").json()
            assert [m["text"] for m in state["moves"]] == played
            res = c.post(f"/api/games/{gid}/moves", json={"move": "e6-e5", "secret": b, "ply": 3})
            assert res.status_code == 200, res.text
            # the computer game resumes: its reply arrives (it may have been lost with the kill)
            st = wait_until(lambda: c.get(f"/api/games/{cid}").json(), lambda s: s["ply"] >= 2)
            assert st["ply"] == 2 and st["turn"] == "white"
    finally:
        srv.stop()


def test_computer_moves_after_restart_in_a_game_waiting_for_it(tmp_path: Path) -> None:
    """A game stored while no server ran, with the computer to move: starting the server resumes it."""
    from exochess.web.domain import PlayerKind
    from exochess.web.storage.store import Storage

    db = tmp_path / "resume.sqlite"
    storage = Storage(f"sqlite:///{db}")
    storage.create_game(
        id="waiting1",
        variant="fugue",
        start_fen="wlqksaui/pppppppp/8/8/8/8/PPPPPPPP/IUASKQLW w",
        white=PlayerKind.ENGINE,
        black=PlayerKind.HUMAN,
        level=0,
        white_secret="w" * 22,
        black_secret="b" * 22,
    )
    storage.close()
    srv = Server(db).start()
    try:
        with httpx.Client(base_url=srv.url, timeout=30) as c:
            st = wait_until(lambda: c.get("/api/games/waiting1").json(), lambda s: s["ply"] == 1)
            assert st["ply"] == 1 and st["turn"] == "black"
    finally:
        srv.stop()


def test_engine_pool_survives_a_killed_worker(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess

    srv = Server(tmp_path / "pool.sqlite").start()
    try:
        with httpx.Client(base_url=srv.url, timeout=30) as c:
            d = c.post(
                "/api/games", json={"variant": "fugue", "opponent": "computer", "level": 0, "color": "white"}
            ).json()
            gid, secret = d["id"], d["seats"]["white"]["secret"]

            def play_and_wait(ply: int) -> None:
                st = c.get(f"/api/games/{gid}").json()
                text = whole_moves(st["legal"])[0]["text"]
                assert (
                    c.post(
                        f"/api/games/{gid}/moves", json={"move": text, "secret": secret, "ply": ply}
                    ).status_code
                    == 200
                )
                st = wait_until(lambda: c.get(f"/api/games/{gid}").json(), lambda s: s["ply"] == ply + 2)
                assert st["ply"] == ply + 2, "the computer did not reply"

            play_and_wait(0)
            assert srv.proc is not None
            out = subprocess.run(
                ["ps", "-ww", "-o", "pid=,args=", "--ppid", str(srv.proc.pid)], capture_output=True, text=True
            ).stdout
            workers = [int(line.split()[0]) for line in out.splitlines() if "spawn_main" in line]
            assert workers, out
            for pid in workers:
                os.kill(pid, signal.SIGKILL)
            # the pool sees its workers die and starts others; the next move waits for them
            play_and_wait(2)
    finally:
        srv.stop()
