"""Issue 17, finding 8 and its load target: requests for games that do not exist are cheap.

An id of another shape than the site's is answered without a database read; an address that
keeps asking for things that do not exist is refused (429) before any routing or lookup, while
the other addresses, and its own websockets, go on as before.  (A loopback client bound to
127.0.0.2 reaches the server on 127.0.0.1 and is counted as another address.)
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import websockets

from exochess.web.domain import GameNotFound
from exochess.web.game.live import is_game_id
from exochess.web.game.service import GameService
from exochess.web.live.hub import Hub
from exochess.web.storage.store import GameRow, Storage
from tests.web.serverproc import Server, run_async

MISSES = 5


def unknown_id() -> str:
    """An id of the site's shape (8 letters or digits) that names no game."""
    return "z" + secrets.token_hex(4)[:7]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(
        tmp_path_factory.mktemp("misses") / "misses.sqlite",
        log_level="info",
        env={"EXOCHESS_RATE_LIMITS": f"misses={MISSES}/minute"},
    ).start()
    yield srv
    srv.stop()


def test_game_ids_have_the_shape_the_site_makes() -> None:
    assert is_game_id("aZ09xy7Q")
    for bad in (
        "0123456789abcdef",
        "short",
        "aZ09xy7Q9",
        "../../et",
        "aZ09xy7\u00e9",
        "aZ09-y7Q",
        "",
        12345678,
    ):
        assert not is_game_id(bad), bad


def test_an_id_of_another_shape_is_answered_without_a_database_read(tmp_path: Path) -> None:
    async def run() -> None:
        storage = Storage(f"sqlite:///{tmp_path / 's.sqlite'}")
        svc = GameService(storage, None, Hub())
        reads: list[str] = []
        real = storage.load_game

        def counted(game_id: str) -> GameRow | None:
            reads.append(game_id)
            return real(game_id)

        storage.load_game = counted  # type: ignore[method-assign]
        try:
            live, _seats, _you = await svc.create("fugue", "friend", None, "white", None)
            assert is_game_id(live.row.id)
            reads.clear()  # creating reads the new row back
            for bad in ("0123456789abcdef", "x", "\ud800" * 8, "a/b/c/d/"):
                with pytest.raises(GameNotFound):
                    await svc.get(bad)
            assert reads == []
            missing = unknown_id()
            with pytest.raises(GameNotFound):
                await svc.get(missing)
            assert reads == [missing]  # a well-formed id is looked up (and nothing is kept for it)
            svc.cache.games.clear()
            assert (await svc.get(live.row.id)).row.id == live.row.id
        finally:
            svc.close()
            storage.close()

    run_async(run)


def test_an_address_asking_for_unknown_games_is_refused_before_any_lookup(server: Server) -> None:
    other = httpx.HTTPTransport(local_address="127.0.0.2")
    with (
        httpx.Client(base_url=server.url, timeout=30.0) as c,
        httpx.Client(base_url=server.url, timeout=30.0, transport=other) as person,
    ):
        game = c.post("/api/games", json={"variant": "fugue", "opponent": "friend"}).json()
        for _ in range(MISSES):
            res = c.get(f"/api/games/{unknown_id()}")
            assert res.status_code == 404 and "unknown game id" in res.json()["error"]
        refused = c.get(f"/api/games/{unknown_id()}")
        assert refused.status_code == 429, refused.text
        assert "do not exist" in refused.json()["error"]
        assert 1 <= int(refused.headers["retry-after"]) <= 60
        assert refused.headers["x-content-type-options"] == "nosniff"
        # the address's other reads wait too (the limit is checked before routing) ...
        assert c.get(f"/api/games/{game['id']}").status_code == 429
        assert c.get(f"/game/{unknown_id()}", headers={"Accept": "text/html"}).status_code == 429
        # ... but not its writes (limited by kinds of their own) nor its websockets, where moves travel
        secret = game["seats"]["white"]["secret"]
        res = c.post(f"/api/games/{game['id']}/moves", json={"secret": secret, "move": "d2-d3", "ply": 0})
        assert res.status_code == 200, res.text
        url = server.url.replace("http", "ws") + f"/ws/games/{game['id']}"

        async def hello() -> str:
            async with websockets.connect(url) as ws:
                return str(json.loads(await ws.recv())["type"])

        assert run_async(hello) == "hello"
        # another address is served as before: the game, and a clear 404 page for a browser
        assert person.get(f"/api/games/{game['id']}").status_code == 200
        page = person.get(f"/game/{unknown_id()}", headers={"Accept": "text/html"})
        assert page.status_code == 404 and page.headers["content-type"].startswith("text/html")
        assert "unknown game id" in page.text
        missing = person.get(f"/api/games/{unknown_id()}")
        assert missing.status_code == 404 and missing.json()["error"].startswith("unknown game id")
    text = server.log_text()
    assert "Traceback" not in text and " 500 " not in text
