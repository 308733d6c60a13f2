"""Engine tests: forced wins in every game, legality, budgets, determinism, the API contract."""

from __future__ import annotations

import gc
import random
import threading
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exochess import Board, Move, all_variants
from exochess.engine import Analysis, EngineError, Limits, Searcher, SearchOptions, analyse, best_move
from exochess.engine.evaluate import evaluator_class, evaluator_for
from exochess.engine.levels import LEVELS, level
from exochess.errors import ExochessError
from exochess_lab.match import elo_interval, parse_player, play_game
from tests.helpers import game_names, random_walk

VARIANTS = game_names()


# --- an independent prover of forced wins (no evaluation, no pruning) -----------------------


def wins_within(board: Board, plies: int, me: bool) -> bool:
    """Whether side ``me`` (to move) can force a royal capture within ``plies`` (odd) plies."""
    moves = list(board.raw_moves())
    for raw in moves:
        board.push_raw(raw)
        outcome = board.outcome()
        board.pop_raw()
        if outcome is not None and outcome.winner == me:
            return True
    if plies < 3:
        return False
    for raw in moves:
        board.push_raw(raw)
        ok = board.outcome() is None and defender_loses(board, plies - 1, me)
        board.pop_raw()
        if ok:
            return True
    return False


def defender_loses(board: Board, plies: int, me: bool) -> bool:
    moves = list(board.raw_moves())
    if not moves:
        return True
    for raw in moves:
        board.push_raw(raw)
        outcome = board.outcome()
        lost = outcome.winner == me if outcome is not None else wins_within(board, plies - 1, me)
        board.pop_raw()
        if not lost:
            return False
    return True


# Positions found by a random search and checked with the prover above: the side to move
# captures the (second) King / last Fury at the earliest on ply 1, 3 or 5.
FORCED_WINS = [
    ("fugue", "5i2/8/8/8/8/w1UK2PI/4k3/2p5 w", 1),
    ("fugue", "4K3/1L6/8/w5S1/1Qk5/7q/8/s7 w", 1),
    ("fugue", "k7/1I6/8/8/8/8/p7/4K1Q1 w", 3),
    ("fugue", "k6p/1I6/3K4/8/8/8/8/8 w", 5),
    ("interweave", "8/5Kb1/P3K3/8/4P3/6k1/1n4Bp/5k2 w - 000000", 1),
    ("interweave", "2B1k1K1/1B6/p7/8/8/4k2K/N3r3/4b3 w - 000000", 3),
    ("interweave", "8/5k2/6K1/P6r/3P3b/4N1K1/6p1/2k5 w - 000000", 5),
    # Black's only Fury on l12 is petrified by the Gorgon on l1 and its knight squares are its own:
    # the Harpy must reach a12, behind the mount on b12, and fly to l12.
    ("rebelfury", "HD9f/9a2/10a1/12/12/12/12/12/12/12/12/F10G w", 1),
    ("rebelfury", "1D9f/9a2/H9a1/12/12/12/12/12/12/12/12/F10G w", 3),
    ("rebelfury", "1D9f/9a2/10a1/12/2H9/12/12/12/12/12/12/2F8G w", 5),
    ("rebelfury", "8f1H1/12/12/7M4/9gH1/6F5/12/12/12/12/12/F11 w", 3),
]


@pytest.mark.parametrize(("variant", "fen", "plies"), FORCED_WINS)
def test_finds_forced_win(variant: str, fen: str, plies: int) -> None:
    board = Board(variant, fen=fen)
    me = board.turn
    if not (variant == "rebelfury" and plies == 5):  # 8 s of proving: checked when the FEN was chosen
        assert wins_within(board, plies, me)
    if plies > 1:
        assert not wins_within(board, plies - 2, me)
    result = analyse(board, depth=plies)
    assert result.mate == plies
    board.push(result.best)
    outcome = board.outcome()
    if plies == 1:
        assert outcome is not None and outcome.winner == me
    else:
        assert outcome is None and defender_loses(board, plies - 1, me)


