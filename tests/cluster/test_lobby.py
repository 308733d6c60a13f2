"""Issue 20 on a cluster: the lobby of one server shows what was posted through the other."""

from __future__ import annotations

import json
import secrets

import httpx
import websockets

from tests.cluster.common import recv_until
from tests.cluster.harness import Cluster
from tests.web.serverproc import run_async


def lobby_url(base: str) -> str:
    return base.replace("http", "ws") + "/ws/lobby"


def test_a_lobby_opened_on_the_other_server_lists_a_new_challenge(cluster: Cluster) -> None:
    a, b = (s.url for s in cluster.servers)
    player = secrets.token_urlsafe(18)

    async def run() -> None:
        # server B has built (and kept) its lobby view before the challenge exists
        async with websockets.connect(lobby_url(b)) as early:
            await recv_until(early, "lobby")
            async with httpx.AsyncClient(timeout=30) as client:
                body = {"variant": "fugue", "time_control": "2d", "color": "white", "name": "Ada"}
                res = await client.post(f"{a}/api/challenges", json={**body, "player": player})
                assert res.status_code == 201, res.text
                cid = res.json()["challenge"]["id"]
                # a watcher already on B gets it through Redis; one arriving on B later gets it at once
                await recv_until(early, "lobby", lambda m: any(c["id"] == cid for c in m["challenges"]))
                async with websockets.connect(lobby_url(b)) as late:
                    first = json.loads(await late.recv())
                    assert first["type"] == "lobby" and cid in {c["id"] for c in first["challenges"]}
                cancel = await client.post(f"{a}/api/challenges/{cid}/cancel", json={"player": player})
                assert cancel.status_code == 200
                await recv_until(early, "lobby", lambda m: all(c["id"] != cid for c in m["challenges"]))
                async with websockets.connect(lobby_url(b)) as late:
                    first = json.loads(await late.recv())
                    assert cid not in {c["id"] for c in first["challenges"]}

    run_async(run)
