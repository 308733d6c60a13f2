"""The embedded default (`make run`: the `web` extra only) runs without the redis and arq
packages, which only Redis mode installs (the `cluster` extra)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

# Runs in a fresh interpreter where importing redis or arq fails, as in a `web`-only install.
SCRIPT = """
import sys

class NotInstalled:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("redis", "arq"):
            raise ModuleNotFoundError(f"No module named {name!r}")
        return None

sys.meta_path.insert(0, NotInstalled())
import httpx
from exochess.web.app import create_app
from tests.web.serverproc import served_in_thread

with served_in_thread(create_app(sys.argv[1], engine_workers=1)) as url:
    print(httpx.get(url + "/").status_code, httpx.get(url + "/lobby").status_code)
"""


def test_the_site_starts_and_serves_without_the_redis_package(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'alone.sqlite'}"
    done = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", SCRIPT, database],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=Path(__file__).parents[2],
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["200", "200"]
