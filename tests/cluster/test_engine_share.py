"""Issue 41, finding 1 in Redis mode: the engine's jobs on the arq queue are charged to owners,
bounded per owner, ordered fairly (moves first, an owner's later jobs after everyone's first),
and the long moves have a budget of places shared by every server.  A real Redis; no worker
runs, so the queue's order is read as arq would take it."""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from exochess import Board
from exochess.web.domain import EngineBusy, TooManyEngineJobs
from tests.web.serverproc import run_async

pytest.importorskip("arq")

from exochess.cli.localservices import MissingProgram, RedisServer
from exochess.web.game.jobs import JobQueue
from exochess.web.game.queuestats import QUEUE_NAME

START = Board("fugue").fen()


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    try:
        server = RedisServer(Path(tempfile.mkdtemp(prefix="exochess-share-"))).start()
    except MissingProgram as exc:
        pytest.skip(str(exc))
    yield server.url
    server.stop()


async def _order(queue: JobQueue) -> list[str]:
    redis = await queue._redis()
    return [m.decode() for m in await redis.zrange(QUEUE_NAME, 0, -1)]


def test_owners_are_bounded_and_served_round_robin(redis_url: str) -> None:
    async def scenario() -> tuple[list[str], int]:
        queue = JobQueue(redis_url, moves_per_owner=3, long_budget_s=1000.0)
        try:
            redis = await queue._redis()
            await redis.flushall()
            for game in ("a1", "a2", "a3"):  # one owner, three games at level 3
                await queue.move("fugue", START, [], 3, 1, game_id=game, owner="addr:flood")
            with pytest.raises(TooManyEngineJobs) as exc:
                await queue.move("fugue", START, [], 3, 1, game_id="a4", owner="addr:flood")
            assert exc.value.retry_after >= 1
            await queue.move("fugue", START, [], 3, 1, game_id="h1", owner="addr:honest")
            return await _order(queue), exc.value.retry_after
        finally:
            await queue.aclose()

    order, _retry = run_async(scenario)
    games = [member.split(":")[1] for member in order]
    # the honest owner's first job goes before the flooder's second and third
    assert games[:2] in (["a1", "h1"], ["h1", "a1"]), games
    assert set(games[2:]) == {"a2", "a3"}, games


def test_moves_go_before_analyses(redis_url: str) -> None:
    async def scenario() -> list[str]:
        queue = JobQueue(redis_url)
        try:
            redis = await queue._redis()
            await redis.flushall()
            analysis = asyncio.create_task(queue.analyse("fugue", START, [], 100, "10.0.0.9"))
            while not await _order(queue):
                await asyncio.sleep(0.01)
            await queue.move("fugue", START, [], 1, 1, game_id="g", owner="addr:p")
            order = await _order(queue)
            analysis.cancel()
            await asyncio.gather(analysis, return_exceptions=True)
            return order
        finally:
            await queue.aclose()

    order = run_async(scenario)
    assert order[0].startswith("move:g:") and order[1].startswith("analysis:"), order


def test_long_moves_share_a_budget_of_places_across_servers(redis_url: str) -> None:
    async def scenario() -> dict[str, Any]:
        one, two = (JobQueue(redis_url, long_budget_s=6.0) for _ in range(2))
        try:
            redis = await one._redis()
            await redis.flushall()
            await one.move("fugue", START, [], 8, 1, game_id="honest", owner="addr:honest")
            await two.move("fugue", START, [], 8, 1, game_id="f0", owner="addr:f0")
            refused = []
            for i in range(1, 30):  # the other 29 flooders, on either server
                queue = one if i % 2 else two
                with pytest.raises(EngineBusy) as exc:
                    await queue.move("fugue", START, [], 8, 1, game_id=f"f{i}", owner=f"addr:f{i}")
                refused.append(exc.value.retry_after)
            with pytest.raises(EngineBusy):
                await one.admit("addr:newcomer", 8)
            await one.admit("addr:newcomer", 2)  # quick levels need no place
            # the honest game keeps its place for its next move, on any server
            await two.move("fugue", START, ["e2-e3", "e7-e6"], 8, 1, game_id="honest", owner="addr:honest")
            await one.drop_game("f0")
            await one.admit("addr:newcomer", 8)
            return {"refused": refused, "holders": await (await one.share()).holders()}
        finally:
            await one.aclose()
            await two.aclose()

    out = run_async(scenario)
    assert all(r >= 1 for r in out["refused"]), out
    assert set(out["holders"]) == {"honest"}, out


def test_a_new_long_game_reserves_its_place_on_any_server(redis_url: str) -> None:
    async def scenario() -> tuple[int, set[str], str | None]:
        one, two = (JobQueue(redis_url, long_budget_s=6.0) for _ in range(2))
        try:
            await (await one._redis()).flushall()
            keys = []
            refused = 0
            for i in range(10):  # ten creations at once, on either server
                try:
                    keys.append(await (one if i % 2 else two).reserve(f"addr:{i}", 8))
                except EngineBusy:
                    refused += 1
            await one.claim(keys[0], "g0", "addr:0")
            await two.claim(keys[1], "", "addr:1")  # a creation that failed
            holders = set(await (await one.share()).holders())
            owner = await (await two.share()).owner_of_game("g0")
            return refused, holders, owner
        finally:
            await one.aclose()
            await two.aclose()

    refused, holders, owner = run_async(scenario)
    assert refused == 8 and holders == {"g0"} and owner == "addr:0"


def test_a_players_move_is_checked_against_the_computers_reply_first(redis_url: str) -> None:
    """``check_move`` (asked before a player's move is stored) meets the refusals ``move``
    would, queueing nothing: the owner's bound, then a long game's place; a game holding its
    place passes."""

    async def scenario() -> list[str]:
        queue = JobQueue(redis_url, moves_per_owner=1, long_budget_s=3.0)
        try:
            await (await queue._redis()).flushall()
            await queue.check_move(3, game_id="a1", owner="addr:a")  # room: nothing refused
            before = await _order(queue)
            await queue.move("fugue", START, [], 3, 1, game_id="a1", owner="addr:a")
            with pytest.raises(TooManyEngineJobs) as bound:
                await queue.check_move(3, game_id="a2", owner="addr:a")
            assert bound.value.retry_after >= 1
            await queue.claim(await queue.reserve("addr:b", 8), "b1", "addr:b")
            await queue.check_move(8, game_id="b1")  # its owner and place, read from Redis
            with pytest.raises(EngineBusy) as place:
                await queue.check_move(8, game_id="c1", owner="addr:c")  # the only place is b1's
            assert place.value.retry_after >= 1
            assert before == []
            return await _order(queue)
        finally:
            await queue.aclose()

    order = run_async(scenario)
    assert len(order) == 1 and order[0].startswith("move:a1:"), order  # checks queue nothing
