"""A fourth game defined only here, to prove that a game is one place.

*Toy Skirmish* is a tiny game on a 6x6 board: a King (one step in any direction), Rooks
and Knights as in chess, captures by replacement, and the side that loses its King loses.
It has no evaluator and no rules page of its own.  The fixture registers it for the
duration of this module; every layer -- library, command line, PGN, SVG, engine protocol
and web site -- must then handle it without one line of toy-specific code elsewhere.

The registration lives in this process, so the web site runs here too: uvicorn serves
it from a thread, to httpx for the pages and the API and to Chromium for the board.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from exochess import Board, UnknownVariantError, find_variant, svg
from exochess.cli.main import main as cli_main
from exochess.engine import best_move
from exochess.engine.evaluate import GenericEvaluator, evaluator_class, evaluator_for
from exochess.engine.levels import LEVELS, level
from exochess.engine.protocol import run as run_protocol
from exochess.outcome import WHITE
from exochess.perft import perft
from exochess.pgn import PgnError, read_game, write_game
from exochess.rulesdoc import generated_page, render_html
from exochess.variant import Variant
from exochess.variants import register_variant, unregister_variant
from exochess.web.app import create_app
from tests.variants.toy.game import KING, KNIGHT, ROOK, ToySkirmish
from tests.web.serverproc import served_in_thread


@pytest.fixture(scope="module", autouse=True)
def toy() -> Iterator[Variant]:
    """The toy game, registered for this module only."""
    variant = register_variant(ToySkirmish)
    yield variant
    unregister_variant("toy")
    with pytest.raises(UnknownVariantError):
        Board("toy")


# --- library ---------------------------------------------------------------------------------


def test_board_fen_and_moves() -> None:
    board = Board("skirmish")
    assert board.variant.name == "toy"
    assert Board("Toy Skirmish").variant is board.variant
    assert board.fen() == ToySkirmish.starting_fen
    # Rooks: four steps up and the capture of the facing Rook each; Knights: three each; King: four.
    assert len(board.legal_moves) == 5 + 3 + 4 + 3 + 5
    assert "a1xa6" in {str(m) for m in board.legal_moves}
    board.push_text("b1-c3")
    assert board.fen() == "rnk1nr/6/6/2N3/6/R1K1NR b"
    assert Board("toy", fen=board.fen()).zobrist_hash() == board.zobrist_hash()
    board.pop()
    assert board.fen() == ToySkirmish.starting_fen
    with pytest.raises(Exception, match="g1"):
        board.parse_move("f1-g1")


def test_capturing_the_king_ends_the_game() -> None:
    board = Board("toy", fen="k5/6/6/6/6/R4K w")
    board.push_text("a1xa6")
    outcome = board.outcome()
    assert outcome is not None and outcome.winner == WHITE
    assert not board.legal_moves


def test_perft() -> None:
    board = Board("toy")
    assert perft(board, 1) == 20
    by_hand = 0
    for move in list(board.legal_moves):
        board.push(move)
        by_hand += len(board.legal_moves)
        board.pop()
    assert perft(board, 2) == by_hand


# --- command line ----------------------------------------------------------------------------


def test_cli_moves_perft_show_and_diagram(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert cli_main(["moves", "toy"]) == 0
    listed = capsys.readouterr().out.split()
    assert sorted(listed) == sorted(str(m) for m in Board("toy").legal_moves)

    assert cli_main(["perft", "toy", "2"]) == 0
    assert str(perft(Board("toy"), 2)) in capsys.readouterr().out

    assert cli_main(["show", "skirmish", "--fen", "k5/6/6/6/6/R4K w"]) == 0
    shown = capsys.readouterr().out
    assert "k" in shown and "R" in shown and "K" in shown

    out = tmp_path / "toy.svg"
    assert cli_main(["diagram", "toy", "--arrows", "b1c3", "-o", str(out)]) == 0
    text = out.read_text()
    assert text.startswith("<svg") and text.count('class="piece ') == 10

    assert cli_main(["perft", "toy", "1", "--fen", "k5/6/6/6/6/R4Z w"]) == 2
    assert "Z" in capsys.readouterr().err


def test_cli_help_names_the_registered_games(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli_main(["moves", "--help"])
    assert "toy" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        cli_main(["--help"])
    assert "Toy Skirmish" in " ".join(capsys.readouterr().out.split())  # argparse wraps lines


# --- PGN and SVG -----------------------------------------------------------------------------


def test_pgn_round_trip() -> None:
    board = Board("toy")
    played = ["b1-c3", "e6-d4", "c3-e4", "d4-c2", "c1xc2"]
    for text in played:
        board.push_text(text)
    text = write_game(board, headers={"Event": "Toy"})
    assert '[Variant "Toy Skirmish"]' in text
    game = read_game(text)
    assert game.variant == "toy"
    assert [str(m) for m in game.moves] == played
    with pytest.raises(PgnError, match=r"no \[Variant\] tag.*toy"):
        read_game("1. b1-c3 *")
    with pytest.raises(PgnError, match="b1-b2"):
        read_game('[Variant "toy"]\n\n1. b1-b2 *')


def test_svg_uses_the_declared_glyphs() -> None:
    text = svg.board(Board("toy"), squares={"c3": "target"}, arrows=["b1c3"])
    assert text.count('class="piece ') == 10
    variant = find_variant("toy")
    assert svg.glyph_shape(variant, "R") == "square"
    assert svg.glyph_shape(variant, "K") == "crown"  # the royal piece, not declared
    knight = svg.piece(variant, "n", white=False)
    assert 'class="piece black N"' in knight


# --- engine ----------------------------------------------------------------------------------


def test_generic_evaluation_uses_the_declared_values(toy: Variant) -> None:
    assert evaluator_class(toy) is GenericEvaluator
    evaluator = evaluator_for(toy)
    assert evaluator.value_of[ROOK] == 500 and evaluator.value_of[KNIGHT] == 300
    assert evaluator.value_of[KING] == 0
    start = Board("toy")
    assert evaluator.evaluate(start) == evaluator.tempo  # the start is symmetric
    without_rook = Board("toy", fen="rnk1n1/6/6/6/6/RNK1NR w")
    assert evaluator.evaluate(without_rook) - evaluator.evaluate(start) > 400
    assert level(4, toy) == LEVELS[4]


def test_engine_takes_a_free_rook() -> None:
    board = Board("toy", fen="k5/6/6/2r3/6/K2N2 w")
    assert str(best_move(board, 5, seed=1)) == "d1xc3"


def test_bestmove_over_the_engine_protocol() -> None:
    commands = (
        "uci\nsetoption name Variant value skirmish\nposition fen k5/6/6/2r3/6/K2N2 w\ngo depth 2\nquit\n"
    )
    out = io.StringIO()
    assert run_protocol(io.StringIO(commands), out) == 0
    lines = out.getvalue().splitlines()
    assert any(line.startswith("option name Variant") and "var toy" in line for line in lines)
    assert not [line for line in lines if "error" in line]
    assert lines[-1] == "bestmove d1xc3"


# --- web site --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def live_site(toy: Variant, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real server on 127.0.0.1 and a real SQLite file, run by uvicorn in a thread of this
    process: the toy is registered here only, so a server in a subprocess would not know it."""
    database = tmp_path_factory.mktemp("toy") / "site.sqlite"
    with served_in_thread(create_app(f"sqlite:///{database}", use_engine_pool=False)) as url:
        yield url


