"""Issue 17, finding 2: the engine is a bounded resource.

A real server on 127.0.0.1 with two engine workers.  Distinct clients are distinct source
addresses: Linux routes all of 127.0.0.0/8 to the loopback interface, so a client bound to
127.0.0.23 reaches the server on 127.0.0.1 and is counted as another address.
"""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from exochess.web.compute.enginepool import ANALYSIS_CAP_MS, PER_CLIENT_LIMIT, QUEUE_LIMIT
from tests.web.serverproc import Server, create, run_async

LONG_MS = 10_000
"""Far longer than any test waits for anything: an analysis that completed was not stopped."""
HANG_GUARD_S = 60.0
"""Bound of every wait loop below, so a broken server fails the test instead of hanging it."""


@pytest.fixture(scope="module")
def engine_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(Path(tmp_path_factory.mktemp("engine")) / "site.sqlite", engine_workers=2).start()
    with httpx.Client(base_url=srv.url, timeout=30.0) as c:
        assert c.get("/api/variants").json()["engine"], "these tests need the engine"
        wait_for(c, "ready", lambda s: s["ready"] == s["workers"])
    yield srv
    srv.stop()


def engine(c: httpx.Client) -> dict[str, Any]:
    res = c.get("/api/engine")
    assert res.status_code == 200, res.text
    data: dict[str, Any] = res.json()
    return data


def wait_for(c: httpx.Client, what: str, check: Any) -> dict[str, Any]:
    """Poll ``/api/engine`` until ``check(stats)`` holds (the loop is only a hang guard)."""
    deadline = time.monotonic() + HANG_GUARD_S
    while True:
        stats = engine(c)
        if check(stats):
            return stats
        assert time.monotonic() < deadline, f"never {what}: {stats}"
        time.sleep(0.02)


def idle(stats: dict[str, Any]) -> bool:
    return bool(stats["running"] == 0 and stats["queued_analyses"] == 0 and stats["queued_moves"] == 0)


def computer_reply(c: httpx.Client, level: int) -> dict[str, Any]:
    """Create a game where the computer (white) moves first, and wait for its move."""
    gid = create(c, variant="fugue", opponent="computer", level=level, color="black")["id"]
    deadline = time.monotonic() + HANG_GUARD_S
    while True:
        state: dict[str, Any] = c.get(f"/api/games/{gid}").json()
        if state["ply"] >= 1:
            return state
        assert time.monotonic() < deadline, "the computer never replied"
        time.sleep(0.02)


def client_at(server: Server, address: str) -> httpx.AsyncClient:
    transport = httpx.AsyncHTTPTransport(local_address=address)
    return httpx.AsyncClient(base_url=server.url, transport=transport, timeout=HANG_GUARD_S)


async def fire(server: Server, address: str, movetime_ms: int, out: dict[str, httpx.Response]) -> None:
    async with client_at(server, address) as ac:
        out[address] = await ac.post("/api/analyse", json={"variant": "fugue", "movetime_ms": movetime_ms})


def test_abandoned_analyses_are_stopped_and_leave_the_computer_free(engine_server: Server) -> None:
    """20 long analyses from 20 addresses, then abandoned: the surplus is refused as busy, the
    rest is stopped when the clients hang up, and a level-1 reply is served meanwhile."""
    with httpx.Client(base_url=engine_server.url, timeout=30.0) as c:
        before = wait_for(c, "idle", idle)
        answers: dict[str, httpx.Response] = {}
        addresses = [f"127.0.0.{10 + i}" for i in range(20)]

        async def scenario() -> dict[str, Any]:
            tasks = [asyncio.create_task(fire(engine_server, a, LONG_MS, answers)) for a in addresses]
            # every request has reached the pool: it runs, waits or was refused
            # (refused by the engine's queue, or earlier by the pool replaying the analyses' moves)
            deadline = time.monotonic() + HANG_GUARD_S
            while True:
                stats = await asyncio.to_thread(engine, c)
                seen = stats["running"] + stats["queued_analyses"] + len(answers)
                if seen >= len(addresses):
                    break
                assert time.monotonic() < deadline, (
                    f"analyses lost on the way: {stats}, {len(answers)} answered"
                )
                await asyncio.sleep(0.02)
            # the computer answers at once although the analyses are still there
            state = await asyncio.to_thread(computer_reply, c, 1)
            during = await asyncio.to_thread(engine, c)
            for task in tasks:  # the clients give up: their connections close
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            return {"state": state, "during": during}

        result = run_async(scenario)
        assert result["state"]["ply"] == 1
        # the analyses were all still pending (none completed) when the move was played
        assert result["during"]["running"] + result["during"]["queued_analyses"] >= 1
        refused = list(answers.values())
        accepted = len(addresses) - len(refused)
        assert 1 <= accepted <= QUEUE_LIMIT + 2
        for res in refused:
            assert res.status_code == 503
            assert "busy" in res.json()["error"]
            assert int(res.headers["Retry-After"]) >= 1
        after = wait_for(
            c,
            "stopped the abandoned analyses",
            lambda s: idle(s) and (s["cancelled"] - before["cancelled"] >= accepted),
        )
        # only the computer's move completed: every analysis was stopped, none ran to its end
        assert after["completed"] - before["completed"] == 1
        assert after["killed"] == before["killed"]  # stopped cooperatively, no worker lost


