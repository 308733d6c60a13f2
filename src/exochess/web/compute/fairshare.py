"""The engine's queueing discipline: every job charged to an owner, owners served fairly, and
the long computer moves budgeted (issue 41).

Plain bookkeeping, no processes and no event loop: :class:`~exochess.web.compute.enginepool.EnginePool`
holds one :class:`FairQueue` and one :class:`MoveBudget`, and the tests drive them directly.

*Owner*: who a job is charged to, the account when the player is signed in (``user:12``), else
the client's address (``addr:203.0.113.5``); a job without one is charged to its game
(``game:Ab3x``).  See :func:`owner_of`.

*Fair order* (:class:`FairQueue`): each kind of job (the computer's moves in live games, and
analyses: evaluations, analysis boards, reports) has its own queue, and moves always go first.
Within a kind the order is start-time fair queuing: a job's *tag* is where it would end if each
owner with work waiting had the engine in turn, ``max(V, owner's last tag) + cost`` where ``V``
is the start of the job picked last, and the smallest tag runs first.  So an owner who queues ten
level-8 moves is served one turn in every round, like everyone else; a newcomer's job starts at
``V``, ahead of the second and later jobs of everyone already waiting; and a short job (level 1,
0.2 s) goes before a long one queued at the same moment, as it ends sooner.  Each owner may have
a bounded number of jobs queued or running (:data:`MOVES_PER_OWNER`, the pool's per-client limit
for analyses); beyond it the job is refused with the seconds to wait.

A new computer game at a long level *reserves* its place before it is created (the request is
refused then, with Retry-After, rather than the game left without replies), and the place is
the game's once it exists.

*Budget of long moves* (:class:`MoveBudget`): fairness alone cannot keep a reply quick when
thirty owners each wait for a three-second search: the honest player's turn comes after thirty
others.  So the work the long moves (levels 4-8) may put in the queue is bounded: a game that
asks for a long move takes a *place* worth its move's thinking time, for as long as it has a
move queued or running and :data:`HOLD_S` after each reply (the player's time to answer); the
places held add up to at most ``budget_s`` (by default :data:`PLACES_PER_SLOT` level-8 moves per
worker that may take moves), and one owner holds at most :data:`GAMES_PER_OWNER` of them.  A game
without a place is refused (:class:`~exochess.web.domain.EngineBusy`, with the seconds until
the first place frees): before it starts (``admit``), or, for a game left alone longer than
``HOLD_S``, at its next move: the game service asks the backend first (``check_move``) and
refuses the player's move before storing it, and a computer move refused all the same is asked
again after its Retry-After.  The service frees a game's place as soon as the game ends.  A game holding
a place waits behind at most the other places' moves, whatever the flood outside.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

MOVE, ANALYSIS, REPORT = "move", "analysis", "report"
"""The kinds of job, in the order they are served: a report's positions (docs/analysis.md) only
when no move and no analysis waits."""
MOVES_PER_OWNER = 3
"""The computer's moves one owner may have queued or running at once (one per game they play
against it; more games wait their turn)."""
MIN_COST_S = 0.05
"""Cost charged for a job that thinks for no time at all (a random move still replays the game)."""
HOLD_S = 45.0
"""A game keeps its place in the long moves' budget this long after the computer's reply."""
PLACES_PER_SLOT = 2
"""Level-8 moves (3 s) the long-move budget allows per worker that may take moves."""
GAMES_PER_OWNER = 1
"""Places in the long-move budget one owner may hold (a second long game waits for the first)."""


def owner_of(user_id: int | None, address: str | None, game_id: str | None = None) -> str:
    """The owner a job is charged to: the account, else the client address, else the game."""
    if user_id is not None:
        return f"user:{user_id}"
    if address:
        return f"addr:{address}"
    return f"game:{game_id or '?'}"


@dataclass
class Ticket:
    """One job's place in the :class:`FairQueue`; ``item`` is the caller's job."""

    kind: str
    owner: str
    cost: float
    quick: bool
    item: Any
    seq: int = 0
    tag: float = 0.0
    state: str = "new"  # new -> queued -> running -> done (or queued -> done when dropped)


@dataclass(order=True)
class _Entry:
    key: tuple[float, int]
    ticket: Ticket = field(compare=False)


class FairQueue:
    """Jobs queued by kind and served fairly across owners (see the module docstring)."""

    def __init__(self) -> None:
        self._heaps: dict[tuple[str, bool], list[_Entry]] = {
            (MOVE, True): [],
            (MOVE, False): [],
            (ANALYSIS, False): [],
            (REPORT, False): [],
        }
        self._vtime = {MOVE: 0.0, ANALYSIS: 0.0, REPORT: 0.0}
        self._last_tag: dict[tuple[str, str], float] = {}
        self._held: Counter[tuple[str, str]] = Counter()  # (kind, owner) -> queued or running
        self.queued = {MOVE: 0, ANALYSIS: 0, REPORT: 0}
        self.running = {MOVE: 0, ANALYSIS: 0, REPORT: 0}
        self._seq = itertools.count(1)

    def held(self, owner: str, kind: str) -> int:
        """Jobs of ``kind`` that ``owner`` has queued or running."""
        return self._held[(kind, owner)]

    def push(self, ticket: Ticket) -> None:
        """Queue a new job, tagged by its owner's share."""
        key = (ticket.kind, ticket.owner)
        start = max(self._vtime[ticket.kind], self._last_tag.get(key, 0.0))
        ticket.tag = start + max(ticket.cost, MIN_COST_S)
        ticket.seq = next(self._seq)
        self._last_tag[key] = ticket.tag
        self._held[key] += 1
        self._queue(ticket)

    def requeue(self, ticket: Ticket) -> None:
        """Queue again a job taken off a worker that died (it keeps its tag: its turn came)."""
        if ticket.state == "running":
            self.running[ticket.kind] -= 1
        self._queue(ticket)

    def _queue(self, ticket: Ticket) -> None:
        ticket.state = "queued"
        self.queued[ticket.kind] += 1
        heap = self._heaps[(ticket.kind, ticket.quick and ticket.kind == MOVE)]
        heapq.heappush(heap, _Entry((ticket.tag, ticket.seq), ticket))

    def _top(self, kind: str, quick: bool) -> _Entry | None:
        heap = self._heaps[(kind, quick)]
        while heap and heap[0].ticket.state != "queued":
            heapq.heappop(heap)  # dropped while queued
        return heap[0] if heap else None

    def pop(self, *, quick_only: bool = False, analyses: bool = True) -> Ticket | None:
        """The next job for a worker: the computer's moves (smallest tag) before analyses, and
        analyses before reports' positions; ``quick_only`` (the express worker) takes quick
        moves only, ``analyses`` False neither analyses nor reports."""
        moves = [
            e
            for e in (self._top(MOVE, True), None if quick_only else self._top(MOVE, False))
            if e is not None
        ]
        if moves:
            entry = min(moves)
            heapq.heappop(self._heaps[(MOVE, entry.ticket.quick)])
        elif quick_only or not analyses:
            return None
        elif self._top(ANALYSIS, False) is not None:
            entry = heapq.heappop(self._heaps[(ANALYSIS, False)])
        elif self._top(REPORT, False) is not None:
            entry = heapq.heappop(self._heaps[(REPORT, False)])
        else:
            return None
        ticket = entry.ticket
        kind = ticket.kind
        self._vtime[kind] = max(self._vtime[kind], ticket.tag - max(ticket.cost, MIN_COST_S))
        self.queued[kind] -= 1
        self.running[kind] += 1
        ticket.state = "running"
        return ticket

    def finish(self, ticket: Ticket) -> None:
        """The job is over (answered, failed, or dropped while queued): its owner's count drops."""
        if ticket.state == "done":
            return
        if ticket.state == "queued":
            self.queued[ticket.kind] -= 1  # its heap entry is skipped when it comes up
        elif ticket.state == "running":
            self.running[ticket.kind] -= 1
        ticket.state = "done"
        key = (ticket.kind, ticket.owner)
        self._held[key] -= 1
        if self._held[key] <= 0:
            del self._held[key]
            if self._last_tag.get(key, 0.0) <= self._vtime[ticket.kind]:
                del self._last_tag[key]  # nothing to remember: its next job starts at V anyway

    def waiting(self, kind: str) -> list[Ticket]:
        """The jobs of ``kind`` queued now."""
        heaps = [h for (k, _q), h in self._heaps.items() if k == kind]
        return [e.ticket for h in heaps for e in h if e.ticket.state == "queued"]


