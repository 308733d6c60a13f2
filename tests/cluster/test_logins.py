"""Failed logins are counted across servers in Redis mode: a guesser whose requests are spread
over two servers gets the tries of one, and while Redis is down logins are refused with a 503."""

from __future__ import annotations

import secrets

import httpx

from tests.cluster.harness import Cluster, wait_ready

PASSWORD = "a long password"


def _client(url: str) -> httpx.Client:
    # a browser sends Origin with every POST; the site requires it where a session is involved
    return httpx.Client(base_url=url, timeout=30.0, headers={"Origin": url})


def _account(url: str) -> str:
    name = "u" + secrets.token_hex(6)
    with _client(url) as c:
        res = c.post("/api/account/signup", json={"name": name, "password": PASSWORD})
        assert res.status_code == 201, res.text
    return name


def test_failed_logins_on_two_servers_count_together(cluster: Cluster) -> None:
    a, b = (s.url for s in cluster.servers)
    name = _account(a)
    with _client(a) as on_a, _client(b) as on_b:
        for i in range(5):  # the account's limit is 5 a minute; alternate the servers
            wrong = {"name": name, "password": "wrong password!"}
            res = (on_a, on_b)[i % 2].post("/api/account/login", json=wrong)
            assert res.status_code == 401, res.text
        for client in (on_a, on_b):  # each server saw 2 or 3 failures, yet both refuse now
            res = client.post("/api/account/login", json={"name": name, "password": PASSWORD})
            assert res.status_code == 429, res.text
            assert "too many failed logins" in res.json()["error"]
            assert int(res.headers["retry-after"]) >= 1


def test_logins_wait_for_redis_and_work_again_after_it(cluster: Cluster) -> None:
    a, b = (s.url for s in cluster.servers)
    name = _account(a)
    redis = cluster.services.redis
    redis.stop()
    try:
        with _client(b) as c:
            res = c.post("/api/account/login", json={"name": name, "password": PASSWORD})
            assert res.status_code == 503, res.text
            assert "logins are paused" in res.json()["error"]
    finally:
        redis.start()  # same port, empty
        for url in (a, b):
            wait_ready(url, 30)
    with _client(b) as c:
        res = c.post("/api/account/login", json={"name": name, "password": PASSWORD})
        assert res.status_code == 200, res.text
