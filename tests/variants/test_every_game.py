"""What every registered game must do in every front end: command line, engine, engine protocol,
rules page.  Nothing here names a game: the tests run over the registry (``game_names``), and
``pytest --toy-game -m generic`` runs them over the test-only toy game as well
(``tests/variants/toy/test_generic_suite.py``)."""

from __future__ import annotations

import io
import random
import xml.etree.ElementTree as ET

import pytest

from exochess import Board
from exochess.cli.main import main as cli_main
from exochess.engine import best_move
from exochess.engine.protocol import run as run_protocol
from exochess.perft import perft
from exochess.rulesdoc import render_html
from tests.helpers import game_names, random_walk

pytestmark = pytest.mark.generic


@pytest.mark.parametrize("variant", game_names())
def test_the_command_line_lists_and_counts_the_moves(
    variant: str, capsys: pytest.CaptureFixture[str]
) -> None:
    board = Board(variant)
    assert cli_main(["moves", variant]) == 0
    assert sorted(capsys.readouterr().out.split()) == sorted(str(m) for m in board.legal_moves)
    assert cli_main(["perft", variant, "2"]) == 0
    assert str(perft(board, 2)) in capsys.readouterr().out
    assert cli_main(["show", variant]) == 0
    assert capsys.readouterr().out.strip()


@pytest.mark.parametrize("variant", game_names())
def test_the_engine_plays_a_legal_move_at_every_stage(variant: str) -> None:
    rng = random.Random(variant)
    for plies in (0, 6, 20):
        board = random_walk(variant, rng, plies)
        if board.outcome() is not None:
            continue
        move = best_move(board, level=3, movetime_ms=200, seed=1)
        assert move in board.legal_moves


@pytest.mark.parametrize("variant", game_names())
def test_the_engine_protocol_plays_the_game(variant: str) -> None:
    board = Board(variant)
    commands = f"uci\nsetoption name Variant value {variant}\nposition startpos\ngo depth 2\nquit\n"
    out = io.StringIO()
    assert run_protocol(io.StringIO(commands), out) == 0
    lines = out.getvalue().splitlines()
    assert not [line for line in lines if "error" in line.lower()], lines
    assert lines[-1].startswith("bestmove ")
    assert board.parse_move(lines[-1].split(" ", 1)[1]) in board.legal_moves


@pytest.mark.parametrize("variant", game_names())
def test_every_game_has_a_rules_page(variant: str) -> None:
    page = render_html(variant)  # the game's rules.md, or a page made from its metadata
    assert page.startswith(f'<article class="rules rules-{variant}">')
    ET.fromstring(page.replace("<hr>", "<hr/>"))  # well-formed, diagrams included
    assert "<svg" in page