@dataclass
class _Place:
    owner: str
    cost: float
    busy: int = 0
    """Moves of the game queued or running (the place never lapses meanwhile)."""
    until: float = math.inf
    released: bool = False
    """The game is over: the place goes when its last move ends."""


class MoveBudget:
    """The places of the long moves (see the module docstring): ``budget_s`` seconds of thinking
    time in all, ``per_owner`` games per owner, each place kept ``hold_s`` after a reply."""

    def __init__(self, budget_s: float, *, per_owner: int = GAMES_PER_OWNER, hold_s: float = HOLD_S) -> None:
        self.budget_s = budget_s
        self.per_owner = per_owner
        self.hold_s = hold_s
        self._places: dict[str, _Place] = {}

    def _expire(self, now: float) -> None:
        for game in [g for g, p in self._places.items() if p.busy == 0 and p.until <= now]:
            del self._places[game]

    def used(self, now: float) -> float:
        """Seconds of thinking time the places held now add up to."""
        self._expire(now)
        return sum(p.cost for p in self._places.values())

    def refusal(self, game: str | None, owner: str, cost: float, now: float) -> int | None:
        """None if ``game`` (None: a game about to start) may queue a long move of ``cost``
        seconds for ``owner``, else the seconds after which to try again."""
        self._expire(now)
        if game is not None and game in self._places:
            return None
        mine = sum(1 for p in self._places.values() if p.owner == owner)
        if mine < self.per_owner and self.used(now) + cost <= self.budget_s + 1e-9:
            return None
        lapses = [
            p.until - now
            for p in self._places.values()
            if p.busy == 0 and (mine < self.per_owner or p.owner == owner)
        ]
        # a place held by a move in progress frees at the earliest one hold after it ends
        soonest = min(lapses, default=self.hold_s + cost)
        return max(1, math.ceil(soonest))

    def reserve(self, key: str, owner: str, cost: float, now: float) -> None:
        """Hold a place for a game about to be created under ``key`` (call :meth:`refusal`
        first); it lapses :attr:`hold_s` from now unless :meth:`rename` gives it its game."""
        self._places[key] = _Place(owner, cost, until=now + self.hold_s)

    def rename(self, key: str, game: str) -> None:
        """The reservation ``key`` is ``game``'s place from now on."""
        place = self._places.pop(key, None)
        if place is not None:
            self._places[game] = place

    def take(self, game: str, owner: str, cost: float) -> None:
        """A move of ``game`` is queued (call :meth:`refusal` first)."""
        place = self._places.get(game)
        if place is None:
            place = self._places[game] = _Place(owner, cost)
        place.cost = max(place.cost, cost)
        place.busy += 1
        place.until = math.inf

    def done(self, game: str, now: float) -> None:
        """A move of ``game`` is over: the place lapses ``hold_s`` from now unless it moves again."""
        place = self._places.get(game)
        if place is None:
            return
        place.busy = max(0, place.busy - 1)
        if place.busy == 0:
            if place.released:
                del self._places[game]
            else:
                place.until = now + self.hold_s

    def release(self, game: str) -> None:
        """``game`` is over or abandoned: its place is free at once."""
        place = self._places.get(game)
        if place is not None and place.busy == 0:
            del self._places[game]
        elif place is not None:
            place.released = True  # kept while a move still runs

    def holders(self) -> dict[str, str]:
        """The games holding a place, with their owners (for the stats and the tests)."""
        return {g: p.owner for g, p in self._places.items()}