def test_sees_the_loss_coming() -> None:
    # Black to move in the mate-in-2 position after White's g1-g8: every move loses in 2 plies.
    board = Board("fugue", fen="k5Q1/1I6/8/8/8/8/p7/4K3 b")
    result = analyse(board, depth=3)
    assert result.mate == -2


# --- legality ----------------------------------------------------------------------------------


@pytest.mark.generic
@pytest.mark.parametrize("variant", VARIANTS)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 50), lv=st.integers(1, 8))
def test_never_returns_an_illegal_move(variant: str, seed: int, plies: int, lv: int) -> None:
    board = random_walk(variant, random.Random(seed), plies)
    fen = board.fen()
    if board.is_game_over():
        with pytest.raises(EngineError):
            best_move(board, lv, movetime_ms=50)
        return
    move = best_move(board, lv, movetime_ms=60, seed=seed, searcher=None)
    assert move in board.legal_moves
    assert board.fen() == fen


@pytest.mark.generic
@pytest.mark.parametrize("variant", VARIANTS)
def test_search_leaves_the_board_and_incremental_score_consistent(variant: str) -> None:
    board = random_walk(variant, random.Random(11), 16)
    searcher = Searcher()
    searcher.search(board, Limits(nodes=300 if variant == "rebelfury" else 1500))
    # The search's private copy is back at the root: its running score equals a fresh sum.
    assert searcher.score == searcher.ev.static(searcher.board)
    assert searcher.board.fen() == board.fen()


# --- budgets, stopping, determinism -------------------------------------------------------------


def test_stop_from_another_thread_returns_a_move() -> None:
    board = Board("fugue")
    searcher = Searcher()
    result: list[Analysis] = []
    worker = threading.Thread(target=lambda: result.append(searcher.search(board, Limits())))
    worker.start()
    time.sleep(0.3)
    searcher.stop()
    worker.join(timeout=10)
    assert not worker.is_alive()
    assert result and result[0].best in board.legal_moves


def test_stop_before_the_first_iteration_still_gives_a_move() -> None:
    board = Board("fugue")
    result = Searcher().search(board, Limits(nodes=1))
    assert result.best in board.legal_moves


@pytest.mark.generic
@pytest.mark.parametrize("variant", VARIANTS)
def test_node_budget_is_respected_and_deterministic(variant: str) -> None:
    board = Board(variant)
    budget = 300 if variant == "rebelfury" else 1200  # Rebel Fury nodes cost ~10x more
    a = Searcher().search(board, Limits(nodes=budget))
    b = Searcher().search(board, Limits(nodes=budget))
    assert a.best == b.best and a.nodes == b.nodes and a.pv == b.pv
    assert a.nodes <= budget


def test_movetime_budget_is_respected() -> None:
    # Generous bound (machines are shared): the search must not run away.
    board = Board("fugue")
    start = time.perf_counter()
    Searcher().search(board, Limits(movetime_ms=200))
    assert time.perf_counter() - start < 5


def test_clock_budget_spends_a_fraction_of_the_clock() -> None:
    soft, hard = Limits(wtime_ms=60_000, btime_ms=60_000, winc_ms=1000).time_budget(True)
    assert soft is not None and hard is not None
    assert 0 < soft <= hard < 60 * 0.8 + 1e-9


def test_a_fixed_move_time_is_spent_whole_but_a_clock_keeps_a_reserve() -> None:
    # A movetime alone: iterations keep starting until the deadline (the answer is due then
    # anyway); the cut iteration's move is kept only when it beat the last one's choice.
    assert Limits(movetime_ms=1000).time_budget(True) == (1.0, 1.0)
    # With a clock, the clock's soft limit still applies (no new iteration after 60% of its
    # share), and a level's own move time only shortens it.
    soft, hard = Limits(movetime_ms=3000, wtime_ms=60_000, btime_ms=60_000).time_budget(True)
    assert soft is not None and hard is not None
    assert soft == pytest.approx(0.6 * (60_000 - 20) / 30 / 1000) and hard == 3.0
    soft, hard = Limits(movetime_ms=500, wtime_ms=600_000, btime_ms=600_000).time_budget(False)
    assert (soft, hard) == (0.5, 0.5)


