"""The engine's fair share in Redis mode: the bookkeeping of
:mod:`exochess.web.compute.fairshare` kept in Redis, so that every server counts the same
owners and places, and the engine workers (``exochess worker``) free them.

- *Each owner's jobs*: a sorted set per owner and kind (``exochess:engine:owner:move:addr:...``)
  of the owner's job ids, scored by when the claim lapses (a job whose worker died without
  saying so frees its owner after its longest run).  A new job beyond the bound is refused;
  otherwise its place in that set (0 for the owner's first job) sets its place in the queue:
- *Order*: arq runs the jobs in the order of their score (the time they may start).  A computer
  move is queued with a start an hour in the past, an analysis ten minutes in the past, so
  moves go before every analysis; and an
  owner's ``k``-th job waiting is put ``k`` times its thinking time later than one asked now,
  so thirty jobs of one owner are served one per round like everyone else's (round robin by
  position: the first jobs of every owner, then the second ones...).
- *Places of the long moves*: a hash of the games holding a place (cost, lapse time, owner),
  checked and taken in one Lua script.  The lease taken with the job lasts its longest run;
  the worker shortens it to :data:`~exochess.web.compute.fairshare.HOLD_S` after the move.

The scripts are short and run atomically in Redis (one round trip each).
"""

from __future__ import annotations

import datetime as dt
import math
import time
from typing import Any

from redis.asyncio import Redis

from exochess.web.compute.fairshare import GAMES_PER_OWNER, HOLD_S, MOVE
from exochess.web.domain import N_, EngineBusy, TooManyEngineJobs

OWNER_KEY = "exochess:engine:owner:{kind}:{owner}"
PLACES_KEY = "exochess:engine:places"
GAME_OWNER_KEY = "exochess:engine:owner-of:{game}"
MOVE_LEAD_S = 3600.0
"""How far in the past a computer move's start is put: ahead of every analysis."""
ANALYSIS_LEAD_S = 600.0
"""The same for an analysis: in the past too, so that an owner's later turns are an order, not
a wait (arq starts no job before its time)."""
JOB_TIMEOUT_S = 60.0
"""Longest run of one job in a worker (a level-8 move thinks 3 s, an analysis at most 5 s)."""
JOB_EXPIRES_S = 7200.0
"""A job not started this long after it was queued is dropped (its start is put up to an hour
in the past: :data:`MOVE_LEAD_S`)."""

_ENTER = """
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZSCORE', KEYS[1], ARGV[3]) then
  return redis.call('ZRANK', KEYS[1], ARGV[3])
end
local n = redis.call('ZCARD', KEYS[1])
if n >= tonumber(ARGV[2]) then return -1 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[4]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[4]))
return n
"""
"""KEYS: the owner's set; ARGV: now (ms), bound, job id, claim (ms).  The job's position among
the owner's (0: its first), or -1 if the owner has as many as the bound."""

_PLACE = """
local now = tonumber(ARGV[4])
local all = redis.call('HGETALL', KEYS[1])
local used, mine, soonest, have = 0, 0, -1, false
for i = 1, #all, 2 do
  local cost, untl, owner = string.match(all[i + 1], '^([^|]*)|([^|]*)|(.*)$')
  if tonumber(untl) <= now then
    redis.call('HDEL', KEYS[1], all[i])
  else
    if all[i] == ARGV[1] then have = true end
    used = used + tonumber(cost)
    if owner == ARGV[2] then mine = mine + 1 end
    local left = tonumber(untl) - now
    if soonest < 0 or left < soonest then soonest = left end
  end
end
if not have then
  if mine >= tonumber(ARGV[6]) or used + tonumber(ARGV[3]) > tonumber(ARGV[5]) + 0.001 then
    if soonest < 0 then soonest = tonumber(ARGV[7]) end
    return soonest
  end
end
if ARGV[8] == '1' then
  local lapse = string.format('%d', now + tonumber(ARGV[7]))
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[3] .. '|' .. lapse .. '|' .. ARGV[2])
end
return -1
"""
"""KEYS: the places; ARGV: game, owner, cost (s), now (ms), budget (s), places per owner,
lease (ms), '1' to take the place ('0': only check).  -1 if the game has or may take a place,
else the milliseconds until the first place lapses."""

_DONE = """
local v = redis.call('HGET', KEYS[1], ARGV[1])
if not v then return 0 end
local cost, untl, owner = string.match(v, '^([^|]*)|([^|]*)|(.*)$')
redis.call('HSET', KEYS[1], ARGV[1], cost .. '|' .. string.format('%d', tonumber(ARGV[2])) .. '|' .. owner)
return 1
"""
"""KEYS: the places; ARGV: game, the new lapse time (ms)."""


def _now_ms() -> int:
    return int(time.time() * 1000)


