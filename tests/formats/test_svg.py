"""Tests of exochess.svg and the ``exochess diagram`` command."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from exochess import Board, Move, find_variant, parse_square, svg
from exochess.cli import diagram
from tests.helpers import game_names

NS = "{http://www.w3.org/2000/svg}"


def parse(text: str) -> ET.Element:
    return ET.fromstring(text)


def pieces(root: ET.Element) -> list[ET.Element]:
    return [g for g in root.iter(NS + "g") if (g.get("class") or "").startswith("piece ")]


def test_starting_position_is_valid_xml_with_every_piece() -> None:
    root = parse(svg.board(Board("fugue")))
    assert root.tag == NS + "svg"
    assert len(pieces(root)) == 32
    squares = [r for r in root.iter(NS + "rect") if (r.get("class") or "").startswith("square ")]
    assert len(squares) == 64
    assert root.get("viewBox") == f"0 0 {8 * 45 + 40} {8 * 45 + 40}"


def test_square_colours_a1_is_dark() -> None:
    root = parse(svg.board(Board("fugue")))
    a1 = next(r for r in root.iter(NS + "rect") if (r.get("class") or "").endswith(" a1"))
    h1 = next(r for r in root.iter(NS + "rect") if (r.get("class") or "").endswith(" h1"))
    assert "dark" in (a1.get("class") or "")
    assert "light" in (h1.get("class") or "")


def test_deterministic() -> None:
    kwargs = {"squares": {"e4": "target", "d5": "capture", "a1": "mark"}, "arrows": ["e2e4", "b1c3"]}
    assert svg.board(Board("fugue"), **kwargs) == svg.board(Board("fugue"), **kwargs)  # type: ignore[arg-type]


def test_highlight_styles_and_arrows() -> None:
    board = Board("fugue", fen="7k/8/3p4/3l4/1wLP4/4Q3/1p3q2/7K w")
    text = svg.board(
        board,
        squares={"b4": "target", "c3": "target", "d6": "capture", "e5": "mark"},
        arrows=["d4d6", ("d4", "f2")],
        lastmove=Move.from_text("e2-e3"),
    )
    root = parse(text)
    classes = [el.get("class") for el in root.iter()]
    assert classes.count("target") == 2
    assert classes.count("capture") == 1
    assert classes.count("mark") == 1
    assert classes.count("arrow") == 2
    assert classes.count("lastmove") == 2
    # a target on an occupied square is a ring, on an empty one a dot
    rings = [c for c in root.iter(NS + "circle") if c.get("class") == "target"]
    assert sorted(c.attrib["fill"] for c in rings) == ["#2f7d32", "none"]


def test_plain_iterable_of_squares_is_marked() -> None:
    root = parse(svg.board(Board("fugue"), squares=["e4", parse_square("d5")]))
    assert [el.get("class") for el in root.iter()].count("mark") == 2


def test_flip_moves_a1_to_top_right() -> None:
    def a1_rect(text: str) -> ET.Element:
        root = parse(text)
        return next(r for r in root.iter(NS + "rect") if (r.get("class") or "").endswith(" a1"))

    normal = a1_rect(svg.board(Board("fugue")))
    flipped = a1_rect(svg.board(Board("fugue"), orientation=False))
    assert (normal.get("x"), normal.get("y")) == ("20", "335")
    assert (flipped.get("x"), flipped.get("y")) == ("335", "20")


def test_size_and_no_coordinates() -> None:
    root = parse(svg.board(Board("fugue"), size=300, coordinates=False))
    assert root.get("width") == "300" and root.get("height") == "300"
    assert root.get("viewBox") == "0 0 360 360"
    assert len(list(root.iter(NS + "text"))) == 32  # only the piece letters


def test_coordinates_present() -> None:
    texts = [t.text for t in parse(svg.board(Board("fugue"))).iter(NS + "text")]
    for label in "abcdefgh12345678":
        assert label in texts


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        svg.board(Board("fugue"), squares={"e4": "sparkle"})
    with pytest.raises(ValueError):
        svg.board(Board("fugue"), squares=["i1"])
    with pytest.raises(ValueError):
        svg.board(Board("fugue"), arrows=["e2"])


def test_parse_arrow_two_digit_ranks() -> None:
    assert svg.parse_arrow("a10b12") == (parse_square("a10"), parse_square("b12"))
    assert svg.parse_arrow("e2-e4") == (parse_square("e2"), parse_square("e4"))
    assert svg.parse_arrow("a1a10") == (parse_square("a1"), parse_square("a10"))


def test_every_shape_draws() -> None:
    for shape in (
        "crown",
        "pawn",
        "circle",
        "square",
        "diamond",
        "hexagon",
        "octagon",
        "triangle",
        "shield",
        "star",
        "pentagon",
    ):
        text = svg._shape(shape, 10, 10, 8, 'fill="red"')
        ET.fromstring(f'<svg xmlns="http://www.w3.org/2000/svg">{text}</svg>')


@pytest.mark.generic
@pytest.mark.parametrize("variant", game_names())
def test_glyphs_distinct_per_game(variant: str) -> None:
    game = find_variant(variant)
    assert len(set(game.glyphs.values())) == len(game.glyphs)
    text = svg.board(Board(game))  # every piece of the start drawn, as well-formed XML
    assert len(pieces(parse(text))) == len(Board(game).piece_map())


def test_interweave_board() -> None:
    board = Board("interweave")
    root = parse(svg.board(board, squares={"d4": "target"}))
    assert len(pieces(root)) == 32


def test_rebelfury_12x12() -> None:
    board = Board("rebelfury")
    text = svg.board(board, squares={"l12": "target", "e9": "capture"}, arrows=["e5e9", "a10l12"])
    root = parse(text)
    assert root.get("viewBox") == f"0 0 {12 * 45 + 40} {12 * 45 + 40}"
    assert len(pieces(root)) == 48
    labels = [t.text for t in root.iter(NS + "text")]
    assert "12" in labels and "l" in labels


def test_cli_writes_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "d.svg"
    status = diagram.main(
        [
            "fugue",
            "--fen",
            "8/8/3p4/3l4/1wLP4/4Q3/1p3q2/8",
            "--targets",
            "b4,d6,f2",
            "--arrows",
            "d4d6",
            "--flip",
            "-o",
            str(out),
        ]
    )
    assert status == 0
    root = ET.parse(out).getroot()
    assert [el.get("class") for el in root.iter()].count("target") == 3
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize(
    "argv",
    [
        ["nosuchgame"],
        ["fugue", "--fen", "8/8/8 w"],
        ["fugue", "--squares", "z9"],
        ["fugue", "--arrows", "e2"],
        ["fugue", "--lastmove", "e2?e4"],
        ["fugue", "--size", "0"],
    ],
)
def test_cli_errors_exit_2_without_traceback(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert diagram.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("exochess diagram: error: ")
    assert "Traceback" not in err


def test_cli_module_runs() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "exochess.cli.diagram", "fugue", "--squares", "e4,d5"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0
    parse(proc.stdout)
    bad = subprocess.run(
        [sys.executable, "-m", "exochess.cli.diagram", "fugue", "--fen", "x"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_registered_in_main_command(capsys: pytest.CaptureFixture[str]) -> None:
    from exochess.cli.main import main

    assert main(["diagram", "fugue", "--targets", "e3", "--flip"]) == 0
    parse(capsys.readouterr().out)
    assert main(["diagram", "fugue", "--fen", "zz"]) == 2
    assert "error" in capsys.readouterr().err


def test_single_piece_documents() -> None:
    from exochess import find_variant

    for variant in [find_variant("fugue")]:
        for letter in variant.piece_letters:
            for white in (True, False):
                root = parse(svg.piece(variant, letter, white, size=40))
                assert root.get("width") == "40"
                assert len(pieces(root)) == 1
    with pytest.raises(ValueError):
        svg.piece("fugue", "Z")
