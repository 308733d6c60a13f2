"""The search features behind switches (issue 15, item 3): aspiration windows, null-move
pruning, razoring, late move reductions, late move pruning, quiet moves ordered by their
piece-square gain, the royal-threat extension, and the two rules for games with compulsory
captures (no stand pat while a capture is due, forced replies extended).

Each switch must leave the search sound (forced wins found, legal moves, a board restored
even when the budget stops it in the middle of a null move), and the null move must be used
only in the games whose rules allow it.  Strength is measured by matches, not here
(docs/engine.md gives the commands and results).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace

import pytest

from exochess import Board
from exochess.engine import Limits, Searcher, SearchOptions
from exochess.engine.search import LMP_GUARD_VALUE, ROYAL_GAIN
from exochess.errors import ExochessError
from exochess.rawmove import PROMOTION
from exochess_lab.match import parse_player
from tests.engine.test_engine import FORCED_WINS, VARIANTS
from tests.helpers import random_walk

PASSING_GAMES = [
    name for name in VARIANTS if Board(name).extra is None and not Board(name).variant.captures_compulsory
]
"""The games whose search may pass the turn (the null move, the royal threat test and the late
move pruning guard play one): neither compulsory captures nor extra state, read from the registry."""
pytestmark = pytest.mark.search  # compiled build only in make test (pyproject.toml's markers)

SWITCHES = [
    "aspiration",
    "null_move",
    "razoring",
    "lmr",
    "royal_extension",
    "forced_quiescence",
    "forced_extension",
    "late_move_pruning",
    "lmp_guard",
    "quiet_order_pst",
]
ALL_ON = SearchOptions(
    aspiration=True,
    null_move=True,
    razoring=True,
    lmr=True,
    royal_extension=True,
    forced_quiescence=True,
    forced_extension=True,
    late_move_pruning=True,
    lmp_guard=True,
    quiet_order_pst=True,
)


def flipped(board: Board) -> Board:
    """The same squares with the other side to move, built from the FEN (independent of push_null)."""
    fields = board.fen().split(" ")
    fields[1] = "b" if fields[1] == "w" else "w"
    return Board(board.variant, fen=" ".join(fields))


def searchers_after_walks(variant: str, seed: int, walks: int, first: int, step: int) -> Iterator[Searcher]:
    """Searchers that have each searched a random walk's position (of first + step * i plies) to depth 1.

    Positions where the game is over are left out; every switch is on (:data:`ALL_ON`)."""
    rng = random.Random(seed)
    for walk in range(walks):
        board = random_walk(variant, rng, first + step * walk)
        if board.is_game_over():
            continue
        searcher = Searcher()
        searcher.search(board, Limits(depth=1), options=ALL_ON)
        yield searcher


def victims_by_capture(board: Board) -> list[list[int]]:
    """The squares each capture of the position takes, its chained actions' included."""
    return [[*c[3], *(sq for a in c[6] or () for sq in a[3])] for c in board.raw_captures()]


@pytest.mark.parametrize("switch", SWITCHES)
@pytest.mark.parametrize(("variant", "fen", "plies"), FORCED_WINS)
def test_each_switch_still_finds_the_forced_wins(switch: str, variant: str, fen: str, plies: int) -> None:
    board = Board(variant, fen=fen)
    on = not getattr(SearchOptions(), switch)  # the switch turned the other way from the default
    options = replace(SearchOptions(), **{switch: on})
    result = Searcher().search(board, Limits(depth=plies), options=options)
    assert result.mate == plies, (switch, on)


@pytest.mark.parametrize("variant", PASSING_GAMES)
def test_push_null_hands_the_turn_over_and_pop_null_restores(variant: str) -> None:
    board = random_walk(variant, random.Random(5), 12)
    fen, key, moves = board.fen(), board.key, list(board.raw_moves())
    other = flipped(board)
    board.push_null()
    assert board.key == other.key == other.zobrist_hash()
    assert sorted(board.raw_moves()) == sorted(other.raw_moves())
    board.pop_null()
    assert (board.fen(), board.key, list(board.raw_moves())) == (fen, key, moves)


def test_null_moves_only_where_the_rules_allow_them() -> None:
    # Interweave: captures are compulsory (zugzwang is the normal case) and the extra state
    # holds en passant rights, so neither the null move nor the threat test that plays one is used.
    for variant, allowed in (("fugue", True), ("rebelfury", True), ("interweave", False)):
        searcher = Searcher()
        searcher.search(Board(variant), Limits(depth=1), options=ALL_ON)
        assert searcher.null_ok is allowed and searcher.extend is allowed, variant
        searcher.search(Board(variant), Limits(depth=1), options=replace(ALL_ON, pruning=False))
        assert not searcher.null_ok, variant  # a pruning switch: off with pruning


