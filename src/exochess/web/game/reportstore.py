"""The ``game_reports`` table's queries: a report asked for, claimed by a server, filled one
position at a time, finished (see :mod:`exochess.web.game.reports`).

Every call is one short transaction on the storage's engine (run them in the service's database
threads).  A server *claims* a report with a guarded update (only if nobody holds its lease, or
the lease lapsed) and renews the lease with every position it stores, each store guarded by the
same lease: two servers never fill one report, and a report whose server died is taken over
where it stopped once its lease lapses.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, and_, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from exochess.web.domain import GameStatus
from exochess.web.storage.store import game_reports, games, now

QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"
"""A report's status."""
UNFINISHED = (QUEUED, RUNNING)


@dataclass(frozen=True)
class ReportRow:
    """One stored report."""

    game_id: str
    status: str
    auto: bool
    owner: str
    nodes: int
    total: int
    positions: list[dict[str, Any]]
    """One entry per position searched so far, the game's start first."""
    requested: dt.datetime
    updated: dt.datetime
    lease_until: dt.datetime | None
    error: str | None


def _row(r: Any) -> ReportRow:
    m = dict(r._mapping)
    m["positions"] = json.loads(m["positions"] or "[]")
    return ReportRow(**m)


def load_report(engine: Engine, game_id: str) -> ReportRow | None:
    """The report of ``game_id``, if one was ever asked for."""
    with engine.connect() as conn:
        r = conn.execute(select(game_reports).where(game_reports.c.game_id == game_id)).first()
    return _row(r) if r is not None else None


def add_report(engine: Engine, game_id: str, owner: str, nodes: int, total: int, auto: bool) -> ReportRow:
    """Queue a report of ``game_id`` (``total`` positions of ``nodes`` nodes each), or return the
    one already there (asked for by someone else meanwhile).  A report asked for by a person
    takes an automatic one's place in the order of the queue (it is no longer automatic)."""
    at = now()
    try:
        with engine.begin() as conn:
            conn.execute(
                insert(game_reports).values(
                    game_id=game_id,
                    status=QUEUED,
                    auto=auto,
                    owner=owner,
                    nodes=nodes,
                    total=total,
                    positions="[]",
                    requested=at,
                    updated=at,
                )
            )
    except IntegrityError:
        with engine.begin() as conn:
            # a report that failed is asked for again: it starts over
            conn.execute(
                update(game_reports)
                .where(game_reports.c.game_id == game_id, game_reports.c.status == FAILED)
                .values(status=QUEUED, error=None, positions="[]", nodes=nodes, total=total, updated=at)
            )
        if not auto:
            with engine.begin() as conn:
                conn.execute(
                    update(game_reports)
                    .where(game_reports.c.game_id == game_id, game_reports.c.auto)
                    .values(auto=False, owner=owner, requested=at)
                )
    row = load_report(engine, game_id)
    assert row is not None
    return row


def unfinished_of(engine: Engine, owner: str) -> int:
    """Reports ``owner`` asked for that are not finished yet."""
    with engine.connect() as conn:
        q = select(func.count()).where(
            game_reports.c.owner == owner, game_reports.c.status.in_(UNFINISHED), ~game_reports.c.auto
        )
        return int(conn.execute(q).scalar() or 0)


def waiting(engine: Engine) -> int:
    """Reports asked for by people that are not finished."""
    with engine.connect() as conn:
        q = select(func.count()).where(game_reports.c.status.in_(UNFINISHED), ~game_reports.c.auto)
        return int(conn.execute(q).scalar() or 0)


def _free(at: dt.datetime) -> Any:
    return or_(game_reports.c.lease_until.is_(None), game_reports.c.lease_until < at)


def claim_next(engine: Engine, lease_s: float, auto: bool) -> ReportRow | None:
    """Take the oldest unfinished report nobody holds (asked for by a person, or with ``auto``
    an automatic one), leased for ``lease_s`` seconds; None if there is none."""
    at = now()
    with engine.connect() as conn:
        q = (
            select(game_reports.c.game_id)
            .where(game_reports.c.status.in_(UNFINISHED), game_reports.c.auto == auto, _free(at))
            .order_by(game_reports.c.requested)
            .limit(5)
        )
        candidates = [r[0] for r in conn.execute(q)]
    for game_id in candidates:
        with engine.begin() as conn:
            done = conn.execute(
                update(game_reports)
                .where(game_reports.c.game_id == game_id, game_reports.c.status.in_(UNFINISHED), _free(at))
                .values(status=RUNNING, lease_until=at + dt.timedelta(seconds=lease_s), updated=at)
            )
        if done.rowcount == 1:
            return load_report(engine, game_id)
    return None


def store_position(
    engine: Engine, game_id: str, lease: dt.datetime, positions: list[dict[str, Any]], lease_s: float
) -> dt.datetime | None:
    """Store the positions searched so far, if this server still holds the report's lease
    ``lease``; the renewed lease, or None when it was lost (another server took over)."""
    at = now()
    renewed = at + dt.timedelta(seconds=lease_s)
    with engine.begin() as conn:
        done = conn.execute(
            update(game_reports)
            .where(game_reports.c.game_id == game_id, game_reports.c.lease_until == lease)
            .values(positions=json.dumps(positions, separators=(",", ":")), lease_until=renewed, updated=at)
        )
    return renewed if done.rowcount == 1 else None


def finish(engine: Engine, game_id: str, lease: dt.datetime, status: str, error: str | None = None) -> bool:
    """Mark the report ``status`` (done or failed) and free its lease, if still held."""
    with engine.begin() as conn:
        done = conn.execute(
            update(game_reports)
            .where(game_reports.c.game_id == game_id, game_reports.c.lease_until == lease)
            .values(status=status, lease_until=None, updated=now(), error=error)
        )
    return done.rowcount == 1


def release(engine: Engine, game_id: str, lease: dt.datetime) -> None:
    """Give the report back to the queue (this server stops), keeping what it stored."""
    with engine.begin() as conn:
        conn.execute(
            update(game_reports)
            .where(game_reports.c.game_id == game_id, game_reports.c.lease_until == lease)
            .values(status=QUEUED, lease_until=None, updated=now())
        )


def release_all(engine: Engine) -> int:
    """Free every lease (a server on its own, starting: any lease is its dead predecessor's)."""
    with engine.begin() as conn:
        done = conn.execute(
            update(game_reports)
            .where(game_reports.c.status.in_(UNFINISHED), game_reports.c.lease_until.is_not(None))
            .values(status=QUEUED, lease_until=None)
        )
    return int(done.rowcount)


def rated_without_report(engine: Engine, since: dt.datetime, limit: int) -> list[tuple[str, int]]:
    """(id, moves) of rated games finished since ``since`` that have no report yet (the
    automatic ones)."""
    with engine.connect() as conn:
        q = (
            select(games.c.id, games.c.ply)
            .select_from(games.outerjoin(game_reports, game_reports.c.game_id == games.c.id))
            .where(
                and_(
                    games.c.rated,
                    games.c.status == GameStatus.FINISHED,
                    games.c.updated >= since,
                    game_reports.c.game_id.is_(None),
                    games.c.ply > 0,
                )
            )
            .order_by(games.c.updated)
            .limit(limit)
        )
        return [(r[0], int(r[1])) for r in conn.execute(q)]
