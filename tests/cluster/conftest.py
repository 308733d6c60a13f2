from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.cluster.harness import Cluster, Services, missing_programs


@pytest.fixture(scope="session")
def services() -> Iterator[Services]:
    """PostgreSQL and Redis for the whole session (tests that restart one start it again)."""
    why = missing_programs()
    if why is not None:
        pytest.skip(why)
    pytest.importorskip("psycopg")
    pytest.importorskip("arq")
    started = Services()
    try:
        started.start()
    except Exception as exc:
        started.stop()
        pytest.skip(f"cannot start PostgreSQL and Redis here: {exc}")
    yield started
    started.stop()


@pytest.fixture(scope="module")
def cluster(services: Services) -> Iterator[Cluster]:
    """Two servers and one engine worker, shared by the tests of a module that leave it whole."""
    site = Cluster(services, servers=2, workers=1).start()
    yield site
    site.stop()


@pytest.fixture()
def own_cluster(services: Services) -> Iterator[Cluster]:
    """Two servers and one engine worker for a test that kills or restarts parts of it."""
    site = Cluster(services, servers=2, workers=1).start()
    yield site
    site.stop()
