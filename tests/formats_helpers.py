"""Shared helpers of the formats tests (svg, pgn, rulesdoc)."""

from __future__ import annotations

import pytest

from exochess.errors import UnknownVariantError
from exochess.variants import find_variant


def registered(name: str) -> bool:
    """Whether the game ``name`` is in the registry (Interweave/Rebel Fury land later)."""
    try:
        find_variant(name)
    except UnknownVariantError:
        return False
    return True


def need(name: str) -> None:
    """Skip the calling test when the game is not registered yet."""
    if not registered(name):
        pytest.skip(f"{name} is not registered yet")
