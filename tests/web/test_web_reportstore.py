"""The ``game_reports`` table's queries on a real SQLite file (issue 45): a report queued once,
claimed by one server under a lease, stored only under that lease, resumed after a crash, and
the automatic reports of rated games found."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from exochess.web.domain import PlayerKind
from exochess.web.game.reportstore import (
    DONE,
    QUEUED,
    RUNNING,
    add_report,
    claim_next,
    finish,
    load_report,
    rated_without_report,
    release_all,
    store_position,
    unfinished_of,
    waiting,
)
from exochess.web.storage.store import Storage, now


def game(storage: Storage, game_id: str, *, rated: bool = False, moves: int = 2) -> None:
    storage.create_game(
        id=game_id,
        variant="fugue",
        start_fen="x",
        white=PlayerKind.HUMAN,
        black=PlayerKind.HUMAN,
        level=None,
        white_secret="a",
        black_secret="b",
        rated=rated,
    )
    for ply in range(moves - 1):
        storage.add_move(game_id, ply, f"m{ply}", None)
    storage.add_move(
        game_id, moves - 1, "last", {"result": "1-0", "termination": "resignation", "reason": "r"}
    )


def test_one_report_one_runner_resumed_after_a_crash(tmp_path: Path) -> None:
    storage = Storage(f"sqlite:///{tmp_path / 'r.sqlite'}")
    try:
        engine = storage.engine
        game(storage, "g1")
        first = add_report(engine, "g1", "addr:1", 100, 3, False)
        again = add_report(engine, "g1", "addr:2", 100, 3, False)
        assert first.status == again.status == QUEUED and again.owner == "addr:1"  # queued once
        assert unfinished_of(engine, "addr:1") == 1 and waiting(engine) == 1

        mine = claim_next(engine, 30.0, False)
        assert mine is not None and mine.status == RUNNING and mine.lease_until is not None
        assert claim_next(engine, 30.0, False) is None  # held: no second runner
        lease = store_position(engine, "g1", mine.lease_until, [{"cp": 10}], 30.0)
        assert lease is not None
        # a stale lease stores nothing (another server took the report over)
        assert store_position(engine, "g1", mine.lease_until, [{"cp": 99}], 30.0) is None
        assert load_report(engine, "g1").positions == [{"cp": 10}]  # type: ignore[union-attr]

        # the server dies; a server on its own that starts frees the lease and goes on from there
        assert release_all(engine) == 1
        resumed = claim_next(engine, 30.0, False)
        assert resumed is not None and resumed.positions == [{"cp": 10}]
        assert resumed.lease_until is not None
        lease2 = store_position(
            engine, "g1", resumed.lease_until, [{"cp": 10}, {"cp": 5}, {"result": "1-0"}], 30.0
        )
        assert lease2 is not None and finish(engine, "g1", lease2, DONE)
        done = load_report(engine, "g1")
        assert (
            done is not None and done.status == DONE and done.lease_until is None and len(done.positions) == 3
        )
        assert unfinished_of(engine, "addr:1") == 0 and waiting(engine) == 0
    finally:
        storage.close()


def test_lapsed_leases_and_automatic_reports(tmp_path: Path) -> None:
    storage = Storage(f"sqlite:///{tmp_path / 'r.sqlite'}")
    try:
        engine = storage.engine
        game(storage, "rated1", rated=True)
        game(storage, "casual", rated=False)
        assert rated_without_report(engine, now() - dt.timedelta(days=1), 10) == [("rated1", 2)]
        auto = add_report(engine, "rated1", "server", 100, 3, True)
        assert auto.auto and rated_without_report(engine, now() - dt.timedelta(days=1), 10) == []
        # people's reports come first; an automatic one is claimed only when asked for
        assert claim_next(engine, 30.0, False) is None
        held = claim_next(engine, 0.01, True)
        assert held is not None and held.game_id == "rated1"
        # its lease lapses (a server of Redis mode died): another claims it
        taken, tries = None, 0
        while taken is None:
            tries += 1
            assert tries < 1_000_000, "the lease never lapsed"
            taken = claim_next(engine, 30.0, True)
        assert taken.lease_until != held.lease_until
        assert held.lease_until is not None
        assert store_position(engine, "rated1", held.lease_until, [{"cp": 1}], 30.0) is None
        # a person asking for it makes it theirs, first in line
        add_report(engine, "rated1", "user:7", 100, 3, False)
        row = load_report(engine, "rated1")
        assert row is not None and not row.auto and row.owner == "user:7"
    finally:
        storage.close()
