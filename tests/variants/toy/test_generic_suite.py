"""The proof that a game is one folder: the toy game, registered as a fourth game for one run,
passes the whole generic suite (every test marked ``generic``, which reads the games from the
registry and never names one).

The run is a child pytest with ``--toy-game`` (tests/conftest.py): the registration must happen
before the test modules are collected, since they parametrize over the registry, and it must
not leak into this process's other tests.  The child runs the generic tests over the toy game
only; the three shipped games have them in the ordinary run.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[2]


def test_the_toy_game_passes_the_generic_suite() -> None:
    if not (TESTS / "conftest.py").exists():
        pytest.skip("the tests folder is not a source tree")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_"))}
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            "--toy-game",
            "-m",
            "generic",
            "-v",
            "--no-header",
            "-o",
            "addopts=",
            str(TESTS),
        ],
        cwd=TESTS.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-6000:]
    passed = re.findall(r"^(\S+) PASSED", out, flags=re.M)
    on_toy = [test for test in passed if "[toy" in test]
    files = {test.split("::")[0] for test in passed}
    # every generic file ran, and the parametrized tests ran on the toy game
    assert len(files) >= 15, sorted(files)
    assert len(on_toy) >= 25, on_toy
    assert not re.search(r"^\S+ FAILED", out, flags=re.M)
    assert re.search(r"\bpassed\b", out.splitlines()[-1]), out[-2000:]
