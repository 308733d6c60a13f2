"""Search budgets: depth, nodes, move time or game clock.

Time allocation on a clock (:meth:`Limits.time_budget`), with ``left`` the side's time less
:data:`MOVE_OVERHEAD_MS`, ``inc`` its increment and ``togo`` the moves to the next time control
(``movestogo``, else 30)::

    target = min(left / togo + 0.75 * inc, left / 2)
    soft   = 0.6 * target                      (no new iteration starts after this)
    hard   = min(0.8 * left, 3 * target)       (the search is cut here)

A ``movetime`` alone is a fixed budget, spent whole: ``soft = hard = movetime``.  Stopping
early saves nothing there (the answer is due at the same time either way, and the opponent
waits on its own clock), while the iteration the deadline cuts still improves the move whenever
one of its root moves beats the last iteration's choice.  With a clock too, the smaller of each
applies: the engine's weaker levels and the web site's computer player give their level's own
move time, so a clock only ever shortens it, and the clock's soft limit keeps its reserve.
"""

from __future__ import annotations

from dataclasses import dataclass

MOVE_OVERHEAD_MS = 20
"""Kept back from every clock-based budget for the interface's own latency."""


@dataclass(frozen=True, slots=True)
class Limits:
    """What a search may spend.  Every field is optional; all given ones apply (the first hit stops).

    With nothing given the search runs until :meth:`Searcher.stop` (or the depth cap of 99).
    """

    depth: int | None = None
    nodes: int | None = None
    movetime_ms: int | None = None
    wtime_ms: int | None = None
    btime_ms: int | None = None
    winc_ms: int = 0
    binc_ms: int = 0
    movestogo: int | None = None

    def time_budget(self, white_to_move: bool) -> tuple[float | None, float | None]:
        """``(soft, hard)`` seconds: do not start an iteration after ``soft``; abort at ``hard``."""
        hard: float | None = None
        soft: float | None = None
        if self.movetime_ms is not None:
            hard = max(1, self.movetime_ms) / 1000.0
            soft = hard
        clock = self.wtime_ms if white_to_move else self.btime_ms
        if clock is not None:
            inc = self.winc_ms if white_to_move else self.binc_ms
            left = max(1, clock - MOVE_OVERHEAD_MS)
            togo = self.movestogo if self.movestogo else 30
            target = left / max(1, togo) + inc * 0.75
            target = min(target, left * 0.5)
            cap = min(left * 0.8, target * 3)
            c_soft = max(0.005, target * 0.6 / 1000.0)
            c_hard = max(0.01, cap / 1000.0)
            soft = c_soft if soft is None else min(soft, c_soft)
            hard = c_hard if hard is None else min(hard, c_hard)
        return soft, hard