class RedisShare:
    """Owners' bounds and the long moves' places of Redis mode (see the module docstring)."""

    def __init__(
        self,
        redis: Redis,
        *,
        moves_per_owner: int,
        analyses_per_owner: int,
        budget_s: float,
        games_per_owner: int = GAMES_PER_OWNER,
        hold_s: float = HOLD_S,
        claim_s: float = 120.0,
    ) -> None:
        self.redis = redis
        self.bounds = {MOVE: moves_per_owner}
        self.analyses_per_owner = analyses_per_owner
        self.budget_s = budget_s
        self.games_per_owner = games_per_owner
        self.hold_s = hold_s
        self.claim_s = claim_s
        """How long a job's claims last at most (its longest wait and run)."""

    async def enter(self, owner: str, kind: str, job_id: str, cost_s: float) -> int:
        """Count ``job_id`` against ``owner``'s bound for ``kind``: its position among the
        owner's jobs, or :class:`TooManyEngineJobs` with the seconds to wait."""
        bound = self.bounds.get(kind, self.analyses_per_owner)
        key = OWNER_KEY.format(kind=kind, owner=owner)
        position = int(
            await self.redis.eval(  # type: ignore[misc]
                _ENTER, 1, key, str(_now_ms()), str(bound), job_id, str(int(self.claim_s * 1000))
            )
        )
        if position < 0:
            raise self._too_many(kind, bound, cost_s)
        return position

    async def check(self, owner: str, kind: str, cost_s: float) -> None:
        """Raise what :meth:`enter` would for one more job of ``owner``, counting nothing."""
        bound = self.bounds.get(kind, self.analyses_per_owner)
        key = OWNER_KEY.format(kind=kind, owner=owner)
        if int(await self.redis.zcount(key, _now_ms(), "+inf")) >= bound:
            raise self._too_many(kind, bound, cost_s)

    @staticmethod
    def _too_many(kind: str, bound: int, cost_s: float) -> TooManyEngineJobs:
        retry = max(1, math.ceil(cost_s * bound))
        if kind == MOVE:
            return TooManyEngineJobs(
                N_(
                    "too many computer moves of yours are waiting (at most {count}); try again in {seconds} s"
                ),
                retry_after=retry,
                count=bound,
                seconds=retry,
            )
        return TooManyEngineJobs(
            N_(
                "too many engine analyses from your address at once (at most {count}); wait for one to finish"
            ),
            retry_after=retry,
            count=bound,
        )

    async def leave(self, owner: str, kind: str, job_id: str) -> None:
        """``job_id`` is over: it no longer counts against its owner."""
        await self.redis.zrem(OWNER_KEY.format(kind=kind, owner=owner), job_id)

    async def place(self, game: str | None, owner: str, cost_s: float, *, take: bool = True) -> None:
        """Take (or with ``take`` False only check) a place for ``game``'s long move (None: a game
        about to start); :class:`EngineBusy` with the seconds to wait when there is none."""
        wait_ms = int(
            await self.redis.eval(  # type: ignore[misc]
                _PLACE,
                1,
                PLACES_KEY,
                game or "",
                owner,
                str(cost_s),
                str(_now_ms()),
                str(self.budget_s),
                str(self.games_per_owner),
                str(int((self.claim_s + self.hold_s) * 1000)),
                "1" if take and game else "0",
            )
        )
        if wait_ms >= 0:
            # a place held by a move in progress lapses one hold after the move at the latest
            retry = max(1, math.ceil(min(wait_ms / 1000, self.hold_s + cost_s)))
            raise EngineBusy(
                N_("the computer is busy with long searches: try again in {seconds} s"),
                retry_after=retry,
                seconds=retry,
            )

    async def place_done(self, game: str) -> None:
        """``game``'s move is stored: its place lapses :attr:`hold_s` from now unless it moves again."""
        await self.redis.eval(  # type: ignore[misc]
            _DONE, 1, PLACES_KEY, game, str(_now_ms() + int(self.hold_s * 1000))
        )

    async def rename(self, key: str, game: str) -> None:
        """The place reserved under ``key`` is ``game``'s from now on."""
        value = await self.redis.hget(PLACES_KEY, key)  # type: ignore[misc]
        if value is not None:
            await self.redis.hset(PLACES_KEY, game, value)  # type: ignore[misc]
            await self.redis.hdel(PLACES_KEY, key)  # type: ignore[misc]

    async def set_owner(self, game: str, owner: str) -> None:
        """Remember who ``game``'s computer moves are charged to (for a day)."""
        await self.redis.set(GAME_OWNER_KEY.format(game=game), owner, ex=86_400)

    async def owner_of_game(self, game: str) -> str | None:
        value = await self.redis.get(GAME_OWNER_KEY.format(game=game))
        return value.decode() if isinstance(value, bytes) else value

    async def release(self, game: str) -> None:
        """``game`` is over: its place is free."""
        await self.redis.hdel(PLACES_KEY, game)  # type: ignore[misc]

    async def holders(self) -> dict[str, Any]:
        """The games holding a place (for the stats and the tests)."""
        places = await self.redis.hgetall(PLACES_KEY)  # type: ignore[misc]
        return {k.decode(): v.decode() for k, v in places.items()}


def start_at(position: int, cost_s: float, kind: str) -> dt.datetime:
    """The time a job is queued to start (arq's ``_defer_until``): a move an hour early (before
    every analysis), an owner's ``position``-th waiting job that many turns later."""
    lead = MOVE_LEAD_S if kind == MOVE else ANALYSIS_LEAD_S
    return dt.datetime.fromtimestamp(time.time() - lead + position * max(cost_s, 0.05), dt.UTC)
