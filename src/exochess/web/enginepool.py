"""Engine moves and analyses in a process pool, so the event loop never blocks.

Workers receive plain data (variant name, starting FEN, move texts) and return
plain data, so nothing but strings crosses the process boundary.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import random
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from exochess.board import Board
from exochess.engine import analyse, best_move
from exochess.web.domain import Color

T = TypeVar("T")

RANDOM_LEVEL = 0
"""Level 0 plays a uniformly random legal move (works without the engine)."""


def _board(variant: str, start_fen: str, texts: list[str]) -> Board:
    board = Board(variant, fen=start_fen)
    for text in texts:
        board.push_text(text)
    return board


def compute_move(variant: str, start_fen: str, texts: list[str], level: int, seed: int) -> str:
    """The computer's move (canonical text) in the position after ``texts``."""
    board = _board(variant, start_fen, texts)
    if level <= RANDOM_LEVEL:
        choices = sorted(str(m) for m in board.legal_moves)
        return random.Random(seed).choice(choices)
    return str(best_move(board, level, seed=seed))


def compute_analysis(variant: str, start_fen: str, texts: list[str], movetime_ms: int) -> dict[str, Any]:
    """Engine evaluation of a position: score, mate, depth and principal variation (texts)."""
    board = _board(variant, start_fen, texts)
    analysis = analyse(board, movetime_ms=movetime_ms)
    white_to_move = board.turn
    score = analysis.score_cp
    mate = analysis.mate
    return {
        "depth": analysis.depth,
        "score_cp": score,
        "mate": mate,
        "nodes": analysis.nodes,
        "pv": [str(m) for m in analysis.pv],
        "best": str(analysis.best) if analysis.best is not None else None,
        "side_to_move": Color.of(white_to_move).value,
    }


def _warm() -> int:
    return 0


class EnginePool:
    """A small pool of worker processes (spawned, so no forked event-loop state).

    A worker that dies (killed, out of memory) breaks a ``ProcessPoolExecutor``; the pool
    is then rebuilt and the job tried once more.
    """

    def __init__(self, workers: int = 2) -> None:
        self._workers = max(1, workers)
        self._executor = self._new()

    def _new(self) -> ProcessPoolExecutor:
        ctx = multiprocessing.get_context("spawn")
        return ProcessPoolExecutor(max_workers=self._workers, mp_context=ctx)

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        for attempt in (1, 2):
            executor = self._executor
            try:
                return await loop.run_in_executor(executor, fn, *args)
            except BrokenProcessPool:
                if attempt == 2:
                    raise
                if self._executor is executor:
                    executor.shutdown(wait=False, cancel_futures=True)
                    self._executor = self._new()
        raise AssertionError("unreachable")

    async def warm(self) -> None:
        await self._run(_warm)

    async def move(self, variant: str, start_fen: str, texts: list[str], level: int, seed: int) -> str:
        return await self._run(compute_move, variant, start_fen, list(texts), level, seed)

    async def analyse(
        self, variant: str, start_fen: str, texts: list[str], movetime_ms: int
    ) -> dict[str, Any]:
        return await self._run(compute_analysis, variant, start_fen, list(texts), movetime_ms)

    def shutdown(self) -> None:
        """Stop the workers and wait for them, so that none outlives the server."""
        self._executor.shutdown(wait=True, cancel_futures=True)
