"""The game meant when none is named comes from one place, ``exochess.variants.default_variant``."""

from __future__ import annotations

from exochess import Board
from exochess.engine.protocol import EngineProtocol
from exochess.pgn import read_game, write_game
from exochess.variants import GAMES, default_variant


def test_the_default_is_the_first_game_of_the_menu() -> None:
    assert default_variant().name == GAMES[0].name
    assert default_variant() is Board(GAMES[0].name).variant


def test_every_default_asks_default_variant() -> None:
    assert Board().variant is default_variant()
    assert Board(None).fen() == default_variant().starting_fen
    lines: list[str] = []
    assert EngineProtocol(lines.append).board.variant is default_variant()
    first = str(next(iter(Board().legal_moves)))
    assert read_game(write_game([first])).variant == default_variant().name
