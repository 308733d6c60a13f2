"""Tests of exochess.pgn: export, import, tokeniser robustness and lossless round trips."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exochess import Board, ExochessError, Move
from exochess.pgn import Game, PgnError, read_game, read_games, write_game
from tests.helpers import game_names


def play(variant: str, fen: str | None, moves: list[str]) -> Board:
    board = Board(variant, fen=fen)
    for text in moves:
        board.push_text(text)
    return board


def roundtrip(board: Board) -> Game:
    text = write_game(board)
    game = read_game(text)
    assert game.variant == board.variant.name
    assert game.fen == board.starting_fen
    assert [str(m) for m in game.moves] == [str(m) for m in board.move_stack]
    assert game.board().fen() == board.fen()
    assert write_game(game) == text
    return game


# --- every Fugue move kind ---------------------------------------------------------------

FUGUE_KINDS = [
    ("K7/8/7k/8/5p1P/p1p4P/7p/p1A4p w", ["c1@f4"]),  # Archer shot
    ("K7/8/8/3w4/3W2q1/8/8/3k4 w", ["d4~g4"]),  # swap
    ("K7/8/8/3w4/3W2q1/8/8/3k4 w", ["d4*d5"]),  # mutual destruction
    ("k2p4/8/8/4p3/2pU3p/8/8/7K w", ["d4xg4(h4)"]),  # Pushme-Pullyu, chosen victim
    ("k2p4/8/8/4p3/2pU3p/8/8/7K w", ["d4xg4(c4)"]),
    ("7k/p7/8/8/8/p1p5/1p6/LK6 w", ["a1xa5(a3)"]),  # Long Leaper
    ("k3a3/5Qp1/6P1/8/8/8/L7/K7 w", ["g6xe8=I"]),  # promotion with capture
    ("7k/8/8/3i4/3Q4/3P4/8/K7 w", ["d3xd5"]),  # cannon pawn over frozen mount
    ("8/8/8/4k3/4W3/8/8/K7 w", ["e4*e5"]),  # King destroyed: game over
]


@pytest.mark.parametrize(("fen", "moves"), FUGUE_KINDS)
def test_fugue_move_kinds_roundtrip(fen: str, moves: list[str]) -> None:
    board = play("fugue", fen, moves)
    game = roundtrip(board)
    assert str(game.moves[0]) == moves[0]


def test_result_and_termination_of_a_finished_game() -> None:
    board = play("fugue", "8/8/8/4k3/4W3/8/8/K7 w", ["e4*e5"])
    game = roundtrip(board)
    assert game.result == "1-0"
    assert game.headers["Termination"] == "normal"  # as other sites write it
    assert game.termination is not None and game.termination.value == "royal capture"


def test_repetition_loss_result() -> None:
    board = play(
        "fugue",
        "7k/8/8/8/8/8/8/K7 w",
        ["a1-a2", "h8-h7", "a2-a1", "h7-h8", "a1-a2", "h8-h7", "a2-a1", "h7-h8"],
    )
    game = roundtrip(board)
    assert game.result == "1-0"  # Black made the third repetition and lost
    assert game.headers["Termination"] == "normal"
    assert game.termination is not None and game.termination.value == "repetition"


def test_black_to_move_start_numbering() -> None:
    board = play("fugue", "wlqksaui/pppppppp/8/8/8/8/PPPPPPPP/IUASKQLW b", ["e7-e6", "e2-e3"])
    text = write_game(board)
    assert "1... e7-e6 2. e2-e3 *" in text
    roundtrip(board)


def test_resignation_result_given_by_caller() -> None:
    board = play("fugue", None, ["e2-e3"])
    text = write_game(board, result="0-1")
    assert '[Result "0-1"]' in text and '[Termination "resignation"]' in text
    assert read_game(text).result == "0-1"


def test_extra_headers_preserved_in_order() -> None:
    board = play("fugue", None, ["e2-e3"])
    text = write_game(board, headers={"Event": "Club", "Round": "3", "Annotator": "me", "TimeControl": "-"})
    game = read_game(text)
    assert list(game.headers)[:7] == ["Event", "Site", "Date", "Round", "White", "Black", "Result"]
    assert game.headers["Annotator"] == "me" and game.headers["TimeControl"] == "-"
    assert write_game(game) == text


def test_header_escapes() -> None:
    text = write_game(Board("fugue"), headers={"White": 'Ann "the \\ Swapper"'})
    assert read_game(text).headers["White"] == 'Ann "the \\ Swapper"'


def test_write_from_move_list() -> None:
    text = write_game(["e2-e3", Move.from_text("d7-d6")], variant="fugue")
    assert "1. e2-e3 d7-d6 *" in text


def test_comments_roundtrip() -> None:
    board = play("fugue", None, ["e2-e3", "d7-d6", "d2-d3"])
    text = write_game(board, comments={0: "start", 2: "a quiet reply"})
    game = read_game(text)
    assert game.comments == {0: "start", 2: "a quiet reply"}
    assert "{a quiet reply} 2. d2-d3" in text
    assert write_game(game) == text


# --- tolerant reading --------------------------------------------------------------------


def test_tokeniser_tolerates_pgn_decorations() -> None:
    text = """[Event "x"]
