"""Proofs of the practice positions (``practice`` in a game's lessons file, docs/lessons.md).

A practice position is played on the site against the engine at the position's level, so it is
checked by playing it out with the engine on both sides, without clocks so that a game replays
the same way (node budgets, seeded noise):

* a **win** position: the engine at a deep budget playing the learner's side (the *expert*)
  beats the engine at the position's level (the *opponent*) within the position's ``moves``,
  for each of the seeds;
* a **hold** position: the expert holding the learner's side survives ``moves`` of its own
  moves against the opponent (the game is not lost; these games have no draws), for each
  seed; and the position is not trivially safe: a careless holder, playing uniformly random
  legal moves (seeded), loses within the same number of moves in at least
  :data:`CARELESS_LOSSES` of :data:`CARELESS_SEEDS` games against the same opponent.

The seeds vary the opponent's noise and lapses (a level without either plays one game).  A node
budget makes the search deterministic whatever the machine's speed; the tests use
:data:`CI_BUDGET`, ``bench/practice_proof.py`` a deeper one.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from exochess.board import Board
from exochess.engine.levels import level as get_level
from exochess.engine.limits import Limits
from exochess.engine.search import Searcher, SearchOptions
from exochess.lessons import HOLD, Practice

SEEDS = (1, 2, 3)
"""Seeds of the opponent's noise (one game only when its level has none)."""
CARELESS_SEEDS = (1, 2, 3, 4, 5, 6)
CARELESS_LOSSES = 3
"""A hold position is not trivially safe when a random holder loses at least this many of the
:data:`CARELESS_SEEDS` games."""


@dataclass(frozen=True)
class Budget:
    """Nodes per move: the expert's, and the opponent's cap (its level's depth usually stops it
    first; level 8 searches until the cap)."""

    expert_nodes: int
    opponent_nodes: int


CI_BUDGET = Budget(expert_nodes=2_500, opponent_nodes=1_500)
"""The budget of the test suite (a few seconds a game in the compiled build)."""
DEEP_BUDGET = Budget(expert_nodes=25_000, opponent_nodes=15_000)
"""The budget of ``bench/practice_proof.py``."""


@dataclass(frozen=True)
class Playout:
    """One game from a practice position."""

    seed: int
    line: list[str]
    winner: bool | None
    """The winning side (True = White), or None when the game was still going."""
    learner_moves: int
    """Moves the learner's side played."""


def _engine_move(board: Board, searcher: Searcher, options: SearchOptions, nodes: int, seed: int) -> str:
    analysis = searcher.search(board, Limits(nodes=nodes), options=options, seed=seed)
    return str(analysis.best)


def play_out(
    game: str,
    position: Practice,
    budget: Budget,
    seed: int,
    *,
    careless: bool = False,
) -> Playout:
    """Play the position: the learner's side by the expert (or, ``careless``, by random legal
    moves drawn with ``seed``), the other by the engine at the position's level, until the game
    ends or the learner's side has played ``position.moves`` moves and the opponent answered."""
    board = Board(game, fen=position.fen)
    learner = board.turn
    expert, opponent = Searcher(), Searcher()
    expert_options = SearchOptions()
    opponent_options = get_level(position.level, game).options()
    rng = random.Random(seed)
    line: list[str] = []
    played = 0
    while not board.is_game_over():
        if board.turn == learner:
            if played >= position.moves:
                break
            if careless:
                text = str(rng.choice(sorted(board.legal_moves, key=str)))
            else:
                text = _engine_move(board, expert, expert_options, budget.expert_nodes, 0)
            played += 1
        else:
            text = _engine_move(board, opponent, opponent_options, budget.opponent_nodes, seed)
        board.push_text(text)
        line.append(text)
    outcome = board.outcome()
    return Playout(seed, line, None if outcome is None else outcome.winner, played)


def seeds_for(game: str, position: Practice) -> tuple[int, ...]:
    """The opponent seeds worth playing: one when its level plays without noise or lapses (both
    are drawn with the seed)."""
    opponent = get_level(position.level, game)
    return SEEDS if opponent.noise_cp or opponent.lapses else SEEDS[:1]


@dataclass(frozen=True)
class Proof:
    """The verdict on one practice position, with the games that decided it."""

    ok: bool
    reason: str
    games: list[Playout]


def prove(game: str, position: Practice, budget: Budget = CI_BUDGET, *, quick: bool = False) -> Proof:
    """Check ``position`` as the module docstring says; ``reason`` names the failure.

    ``quick`` plays the expert's game against the first seed only (the other seeds' games are
    the same kind of evidence, and each costs a full game of the expert's searches): the tests
    use it in the pure-Python build, which searches tens of times slower than the compiled one.
    The careless games, whose holder does not search, are all played."""
    learner = Board(game, fen=position.fen).turn
    seeds = seeds_for(game, position)
    games = [play_out(game, position, budget, seed) for seed in (seeds[:1] if quick else seeds)]
    for g in games:
        if position.goal == HOLD:
            if g.winner is not None and g.winner != learner:
                return Proof(False, f"seed {g.seed}: the expert holder lost: {' '.join(g.line)}", games)
        elif g.winner != learner:
            return Proof(
                False, f"seed {g.seed}: the expert did not win in {position.moves}: {' '.join(g.line)}", games
            )
    if position.goal == HOLD:
        careless = [play_out(game, position, budget, seed, careless=True) for seed in CARELESS_SEEDS]
        lost = sum(1 for g in careless if g.winner is not None and g.winner != learner)
        games += careless
        if lost < CARELESS_LOSSES:
            return Proof(False, f"trivially safe: a random holder lost only {lost} of {len(careless)}", games)
    return Proof(True, "", games)
