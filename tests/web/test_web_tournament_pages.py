"""A tournament's socket shows one page of the standings (issue 46's standings target): ten
lines, the page asked for or its player's own, the games of that page's players and the player's
own, and a page is sent again only when it changed.  Over real sockets on a real server, and the
pager in Chromium.

Every wait is on a message or a page state (ordering, not timing).  Set EXOCHESS_SHOTS=/some/dir
to keep screenshots of the pager's second page at 1280 px and 390 px."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
import websockets

from tests.web.serverproc import Server, recv_until, run_async
from tests.web.test_web_browser_tournaments import shoot
from tests.web.test_web_tournaments import ENV, Player, create, view

WAIT_S = 120.0


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(
        tmp_path_factory.mktemp("tournament-pages") / "site.sqlite", engine_workers=0, env=ENV
    ).start()
    yield srv
    srv.stop()


def names(message: dict[str, Any]) -> list[str]:
    return [line["name"] for line in message["tournament"]["standings"]]


def inactive(message: dict[str, Any]) -> set[str]:
    return {line["name"] for line in message["tournament"]["standings"] if not line["active"]}


def event_with(site: Server, count: int, **body: Any) -> tuple[dict[str, Player], str]:
    """``count`` accounts joined to a new arena (starting in an hour unless ``body`` says)."""
    players = [Player(site, "pg") for _ in range(count)]
    made = create(players[0], kind="arena", minutes=60, **{"starts_in": 60, **body})
    for p in players:
        assert p.post(f"/api/tournaments/{made['id']}/join").status_code == 204
    return {p.name: p for p in players}, made["id"]


def socket_url(site: Server, event: str) -> str:
    return site.url.replace("http", "ws") + f"/ws/tournaments/{event}"


def headers(site: Server, player: Player | None) -> dict[str, str]:
    out = {"Origin": site.url}
    if player is not None:
        out["Cookie"] = f"exochess_session={player.client.cookies['exochess_session']}"
    return out


async def next_view(ws: Any) -> dict[str, Any]:
    return await recv_until(ws, "tournament", timeout=WAIT_S)


def test_each_socket_shows_its_page_and_gets_only_its_pages_changes(site: Server) -> None:
    players, event = event_with(site, 23)
    table = [line["name"] for line in view(next(iter(players.values())).client, event)["standings"]]
    assert len(table) == 23
    second = players[table[15]]  # a player on page 2

    async def run() -> None:
        url = socket_url(site, event)
        async with (
            websockets.connect(url, additional_headers=headers(site, None)) as first_page,
            websockets.connect(url, additional_headers=headers(site, None)) as last_page,
            websockets.connect(url, additional_headers=headers(site, second)) as own_page,
        ):
            # a visitor opens on page 1, a player on their own page
            opened = await next_view(first_page)
            assert names(opened) == table[:10]
            assert (opened["tournament"]["page"], opened["tournament"]["pages"]) == (1, 3)
            assert opened["tournament"]["mine"] is None
            own = await next_view(own_page)
            assert names(own) == table[10:20] and own["tournament"]["page"] == 2
            await next_view(last_page)
            await last_page.send(json.dumps({"type": "page", "page": 3}))
            asked = await next_view(last_page)
            assert names(asked) == table[20:] and asked["tournament"]["page"] == 3
            # a page past the end shows the last; a bad page is refused by name, the socket stays
            await last_page.send(json.dumps({"type": "page", "page": 99}))
            assert names(await next_view(last_page)) == table[20:]
            # (four messages in all: the socket's limit is 4 a second)
            for bad in ("two", True):
                await last_page.send(json.dumps({"type": "page", "page": bad}))
                error = await recv_until(last_page, "error", timeout=WAIT_S)
                assert "page must be a whole number from 1" in error["error"], error

            # a change on page 2 reaches page 2, one on page 3 page 3 (each socket's first
            # message since: nothing else changed on its page)
            for index, socket in ((12, own_page), (21, last_page)):
                assert players[table[index]].post(f"/api/tournaments/{event}/withdraw").status_code == 204
                changed = json.loads(await asyncio.wait_for(socket.recv(), WAIT_S))
                assert inactive(changed) == {table[index]}, changed
            # ... and then one on page 1: the first message page 1's socket gets since it opened
            # is that one (the changes of pages 2 and 3 were not sent to it)
            assert players[table[3]].post(f"/api/tournaments/{event}/withdraw").status_code == 204
            changed = json.loads(await asyncio.wait_for(first_page.recv(), WAIT_S))
            assert names(changed) == table[:10] and inactive(changed) == {table[3]}, changed

            # a player looking at another page still has their own line, as ``mine``
            await own_page.send(json.dumps({"type": "page", "page": 1}))
            elsewhere = await next_view(own_page)
            assert names(elsewhere) == table[:10]
            assert elsewhere["tournament"]["mine"]["name"] == second.name
            # null: back to their own page
            await own_page.send(json.dumps({"type": "page", "page": None}))
            home = await next_view(own_page)
            assert home["tournament"]["page"] == 2 and home["tournament"]["mine"] is None

    run_async(run)
    for p in players.values():
        p.close()


def test_a_player_on_another_page_still_gets_their_new_game(site: Server) -> None:
    players, event = event_with(site, 14)
    host = next(iter(players.values()))
    table = [line["name"] for line in view(host.client, event)["standings"]]
    me = players[table[12]]  # on page 2

    async def run() -> dict[str, Any]:
        async with websockets.connect(socket_url(site, event), additional_headers=headers(site, me)) as ws:
            await next_view(ws)
            await ws.send(json.dumps({"type": "page", "page": 1}))
            await next_view(ws)
            assert host.post(f"/api/tournaments/{event}/start").status_code == 204

            def paired(message: dict[str, Any]) -> bool:
                return any(me.name in (g["white"], g["black"]) for g in message["tournament"]["playing"])

            return await recv_until(ws, "tournament", paired, timeout=WAIT_S)

    shown = run_async(run)["tournament"]
    assert shown["page"] == 1 and shown["mine"]["name"] == me.name
    on_page = set(table[:10]) | {me.name}
    # the games shown are those of page 1's players and mine, and every one of them
    assert all(g["white"] in on_page or g["black"] in on_page for g in shown["playing"])
    everything = view(host.client, event)["playing"]
    assert {g["id"] for g in everything if g["white"] in on_page or g["black"] in on_page} >= {
        g["id"] for g in shown["playing"]
    }
    for p in players.values():
        p.close()


def test_the_pager_turns_the_pages_in_a_browser(site: Server, page: Any) -> None:
    players, event = event_with(site, 13)
    table = [line["name"] for line in view(next(iter(players.values())).client, event)["standings"]]
    page.set_default_timeout(WAIT_S * 1000)
    page.goto(site.url + f"/tournaments/{event}")
    page.wait_for_selector("#tournament[data-live='yes']")
    pager = page.locator("#standings-pager")
    assert pager.is_visible()
    assert page.locator("#standings-page").inner_text() == "Page 1 of 2"
    rows = page.locator("#tournament-standings tbody tr")
    assert rows.count() == 10 and rows.first.get_attribute("data-player") == table[0]
    assert page.locator("#standings-pager [data-page='previous']").is_disabled()
    page.click("#standings-pager [data-page='next']")
    page.locator("#standings-page", has_text="Page 2 of 2").wait_for()
    assert rows.count() == 3
    assert [rows.nth(i).get_attribute("data-player") for i in range(3)] == table[10:]
    assert page.locator("#standings-pager [data-page='last']").is_disabled()
    shoot(page, "tournament-page-2")  # EXOCHESS_SHOTS=DIR keeps it at 1280 and 390 px
    page.click("#standings-pager [data-page='first']")
    page.locator("#standings-page", has_text="Page 1 of 2").wait_for()
    assert rows.first.get_attribute("data-player") == table[0]
    for p in players.values():
        p.close()