def test_late_move_reductions_grow_slowly_and_never_reach_the_horizon() -> None:
    from exochess.engine.search import LMR_REDUCTION

    assert all(r == 0 for row in LMR_REDUCTION[:3] for r in row)  # depth < 3: none
    assert all(row[n] == 0 for row in LMR_REDUCTION for n in range(3))  # first three moves: none
    assert LMR_REDUCTION[3][3] == 1 and LMR_REDUCTION[8][30] == 3
    for d, row in enumerate(LMR_REDUCTION):
        assert list(row) == sorted(row)  # later moves are reduced at least as much
        assert all(r < max(d, 1) for r in row)  # the search applies min(r, depth - 2) as well


def test_weak_levels_are_reproducible_with_a_seed() -> None:
    board = random_walk("fugue", random.Random(3), 12)
    moves = {str(best_move(board, 1, seed=7)) for _ in range(3)}
    assert len(moves) == 1


def test_noise_changes_the_choice_with_the_seed() -> None:
    board = Board("fugue")
    moves = {str(best_move(board, 1, seed=s)) for s in range(8)}
    assert len(moves) > 1


# --- the API contract ------------------------------------------------------------------------------


def test_best_move_does_not_modify_board() -> None:
    board = Board("fugue")
    fen = board.fen()
    move = best_move(board, level=3)
    assert isinstance(move, Move)
    assert board.fen() == fen
    assert move in board.legal_moves


def test_search_restores_the_garbage_collector_state() -> None:
    # The search switches the cyclic collector off while it runs (see Searcher.search).
    board = Board("fugue")
    assert gc.isenabled()
    Searcher().search(board, Limits(nodes=200))
    assert gc.isenabled()
    gc.disable()
    try:
        Searcher().search(board, Limits(nodes=200))
        assert not gc.isenabled()  # a caller's choice is left alone
    finally:
        gc.enable()
    # A search that raises (the game is over: no move to find) restores it too.
    with pytest.raises(EngineError):
        Searcher().search(Board("fugue", fen="8/8/8/8/8/8/8/K7 b"))
    assert gc.isenabled()


def test_analyse_contract() -> None:
    board = Board("fugue")
    seen: list[Analysis] = []
    a = analyse(board, depth=3, on_iteration=seen.append)
    assert [x.depth for x in seen] == [1, 2, 3]
    assert a.depth == 3
    assert a.best == a.pv[0]
    assert a.nodes > 0 and a.nps > 0
    assert a.mate is None
    assert isinstance(a.score_cp, int)
    # The PV is a legal line.
    copy = board.copy()
    for move in a.pv:
        copy.push(move)


def test_game_over_raises() -> None:
    board = Board("fugue", fen="3k4/8/8/8/8/8/8/3QK3 w")
    board.push_text("d1xd8")
    with pytest.raises(EngineError):
        best_move(board)
    assert isinstance(EngineError("x"), ExochessError)


def test_levels_table() -> None:
    assert sorted(LEVELS) == list(range(1, 9))
    depths = [LEVELS[n].depth for n in range(1, 9)]
    assert depths == sorted(depths)
    assert LEVELS[1].noise_cp >= LEVELS[2].noise_cp > LEVELS[3].noise_cp and LEVELS[8].noise_cp == 0
    assert LEVELS[1].lapses > LEVELS[2].lapses > LEVELS[3].lapses > 0 == LEVELS[4].lapses
    assert all(LEVELS[n].quiescence for n in LEVELS) and LEVELS[8].depth > 50
    for variant in all_variants():  # a game's own table has all eight levels, numbered right
        table = evaluator_class(variant).levels or LEVELS
        assert [table[n].number for n in range(1, 9)] == list(range(1, 9)), variant.name
    with pytest.raises(ValueError):
        level(9)
    with pytest.raises(ValueError):
        best_move(Board("fugue"), 0)


