"""Rating integrity (issue 40): one account on both seats, or a game over before both sides
moved, changes no rating; the same two accounts move each other's ratings only a few times a
day.  Real SQLite storage with the ratings' finish hook, as the site runs it."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select

from exochess.web.accounts.ratings import PAIR_GAMES_PER_DAY, apply_game_result, pair_games_today
from exochess.web.accounts.users import Accounts
from exochess.web.domain import GameStatus, PlayerKind
from exochess.web.storage.store import Storage, now, rating_history, ratings

PASSWORD = "a long password"


@pytest.fixture()
def storage(tmp_path: Path) -> Iterator[Storage]:
    store = Storage(f"sqlite:///{tmp_path / 'ri.sqlite'}")
    store.finish_hooks.append(apply_game_result)
    yield store
    store.close()


def play(
    storage: Storage,
    game_id: str,
    white: int,
    black: int,
    plies: int,
    result: str = "1-0",
    status: GameStatus = GameStatus.FINISHED,
) -> None:
    storage.create_game(
        id=game_id,
        variant="fugue",
        start_fen="x",
        white=PlayerKind.HUMAN,
        black=PlayerKind.HUMAN,
        level=None,
        white_secret=f"{game_id}w",
        black_secret=f"{game_id}b",
        time_control="1+0",
        white_user=white,
        black_user=black,
        rated=True,
    )
    for ply in range(plies):
        storage.add_move(game_id, ply, "e2-e3" if ply % 2 == 0 else "d7-d6", None)
    storage.finish(game_id, plies, {"result": result, "termination": "resignation", "reason": "r"}, status)


def history(storage: Storage) -> list[str]:
    with storage.engine.connect() as conn:
        return [r.game_id for r in conn.execute(select(rating_history).order_by(rating_history.c.id))]


def test_a_game_over_before_both_sides_moved_changes_no_rating(storage: Storage) -> None:
    accounts = Accounts(storage.engine)
    a, b = accounts.create("ri_a", PASSWORD), accounts.create("ri_b", PASSWORD)
    play(storage, "none", a.id, b.id, 0, "0-1")  # e.g. a claim before anyone moved
    play(storage, "one", a.id, b.id, 1, "1-0")  # a flag after White's first move
    play(storage, "abort", a.id, b.id, 1, "*", GameStatus.ABORTED)
    assert history(storage) == []
    with storage.engine.connect() as conn:
        assert conn.execute(select(ratings)).all() == []
    play(storage, "both", a.id, b.id, 2, "1-0")
    assert history(storage) == ["both", "both"]


def test_one_account_on_both_seats_changes_no_rating(storage: Storage) -> None:
    a = Accounts(storage.engine).create("ri_solo", PASSWORD)
    play(storage, "self", a.id, a.id, 4)
    assert history(storage) == []


def test_the_same_two_accounts_count_only_a_few_times_a_day(storage: Storage) -> None:
    accounts = Accounts(storage.engine)
    a, b, c = (accounts.create(f"ri_pair{i}", PASSWORD) for i in range(3))
    for i in range(PAIR_GAMES_PER_DAY + 2):
        # colours alternate: the pair is the same whoever has White
        play(storage, f"p{i}", a.id if i % 2 == 0 else b.id, b.id if i % 2 == 0 else a.id, 2)
    rated = history(storage)
    assert len(rated) == 2 * PAIR_GAMES_PER_DAY
    assert {g for g in rated} == {f"p{i}" for i in range(PAIR_GAMES_PER_DAY)}
    # another opponent is another pair
    play(storage, "other", a.id, c.id, 2)
    assert history(storage)[-2:] == ["other", "other"]
    with storage.engine.connect() as conn:
        assert pair_games_today(conn, a.id, b.id, now()) == PAIR_GAMES_PER_DAY
        # the window is a day: the next day's games count again (an injected time, no sleeping)
        assert pair_games_today(conn, a.id, b.id, now() + dt.timedelta(days=1, minutes=1)) == 0
