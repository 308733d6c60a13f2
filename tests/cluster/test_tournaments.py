"""Issue 46 on a cluster: an arena run by two servers in Redis mode pairs every pair once.

Both servers run the event loop; the lease on the event row lets one of them pair at a time.
Eight players join through alternating servers and each game is finished by its players
through their own server, so both servers see games end.  The test checks at every look that
nobody is in two games at once, that every game of the event is one it saw on and finished
(a second pairing made by the other server would be a game nobody plays), and that both
servers give the same standings at the end.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.cluster.harness import Cluster, Services
from tests.web.test_web_tournaments import (
    ENV,
    OPENING,
    WAIT_S,
    Player,
    arena_recount,
    create,
    results,
    view,
    wait_for,
)


def finish_game(players: dict[str, Player], game: dict[str, Any], loser: str) -> None:
    """Play the opening, then ``loser`` resigns, each player through their own server: each
    acts once their server shows the previous move (as a player's page would, from its socket),
    since the two servers learn of each other's moves through Redis."""
    white, black = players[game["white"]], players[game["black"]]
    for ply, (player, move) in enumerate(zip((white, black), OPENING, strict=True)):

        def shown(p: Player = player, n: int = ply) -> bool:
            return ply_of(p, game["id"]) >= n

        wait_for("the move on this server", shown)
        res = player.post(f"/api/games/{game['id']}/moves", {"move": move})
        assert res.status_code == 200, res.text
    wait_for("both moves on this server", lambda: ply_of(players[loser], game["id"]) >= 2)
    res = players[loser].post(f"/api/games/{game['id']}/resign")
    assert res.status_code == 200, res.text


def ply_of(player: Player, game_id: str) -> int:
    res = player.client.get(f"/api/games/{game_id}")
    assert res.status_code == 200, res.text
    return int(res.json()["ply"])


@pytest.fixture(scope="module")
def arena_cluster(services: Services) -> Iterator[Cluster]:
    """Two servers with tiny clocks and no schedule (no engine worker: nobody plays the computer)."""
    site = Cluster(services, servers=2, workers=0, env=ENV).start()
    yield site
    site.stop()


def test_an_arena_on_two_servers_pairs_each_game_once(arena_cluster: Cluster) -> None:
    a, b = arena_cluster.servers
    players = {p.name: p for p in (Player((a, b)[i % 2], "cl") for i in range(8))}
    host = next(iter(players.values()))
    made = create(host, kind="arena", minutes=0.4, name="Two servers")
    for p in players.values():
        assert p.post(f"/api/tournaments/{made['id']}/join").status_code == 204
    order = list(players)
    done: set[str] = set()
    looks = 0
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        # look through either server in turn
        now = view(players[order[looks % 2]].client, made["id"])
        looks += 1
        busy = [name for g in now["playing"] for name in (g["white"], g["black"])]
        assert len(busy) == len(set(busy)), f"a player is in two games at once: {now['playing']}"
        for g in now["playing"]:
            if g["id"] in done:
                continue
            done.add(g["id"])
            loser = g["white"] if order.index(g["white"]) > order.index(g["black"]) else g["black"]
            finish_game(players, g, loser)
        if now["status"] == "finished":
            break
        time.sleep(0.1)
    else:
        raise AssertionError("the arena did not finish")
    games = results(host.client, made["id"])
    ids = [g["id"] for g in games]
    assert len(ids) == len(set(ids))
    # every game made was seen on and finished by its players: no pairing was made twice
    assert set(ids) == done, set(ids) ^ done
    assert all(g["result"] is not None and g["absent"] is None for g in games), games
    tables = [view(p.client, made["id"]) for p in (players[order[0]], players[order[1]])]
    assert tables[0]["standings"] == tables[1]["standings"]
    assert tables[0]["podium"] == tables[1]["podium"] and tables[0]["podium"]
    for line in tables[0]["standings"]:
        assert line["score"] == arena_recount(games, line["name"]), line
    for p in players.values():
        p.close()
