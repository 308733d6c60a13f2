"""The token buckets of the lobby and the chat, on a clock the test moves."""

from __future__ import annotations

from exochess.web.social.throttle import Throttle


def test_a_burst_then_the_rate_per_key() -> None:
    now = [100.0]
    throttle = Throttle(rate=2.0, burst=4, clock=lambda: now[0])
    assert [throttle.allow("a") for _ in range(5)] == [True] * 4 + [False]
    assert throttle.allow("b")  # another key has its own bucket
    now[0] += 0.5  # one token back at two a second
    assert throttle.allow("a") and not throttle.allow("a")
    now[0] += 60  # a long pause refills the bucket, never beyond the burst
    assert [throttle.allow("a") for _ in range(5)] == [True] * 4 + [False]


def test_refusals_take_nothing_and_full_buckets_are_forgotten() -> None:
    now = [0.0]
    throttle = Throttle(rate=1.0, burst=1, clock=lambda: now[0])
    assert throttle.allow("k")
    for _ in range(10):  # hammering while empty does not push the next token further away
        assert not throttle.allow("k")
    now[0] += 1.0
    assert throttle.allow("k")
    for i in range(10_050):  # many one-off keys: memory stays bounded once their buckets refill
        now[0] += 1.0
        throttle.allow(i)
    assert len(throttle._buckets) <= 10_001
