"""Fixtures shared by every test folder (helpers are in ``tests/helpers.py``)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from exochess import Board

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--toy-game",
        action="store_true",
        help="register the toy game (tests/variants/toy/game.py) as a fourth game for this run and "
        "run the generic tests over it only (the three shipped games have the ordinary run)",
    )


def pytest_configure(config: pytest.Config) -> None:
    # Before any test module is imported: the generic tests read the registry at collection.
    if config.getoption("--toy-game"):
        from exochess.variants import register_variant
        from tests import helpers
        from tests.variants.toy.game import ToySkirmish

        helpers.GAMES_UNDER_TEST = [register_variant(ToySkirmish).name]


@pytest.fixture
def fugue() -> Board:
    return Board("fugue")


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Debian's Chromium driven by Playwright, one per test process: Playwright's sync API runs
    an event loop in the main thread while it is open, so a second one in the same process
    (under pytest-xdist a worker runs test files from several folders) would refuse to start."""
    if not os.path.exists(CHROMIUM):
        pytest.skip("Chromium is not installed (make test installs it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()
