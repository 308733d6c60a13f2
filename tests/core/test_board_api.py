"""The python-chess shaped Board API: errors, FEN forms, copies, history."""

from __future__ import annotations

import random

import pytest

from exochess import (
    BLACK,
    WHITE,
    Board,
    FenError,
    IllegalMoveError,
    Move,
    MoveSyntaxError,
    UnknownVariantError,
    find_variant,
)
from exochess.geometry import square_name
from exochess.rawmove import to_move
from tests.helpers import game_names, random_walk


def test_variant_lookup_by_name_alias_and_case() -> None:
    assert find_variant("FUGUE") is find_variant("fugue-chess")
    with pytest.raises(UnknownVariantError, match="known variants: fugue"):
        Board("chess")


def test_vchess_fen_with_move_counter_is_read() -> None:
    board = Board("fugue", fen="wlqksaui/pppppppp/8/8/8/8/PPPPPPPP/IUASKQLW w 0")
    assert board.fen() == "wlqksaui/pppppppp/8/8/8/8/PPPPPPPP/IUASKQLW w"


@pytest.mark.parametrize(
    ("fen", "message"),
    [
        ("", "at least a placement"),
        ("8/8/8/8/8/8/8/K7", "at least a placement"),
        ("8/8/8/8/8/8/K7 w", "has 7 ranks"),
        ("8/8/8/8/8/8/8/K8 w", "more than 8 squares"),
        ("8/8/8/8/8/8/8/Kz6 w", "'z' is not a piece letter"),
        ("8/8/8/8/8/8/8/K7 x", "side to move"),
        ("8/8/8/8/8/8/8/K7 w extra", "unexpected FEN field"),
        ("8/8/8/8/8/8/8/KQQ5 w", "2 pieces of type Queen"),
        ("8/8/8/8/8/8/8/K07 w", "empty run"),
        ("pppppppp/p7/8/8/8/8/8/K7 b", "9 pieces of type Cannon Pawn"),
    ],
)
def test_bad_fen_is_rejected_with_a_named_problem(fen: str, message: str) -> None:
    with pytest.raises(FenError, match=message):
        Board("fugue", fen=fen)


def test_bad_fen_leaves_the_board_unchanged() -> None:
    board = Board("fugue")
    board.push_text("e2-e3")
    with pytest.raises(FenError):
        board.set_fen("nonsense w")
    assert board.fen() == "wlqksaui/pppppppp/8/8/8/4P3/PPPP1PPP/IUASKQLW b"
    assert len(board.move_stack) == 1


def test_malformed_and_illegal_moves_are_distinguished() -> None:
    board = Board("fugue")
    with pytest.raises(MoveSyntaxError, match="malformed"):
        board.parse_move("e2e4")
    with pytest.raises(MoveSyntaxError):
        board.parse_move("")
    with pytest.raises(IllegalMoveError, match="can play: e2-d3 e2-e3 e2-f3"):
        board.parse_move("e2-e4")
    with pytest.raises(IllegalMoveError, match="no piece on e4"):
        board.parse_move("e4-e5")
    with pytest.raises(IllegalMoveError, match="not White's"):
        board.parse_move("e7-e6")
    with pytest.raises(IllegalMoveError, match="not on the 8x8 board"):
        board.parse_move("e9-e10")
    with pytest.raises(IllegalMoveError, match="has no legal move"):
        board.parse_move("f1-f2")
    assert board.ply() == 0


def test_push_rejects_a_move_of_another_position() -> None:
    board = Board("fugue")
    with pytest.raises(IllegalMoveError):
        board.push(Move.from_text("e7-e6"))
    assert board.fen() == Board("fugue").fen()


def test_history_peek_pop_and_move_stack() -> None:
    board = Board("fugue")
    board.push_text("e2-e3")
    board.push_text("d7-d6")
    assert [str(m) for m in board.move_stack] == ["e2-e3", "d7-d6"]
    assert str(board.peek()) == "d7-d6"
    assert board.turn == WHITE
    assert str(board.pop()) == "d7-d6"
    assert board.turn == BLACK
    board.pop()
    with pytest.raises(IndexError):
        board.pop()
    with pytest.raises(IndexError):
        board.peek()


def test_copy_is_independent_and_keeps_history() -> None:
    board = Board("fugue")
    board.push_text("e2-e3")
    twin = board.copy()
    twin.push_text("d7-d6")
    assert board.ply() == 1 and twin.ply() == 2
    fresh = board.copy(stack=False)
    assert fresh.ply() == 0 and fresh.fen() == board.fen()


