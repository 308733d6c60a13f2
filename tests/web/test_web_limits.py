"""The one rate limiter (:class:`~exochess.web.limits.RateLimits`) and what it is keyed on: a
window per limit and key, refusals not counted, the local memory of a full window, and logins
counted on the account name as the login reads it (issue 41, finding 2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from exochess.web import create_app
from exochess.web.limits import LIMITS, RateLimits, account_key, parse_rate_limits
from tests.web.serverproc import run_async


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_each_limit_counts_per_key_and_refusals_say_when_to_retry() -> None:
    clock = Clock()
    limits = RateLimits("chat=2 per 10 seconds;lobby=off", clock=clock)

    async def run() -> None:
        assert await limits.hit("chat", "g1:white") is None
        assert await limits.hit("chat", "g1:white") is None
        refusal = await limits.hit("chat", "g1:white")
        assert refusal is not None and refusal.retry_s == 10 and "chat lines" in refusal.message()
        assert await limits.hit("chat", "g1:black") is None  # another key has its own window
        assert await limits.hit("lobby", "1.2.3.4") is None  # a limit turned off
        for _ in range(20):  # hammering a full window does not push the next hit further away
            assert await limits.hit("chat", "g1:white") is not None
        clock.now += 10.0
        assert await limits.hit("chat", "g1:white") is None

    run_async(run)


def test_several_rates_of_one_limit_must_all_allow_a_hit() -> None:
    clock = Clock()
    limits = RateLimits("login-account=2/minute,3/hour", clock=clock)

    async def run() -> None:
        assert await limits.hit("login-account", "alice") is None
        assert await limits.hit("login-account", "alice") is None
        refusal = await limits.hit("login-account", "alice")
        assert refusal is not None and refusal.item.amount == 2  # the rate per minute is used up
        clock.now += 61
        assert await limits.hit("login-account", "alice") is None
        refusal = await limits.hit("login-account", "alice")
        assert refusal is not None and refusal.item.amount == 3  # now the hourly one is

    run_async(run)


def test_a_precheck_limit_is_known_full_without_asking_the_storage() -> None:
    clock = Clock()
    limits = RateLimits("sockets=2/minute", clock=clock)

    async def run() -> None:
        assert limits.blocked("sockets", "a") is None
        assert await limits.hit("sockets", "a") is None and limits.blocked("sockets", "a") is None
        assert await limits.hit("sockets", "a") is None
        # the window is full: the next handshake can be refused before any work
        blocked = limits.blocked("sockets", "a")
        assert blocked is not None and blocked.retry_s == 60
        assert limits.blocked("sockets", "b") is None
        clock.now += 60.0
        assert limits.blocked("sockets", "a") is None

    run_async(run)


def test_every_declared_limit_has_a_readable_default() -> None:
    parsed = parse_rate_limits(None)
    assert set(parsed) == {limit.name for limit in LIMITS}
    with pytest.raises(ValueError, match="undeclared"):
        RateLimits({"no-such-limit": parsed["games"]})


def test_account_names_are_keyed_as_the_login_reads_them() -> None:
    spellings = ["alice", "Alice", " alice", "alice ", "ALICE\t", "\uff41\uff4c\uff49\uff43\uff45"]
    assert {account_key(s) for s in spellings} == {"alice"}


def test_a_locked_account_stays_locked_whatever_the_spelling(tmp_path: Path) -> None:
    app = create_app(
        f"sqlite:///{tmp_path / 'logins.sqlite'}", use_engine_pool=False, rate_limits="login-account=3/minute"
    )
    with TestClient(app) as client:
        made = client.post("/api/account/signup", json={"name": "alice", "password": "correct horse 42"})
        assert made.status_code == 201, made.text
        client.cookies.clear()
        for _ in range(3):
            wrong = client.post("/api/account/login", json={"name": "alice", "password": "wrong guess 1"})
            assert wrong.status_code == 401, wrong.text
        for name in ("alice", "alice ", " Alice", "\uff41lice", "ALICE"):
            res = client.post("/api/account/login", json={"name": name, "password": "correct horse 42"})
            assert res.status_code == 429, (name, res.text)
            assert "this account" in res.json()["error"] and int(res.headers["retry-after"]) >= 1


def test_a_connections_own_limit_is_counted_here_in_redis_mode() -> None:
    """``game-messages`` and ``lobby-messages`` (``local``) never ask Redis: with Redis away
    (nothing listens on port 9) they still count and refuse, while a shared limit lets the
    hit through uncounted."""
    clock = Clock()
    limits = RateLimits(
        "game-messages=2/second;games=1/minute", redis_url="redis://127.0.0.1:9/0", clock=clock
    )

    async def run() -> None:
        assert await limits.hit("game-messages", "1") is None
        assert await limits.hit("game-messages", "1") is None
        refusal = await limits.hit("game-messages", "1")
        assert refusal is not None and refusal.retry_s == 1
        clock.now += 1.0
        assert await limits.hit("game-messages", "1") is None
        assert await limits.hit("games", "1.2.3.4") is None  # shared: let through uncounted
        assert await limits.hit("games", "1.2.3.4") is None
        await limits.close()

    run_async(run)