def test_a_side_with_fewer_than_two_pieces_never_passes() -> None:
    # Zugzwang: stalemate loses and frozen pieces cannot move, so a side with a King, pawns
    # and one piece may have to move into a loss where passing would hold.
    searcher = Searcher()
    for fen, black, white in (
        ("k7/8/8/8/8/8/p7/3IK1Q1 b", False, True),  # Black: King and a Cannon Pawn
        ("k7/8/8/8/8/8/q7/3IK1Q1 b", False, True),  # Black: King and a Queen
        ("k7/8/8/8/8/8/qs6/4K1Q1 b", True, False),  # Black: Queen and Swapper; White: a Queen
    ):
        searcher.search(Board("fugue", fen=fen), Limits(depth=1), options=ALL_ON)
        assert searcher._has_pieces() is black, fen  # Black to move at the root of the private copy
        searcher.board.push_null()
        assert searcher._has_pieces() is white, fen
        searcher.board.pop_null()


@pytest.mark.parametrize("variant", PASSING_GAMES)
def test_royal_threat_test_agrees_with_the_flipped_position(variant: str) -> None:
    # After each move, the mover "threatens" exactly when, moving again, it has a capture
    # that takes a royal piece: checked against boards built from the FEN with the turn flipped.
    seen = {True: 0, False: 0}
    for searcher in searchers_after_walks(variant, 3, 12, 6, 3):
        b = searcher.board
        royal = b.variant.royal_code
        for m in list(b.raw_moves())[:40]:
            b.push_raw(m)
            if b.decided is None:
                other = flipped(b)
                taken = [sq for vs in victims_by_capture(other) for sq in vs]
                expected = any(abs(other.squares[sq]) == royal for sq in taken)
                assert searcher._threatens_royal() is expected
                seen[expected] += 1
            b.pop_raw()
    assert seen[True] and seen[False]  # both answers were exercised
    assert ROYAL_GAIN > 0


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_search_stopped_anywhere_leaves_the_board_restored(variant: str) -> None:
    # Node budgets stop the search at many different places, some inside a null-move search:
    # the private board must be back at the root with a consistent key and running score.
    board = random_walk(variant, random.Random(21), 14)
    budgets = (150, 400, 900, 1700) if variant == "rebelfury" else (300, 1100, 2500, 5200)
    for nodes in budgets:
        searcher = Searcher()
        result = searcher.search(board, Limits(nodes=nodes), options=ALL_ON)
        assert result.best in board.legal_moves
        b = searcher.board
        assert b.fen() == board.fen()
        assert b.key == b.zobrist_hash() == Board(board.variant, fen=board.fen()).zobrist_hash()
        assert searcher.score == searcher.ev.static(b)


@pytest.mark.parametrize("variant", VARIANTS)
def test_switched_searches_are_deterministic(variant: str) -> None:
    board = random_walk(variant, random.Random(8), 10)
    nodes = 800 if variant == "rebelfury" else 4000
    first = Searcher().search(board, Limits(nodes=nodes), options=ALL_ON)
    again = Searcher().search(board, Limits(nodes=nodes), options=ALL_ON)
    assert (first.best, first.score_cp, first.nodes, first.depth) == (
        again.best,
        again.score_cp,
        again.nodes,
        again.depth,
    )


def test_aspiration_gives_the_full_window_score_at_a_fixed_depth() -> None:
    # A window that misses is opened and the depth searched again, so the score at a fixed
    # depth is a true minimax score of the (pruned) tree, as without the window.
    board = random_walk("fugue", random.Random(2), 8)
    plain = Searcher().search(board, Limits(depth=5), options=SearchOptions(aspiration=False))
    windowed = Searcher().search(board, Limits(depth=5), options=SearchOptions(aspiration=True))
    assert windowed.depth == plain.depth == 5
    assert abs(windowed.score_cp - plain.score_cp) <= 60


def test_match_players_take_the_switches() -> None:
    p = parse_player("level=8,null_move=1,aspiration=0,razoring=yes")
    opts = p.options("fugue")
    assert (opts.null_move, opts.aspiration, opts.razoring) == (True, False, True)
    with pytest.raises(ExochessError):
        parse_player("level=8,nullmove=1")


# White to move offers a pawn (c3-d4) that the Black King on e4 must take (captures are
# compulsory); it lands on c4, where the Smasher's approach c1-c3 captures it.
FORCED_OFFER = "7k/8/8/8/4k3/2P5/8/K1R4K w - 000000"


def test_quiescence_does_not_stand_pat_where_a_capture_is_compulsory() -> None:
    # At depth 1 the reply is left to quiescence.  A side that must capture cannot keep the
    # static score of the position, so the forced capture is searched and the win seen; with
    # the old rule Black "declined" the pawn and the offer looked like nothing.
    board = Board("interweave", fen=FORCED_OFFER)
    on = Searcher().search(board, Limits(depth=1), options=SearchOptions(forced_quiescence=True))
    assert (str(on.best), on.mate) == ("c3-d4", 3)
    off = Searcher().search(board, Limits(depth=1), options=SearchOptions(forced_quiescence=False))
    assert off.mate is None