def test_computer_moves_go_before_waiting_analyses(engine_server: Server) -> None:
    """Analyses that keep waiting (clients still connected) do not delay a computer reply."""
    with httpx.Client(base_url=engine_server.url, timeout=30.0) as c:
        wait_for(c, "idle", idle)
        answers: dict[str, httpx.Response] = {}

        async def scenario() -> tuple[dict[str, Any], int]:
            addresses = [f"127.0.0.{40 + i}" for i in range(3)]
            tasks = [asyncio.create_task(fire(engine_server, a, ANALYSIS_CAP_MS, answers)) for a in addresses]
            await asyncio.to_thread(
                wait_for, c, "queued", lambda s: s["running"] + s["queued_analyses"] >= len(addresses)
            )
            state = await asyncio.to_thread(computer_reply, c, 1)
            finished_first = len(answers)  # analyses answered before the computer's move
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            return state, finished_first

        state, finished_first = run_async(scenario)
        assert state["ply"] == 1
        assert finished_first == 0
        wait_for(c, "idle", idle)


def test_one_address_may_not_hold_more_than_its_share(engine_server: Server) -> None:
    with httpx.Client(base_url=engine_server.url, timeout=30.0) as c:
        before = wait_for(c, "idle", idle)
        answers: list[httpx.Response] = []

        async def scenario() -> None:
            async with client_at(engine_server, "127.0.0.77") as ac:

                async def one() -> None:
                    answers.append(
                        await ac.post("/api/analyse", json={"variant": "fugue", "movetime_ms": LONG_MS})
                    )

                tasks = [asyncio.create_task(one()) for _ in range(PER_CLIENT_LIMIT)]
                await asyncio.to_thread(
                    wait_for, c, "busy", lambda s: s["running"] + s["queued_analyses"] >= PER_CLIENT_LIMIT
                )
                await one()  # one more from the same address: refused at once
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)

        run_async(scenario)
        assert len(answers) == 1
        res = answers[0]
        assert res.status_code == 429
        assert "too many" in res.json()["error"] and int(res.headers["Retry-After"]) >= 1
        after = wait_for(c, "idle", idle)
        assert after["cancelled"] - before["cancelled"] == PER_CLIENT_LIMIT


def test_a_beginners_reply_does_not_wait_for_level_8_searches(engine_server: Server) -> None:
    """Level-8 games keep every general worker busy: the level-1 reply comes first all the same."""
    with httpx.Client(base_url=engine_server.url, timeout=30.0) as c:
        before = wait_for(c, "idle", idle)
        # four players (one long game each, issue 41), the places of the long moves' budget
        games = []
        for i in range(4):
            with httpx.Client(
                base_url=engine_server.url,
                timeout=30.0,
                transport=httpx.HTTPTransport(local_address=f"127.0.8.{i + 1}"),
            ) as player:
                games.append(create(player, variant="fugue", opponent="computer", level=8, color="black"))
        wait_for(c, "busy", lambda s: s["running"] >= 2)
        state = computer_reply(c, 1)
        plies = [c.get(f"/api/games/{g['id']}").json()["ply"] for g in games]
        for g in games:
            c.post(f"/api/games/{g['id']}/resign", json={"secret": g["seats"]["black"]["secret"]})
        assert state["ply"] == 1
        assert plies.count(0) >= 2  # at least the two searches running at the time were not done
        after = wait_for(c, "idle", idle)
        assert after["cancelled"] - before["cancelled"] >= 2