@pytest.mark.generic
@pytest.mark.parametrize("variant", VARIANTS)
def test_each_level_of_each_game_is_no_weaker_than_the_one_below(variant: str) -> None:
    # Every rung must add something a player can feel: a deeper search, quiescence, fewer
    # lapses, less root noise or more time, and must take none of them away.
    for n in range(2, 9):
        low, high = level(n - 1, variant), level(n, variant)
        assert high.number == n
        assert high.depth >= low.depth and high.quiescence >= low.quiescence
        # more lapses or noise only where something weighs more: a ply, or quiescence
        assert high.lapses <= low.lapses or high.depth > low.depth
        assert high.noise_cp <= low.noise_cp or high.depth > low.depth or high.quiescence > low.quiescence
        assert high.time_share >= low.time_share
        assert (high.depth, high.quiescence, -high.lapses, -high.noise_cp, high.time_share) != (
            low.depth,
            low.quiescence,
            -low.lapses,
            -low.noise_cp,
            low.time_share,
        )
    assert 0.0 < level(1, variant).lapses < 1.0  # level 1 sees the reply now and then, not always


def test_search_options_without_quiescence() -> None:
    board = Board("fugue")
    result = Searcher().search(board, Limits(depth=2), options=SearchOptions(quiescence=False, pruning=False))
    assert result.best in board.legal_moves


def test_a_lapse_looks_one_ply_deep_without_following_captures() -> None:
    # A weak level's lapse (SearchOptions.lapses): that move is searched at depth 1 without
    # quiescence, whatever the level's depth; the share of lapses follows the seed.
    board = random_walk("fugue", random.Random(5), 16)
    blind = Searcher().search(board, Limits(depth=1), options=SearchOptions(quiescence=False), seed=1)
    lapse = Searcher().search(board, Limits(depth=3), options=SearchOptions(lapses=1.0), seed=1)
    assert (lapse.depth, lapse.seldepth, lapse.best) == (1, 1, blind.best)
    awake = Searcher().search(board, Limits(depth=3), options=SearchOptions(lapses=0.0), seed=1)
    assert awake.depth == 3 and awake.seldepth > 3
    depths = [
        Searcher().search(board, Limits(depth=2), options=SearchOptions(lapses=0.5), seed=s).depth
        for s in range(24)
    ]
    assert set(depths) == {1, 2}  # some moves lapse, some do not
    assert parse_player("level=2,lapses=0.25").options("fugue").lapses == 0.25


def test_a_lapse_share_outside_0_to_1_is_refused_clearly() -> None:
    from exochess_lab.match import MatchConfigError

    with pytest.raises(MatchConfigError, match="lapses is a share from 0 to 1"):
        parse_player("level=2,lapses=1.5")
    with pytest.raises(MatchConfigError, match="lapses needs a number"):
        parse_player("level=2,lapses=often")


@pytest.mark.generic
@pytest.mark.parametrize("variant", VARIANTS)
def test_evaluation_is_symmetric_at_the_start(variant: str) -> None:
    board = Board(variant)
    ev = evaluator_for(board.variant)
    assert ev.static(board) == 0
    assert ev.dynamic(board) == 0


# --- matches --------------------------------------------------------------------------------------


def test_parse_player() -> None:
    assert parse_player("5").level == 5
    p = parse_player("level=8,depth=2,noise=10,Q=900,quiescence=0")
    assert (p.level, p.depth, p.noise, p.quiescence, dict(p.values)) == (8, 2, 10, False, {"Q": 900})
    with pytest.raises(ExochessError):
        parse_player("speed=3")
    with pytest.raises(ExochessError):
        parse_player("9")


def test_play_game_reaches_a_result() -> None:
    a = parse_player("level=3,nodes=300")
    b = parse_player("level=1,nodes=100")
    score, plies, reason, moves = play_game("fugue", a, b, ["e2-e3"], None, seed=1, max_plies=60)
    assert score in (0.0, 0.5, 1.0) and plies == len(moves) and moves[0] == "e2-e3"
    assert reason


def test_elo_interval() -> None:
    elo, lo, hi = elo_interval([1.0] * 75 + [0.0] * 25)
    assert 185 < elo < 195 and lo < elo < hi
    elo, lo, hi = elo_interval([1.0] * 10)
    assert elo == float("inf") and lo > 0