[Variant "fugue"] [FEN "K7/8/8/3w4/3W2q1/8/8/3k4 w"]

% an escape line
1.d4~g4!? $1 {a swap} ( 1. d4*d5 (1. d4-d3) ) ; rest of line
1...d4-c3 2. g4-g3 *
"""
    game = read_game(text)
    assert [str(m) for m in game.moves] == ["d4~g4", "d4-c3", "g4-g3"]
    assert game.comments == {1: "a swap rest of line"}
    assert game.result == "*"


def test_mutual_destruction_star_is_not_the_result() -> None:
    game = read_game('[Variant "Fugue"]\n[FEN "8/8/8/4k3/4W3/8/8/K7 w"]\n\n1. e4*e5 1-0\n')
    assert [str(m) for m in game.moves] == ["e4*e5"] and game.result == "1-0"
    game = read_game('[Variant "Fugue"]\n[FEN "8/8/8/4k3/4W3/8/8/K7 w"]\n\n1. e4*e5 *\n')
    assert game.result == "*"


def test_chain_with_spaces_after_commas_and_line_break() -> None:
    fen = "8/Nr5R/2rP3n/2N5/7b/4b2P/4P3/kk3KK1 w - 000000"
    text = f'[Variant "Interweave"]\n[FEN "{fen}"]\n\n1. a7xe7(b7),\ne7xa5(c6) *\n'
    game = read_game(text)
    assert [str(m) for m in game.moves] == ["a7xe7(b7),e7xa5(c6)"]
    game = read_game(f'[Variant "Interweave"]\n[FEN "{fen}"]\n\n1. a7xe7(b7), e7xa5(c6) *')
    assert [str(m) for m in game.moves] == ["a7xe7(b7),e7xa5(c6)"]


def test_several_games() -> None:
    one = write_game(play("fugue", None, ["e2-e3"]))
    two = write_game(play("fugue", None, ["d2-d3", "d7-d6"]))
    games = read_games(one + "\n" + two)
    assert [len(g.moves) for g in games] == [1, 2]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "no game"),
        ('[Event "x"]\n\n1. e2-e3 *', "Variant"),
        ('[Variant "Chess960"]\n\n1. e2-e4 *', "Chess960"),
        ('[Variant "Fugue"]\n[FEN "8/8 w"]\n\n*', "FEN"),
        ('[Variant "Fugue"\n\n1. e2-e3 *', "malformed tag"),
        ('[Variant "Fugue"]\n\n1. e2-e3 e7-e6 2. e3-e5 *', "move 2. e3-e5"),
        ('[Variant "Fugue"]\n\n1. e2-e3 e7-e6 2. d2-d3 q1-q9 *', "move 2... q1-q9"),
        ('[Variant "Fugue"]\n\n1. e2-e3 {never closed', "comment"),
        ('[Variant "Fugue"]\n\n1. e2-e3 ( e2-e4 *', "variation"),
        ('[Variant "Fugue"]\n\n1. e2-e3 * e7-e6', "after the result"),
        ('[Variant "Fugue"]\n[Result "2-0"]\n\n1. e2-e3', "result"),
    ],
)
def test_import_errors_name_the_problem(text: str, message: str) -> None:
    with pytest.raises(PgnError, match=message.replace(".", r"\.").replace("(", r"\(")) as info:
        read_game(text)
    assert isinstance(info.value, ExochessError)


def test_write_rejects_illegal_move_with_number() -> None:
    with pytest.raises(PgnError, match=r"move 1\.\.\. e2-e3"):
        write_game(["e2-e3", "e2-e3"], variant="fugue")
    with pytest.raises(PgnError, match="result"):
        write_game(Board("fugue"), result="2-0")


# --- other games: special move kinds -----------------------------------------------------

INTERWEAVE_KINDS = [
    ("8/Nr5R/2rP3n/2N5/7b/4b2P/4P3/kk3KK1 w - 000000", ["a7xe7(b7),e7xa5(c6)"]),
    ("8/Nr5R/2rP3n/2N5/7b/4b2P/4P3/kk3KK1 w - 000000", ["d6xc7(b7,c6)"]),
    ("kk6/8/8/4p3/3pBp2/1p6/1P5K/6K1 w - 000000", ["e4@(d4,e5,f4)"]),
    ("3kk3/2P5/4P3/8/8/8/8/3KK3 w - 100000", ["c7-b8=R"]),
    ("3kk3/8/8/8/2p5/8/1P6/3KK3 w - 000000", ["b2-d4", "c4xc2(d4)"]),
    ("8/3p1p2/2p1p3/3p4/3K4/K7/8/6kk w - 000000", ["d4xd6(d5),d6xf6(e6),f6xf8(f7)"]),
]


@pytest.mark.parametrize(("fen", "moves"), INTERWEAVE_KINDS)
def test_interweave_move_kinds_roundtrip(fen: str, moves: list[str]) -> None:
    roundtrip(play("interweave", fen, moves))


REBELFURY_KINDS = [
    ("12/12/3hhh6/12/12/12/11h/4C7/11h/7h4/6hh4/12 w", ["e5xe9(d10,e10,f10)"]),
    ("fd8df/aa8aa/12/12/12/12/12/12/12/3X3C4/AA8AA/FD8DF w", ["d3~h3"]),
    ("fd8df/aa8aa/12/12/3h8/12/4A7/12/12/12/AA8AA/FD8DF w", ["e6-e7=J"]),
    ("fd8df/aa8aa/12/3chm6/12/12/12/12/4M7/12/AA8AA/FD8DF w", ["e4xe8(d9,f9)/C"]),
]


@pytest.mark.parametrize(("fen", "moves"), REBELFURY_KINDS)
def test_rebelfury_move_kinds_roundtrip(fen: str, moves: list[str]) -> None:
    board = play("rebelfury", fen, moves)
    game = roundtrip(board)
    assert "/" not in str(game.moves[0])  # power tags are accepted but never written


# --- property: random games of every registered game -------------------------------------


@pytest.mark.generic
@pytest.mark.parametrize("variant", game_names())
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    choices=st.lists(st.integers(min_value=0, max_value=10_000), max_size=60),
    comment_at=st.one_of(st.none(), st.integers(min_value=0, max_value=60)),
)
def test_random_games_roundtrip(variant: str, choices: list[int], comment_at: int | None) -> None:
    board = Board(variant)
    for choice in choices:
        moves = sorted(board.legal_moves, key=str)
        if not moves:
            break
        board.push(moves[choice % len(moves)])
    comments = {comment_at: "note (x, y) {z}"} if comment_at is not None and comment_at <= board.ply() else {}
    text = write_game(board, comments=comments)
    game = read_game(text)
    assert game.moves == board.move_stack
    assert game.board().fen() == board.fen()
    assert write_game(game) == text
    outcome = board.outcome()
    assert game.result == (outcome.result() if outcome else "*")


def test_web_style_call_with_headers_and_result() -> None:
    """The web site calls write_game(board, headers=..., result=...) with its own tags."""
    board = play("fugue", None, ["e2-e3", "d7-d6"])
    headers = {
        "Event": "exochess game",
        "Site": "exochess /game/1",
        "Date": "2026.11.23",
        "Round": "-",
        "White": "Human",
        "Black": "Computer (level 3)",
        "Result": "1-0",
        "Variant": "Fugue",
        "Termination": "resignation",
    }
    text = write_game(board, headers=headers, result="1-0")
    game = read_game(text)
    assert game.result == "1-0" and game.headers["Termination"] == "resignation"
    assert game.headers["Round"] == "-" and game.headers["Black"] == "Computer (level 3)"


def test_errors_name_the_line_of_the_text() -> None:
    """A bad move, a bad Variant or FEN tag: the message says on which line (issue 45, PGN import)."""
    with pytest.raises(PgnError, match=r"^line 5, move 2\. e3-e5: "):
        read_game('[Event "x"]\n[Variant "Fugue"]\n\n1. e2-e3 e7-e6\n2. e3-e5 *')
    with pytest.raises(PgnError, match=r"^line 2: \[Variant 'Chess960'\]"):
        read_game('[Event "x"]\n[Variant "Chess960"]\n\n*')
    with pytest.raises(PgnError, match=r"^line 3: \[FEN '8/8 w'\]"):
        read_game('[Event "x"]\n[Variant "Fugue"]\n[FEN "8/8 w"]\n\n*')