def test_evaluate_is_for_nobody_until_a_game_between_people_ends(engine_server: Server) -> None:
    with httpx.Client(base_url=engine_server.url, timeout=30.0) as c:
        data = create(c, variant="fugue", opponent="friend", color="white")
        gid, seats = data["id"], data["seats"]
        url = f"/api/games/{gid}/evaluate"
        # fair play (issue 40): not the players either, while the game is on
        for body in ({}, {"secret": "not-a-seat"}, {"secret": seats["black"]["secret"]}):
            res = c.post(url, json=body)
            assert res.status_code == 403 and "analysis after the game" in res.json()["error"], res.text
        assert (
            c.post(f"/api/games/{gid}/resign", json={"secret": seats["white"]["secret"]}).status_code == 200
        )
        res = c.post(url, json={})
        assert res.status_code == 200, res.text
        assert res.json()["side_to_move"] == "white"


def test_evaluate_is_for_the_player_of_a_game_against_the_computer(engine_server: Server) -> None:
    with httpx.Client(base_url=engine_server.url, timeout=30.0) as c:
        data = create(c, variant="fugue", opponent="computer", level=1, color="white")
        url = f"/api/games/{data['id']}/evaluate"
        res = c.post(url, json={})
        assert res.status_code == 401 and "players" in res.json()["error"]
        assert c.post(url, json={"secret": "not-a-seat"}).status_code == 403
        res = c.post(url, json={"secret": data["seats"]["white"]["secret"]})
        assert res.status_code == 200, res.text
        assert res.json()["best"]


def test_resigning_stops_the_computers_search(engine_server: Server) -> None:
    with httpx.Client(base_url=engine_server.url, timeout=30.0) as c:
        before = wait_for(c, "idle", idle)
        data = create(c, variant="rebelfury", opponent="computer", level=8, color="black")
        wait_for(c, "thinking", lambda s: s["running"] >= 1)
        secret = data["seats"]["black"]["secret"]
        assert c.post(f"/api/games/{data['id']}/resign", json={"secret": secret}).status_code == 200
        after = wait_for(c, "stopped", idle)
        assert after["cancelled"] - before["cancelled"] == 1
        assert after["completed"] == before["completed"]
        assert c.get(f"/api/games/{data['id']}").json()["ply"] == 0


def test_the_game_page_evaluates_for_its_player_only(browser: Any, server: Server) -> None:
    """The Evaluation button sends the player's seat secret; a watcher is told why not."""
    from tests.web.test_web_browser import new_game

    player = browser.new_context(base_url=server.url)
    watcher = browser.new_context(base_url=server.url)
    try:
        page = player.new_page()
        # a game against the computer (one between people has no evaluation while it is on)
        gid = new_game(page, opponent="computer", color="white")
        page.click("#evaluate")
        page.wait_for_selector("#eval:has-text('Best line')", timeout=30000)
        other = watcher.new_page()
        other.goto(f"/game/{gid}")
        other.wait_for_selector("#game[data-connected='1']")
        other.click("#evaluate")
        other.wait_for_selector("#eval:has-text('only the players')", timeout=30000)
    finally:
        player.close()
        watcher.close()


def test_the_server_stops_while_the_computer_thinks(tmp_path: Path) -> None:
    """SIGTERM during a search: the pool stops and kills its workers, and nothing it does
    afterwards (cancelled moves asking a dead worker to stop) may block the shutdown."""
    srv = Server(tmp_path / "stop.sqlite", engine_workers=1).start()
    try:
        with httpx.Client(base_url=srv.url, timeout=30.0) as c:
            wait_for(c, "ready", lambda s: s["ready"] == s["workers"])
            create(c, variant="rebelfury", opponent="computer", level=8, color="black")
            wait_for(c, "thinking", lambda s: s["running"] >= 1)
        assert srv.proc is not None
        srv.proc.send_signal(signal.SIGTERM)  # the server process only, as a service manager may
        # uvicorn shuts down gracefully, then re-raises the signal it caught
        assert srv.proc.wait(HANG_GUARD_S) in (0, -signal.SIGTERM)
        assert "Traceback" not in srv.log_path.read_text()
    finally:
        srv.stop()