def test_forced_rules_apply_only_where_captures_are_compulsory() -> None:
    for variant, compulsory in (("fugue", False), ("rebelfury", False), ("interweave", True)):
        searcher = Searcher()
        searcher.search(Board(variant), Limits(depth=1), options=ALL_ON)
        assert searcher.forced_q is compulsory and searcher.forced_ext is compulsory, variant


@pytest.mark.parametrize("variant", VARIANTS)
def test_late_move_pruning_reaches_the_same_depth_with_fewer_nodes(variant: str) -> None:
    # Over a few positions: in a single one the pruned tree may happen to be larger (its
    # table and killers differ), as in one Rebel Fury position at depth 3.
    rng = random.Random(31)
    totals = {False: 0, True: 0}
    for walk in range(3):
        board = random_walk(variant, rng, 12 + 4 * walk)
        for lmp in (False, True):
            result = Searcher().search(board, Limits(depth=4), options=SearchOptions(late_move_pruning=lmp))
            assert result.depth == 4
            totals[lmp] += result.nodes
    assert totals[True] < totals[False]


@pytest.mark.parametrize("variant", VARIANTS)
def test_late_move_pruning_never_invents_a_loss(variant: str) -> None:
    # Quiet moves are skipped only once a move at the node has scored above a loss, so a side
    # with a saving move late in the order (its royal piece attacked) still finds it: where the
    # full search sees no forced loss, the pruned one sees none either.
    rng = random.Random(13)
    checked = 0
    for walk in range(14):
        board = random_walk(variant, rng, 6 + 3 * walk)
        if board.is_game_over():
            continue
        plain = Searcher().search(board, Limits(depth=3), options=SearchOptions(late_move_pruning=False))
        pruned = Searcher().search(board, Limits(depth=3), options=SearchOptions(late_move_pruning=True))
        if plain.mate is None or plain.mate > 0:
            assert pruned.mate is None or pruned.mate > 0, board.fen()
            checked += 1
    assert checked >= 8


@pytest.mark.parametrize("variant", PASSING_GAMES)
def test_lmp_guard_sees_an_attacked_piece_as_the_flipped_position_does(variant: str) -> None:
    # "Attacked" is: with the turn handed over, the opponent has a capture taking at least
    # LMP_GUARD_VALUE; checked against boards built from the FEN with the turn flipped (the
    # victims' values summed; a capture's gain also subtracts a sixteenth of the attacker's
    # order value, so values just above the bound are not judged here).
    seen = {True: 0, False: 0}
    for searcher in searchers_after_walks(variant, 8, 24, 2, 3):
        fen = searcher.board.fen()
        other = flipped(searcher.board)
        ov = searcher.order_value
        values = [sum(ov[other.squares[sq] & 31] for sq in vs) for vs in victims_by_capture(other)]
        most = max(values, default=0)
        if LMP_GUARD_VALUE <= most < LMP_GUARD_VALUE + max(ov) // 256 + 1:
            continue
        expected = most >= LMP_GUARD_VALUE
        assert searcher._attacked() is expected, fen
        assert searcher.board.fen() == fen
        seen[expected] += 1
    assert seen[True] and seen[False]


@pytest.mark.parametrize("variant", PASSING_GAMES)
def test_lmp_guard_prunes_less_than_late_move_pruning_alone(variant: str) -> None:
    # The guard only ever searches moves that plain late move pruning skips, so over a few
    # positions its trees lie between the pruned and the full ones (summed: one position's
    # table and killers may differ).
    rng = random.Random(31)
    totals = {"off": 0, "lmp": 0, "guarded": 0}
    settings = {
        "off": SearchOptions(),
        "lmp": SearchOptions(late_move_pruning=True),
        "guarded": SearchOptions(late_move_pruning=True, lmp_guard=True),
    }
    for walk in range(3):
        board = random_walk(variant, rng, 12 + 4 * walk)
        for name, options in settings.items():
            result = Searcher().search(board, Limits(depth=4), options=options)
            assert result.depth == 4
            totals[name] += result.nodes
    assert totals["lmp"] < totals["guarded"] < totals["off"], totals


def test_quiet_moves_without_history_come_by_piece_square_gain() -> None:
    # A fresh searcher has no history, so the quiet stage is ordered by the piece-square
    # table alone: each quiet move's gain (for the side to move) is no larger than the last.
    for fen in ("fugue", "rebelfury"):
        board = random_walk(fen, random.Random(4), 12)
        searcher = Searcher()
        searcher.search(board, Limits(depth=1), options=SearchOptions(quiet_order_pst=True))
        searcher.history.clear()
        b = searcher.board
        sign = 1 if b.side > 0 else -1
        staged = list(searcher._staged(None, 0, b.key))
        quiets = [
            m
            for m in staged[staged.index(None) + 1 :]
            if m is not None and len(m) == 14 and not m[PROMOTION] and m not in searcher.killers[0]
        ]
        gains = [sign * (searcher.by_code[m[13]][m[11]] - searcher.by_code[m[9]][m[8]]) for m in quiets]
        assert len(gains) > 10
        assert gains == sorted(gains, reverse=True)
