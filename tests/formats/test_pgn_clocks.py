"""PGN as other sites write it: ``[%clk]`` after each move, ``TimeControl``, ``Termination``
(normal, resignation, time forfeit, abandoned), read back without loss."""

from __future__ import annotations

import pytest

from exochess import Board
from exochess.pgn import PgnError, format_clock, parse_clock, pgn_termination, read_game, write_game

MOVES = ["e2-e3", "d7-d6", "d2-d3", "e7-e6"]


def test_clocks_are_written_after_each_move_and_read_back() -> None:
    clocks = {1: 59_000, 2: 58_250, 3: 57_000, 4: 3_600_000 + 61_001}
    text = write_game(
        MOVES,
        variant="fugue",
        clocks=clocks,
        comments={2: "a chat line"},
        headers={"TimeControl": "60+0", "Termination": "time forfeit"},
        result="1-0",
    )
    assert "1. e2-e3 {[%clk 0:00:59]} d7-d6 {[%clk 0:00:58.25] a chat line}" in " ".join(text.split())
    assert "[%clk 1:01:01.001]" in text
    assert '[TimeControl "60+0"]' in text and '[Termination "time forfeit"]' in text
    game = read_game(text)
    assert game.clocks == clocks
    assert game.comments == {2: "a chat line"}
    assert [str(m) for m in game.moves] == MOVES
    # and written again from what was read: the same text
    assert write_game(game) == text


def test_clock_commands_of_other_sites_are_read() -> None:
    text = '[Variant "Fugue"]\n\n1. e2-e3 { [%clk 0:02:59] } d7-d6 {[%emt 0:00:01] [%clk 0:03:00.4]} *\n'
    game = read_game(text)
    assert game.clocks == {1: 179_000, 2: 180_400}
    assert game.comments == {2: "[%emt 0:00:01]"}


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("royal capture", "normal"),
        ("repetition", "normal"),
        ("no legal moves", "normal"),
        ("resignation", "resignation"),
        ("time forfeit", "time forfeit"),
        ("aborted", "abandoned"),
        ("abandoned", "abandoned"),
    ],
)
def test_terminations_as_other_sites_write_them(value: str, written: str) -> None:
    assert pgn_termination(value) == written


def test_a_rules_ending_reads_back_its_reason_from_the_moves() -> None:
    board = Board("fugue", fen="8/8/8/4k3/4W3/8/8/K7 w")
    board.push_text("e4*e5")
    game = read_game(write_game(board))
    assert game.headers["Termination"] == "normal"
    assert game.termination is not None and game.termination.value == "royal capture"


def test_clock_format_round_trips() -> None:
    for ms in (0, 1, 999, 1000, 59_999, 60_000, 3_599_999, 36_000_000):
        assert parse_clock(f"[%clk {format_clock(ms)}]") == ms
    assert parse_clock("no clock here") is None


def test_comments_and_clocks_of_the_main_line_are_read_by_ply() -> None:
    text = (
        '[Variant "Fugue"]\n\n{before} 1. e2-e3 {[%clk 0:04:58] first} {again} d7-d6 (d7-d5 {skipped}) '
        "{[%clk 0:00:09.25]} 2. d2-d3 ; to the end of the line\ne7-e6 *"
    )
    game = read_game(text)
    assert game.comments == {0: "before", 1: "first again", 3: "to the end of the line"}
    assert game.clocks == {1: 298_000, 2: 9_250}


@pytest.mark.parametrize(
    ("comment", "line"),
    [
        ("[%clk 0:61:00]", 3),
        ("[%clk 5 minutes]", 3),
        ("[%clk]", 3),
        ("a note [%clk 0:04:59", 3),
        ("[%clk 1:00:00:00]", 3),
    ],
)
def test_a_clock_it_cannot_read_is_refused_with_its_line(comment: str, line: int) -> None:
    with pytest.raises(PgnError, match=rf"^line {line}: bad clock annotation '\[%clk"):
        read_game(f'[Variant "Fugue"]\n\n1. e2-e3 {{{comment}}} *')


def test_a_comment_over_the_bound_is_refused_with_its_line() -> None:
    text = '[Variant "Fugue"]\n\n1. e2-e3 {' + "x" * 10 + "}\n{" + "y" * 5 + "} *"
    assert read_game(text, max_comment=16).comments == {1: "x" * 10 + " " + "y" * 5}
    with pytest.raises(PgnError, match=r"^line 4: a comment of 16 characters \(at most 15, please\)$"):
        read_game(text, max_comment=15)
    assert read_game(text).comments[1].startswith("x")  # no bound by default


def test_a_clock_command_in_a_comments_own_text_is_not_taken_for_a_clock() -> None:
    # a chat line written as a comment: only the writer's own [%clk] is read back as a clock
    text = write_game(["e2-e3"], variant="fugue", clocks={1: 5_000}, comments={1: "[Ann] [%clk 9:99:99] hi"})
    game = read_game(text)
    assert game.clocks == {1: 5_000} and game.comments == {1: "[Ann] [% clk 9:99:99] hi"}