def test_repr_round_trips() -> None:
    board = Board("fugue")
    board.push_text("b2-b3")
    again = eval(repr(board), {"Board": Board})
    assert again.fen() == board.fen()
    move = Move.from_text("d4xg4(h4)")
    assert eval(repr(move), {"Move": Move}) == move


def test_legal_move_list_supports_in_len_and_iteration() -> None:
    board = Board("fugue")
    moves = board.legal_moves
    assert Move.from_text("e2-e3") in moves
    assert Move.from_text("e2-e4") not in moves
    assert "e2-e3" not in moves  # only Move values are members
    assert len(moves) == 22 == len(list(moves))
    assert bool(moves)


def test_move_text_grammar() -> None:
    assert str(Move.from_text("a1XA5(a3)".lower())) == "a1xa5(a3)"
    assert str(Move.from_text("g6xe8=i")) == "g6xe8=I"
    assert str(Move.from_text("a7xe7(b7) , e7xa5(c6)".replace(" ,", ","))) == "a7xe7(b7),e7xa5(c6)"
    assert str(Move.from_text("e4@(f4,d4,e5)")) == "e4@(d4,e5,f4)"  # victims sorted
    assert str(Move.from_text("e4xe8(d9,f9)/C")) == "e4xe8(d9,f9)"  # power tag dropped
    assert Move.from_text("e4xe8(d9,f9)/C") == Move.from_text("e4xe8(d9,f9)")
    for bad in ("e2-", "e2-e3(", "e2~e3(e3)", "a0-a1", "q1-a1", "e2-e3,", "e4@(e5,e5)"):
        with pytest.raises(MoveSyntaxError):
            Move.from_text(bad)


def test_piece_access() -> None:
    board = Board("fugue")
    piece = board.piece_at(4)
    assert piece is not None and piece.symbol() == "K" and piece.color == WHITE
    assert board.piece_at(40) is None
    assert len(board.piece_map()) == 32


def test_game_over_position_has_no_moves_and_rejects_push() -> None:
    board = Board("fugue", fen="8/8/8/8/8/8/1k6/KQ6 w")
    board.push_text("b1xb2")
    assert board.is_game_over()
    assert len(board.legal_moves) == 0
    with pytest.raises(IllegalMoveError, match="game is over"):
        board.push_text("a1-a2")


def test_repetition_counts_survive_undoing_a_capture() -> None:
    # Shuffle twice (start position occurs twice), then capture and undo it:
    # the count must be restored so that the next repetition still loses.
    board = Board("fugue", fen="7k/8/8/8/8/8/p7/K7 w")
    for text in ["a1-b1", "h8-h7", "b1-a1", "h7-h8"]:
        board.push_text(text)
    assert board.repetition_count() == 2
    board.push_text("a1xa2")
    assert board.repetition_count() == 1
    board.pop()
    assert board.repetition_count() == 2
    for text in ["a1-b1", "h8-h7", "b1-a1"]:
        board.push_text(text)
    board.push_text("h7-h8")
    outcome = board.outcome()
    assert outcome is not None and outcome.termination.value == "repetition"


def test_copy_keeps_repetition_history() -> None:
    board = Board("fugue", fen="7k/8/8/8/8/8/8/K7 w")
    for text in ["a1-a2", "h8-h7", "a2-a1", "h7-h8"]:
        board.push_text(text)
    twin = board.copy()
    assert twin.repetition_count() == 2
    assert board.copy(stack=False).repetition_count() == 1


@pytest.mark.parametrize(
    ("variant", "fen"),
    [
        # "²" and "٣" pass str.isdigit() but are no FEN digits
        ("fugue", "8/8/8/8/8/8/8/K²5 w"),
        ("fugue", "8/8/8/8/8/8/8/K\u06637 w"),
        ("fugue", "wlqksaui/pppppppp/8/8/8/8/PPPPPPPP/IUASKQLW w \u0663"),
        ("rebelfury", "12/12/12/12/12/12/12/12/12/12/12/K¹¹ w"),
        ("interweave", "4K2k/8/8/8/8/8/8/8 w - 00000²"),
        ("interweave", "4K2k/8/8/8/8/8/8/8 w ² - 000000"),
        ("fugue", "8/8/8/8/8/8/8/K7\u2003w"),
    ],
)
def test_fen_with_non_ascii_characters_is_a_fen_error(variant: str, fen: str) -> None:
    with pytest.raises(FenError, match="ASCII"):
        Board(variant, fen=fen)


def test_placement_digits_are_ascii_only() -> None:
    from exochess.fen import parse_placement
    from exochess.geometry import geometry

    with pytest.raises(FenError, match="not a piece letter"):
        parse_placement("K²5/8", geometry(8, 2), {"K": 1, "k": -1})


