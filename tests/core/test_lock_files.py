"""The lock files in requirements/ (made by ``make lock``, installed by ``make``) hold every
requirement of pyproject.toml's extras, at versions inside pyproject's ranges, each with hashes:
a range changed in pyproject.toml without ``make lock`` fails here, not on a fresh machine."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
LOCKS = {
    "web.txt": ["web"],
    "cluster.txt": ["web", "cluster"],
    "dev.txt": ["dev", "web", "cluster", "postgres"],
}
"""Each lock file and the extras it is resolved from (the Makefile's `lock` target)."""


def pins(path: Path) -> dict[str, tuple[str, int]]:
    """Package name -> (pinned version, number of hashes) of a pip-compile output."""
    found: dict[str, tuple[str, int]] = {}
    name = ""
    for line in path.read_text().splitlines():
        pinned = re.match(r"^([A-Za-z0-9_.\-]+)==([^\s;\\]+)", line)
        if pinned:
            name = canonicalize_name(pinned.group(1))
            found[name] = (pinned.group(2), 0)
        elif "--hash=sha256:" in line and name:
            version, hashes = found[name]
            found[name] = (version, hashes + 1)
    return found


@pytest.mark.parametrize("lock", sorted(LOCKS))
def test_every_requirement_is_locked_inside_its_range_with_hashes(lock: str) -> None:
    path = ROOT / "requirements" / lock
    if not path.exists():
        pytest.skip("no requirements/ beside the tests (an installed package)")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = [Requirement(text) for text in project["dependencies"]]
    for extra in LOCKS[lock]:
        wanted += [Requirement(text) for text in project["optional-dependencies"][extra]]
    locked = pins(path)
    assert locked, f"{lock} pins nothing"
    for requirement in wanted:
        name = canonicalize_name(requirement.name)
        assert name in locked, f"{requirement} is missing from requirements/{lock}: run make lock"
        version, hashes = locked[name]
        assert requirement.specifier.contains(version, prereleases=True), (
            f"requirements/{lock} pins {name}=={version}, outside pyproject's {requirement}: run make lock"
        )
        assert hashes > 0, f"{name} has no hash in requirements/{lock}"
    assert all(hashes > 0 for _version, hashes in locked.values())