@pytest.fixture()
def site(live_site: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=live_site, timeout=30.0) as client:
        yield client


def test_generated_rules_page() -> None:
    page = generated_page(find_variant("toy"))
    assert page.startswith("# Toy Skirmish")
    assert "| N | Knight |" in page
    html = render_html("toy")
    assert html.startswith('<article class="rules rules-toy">') and html.count("<svg") == 1


def test_web_pages(site: httpx.Client) -> None:
    assert "toy" in [v["name"] for v in site.get("/api/variants").json()["variants"]]
    home = site.get("/")
    assert home.status_code == 200 and "Toy Skirmish" in home.text
    rules = site.get("/rules/toy")
    assert rules.status_code == 200 and "Knight" in rules.text and "<svg" in rules.text
    assert site.get("/rules/skirmish").status_code == 200
    missing = site.get("/rules/no-such-game")
    assert missing.status_code == 404 and "toy" in missing.text
    new = site.get("/new?variant=toy")
    assert new.status_code == 200 and "Toy Skirmish" in new.text


def test_web_game_and_move(site: httpx.Client) -> None:
    res = site.post("/api/games", json={"variant": "toy", "opponent": "friend", "color": "white"})
    assert res.status_code == 201, res.text
    data = res.json()
    gid, white = data["id"], data["seats"]["white"]["secret"]
    assert data["state"]["fen"] == ToySkirmish.starting_fen
    assert len(data["state"]["legal"]) == 20

    page = site.get(f"/game/{gid}")
    assert page.status_code == 200 and "Toy Skirmish" in page.text

    moved = site.post(f"/api/games/{gid}/moves", json={"secret": white, "move": "b1-c3", "ply": 0})
    assert moved.status_code == 200, moved.text
    state = moved.json()
    assert state["ply"] == 1 and state["turn"] == "black"
    assert state["fen"] == "rnk1nr/6/6/2N3/6/R1K1NR b"
    illegal = site.post(f"/api/games/{gid}/moves", json={"secret": white, "move": "a1-a2", "ply": 1})
    assert illegal.status_code in (400, 403, 409)
    assert re.search("turn|black|move", illegal.json()["error"], re.IGNORECASE)

    pgn = site.get(f"/api/games/{gid}/pgn")
    assert pgn.status_code == 200 and read_game(pgn.text).moves[0].__str__() == "b1-c3"


def test_a_move_on_the_web_board(live_site: str, browser: Any) -> None:
    created = httpx.post(
        f"{live_site}/api/games", json={"variant": "toy", "opponent": "friend", "color": "white"}
    ).json()
    gid = created["id"]
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(live_site + created["seats"]["white"]["url"])
    page.wait_for_selector("#game[data-connected='1']")
    assert page.locator("#board rect.sq").count() == 36
    assert page.locator("#board g.piece[data-piece]").count() == 10
    for square in ("b1", "c3"):
        box = page.locator(f'#board rect.sq[data-square="{square}"]').bounding_box()
        assert box is not None, square
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_selector('#moves [data-ply="1"]')  # the server's answer reached the page
    assert page.locator('#board g.piece[data-square="c3"]').count() == 1
    context.close()
    state = httpx.get(f"{live_site}/api/games/{gid}").json()
    assert state["ply"] == 1 and state["fen"] == "rnk1nr/6/6/2N3/6/R1K1NR b"
    assert not errors, errors