@pytest.mark.generic
@pytest.mark.parametrize("variant", game_names())
def test_moves_after_a_null_move_keep_the_key_right(variant: str) -> None:
    # The search plays and undoes whole subtrees after a null move: every key on the way
    # must be the hash of the position (once, undoing a move put back the key from before
    # the pass, so each later move of the subtree hashed from the wrong side's key).
    board = Board(variant)
    board.push_text(str(next(iter(board.legal_moves))))
    start = board.key
    board.push_null()
    passed = board.key
    assert passed == Board(variant, fen=board.fen()).key
    for raw in board.raw_moves()[:5]:
        board.push_raw(raw)
        assert board.key == Board(variant, fen=board.fen()).key
        board.pop_raw()
        assert board.key == passed
    board.pop_null()
    assert board.key == start


@pytest.mark.generic
@pytest.mark.parametrize("variant", game_names())
def test_repetition_queries_agree_with_a_count_over_the_replayed_game(variant: str) -> None:
    # The board counts repetitions from its key history, looking back only when asked; here
    # every position of a shuffling game is rebuilt from its FEN and counted independently
    # (since the last capture), also with a null move in progress, as the search has them.
    import random

    rng = random.Random(7)
    board = Board(variant)
    fens = [board.fen()]
    captured_at = [0]  # index in fens of the first position of each stretch without captures
    most = banned = 0
    for _ in range(300):
        window = [Board(variant, fen=fen).key for fen in fens[captured_at[-1] :]]
        moves = board.raw_moves()
        generated = board.variant.generate(board) if board.decided is None else []
        repeating = [m for m in generated if not m[3] and not m[6] and board.hash_after(m) in window]
        if variant == "rebelfury":  # repetition is forbidden there: such moves are not legal
            assert not any(m in moves for m in repeating)
            banned += len(repeating)
        if not moves:
            break
        if len(board.move_stack) > 2 and rng.random() < 0.1:
            board.pop()
            fens.pop()
            while captured_at[-1] >= len(fens):
                captured_at.pop()
            continue
        quiet = [m for m in moves if not m[3] and not m[6]]
        if repeating and variant != "rebelfury" and rng.random() < 0.8:
            raw = rng.choice(repeating)  # back to a position seen before
        else:
            raw = rng.choice(quiet[:4]) if quiet and rng.random() < 0.95 else rng.choice(moves)
        board.push_raw(raw)
        fens.append(board.fen())
        if raw[3] or raw[6]:
            captured_at.append(len(fens) - 1)
        window = [Board(variant, fen=fen).key for fen in fens[captured_at[-1] :]]
        most = max(most, board.repetition_count())
        assert board.repetition_count() == window.count(board.key)
        assert all(board.has_occurred(key) for key in window)
        if board.outcome() is None:
            board.push_null()
            passed = board.key
            assert board.repetition_count() == window.count(passed)
            assert board.has_occurred(passed) == (passed in window)
            board.pop_null()
        if board.decided is not None:
            repeated = board.decided.termination.value == "repetition"
            assert repeated == (window.count(board.key) >= 3)
            if repeated:
                board.pop()  # and go on from the position before
                fens.pop()
    # the walk did exercise what it checks
    assert banned > 0 if variant == "rebelfury" else most >= 3, (most, len(fens))


@pytest.mark.generic
@pytest.mark.parametrize("variant", game_names())
def test_moves_are_looked_up_without_indexing_every_legal_move(variant: str) -> None:
    # parse_move and push find a move among those from its square only (the whole index of
    # moves is built for the legal_moves view): every legal move is found as itself, a move
    # from the right square to a wrong one is refused (naming the moves from there), and
    # nothing built the index.
    rng = random.Random(6)
    for walk in range(6):
        board = random_walk(variant, rng, 3 + 5 * walk)
        fen = board.fen()
        for raw in board.raw_moves():
            move = to_move(raw)
            assert board.parse_move(str(move)) == move
            assert board._raw_of(move) is raw
        assert board._index is None
        for raw in board.raw_moves()[:3]:
            board.push(to_move(raw))
            after = board.fen()
            board.pop()
            board.push_raw(raw)
            assert board.fen() == after
            board.pop_raw()
        assert board.fen() == fen
        moves = board.raw_moves()
        if moves:
            origin = moves[0][0]
            reached = {to_move(raw).actions[0].to_square for raw in moves if raw[0] == origin}
            squares = board.variant.geometry.squares
            elsewhere = next(sq for sq in squares if sq != origin and sq not in reached)
            text = f"{square_name(origin)}-{square_name(elsewhere)}"
            with pytest.raises(IllegalMoveError):
                board.parse_move(text)
            with pytest.raises(IllegalMoveError):
                board.push(Move.from_text(text))
            assert board.fen() == fen and board._index is None
