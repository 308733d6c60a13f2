"""A game report's positions on the engine pool (issue 45): the lowest priority, after every
computer move and analysis, and stopped (then run again) when a move would otherwise wait for
their worker.  Real worker processes; nothing is timed: a move that had to wait for the report's
endless search would never come back (the hang guard)."""

from __future__ import annotations

import asyncio

from exochess.web.compute.enginepool import EnginePool
from tests.web.test_web_enginepool import START, run, until

ENDLESS = 10**9
"""Nodes no search gets through during a test."""


def test_a_report_position_alone_answers_with_white_and_black_scores() -> None:
    async def scenario(pool: EnginePool) -> None:
        found = await pool.report_position("fugue", START, ["b2-a3"], 300, owner="server")
        assert found["side_to_move"] == "black" and found["best"] and found["pv"][0] == found["best"]
        assert found["nodes"] >= 300 or found["depth"] >= 1
        assert await pool.idle()

    run(scenario, workers=1, express=False)


def test_a_computer_move_never_waits_for_a_report_position() -> None:
    async def scenario(pool: EnginePool) -> None:
        report = asyncio.create_task(pool.report_position("fugue", START, [], ENDLESS, owner="server"))
        await until(pool, lambda s: s.running == 1)
        assert await pool.idle()  # a report does not count: automatic ones may go on
        # the only worker searches the report's position: a level-5 move still gets its answer
        assert await pool.move("fugue", START, [], 5, 0, game_id="g1")
        assert not report.done()  # the position was stopped and queued again, not answered cut short
        await until(pool, lambda s: s.running == 1)  # and it runs again once the move is answered
        analysis = asyncio.create_task(pool.analyse("fugue", START, ["b2-a3"], 200, "a"))
        assert (await analysis)["best"]  # an analysis too goes first
        assert not report.done()
        report.cancel()
        stats = await until(pool, lambda s: s.running == 0)
        assert stats.queued_moves == 0 and stats.queued_analyses == 0

    run(scenario, workers=1, express=False)
