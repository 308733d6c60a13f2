"""Issue 41, finding 4: twelve addresses posting ten correspondence challenges each filled the
lobby's 100-slot, oldest-first view for good, and no new challenge was listed.  Now the view is
newest first with at most three challenges of one address, so an honest challenge posted after
the flood is listed (at the top); each owner's open challenges stay capped."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import httpx
import pytest

from exochess.web.social.lobby import LISTED_PER_ADDRESS, PER_ADDRESS
from tests.web.serverproc import Server

FLOODERS = 12


@pytest.fixture(scope="module")
def flood_lobby(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(
        tmp_path_factory.mktemp("lobbyflood") / "lobby.sqlite", env={"EXOCHESS_LOBBY_ACTIONS": "50/200"}
    ).start()
    yield srv
    srv.stop()


def client_from(server: Server, address: str) -> httpx.Client:
    transport = httpx.HTTPTransport(local_address=address)
    return httpx.Client(base_url=server.url, transport=transport, timeout=30)


def post(client: httpx.Client, player: str, name: str) -> httpx.Response:
    return client.post(
        "/api/challenges",
        json={"variant": "fugue", "time_control": "5d", "color": "random", "name": name, "player": player},
    )


def test_a_challenge_flood_leaves_an_honest_challenge_listed(flood_lobby: Server) -> None:
    for i in range(FLOODERS):
        with client_from(flood_lobby, f"127.0.3.{i + 1}") as flooder:
            players = [secrets.token_urlsafe(18) for _ in range(6)]
            posted = 0
            for attempt in range(2 * PER_ADDRESS):
                res = post(flooder, players[attempt % len(players)], f"Flood{i}")
                if res.status_code == 201 or res.status_code == 200:
                    posted += 1
                else:
                    assert res.status_code in (409, 429), res.text  # the caps, not an error
            assert posted == PER_ADDRESS  # the per-address cap of open challenges holds
    with client_from(flood_lobby, "127.0.4.1") as honest:
        res = post(honest, secrets.token_urlsafe(18), "Honest")
        assert res.status_code in (200, 201), res.text
        mine = res.json()["challenge"]["id"]
        view = honest.get("/api/challenges").json()["challenges"]
    ids = [c["id"] for c in view]
    assert ids[0] == mine, "the newest challenge is listed first"
    per_name: dict[str, int] = {}
    for c in view:
        per_name[c["player"]["name"]] = per_name.get(c["player"]["name"], 0) + 1
    assert max(per_name.values()) <= LISTED_PER_ADDRESS, per_name
