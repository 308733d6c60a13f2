"""Small client helpers of the cluster tests."""

from __future__ import annotations

import json
import random
from typing import Any

import httpx
import websockets

from tests.web.legaltree import whole_moves
from tests.web.serverproc import recv_until as web_recv_until


def ws_url(base: str, game_id: str) -> str:
    return base.replace("http://", "ws://") + f"/ws/games/{game_id}"


async def recv_until(ws: Any, kind: str, pred: Any = None, timeout: float = 20.0) -> dict[str, Any]:
    """:func:`tests.web.serverproc.recv_until` with a longer wait (messages cross processes)."""
    return await web_recv_until(ws, kind, pred, timeout)


async def seated(url: str, secret: str | None) -> Any:
    """A websocket on a game, holding a seat when ``secret`` is given."""
    ws = await websockets.connect(url, open_timeout=30)
    if secret is not None:
        await ws.send(json.dumps({"type": "auth", "secret": secret, "ref": "auth"}))
    return ws


def a_move(state: dict[str, Any], rng: random.Random) -> str:
    """A legal move of the state (text), chosen by ``rng``."""
    return str(rng.choice(whole_moves(state["legal"]))["text"])


def new_game(base: str, **body: Any) -> dict[str, Any]:
    res = httpx.post(base + "/api/games", json={"variant": "fugue", **body}, timeout=30)
    assert res.status_code == 201, res.text
    data: dict[str, Any] = res.json()
    return data


def game_state(base: str, game_id: str) -> dict[str, Any]:
    res = httpx.get(f"{base}/api/games/{game_id}", timeout=30)
    assert res.status_code == 200, res.text
    data: dict[str, Any] = res.json()
    return data
