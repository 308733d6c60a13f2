"""Group commit (web/storage/groupcommit.py): items ready in several threads at once share one
statement, each keeps its own answer, and two items of one game never share a statement.
Real threads; the statements are lists in memory (tests/cluster/test_storage_moves.py stores
real moves on PostgreSQL)."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable

import pytest

from exochess.web.storage.groupcommit import GroupCommit


class Statements:
    """Statements "run" in memory: each a list of items; ``gate`` holds the next single one."""

    def __init__(self, refuse: Callable[[str], bool] = lambda item: False) -> None:
        self.run: list[list[str]] = []
        self.refuse = refuse
        self.gate: threading.Event | None = None
        self.entered = threading.Event()
        self.lock = threading.Lock()
        self.fail_many = False

    def one(self, item: str) -> bool:
        if self.gate is not None:
            gate, self.gate = self.gate, None
            self.entered.set()
            assert gate.wait(10)
        if item.endswith("boom"):
            raise ValueError(f"cannot store {item}")
        with self.lock:
            self.run.append([item])
        return not self.refuse(item)

    def many(self, items: list[str]) -> list[bool]:
        if self.fail_many:
            raise RuntimeError("the grouped statement failed")
        with self.lock:
            self.run.append(list(items))
        return [not self.refuse(item) for item in items]


def game_of(item: str) -> str:
    return item.split()[0]


def wait_until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 10
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.001)


def start_storing(group: GroupCommit[str], item: str, answers: dict[str, object]) -> threading.Thread:
    def store() -> None:
        try:
            answers[item] = group.store(item)
        except Exception as exc:
            answers[item] = exc

    thread = threading.Thread(target=store)
    thread.start()
    return thread


def held_leader(
    statements: Statements, group: GroupCommit[str], answers: dict[str, object], later: list[str]
) -> list[threading.Thread]:
    """The first item's statement held until ``later`` wait behind it, in that order."""
    gate = threading.Event()
    statements.gate = gate
    threads = [start_storing(group, "g0 first", answers)]
    assert statements.entered.wait(10)
    for count, item in enumerate(later, 1):
        threads.append(start_storing(group, item, answers))
        wait_until(lambda count=count: group.waiting() == count)  # type: ignore[misc]
    gate.set()
    for thread in threads:
        thread.join(10)
    return threads


def test_an_item_alone_goes_at_once_by_itself() -> None:
    statements = Statements()
    sizes: list[int] = []
    group = GroupCommit(statements.one, statements.many, key=game_of)
    group.observer = sizes.append
    assert group.store("g1 e2-e4") is True
    assert group.store("g1 e7-e5") is True
    assert statements.run == [["g1 e2-e4"], ["g1 e7-e5"]] and sizes == [1, 1]
    assert group.waiting() == 0


def test_items_waiting_behind_a_statement_go_together_and_one_game_never_twice() -> None:
    statements = Statements(refuse=lambda item: item.endswith("stale"))
    sizes: list[int] = []
    group = GroupCommit(statements.one, statements.many, key=game_of)
    group.observer = sizes.append
    answers: dict[str, object] = {}
    held_leader(statements, group, answers, ["g1 a", "g2 b", "g1 c", "g3 stale", "g4 d"])
    # g1's second move waits for the next statement, after its first
    assert statements.run == [["g0 first"], ["g1 a", "g2 b", "g3 stale", "g4 d"], ["g1 c"]]
    assert sizes == [1, 4, 1]
    assert answers == {
        "g0 first": True,
        "g1 a": True,
        "g2 b": True,
        "g1 c": True,
        "g3 stale": False,
        "g4 d": True,
    }
    assert group.waiting() == 0


def test_a_group_bounded_by_most() -> None:
    statements = Statements()
    group = GroupCommit(statements.one, statements.many, key=game_of, most=2)
    answers: dict[str, object] = {}
    held_leader(statements, group, answers, ["g1 a", "g2 b", "g3 c"])
    assert statements.run == [["g0 first"], ["g1 a", "g2 b"], ["g3 c"]]
    assert all(answer is True for answer in answers.values()) and len(answers) == 4


def test_a_failed_group_goes_again_one_by_one_and_each_keeps_its_own_error() -> None:
    statements = Statements()
    statements.fail_many = True
    group = GroupCommit(statements.one, statements.many, key=game_of)
    answers: dict[str, object] = {}
    held_leader(statements, group, answers, ["g1 a", "g2 boom", "g3 c"])
    assert statements.run == [["g0 first"], ["g1 a"], ["g3 c"]]
    assert answers["g1 a"] is True and answers["g3 c"] is True
    error = answers["g2 boom"]
    assert isinstance(error, ValueError) and "cannot store g2 boom" in str(error)
    # the group goes on after an error
    statements.fail_many = False
    assert group.store("g2 again") is True


def test_the_leaders_own_error_reaches_the_leader_and_the_lead_passes_on() -> None:
    statements = Statements()
    group = GroupCommit(statements.one, statements.many, key=game_of)
    with pytest.raises(ValueError, match="cannot store g1 boom"):
        group.store("g1 boom")
    assert group.store("g1 fine") is True and statements.run == [["g1 fine"]]


def test_many_threads_each_item_stored_once_and_no_group_holds_a_game_twice() -> None:
    """16 threads storing 150 items each over 6 games, with small random delays in the
    statements: every item gets its answer once, every item is in exactly one statement, no
    statement holds two items of one game, and groups did form."""
    lock = threading.Lock()
    run: list[list[str]] = []
    rng = random.Random(7)

    def one(item: str) -> bool:
        time.sleep(rng.random() / 5000)
        with lock:
            run.append([item])
        return True

    def many(items: list[str]) -> list[bool]:
        time.sleep(rng.random() / 5000)
        with lock:
            run.append(list(items))
        return [True] * len(items)

    group = GroupCommit(one, many, key=game_of)
    answered: list[str] = []

    def thread(t: int) -> None:
        mine = random.Random(t)
        for i in range(150):
            item = f"g{mine.randrange(6)} t{t}i{i}"
            assert group.store(item) is True
            with lock:
                answered.append(item)

    threads = [threading.Thread(target=thread, args=(t,)) for t in range(16)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(60)
    items = [item for statement in run for item in statement]
    assert len(answered) == 16 * 150
    assert sorted(items) == sorted(answered) and len(set(items)) == len(items)
    assert all(len({game_of(item) for item in statement}) == len(statement) for statement in run)
    assert max(len(statement) for statement in run) > 1
    assert group.waiting() == 0


def test_an_item_kept_waiting_past_the_patience_goes_alone_beside_the_statement() -> None:
    statements = Statements()
    sizes: list[int] = []
    group = GroupCommit(statements.one, statements.many, key=game_of)
    group.observer = sizes.append
    group.patience = 0.05
    gate = threading.Event()
    statements.gate = gate
    answers: dict[str, object] = {}
    leader = start_storing(group, "g0 held", answers)
    assert statements.entered.wait(10)
    assert group.store("g1 a") is True  # while the first statement is still held
    assert statements.run == [["g1 a"]] and group.waiting() == 0 and group.storing()
    gate.set()
    leader.join(10)
    assert answers == {"g0 held": True} and statements.run == [["g1 a"], ["g0 held"]]
    assert sizes == [1, 1] and not group.storing()
