"""Royal loss is an event (RULES 0.6, 1.5, 2.6, 3.9), in all three games and on every path.

A game ends when a move (an Interweave action) removes a royal and leaves its side below the
minimum: no King (Fugue), fewer than two Kings (Interweave), no Fury (Rebel Fury).  A FEN in
which a side already lacks royals is an ordinary position: its whole tree is played.  The
board, perft, the engine's mate scores and PGN import all follow the board's verdict; the web
site's result text is checked against a real server in ``tests/web/test_web_royal_loss.py``.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from exochess import BLACK, WHITE, Board, Termination
from exochess.engine import analyse
from exochess.perft import perft
from exochess.pgn import read_game, write_game
from tests.variants.fugue.test_reference import parse, reference_moves
from tests.variants.interweave import reference as interweave_reference
from tests.variants.rebelfury import reference as rebelfury_reference


def fugue_reference_perft(fen: str, depth: int) -> int:
    """Perft by the slow Fugue generator of ``test_reference``, with the royal loss as an event
    (repetition cannot occur in the three plies used here)."""
    placement, white = parse(fen)

    def walk(p: dict[tuple[int, int], str], w: bool, n: int) -> int:
        if n == 0:
            return 1
        king = "k" if w else "K"
        before = sum(1 for ch in p.values() if ch == king)
        total = 0
        for rows in reference_moves(p, w).values():
            if n == 1:
                total += 1
                continue
            after, _ = parse(f"{rows} {'b' if w else 'w'}")
            if sum(1 for ch in after.values() if ch == king) < before:
                continue  # the move took the last King: the game is over
            total += walk(after, not w, n - 1)
        return total

    return walk(placement, white, depth)


REFERENCES: dict[str, Callable[[str, int], int]] = {
    "fugue": fugue_reference_perft,
    "interweave": interweave_reference.perft,
    "rebelfury": rebelfury_reference.perft,
}

# (game, FEN, perft at depths 1, 2, 3).  In each game one FEN where nobody can lose a royal
# in the tree and one where the only royal left on the board can be taken.
ROYAL_LESS = [
    # Black has no King: the figure, perft 2 = 9.
    ("fugue", "p7/8/8/8/8/8/8/K7 w", (3, 9, 54)),
    # Black has no King but a Queen that can reach White's.
    ("fugue", "8/1p6/8/3q4/8/2Q5/p7/K7 b", (42, 1103, 45534)),
    # RULES I-13 without Black's Kings and with one White King: the chain runs to its end.
    ("interweave", "8/3p1p2/2p1p3/3p4/3K4/8/8/8 w - 000000", (3, 16, 38)),
    # One King each: the chain d4xd6(d5),d6xf6(e6) takes Black's only King and stops there.
    ("interweave", "8/3p1p2/2p1k3/3p4/3K4/8/8/8 w - 000000", (3, 13, 31)),
    # No Fury at all.
    ("rebelfury", "12/12/12/12/1x10/12/12/12/1X10/12/12/12 w", (31, 1048, 37111)),
    # White has no Fury; its Jumper can take Black's only one.
    ("rebelfury", "12/12/1x10/12/12/12/12/12/12/1f10/12/J11 w", (5, 301, 2681)),
]


@pytest.mark.parametrize(("variant", "fen", "counts"), ROYAL_LESS)
def test_royal_less_perft_agrees_with_the_reference(variant: str, fen: str, counts: tuple[int, ...]) -> None:
    board = Board(variant, fen=fen)
    assert board.outcome() is None
    assert tuple(perft(board, depth) for depth in (1, 2, 3)) == counts
    assert tuple(REFERENCES[variant](fen, depth) for depth in (1, 2, 3)) == counts


# (game, FEN, a move that takes no royal, a move that takes the last royal, its winner)
EVENTS = [
    ("fugue", "7p/8/8/8/8/8/8/KQ5q w", "b1xh1", None, None),
    ("fugue", "7p/8/8/8/8/8/8/Kq6 b", None, "b1xa1", BLACK),
    ("interweave", "8/3p1p2/2p1p3/3p4/3K4/8/8/8 w - 000000", "d4xd6(d5),d6xf6(e6),f6xf8(f7)", None, None),
    (
        "interweave",
        "8/3p1p2/2p1k3/3p4/3K4/8/8/8 w - 000000",
        "d4xd6(d5),d6xb6(c6)",
        "d4xd6(d5),d6xf6(e6)",
        WHITE,
    ),
    ("rebelfury", "12/12/1x10/12/12/12/12/12/12/1f10/12/J11 w", "a1-c2", "a1xb3", WHITE),
]


@pytest.mark.parametrize(("variant", "fen", "quiet", "fatal", "winner"), EVENTS)
def test_only_the_removal_of_the_last_royal_ends_the_game(
    variant: str, fen: str, quiet: str | None, fatal: str | None, winner: bool | None
) -> None:
    if quiet is not None:
        board = Board(variant, fen=fen)
        board.push_text(quiet)
        assert board.outcome() is None
        assert list(board.legal_moves)  # the tree goes on
    if fatal is not None:
        board = Board(variant, fen=fen)
        board.push_text(fatal)
        outcome = board.outcome()
        assert outcome is not None
        assert outcome.termination == Termination.ROYAL_CAPTURE
        assert outcome.winner == winner
        assert not list(board.legal_moves)


@pytest.mark.parametrize(("variant", "fen", "quiet", "fatal", "winner"), EVENTS)
def test_engine_scores_a_royal_capture_as_a_win_and_a_missing_royal_as_nothing(
    variant: str, fen: str, quiet: str | None, fatal: str | None, winner: bool | None
) -> None:
    board = Board(variant, fen=fen)
    result = analyse(board, depth=2)
    if fatal is not None:
        assert result.mate == 1
        assert str(result.best) == fatal
    else:
        # Nothing to capture that ends the game: no mate score, although a side has no royal.
        assert result.mate is None
    assert board.fen() == fen  # analysis leaves the board alone


@pytest.mark.parametrize(("variant", "fen", "quiet", "fatal", "winner"), EVENTS)
def test_pgn_of_a_royal_less_start_round_trips(
    variant: str, fen: str, quiet: str | None, fatal: str | None, winner: bool | None
) -> None:
    moves = [text for text in (quiet,) if text is not None]
    text = write_game(moves, variant=variant, fen=fen)
    game = read_game(text)
    assert game.fen == Board(variant, fen=fen).fen()
    assert [str(m) for m in game.moves] == moves
    assert game.result == "*"  # a missing royal decides nothing
    if fatal is not None:
        text = write_game([fatal], variant=variant, fen=fen)
        assert '[Termination "normal"]' in text
        game = read_game(text)
        assert game.result == ("1-0" if winner else "0-1")
        assert [str(m) for m in game.moves] == [fatal]
