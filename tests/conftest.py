"""Fixtures shared by every test folder (helpers are in ``tests/helpers.py``)."""

from __future__ import annotations

import pytest

from exochess import Board


@pytest.fixture
def fugue() -> Board:
    return Board("fugue")
