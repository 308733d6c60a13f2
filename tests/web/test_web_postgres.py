"""Issue 17, finding 9: after PostgreSQL restarts, the first request on a pooled connection (now
dead) used to be a 500.  A real PostgreSQL cluster in a temporary directory, a real server on it.

Skipped when PostgreSQL's programs (Debian package ``postgresql``) or psycopg are missing.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.web.serverproc import Server, create, free_port


def _pg_program(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"))
    return str(candidates[-1]) if candidates else None


class PgCluster:
    """``initdb`` + ``pg_ctl`` in a temporary directory, owned by user ``postgres`` when run as root
    (PostgreSQL refuses to run as root)."""

    def __init__(self) -> None:
        initdb, pg_ctl = _pg_program("initdb"), _pg_program("pg_ctl")
        if initdb is None or pg_ctl is None:
            pytest.skip("PostgreSQL is not installed (Debian package postgresql)")
        pytest.importorskip("psycopg")
        self.initdb, self.pg_ctl = initdb, pg_ctl
        self.root = Path(tempfile.mkdtemp(prefix="exochess-pg-"))
        self.data = self.root / "data"
        self.port = free_port()
        self.as_root = os.geteuid() == 0
        if self.as_root:
            shutil.chown(self.root, "postgres")

    def _run(self, *args: str) -> None:
        cmd = list(args)
        if self.as_root:
            cmd = ["su", "postgres", "-s", "/bin/sh", "-c", " ".join(f"'{a}'" for a in cmd)]
        subprocess.run(cmd, check=True, capture_output=True, timeout=120)

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://exochess@127.0.0.1:{self.port}/postgres"

    def init_and_start(self) -> PgCluster:
        self._run(self.initdb, "-D", str(self.data), "-U", "exochess", "--auth=trust", "--no-sync")
        self.start()
        return self

    def start(self) -> None:
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run(
            self.pg_ctl, "-D", str(self.data), "-o", options, "-l", str(self.root / "pg.log"), "-w", "start"
        )

    def stop(self) -> None:
        self._run(self.pg_ctl, "-D", str(self.data), "-m", "fast", "-w", "stop")

    def remove(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):
            self.stop()
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture(scope="module")
def postgres() -> Iterator[PgCluster]:
    cluster = PgCluster()
    try:
        cluster.init_and_start()
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as exc:
        cluster.remove()
        pytest.skip(f"cannot start a PostgreSQL cluster here: {exc}")
    yield cluster
    cluster.remove()


def test_requests_after_a_postgresql_restart_succeed(postgres: PgCluster, tmp_path: Path) -> None:
    server = Server(tmp_path / "unused.sqlite", database_url=postgres.url, engine_workers=1).start()
    try:
        with httpx.Client(base_url=server.url, timeout=120.0) as c:
            game = create(c, variant="fugue", opponent="friend")
            gid, white = game["id"], game["seats"]["white"]["secret"]
            assert (
                c.post(f"/api/games/{gid}/moves", json={"secret": white, "move": "e2-e3"}).status_code == 200
            )
            postgres.stop()
            postgres.start()  # every connection in the server's pool is now dead
            res = c.post(
                f"/api/games/{gid}/moves", json={"secret": game["seats"]["black"]["secret"], "move": "e7-e6"}
            )
            assert res.status_code == 200, res.text
            assert c.get(f"/api/games?ids={gid}").json()["games"][0]["ply"] == 2
        assert "Traceback" not in server.log_text(), server.log_text()[-3000:]
    finally:
        server.stop()
