"""The rate limits' moving windows (``windows.py``): counted as the ``limits`` library's moving
window counts, with no thread of their own, and forgetting the clients that went quiet."""

from __future__ import annotations

import threading

from limits import parse

from exochess.web.limits.windows import SWEEP_S, MovingWindows


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_window_allows_its_amount_per_period_and_frees_up_as_hits_age() -> None:
    clock = Clock()
    windows = MovingWindows(clock)
    item = parse("3/minute")
    for at in (0.0, 10.0, 30.0):
        clock.now = 1000.0 + at
        assert windows.test(item, "games", "a")
        assert windows.hit(item, "games", "a")
    clock.now = 1000.0 + 40.0
    assert not windows.test(item, "games", "a") and not windows.hit(item, "games", "a")
    assert windows.retry_in(item, "games", "a") == 20.0  # the first hit, at 0 s, ages out at 60 s
    clock.now = 1000.0 + 59.5
    assert not windows.hit(item, "games", "a")
    assert windows.retry_in(item, "games", "a") == 0.5
    clock.now = 1000.0 + 60.0
    assert windows.retry_in(item, "games", "a") == 0.0 and windows.hit(item, "games", "a")
    assert not windows.hit(item, "games", "a")  # 10, 30 and 60 s are in the window
    # other clients and other kinds are counted apart
    assert windows.hit(item, "games", "b") and windows.hit(item, "sockets", "a")


def test_refused_hits_are_not_counted() -> None:
    clock = Clock()
    windows = MovingWindows(clock)
    item = parse("2/second")
    assert windows.hit(item, "k", "a") and windows.hit(item, "k", "a")
    for _ in range(100):
        assert not windows.hit(item, "k", "a")
    clock.now += 1.0
    assert windows.hit(item, "k", "a")


def test_quiet_clients_are_forgotten_and_no_thread_is_started() -> None:
    clock = Clock()
    windows = MovingWindows(clock)
    threads = threading.active_count()
    item = parse("5/minute")
    for i in range(1000):
        windows.hit(item, "misses", f"10.0.{i // 250}.{i % 250}")
    assert len(windows) == 1000 and threading.active_count() == threads
    clock.now += 61 + SWEEP_S
    windows.hit(item, "misses", "10.9.9.9")
    assert len(windows) == 1
