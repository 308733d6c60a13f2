from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.web.serverproc import Server


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In cluster mode keep the tests of the shared ``server`` (the others start single-process
    servers of their own, which the first pass of .ci/run already ran)."""
    if not os.environ.get("EXOCHESS_TEST_CLUSTER"):
        return
    keep = [item for item in items if "server" in getattr(item, "fixturenames", ())]
    config.hook.pytest_deselected(items=[item for item in items if item not in keep])
    items[:] = keep


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    if os.environ.get("EXOCHESS_TEST_CLUSTER"):
        # .ci/run's second pass: two servers and an engine worker on PostgreSQL + Redis, behind
        # a proxy that spreads the tests' connections over both servers (tests/cluster/harness.py)
        from tests.cluster.harness import ClusterSite

        site = ClusterSite()
        yield site  # type: ignore[misc]
        site.stop()
        return
    # EXOCHESS_TEST_DATABASE_URL=postgresql+psycopg://... runs the shared server on another database
    url = os.environ.get("EXOCHESS_TEST_DATABASE_URL") or None
    # the huge positions' few seconds of CPU can take minutes on a crowded machine under nice 19:
    # the time bound is tested on its own (test_web_cpuwork, test_web_attack), not on this server
    srv = Server(
        tmp_path_factory.mktemp("web") / "site.sqlite",
        database_url=url,
        env={"EXOCHESS_POSITION_TIME_LIMIT_S": "300"},
    ).start()
    yield srv
    srv.stop()


@pytest.fixture()
def client(server: Server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=30.0) as c:
        yield c


@pytest.fixture()
def page(browser: Any, server: Server) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1200, "height": 900}, base_url=server.url)
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    # the site's Content-Security-Policy must never have to refuse anything the site itself does
    pg.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
    yield pg
    context.close()
    assert not errors, errors


def shots_dir() -> Path:
    d = Path(os.environ.get("EXOCHESS_SHOTS", "")) if os.environ.get("EXOCHESS_SHOTS") else None
    if d is not None:
        d.mkdir(parents=True, exist_ok=True)
    return d or Path()
