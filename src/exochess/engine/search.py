"""Alpha-beta search on raw moves, the same for every game.

Negamax with iterative deepening, principal variation search, a transposition
table keyed by the board's Zobrist hash, move ordering (TT move, captures by
victim value, killers, history), late move reductions, futility pruning near the
leaves and a quiescence search over capturing moves.  Where captures are compulsory
(Interweave) quiescence has no stand pat while a capture is due (it won its matches and is
on).  Aspiration windows, null-move pruning, razoring, late move pruning, quiet moves ordered
by piece-square gain, a royal-threat extension and a forced-reply extension are written
behind :class:`SearchOptions` switches, off by default
(the last won its A/B matches but upset the level ladder; docs/engine.md, "Search features").

Moves are generated in stages, lazily: the table move is played before anything
is generated, then the captures come from the game's capture generator
(``board.raw_captures()``, cached by hash), and the quiet moves are generated
only when the node gets that far.  The quiescence search never generates quiet
moves at all.

The search plays raw moves on a private copy of the board with
``push_raw``/``pop_raw`` and keeps the piece-square part of the evaluation up to
date from each move's ``(square, before, after)`` triples.  Game ends are found
without building :class:`~exochess.move.Move` objects or generating the child's
moves: ``push_raw`` judges the two that a move can cause, and the search reads
its verdict (``board.decided``) right after playing it:

* a move that removes enemy royals and leaves fewer than ``royal_minimum`` wins;
* in games with the three-fold-loss rule a move that makes a position occur a
  third time loses;
* a side with no legal move loses (no stage yields a move; games that forbid
  repetition have already filtered such moves out).

Scores are centipawns from the side to move's point of view; a won game scores
``MATE - plies``, a lost one ``-(MATE - plies)``.

The search never stalls.  Every node (quiescence included) counts towards the
budget, and the clock and the stop flag are read every :data:`CHECK_EVERY` nodes.
The quiescence search is bounded three ways, with each game's own numbers (its
evaluator's ``delta_margin``, ``quiescence_full`` and ``quiescence_max``): delta
pruning, recaptures only after ``quiescence_full`` capture plies, and the stand pat
alone after ``quiescence_max``.  Without them a Rebel Fury position a move from
the start kept the first iteration busy for minutes: Harpies and Furies capture
across the whole board, so each side always had another capture and lines of 40
captures were searched.  The first iteration is never interrupted, so every answer
comes from a completed search, and its quiescence is capped harder still
(:data:`FIRST_QUIESCENCE`) so that it ends within milliseconds.
"""

from __future__ import annotations

import gc
import math
import random
import time
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Final

from exochess.board import Board
from exochess.compiled import COMPILED
from exochess.engine.evaluate import Evaluator, evaluator_for
from exochess.engine.limits import Limits
from exochess.engine.tt import (
    DEFAULT_HASH_MB,
    EXACT,
    LOWER,
    TT_SHARE,
    UPPER,
    TranspositionTable,
    from_tt,
    hash_capacity,
    reclaim,
    to_tt,
)
from exochess.errors import ExochessError, IllegalMoveError
from exochess.move import Move
from exochess.outcome import Termination
from exochess.rawmove import CHANGES, FROM, KIND, MORE, PROMOTION, TO, VICTIMS, RawAction, RawMove, to_move
from exochess.variant import FORBIDDEN, THREEFOLD_LOSS

MATE: Final = 100_000
"""Score of a won game at the root (minus the plies it takes)."""
MAX_PLY: Final = 96
MAX_MULTIPV: Final = 64
"""Most lines a multi-PV search gives (more than any interface shows; each costs a root pass)."""
MATE_BOUND: Final = MATE - 1_000
"""Scores beyond this are wins or losses."""
INF: Final = MATE + 1
CHECK_EVERY: Final = 32
"""Nodes between two looks at the clock and the stop flag, and two pauses for the other threads.

The compiled search never passes through the interpreter's loop, which is where a thread
hands the GIL over to another that waits: without a pause the thread reading the engine's
commands got it a few times a second (``stop`` answered after 300-470 ms, ``isready`` after
up to a second).  ``time.sleep(0)`` releases the GIL; a thread that has waited for it longer
than the switch interval (:data:`SWITCH_INTERVAL_S` in the protocol) then takes it."""
FUTILITY_MARGIN: Final = (0, 200, 400)
"""Quiet moves are skipped at depth d when the static score + margin[d] cannot reach alpha."""
EVAL_ENTRY_BYTES: Final = 100
"""Memory of an entry of the evaluation cache (a 64-bit key, a score, a dict slot): 94-102 bytes
measured in the three games."""
CAPTURE_ENTRY_BYTES: Final = 1600
"""Memory of an entry of the capture cache (a list of (gain, move) pairs and the moves): 350 bytes
on average in Interweave, 610 in Fugue, 1,570 in Rebel Fury (its Harpies and Furies capture
across the board); the largest is taken so that every game keeps to the budget."""
EVAL_SHARE: Final = 0.1
"""Share of ``Hash`` for the evaluation cache (the table has :data:`~exochess.engine.tt.TT_SHARE`)."""
CAPTURE_SHARE: Final = 1.0 - TT_SHARE - EVAL_SHARE
"""Share of ``Hash`` for the capture cache.

Capture lists are kept by position hash (the cache is started again when full).
Capture sequences transpose (a takes b then c takes d, or the other way round) and each
iteration revisits the last one's leaves, so a third of the quiescence positions were
generated before.  A capture list does not depend on the history (no capture can repeat
a position), so the hash is a sufficient key."""
FIRST_QUIESCENCE: Final = (1, 3)
"""Quiescence caps of the first iteration: (plies of all captures, plies in all).

The first iteration is never interrupted (it gives the move when the budget is tiny),
so it must end quickly in every position: one ply of any capture, then recaptures on
that square only.  The deeper iterations use the game's own caps
(:attr:`~exochess.engine.evaluate.Evaluator.quiescence_full`, ``quiescence_max``)."""

ASPIRATION_DEPTH: Final = 4
"""First iteration searched in a window around the previous one's score (with ``aspiration``)."""
ASPIRATION_WINDOW: Final = 50
"""Half-width of that window (cp); a score outside it is searched again with the window open."""
NULL_REDUCTION: Final = 2
"""Plies the null-move search saves (one more from depth 6 on)."""
RAZOR_MARGIN: Final = (0, 250, 400, 600)
"""With ``razoring``, a node at depth d whose static score + margin[d] cannot reach alpha is
judged by quiescence, and cut if that agrees."""
ZUGZWANG_VALUE: Final = 200
"""Pieces worth less than this (pawns) do not count against zugzwang."""
NULL_MIN_PIECES: Final = 2
"""A side with fewer pieces worth ZUGZWANG_VALUE (royals aside) never tries a null move.

One was not enough: a Rebel Fury side with a Fury and a petrified Gorgon must move its Fury
into a capture (tests/engine/test_engine.py, FORCED_WINS), and passing would have saved it."""

LMP_GUARD_VALUE: Final = 200
"""With ``lmp_guard``, a piece of at least this value (a pawn is worth 100-120) under attack stops
late move pruning at the node.  In positions of Fugue games, 80% have some capture for the
side not to move, but only 40% one of a piece worth this (the rest take pawns): guarding
against any capture would switch the pruning off almost everywhere, in Rebel Fury everywhere."""
LMP_GUARD_GAIN: Final = LMP_GUARD_VALUE * 16
"""The capture gain (:meth:`Searcher._capture_gain`'s scale: victim value times 16, less the
attacker's value / 16) from which a capture counts as an attack on such a piece."""
LMP_COUNT: Final = (0, 6, 10, 16)
"""With ``late_move_pruning``, at depth d (up to 3) outside the principal variation, quiet moves
after the first LMP_COUNT[d] searched are skipped once a move has scored above a loss."""
LMR_TABLE_SIZE: Final = 64
LMR_REDUCTION: Final = tuple(
    tuple(
        0 if d < 3 or n < 3 else int(0.75 + math.log(d) * math.log(n) / 2.25) for n in range(LMR_TABLE_SIZE)
    )
    for d in range(LMR_TABLE_SIZE)
)
"""Plies a late quiet move is reduced by, ``[depth][moves searched before it]`` (both capped at 63).

Grows with the logarithm of both, the rule of most alpha-beta engines: at depth 3 the fourth
move loses a ply, at depth 8 the thirtieth loses three.  The first rule here (one ply, two for
very late moves from depth 5) reduced too little for the branching factors of these games
(40-150 moves), so iterations ended a ply short of what the move time allows."""

ROYAL_GAIN: Final = 16 * 10_000
"""Ordering gains from here up take a royal piece (their order value is 20,000, times 16)."""

_NORMAL: Final = 0
_WIN: Final = 1
_LOSS: Final = 2
_ROYAL_CAPTURE: Final = Termination.ROYAL_CAPTURE


class SearchStopped(Exception):
    """Raised inside the search when the budget runs out or :meth:`Searcher.stop` is called."""


class EngineError(ExochessError):
    """The engine was asked for a move where there is none (the game is over)."""


@dataclass(slots=True)
class Analysis:
    """Result of a search (or of one completed iteration of it)."""

    depth: int
    """Last completed iteration (nominal depth in plies)."""
    score_cp: int
    """Score in centipawns from the side to move's point of view (``+-MATE`` range for mates)."""
    mate: int | None
    """Plies to the end of the game if the score is a forced win (positive) or loss (negative)."""
    nodes: int
    """Positions visited (moves played by the search)."""
    nps: int
    """Nodes per second."""
    pv: list[Move]
    """Principal variation, best move first."""
    best: Move
    """The move to play."""
    time_ms: int = 0
    """Time spent so far."""
    seldepth: int = 0
    """Deepest ply reached (quiescence included)."""
    raw_pv: list[RawMove] = field(default_factory=list, repr=False)
    multipv: int = 1
    """Rank of this line among the lines of a multi-PV search (1 = best)."""
    lines: list[Analysis] = field(default_factory=list, repr=False)
    """With ``multipv`` > 1: every line of the iteration, best first (the first is this one's
    line, as a separate object); empty in a single-line search.  :meth:`all_lines` covers both."""

    def all_lines(self) -> list[Analysis]:
        """The lines of the search, best first: :attr:`lines`, or this analysis alone."""
        return self.lines if self.lines else [self]


@dataclass(frozen=True, slots=True)
class SearchOptions:
    """How a search plays: the knobs the levels turn."""

    max_depth: int = 99
    noise_cp: int = 0
    """Each root move gets a fixed random bonus in [-noise, +noise] (seeded); 0 = none."""
    quiescence: bool = True
    lapses: float = 0.0
    """Share of searches (seeded) played as a lapse: depth 1 without quiescence, the reply unseen.

    A weak level's way of blundering now and then like a beginner, between a player who never
    looks at the reply and one who always does (noise cannot make that step: see
    ``engine/levels.py``)."""
    pruning: bool = True
    """Futility pruning and late move reductions (and the switches below marked "pruning")."""
    aspiration: bool = False
    """Search each iteration from depth :data:`ASPIRATION_DEPTH` in a window around the last score."""
    null_move: bool = False
    """Null-move pruning (with ``pruning``), in the games that allow it (see :meth:`Searcher._setup`)."""
    razoring: bool = False
    """Razoring near the leaves (with ``pruning``): a node far below alpha is judged by quiescence."""
    lmr: bool = True
    """Late move reductions (with ``pruning``)."""
    royal_extension: bool = False
    """Extend by a ply a move that threatens to capture a royal piece (games that allow null moves)."""
    forced_extension: bool = False
    """Where capturing is compulsory, a node whose only legal move is one capture searches it a ply deeper.

    A forced reply costs the side no choice, so the ply it takes is not charged (up to twice
    the nominal depth), like a check extension in chess."""
    forced_quiescence: bool = True
    """Where capturing is compulsory (Interweave), quiescence has no stand pat while a capture exists.

    The side to move must take, so the static score of the position is not a score it can
    choose; off, quiescence treats a forced capture as optional (the first rule)."""
    late_move_pruning: bool = False
    """Near the leaves (with ``pruning``), quiet moves after the first :data:`LMP_COUNT` are not searched."""
    lmp_guard: bool = False
    """With ``late_move_pruning``, no move is pruned at a node where the side to move has a piece attacked.

    Attacked means the opponent would have a capture of a piece worth :data:`LMP_GUARD_VALUE`
    if the side passed (the capture list of the position after a null move, cached by hash),
    so it exists only in the games that allow null moves (Fugue, Rebel Fury).  It is tested
    once per node, when the first move would be pruned: an attacked piece's escape is often a
    quiet move late in the order."""
    quiet_order_pst: bool = False
    """Quiet moves without history are ordered by their piece-square gain (else generation order)."""


class Searcher:
    """A search engine for one game, with its own transposition table and history.

    The table and the history survive from one search to the next (a game);
    :meth:`new_game` clears them.  A search can be stopped from another thread
    with :meth:`stop`; it then returns the best move found so far.
    """

    # Slots: the search reads its attributes at every node, and a plain instance with this
    # many attributes outgrows CPython's shared-key dicts (about 30 keys), after which
    # every attribute access is a dict lookup instead of an indexed load.
    __slots__ = (
        "_capture_cache",
        "_capture_cap",
        "_deadline",
        "_eval_cache",
        "_eval_cap",
        "_evaluator",
        "_ext_limit",
        "_last_null",
        "_next_check",
        "_node_limit",
        "_partial",
        "_protected",
        "_pv",
        "_q_full",
        "_q_max",
        "_retired",
        "_root_pv",
        "_score_stack",
        "_seldepth",
        "_start",
        "_stop",
        "big_pieces",
        "board",
        "by_code",
        "compulsory",
        "delta_margin",
        "ev",
        "extend",
        "forbid_repetition",
        "forced_ext",
        "forced_q",
        "history",
        "killers",
        "lazy_margin",
        "lmp",
        "lmp_guard",
        "lmr",
        "nodes",
        "null_ok",
        "options",
        "order_value",
        "promo_value",
        "pruning",
        "quiescence",
        "quiet_pst",
        "razor",
        "royal",
        "royal_min",
        "score",
        "tempo",
        "threefold",
        "tt",
        "value_of",
    )
    _q_full: int
    """Quiescence plies that try every capture (then recaptures only)."""
    _q_max: int
    """Quiescence plies in all (then the stand pat)."""
    _protected: bool
    """The first iteration, which always completes (it looks past the node budget)."""
    _ext_limit: int
    """Ply below which extensions apply (twice the iteration's nominal depth)."""

    def __init__(
        self,
        evaluator: Evaluator | None = None,
        tt: TranspositionTable | None = None,
        *,
        hash_mb: int = DEFAULT_HASH_MB,
    ) -> None:
        """A searcher whose tables and caches hold at most ``hash_mb`` MiB (UCI's ``Hash``).

        A given ``tt`` keeps its own capacity; the caches still follow ``hash_mb``.
        """
        self._evaluator = evaluator
        self.tt = tt if tt is not None else TranspositionTable(hash_capacity(hash_mb))
        self._eval_cap = hash_capacity(hash_mb, EVAL_SHARE, EVAL_ENTRY_BYTES)
        self._capture_cap = hash_capacity(hash_mb, CAPTURE_SHARE, CAPTURE_ENTRY_BYTES)
        self.history: dict[int, int] = {}
        self._eval_cache: dict[int, int] = {}
        self._capture_cache: dict[int, list[tuple[int, RawMove]]] = {}
        # Full caches are dropped here, not freed, while a search runs: freeing one takes
        # tens of milliseconds (50,000 capture lists of move tuples, 200,000 evaluations),
        # which overran "go movetime" answers by up to 140 ms.  release() frees them.
        self._retired: list[object] = []
        self._stop = False
        self.nodes = 0

    def set_hash(self, hash_mb: int) -> None:
        """Bound the tables and caches to ``hash_mb`` MiB from now on (they start empty)."""
        self.tt.clear()
        self.tt = TranspositionTable(hash_capacity(hash_mb))
        self._eval_cap = hash_capacity(hash_mb, EVAL_SHARE, EVAL_ENTRY_BYTES)
        self._capture_cap = hash_capacity(hash_mb, CAPTURE_SHARE, CAPTURE_ENTRY_BYTES)
        self.new_game()

    def new_game(self) -> None:
        """Forget the table and the history (freed in the background: :func:`~exochess.engine.tt.reclaim`)."""
        self.tt.clear()
        reclaim([self.history, self._eval_cache, self._capture_cache])
        self.history = {}
        self._eval_cache = {}
        self._capture_cache = {}
        self.release()

    def table_sizes(self) -> dict[str, tuple[int, int]]:
        """Per table (``tt``, ``eval``, ``captures``): the entries held now and the most it may hold.

        The bounds follow from ``Hash``; the generations and caches dropped by a search and
        waiting for :meth:`release` count towards them too.
        """
        tt = self.tt
        return {
            "tt": (len(tt) + sum(len(d) for d in tt.retired), tt.max_entries),
            "eval": (len(self._eval_cache), self._eval_cap),
            "captures": (len(self._capture_cache), self._capture_cap),
        }

    def release(self) -> None:
        """Free the tables and caches that filled up during the searches so far.

        A search drops a full cache without freeing it (freeing takes tens of milliseconds);
        call this once the answer is out.  :meth:`search` also calls it before it starts.
        """
        if self._retired:
            reclaim(self._retired)
            self._retired = []
        self.tt.release()

    def _retire(self, cache: object) -> None:
        """Keep a full cache until :meth:`release`; at most two wait (bounded memory)."""
        retired = self._retired
        if len(retired) >= 2:
            reclaim([retired.pop(0)])  # a long search: free the oldest now, in the background
        retired.append(cache)

    def stop(self) -> None:
        """Ask a running search (in another thread) to finish now."""
        self._stop = True

    # --- the root ------------------------------------------------------------------------

    def search(
        self,
        board: Board,
        limits: Limits | None = None,
        *,
        options: SearchOptions | None = None,
        seed: int = 0,
        on_iteration: Callable[[Analysis], None] | None = None,
        multipv: int = 1,
        searchmoves: Collection[Move] | None = None,
    ) -> Analysis:
        """Search a copy of ``board`` within ``limits`` and return the result.

        ``multipv`` (1 to :data:`MAX_MULTIPV`) asks for that many best root moves, each with its
        own score and principal variation (:attr:`Analysis.lines`; fewer when the position has
        fewer moves).  Every iteration searches the root once per line, each pass among the
        moves no earlier pass picked, so N lines cost up to N root searches; the result is the
        first line.  ``searchmoves`` restricts the root to these moves (all legal here).

        Raises :class:`EngineError` if the game is over (there is no move to find),
        :class:`~exochess.errors.IllegalMoveError` if a move of ``searchmoves`` is not legal
        here (or none is given) and :class:`ValueError` if ``multipv`` is out of range.
        """
        if not 1 <= multipv <= MAX_MULTIPV:
            raise ValueError(f"multipv must be 1 to {MAX_MULTIPV}, not {multipv}")
        # The cyclic garbage collector is off while the search runs: every node allocates
        # tuples and lists (moves, table entries, capture lists), so its passes over the
        # young objects cost about 2% of the search, and they find nothing (the search makes
        # no reference cycles; reference counting frees its garbage).  It is switched on
        # again afterwards unless it was off already.
        self.release()  # before the budget's clock starts (normally already done by the caller)
        collecting = gc.isenabled()
        gc.disable()
        try:
            return self._search(board, limits, options, seed, on_iteration, multipv, searchmoves)
        finally:
            if collecting:
                gc.enable()

    def _search(
        self,
        board: Board,
        limits: Limits | None,
        options: SearchOptions | None,
        seed: int,
        on_iteration: Callable[[Analysis], None] | None,
        multipv: int,
        searchmoves: Collection[Move] | None,
    ) -> Analysis:
        # The budget counts from the call: the set-up (root moves, their static scores) too.
        start = time.perf_counter()
        limits = limits or Limits()
        options = options or SearchOptions()
        self._stop = False
        b = board.copy()
        opened = tuple(b.open_actions())
        b.cancel_turn()
        root_moves = list(b.raw_moves())
        if opened:
            # An interface played part of an Interweave chain: finish that turn.
            n = len(opened)
            root_moves = [m for m in root_moves if to_move(m).actions[:n] == opened]
        if not root_moves:
            raise EngineError("the game is over: there is no move to search")
        if searchmoves is not None:
            root_moves = _restricted(root_moves, searchmoves)
        lines_wanted = min(multipv, len(root_moves))
        self._setup(b, options, limits)
        self._start = start
        soft, hard = limits.time_budget(b.turn)
        self._deadline = start + hard if hard is not None else None
        self._node_limit = limits.nodes
        self._next_check = min(CHECK_EVERY, limits.nodes) if limits.nodes is not None else CHECK_EVERY
        max_depth = min(options.max_depth, limits.depth if limits.depth is not None else 99, MAX_PLY - 4)
        max_depth = max(1, max_depth)
        rng = random.Random(seed)
        noise = options.noise_cp
        bonus = [rng.randint(-noise, noise) if noise else 0 for _ in root_moves]
        if options.lapses > 0.0 and rng.random() < options.lapses:
            # A lapse: this move looks one ply deep and does not follow captures.
            max_depth = 1
            self.quiescence = False
        scores = self._static_scores(root_moves)
        order = sorted(range(len(root_moves)), key=lambda i: scores[i] + bonus[i], reverse=True)
        result: Analysis | None = None
        lines: list[tuple[int, int, list[RawMove]]] = []
        # The first iteration always completes (so there is a searched move to play however
        # small the budget): its quiescence is capped hard to keep it short in every position.
        # A search that stops at depth 1 (the weak levels) then runs depth 1 again with the
        # game's own caps, which the budget may interrupt; the later iterations use those too.
        game_caps = self._q_full, self._q_max
        first_caps = min(game_caps[0], FIRST_QUIESCENCE[0]), min(game_caps[1], FIRST_QUIESCENCE[1])
        plan = [(1, first_caps, True)]
        if max_depth == 1 and self.quiescence and first_caps != game_caps:
            plan.append((1, game_caps, False))
        plan += [(depth, game_caps, False) for depth in range(2, max_depth + 1)]
        for depth, caps, protected in plan:
            self._q_full, self._q_max = caps
            self._protected = protected
            if not protected and self._node_limit is not None:
                # The protected iteration looked past the node budget: stop at it exactly now.
                self._next_check = min(self._next_check, self._node_limit)
            self._ext_limit = 2 * depth  # royal threat extensions stop at twice the nominal depth
            try:
                if lines_wanted > 1:
                    lines = self._multi_root(
                        depth, root_moves, order, scores, bonus, noise, result, lines_wanted
                    )
                    best_i, best_score = lines[0][0], lines[0][1]
                else:
                    windowed = self.options.aspiration and depth >= ASPIRATION_DEPTH and noise == 0
                    if windowed and result is not None and abs(result.score_cp) < MATE_BOUND:
                        best_i, best_score = self._aspiration(depth, root_moves, order, scores, result)
                    else:
                        best_i, best_score = self._root(depth, root_moves, order, scores, bonus, noise > 0)
            except SearchStopped:
                while self._score_stack:  # unwind the moves the interrupted search had made
                    self._unplay()
                if self._partial is not None and result is not None:
                    i, s = self._partial
                    if root_moves[i] != result.raw_pv[0] and s > -INF:
                        # A move beat the previous best at the unfinished depth: trust it.
                        result = self._analysis(result.depth, s, root_moves[i], [root_moves[i]])
                break
            if lines_wanted > 1:
                result = self._analysis(depth, best_score, root_moves[best_i], lines[0][2])
                # A copy of the first line, not the result itself: no reference cycle (the
                # protocol freezes what survives a search out of the collector's sight).
                result.lines = [
                    self._analysis(depth, s, root_moves[i], line_pv, rank + 1)
                    for rank, (i, s, line_pv) in enumerate(lines)
                ]
            else:
                pv = (
                    self._root_pv
                    if self._root_pv and self._root_pv[0] is root_moves[best_i]
                    else [root_moves[best_i]]
                )
                result = self._analysis(depth, best_score, root_moves[best_i], pv)
            if on_iteration is not None:
                on_iteration(result)
            if abs(best_score) >= MATE_BOUND and MATE - abs(best_score) <= depth:
                break  # a forced end was found and proven within the horizon
            if len(root_moves) == 1 and (soft is not None or limits.depth is None):
                break
            if soft is not None and time.perf_counter() - start >= soft:
                break
            if self._stop or (self._node_limit is not None and self.nodes >= self._node_limit):
                break  # (the first iteration may end past the node budget: it always completes)
        if result is None:
            # Stopped before depth 1 finished: the best move searched so far, else the static best.
            i, score = self._partial if self._partial is not None else (order[0], scores[order[0]])
            result = self._analysis(0, score, root_moves[i], [root_moves[i]])
        # The totals of the whole search (an unfinished last iteration included).
        elapsed = max(1e-6, time.perf_counter() - start)
        result.nodes = self.nodes
        result.nps = int(self.nodes / elapsed)
        result.time_ms = int(elapsed * 1000)
        result.seldepth = self._seldepth
        return result

    def _static_scores(self, moves: list[RawMove]) -> list[int]:
        """One cheap pass over the root moves: the static score after each (no move generation).

        It orders the first iteration and answers if the budget ends before that iteration
        does (Rebel Fury at a tenth of a second).
        """
        scores = []
        next_check = self._next_check
        nodes = self.nodes
        self._next_check = 1 << 62  # this pass is short: no budget checks inside it, not counted
        for m in moves:
            state = self._play(m, 0)
            if state == _WIN:
                scores.append(MATE - 1)
            elif state == _LOSS:
                scores.append(-(MATE - 1))
            else:
                scores.append(-self._static(-INF, INF))
            self._unplay()
        self.nodes = nodes
        self._next_check = next_check
        return scores

    def _analysis(
        self, depth: int, score: int, best: RawMove, raw_pv: list[RawMove], rank: int = 1
    ) -> Analysis:
        elapsed = max(1e-6, time.perf_counter() - self._start)
        mate = None
        if score >= MATE_BOUND:
            mate = MATE - score
        elif score <= -MATE_BOUND:
            mate = -(MATE + score)
        return Analysis(
            depth=depth,
            score_cp=score,
            mate=mate,
            nodes=self.nodes,
            nps=int(self.nodes / elapsed),
            pv=[to_move(m) for m in raw_pv],
            best=to_move(best),
            time_ms=int(elapsed * 1000),
            seldepth=self._seldepth,
            raw_pv=list(raw_pv),
            multipv=rank,
        )

    def _setup(self, board: Board, options: SearchOptions, limits: Limits) -> None:
        variant = board.variant
        ev = self._evaluator or evaluator_for(variant)
        self.board = board
        self.ev = ev
        # The piece-square table ``table[(sq << 5) | (code & 31)]`` re-indexed as
        # ``by_code[code][sq]`` (a negative code indexes from the end, where ``code & 31``
        # puts it, as in zobrist.KEYS_BY_CODE): _play looks values up without arithmetic.
        self.by_code = tuple(ev.table[c::32] for c in range(32))
        self.value_of = ev.value_of
        self.lazy_margin = ev.lazy_margin
        self.tempo = ev.tempo
        self.score = ev.static(board)
        royal = variant.royal_code
        self.royal = royal
        self.royal_min = variant.royal_minimum
        self.threefold = variant.repetition == THREEFOLD_LOSS
        self.forbid_repetition = variant.repetition == FORBIDDEN
        self.compulsory = variant.captures_compulsory
        self.forced_q = variant.captures_compulsory and options.forced_quiescence
        self.forced_ext = variant.captures_compulsory and options.forced_extension
        # Indexed by ``code & 31`` like value_of, in exactly 32 entries so that the signed code
        # itself indexes it too (a negative code counts from the end, where ``code & 31`` is).
        self.order_value = [ev.value_of[c] for c in range(32)]
        if royal:
            self.order_value[royal & 31] = self.order_value[-royal & 31] = 20_000
        self.promo_value = {
            letter: ev.value_of[code & 31] for code, letter in variant.letters.items() if code > 0
        }
        self.options = options
        self.quiescence = options.quiescence
        self.delta_margin = ev.delta_margin
        self._q_full = ev.quiescence_full
        self._q_max = ev.quiescence_max
        self._protected = False
        self.pruning = options.pruning
        # A null move hands the turn over without moving.  Where captures are compulsory
        # (Interweave) passing is far from the worst option (a side is often forced into a
        # losing capture: zugzwang is the normal case there), and a game with extra state
        # (Interweave's en passant rights) would need it reset; so null moves and the royal
        # threat test that plays one are used only in games with neither.
        null_allowed = board.extra is None and not variant.captures_compulsory
        self.null_ok = options.pruning and options.null_move and null_allowed
        self.extend = options.royal_extension and null_allowed and royal != 0
        self.razor = options.pruning and options.razoring
        self.lmr = options.pruning and options.lmr
        self.lmp = options.pruning and options.late_move_pruning
        self.lmp_guard = self.lmp and options.lmp_guard and null_allowed
        self.quiet_pst = options.quiet_order_pst
        self._last_null = False
        self._ext_limit = 0
        # The codes (as piece_squares indices) of each side's pieces that are neither royal
        # nor pawn-like: a side with none of them may be in zugzwang, so it never passes.
        # Indexed by the side's sign (+1 White, -1 Black, which is the last entry).
        white_big = tuple(
            code
            for code in variant.letters
            if code > 0 and code != royal and ev.value_of[code & 31] >= ZUGZWANG_VALUE
        )
        self.big_pieces = [(), white_big, tuple(-code & 31 for code in white_big)]
        self.nodes = 0
        self._seldepth: int = 0
        self._pv: list[list[RawMove]] = [[] for _ in range(MAX_PLY + 2)]
        self.killers: list[list[RawMove | None]] = [[None, None] for _ in range(MAX_PLY + 2)]
        self._partial: tuple[int, int] | None = None
        self._root_pv: list[RawMove] = []
        self._score_stack: list[int] = []

    def _aspiration(
        self, depth: int, moves: list[RawMove], order: list[int], scores: list[int], last: Analysis
    ) -> tuple[int, int]:
        """The root search in a window around the last iteration's score, widened on a miss.

        A score outside the window is only a bound, so that side of the window is opened and
        the depth searched again.  A move that failed high is already known to beat the last
        iteration's choice: if the budget ends during the search again, the stopped search
        takes it (as ``_partial``).
        """
        bonus = [0] * len(moves)
        alpha = max(-INF, last.score_cp - ASPIRATION_WINDOW)
        beta = min(INF, last.score_cp + ASPIRATION_WINDOW)
        fail_high: tuple[int, int] | None = None
        try:
            while True:
                best_i, best_score = self._root(depth, moves, order, scores, bonus, False, alpha, beta)
                if best_score <= alpha:
                    alpha = -INF
                elif best_score >= beta:
                    fail_high = best_i, best_score
                    beta = INF
                else:
                    return best_i, best_score
        except SearchStopped:
            if self._partial is None and fail_high is not None:
                self._partial = fail_high
            raise

    def _multi_root(
        self,
        depth: int,
        moves: list[RawMove],
        order: list[int],
        scores: list[int],
        bonus: list[int],
        noise: int,
        last: Analysis | None,
        count: int,
    ) -> list[tuple[int, int, list[RawMove]]]:
        """The ``count`` best root moves at ``depth``: (index, score, principal variation), best first.

        One root pass per line, each over the moves that no earlier pass picked (the first pass
        is the single-line search, aspiration included), so each line's score is exact for its
        move.  The lines are then sorted by score (with a level's noise bonus, as the root
        chooses): a later pass may score its move above an earlier one (the table has grown
        since), and the lines must read best first.  ``order`` becomes the lines' moves, then
        the rest as the last pass ranked them.  Stopped after the first pass, the first line
        is complete: it becomes ``_partial`` (the stopped search's candidate).
        """
        found: list[tuple[int, int, list[RawMove]]] = []
        rest = list(order)
        for k in range(count):
            try:
                if k == 0:
                    windowed = self.options.aspiration and depth >= ASPIRATION_DEPTH and noise == 0
                    if windowed and last is not None and abs(last.score_cp) < MATE_BOUND:
                        best_i, best_score = self._aspiration(depth, moves, rest, scores, last)
                    else:
                        best_i, best_score = self._root(depth, moves, rest, scores, bonus, noise > 0)
                else:
                    # Not stored in the table: the best of a subset is not the position's score.
                    best_i, best_score = self._root(depth, moves, rest, scores, bonus, noise > 0, store=False)
            except SearchStopped:
                if found:
                    self._partial = (found[0][0], found[0][1])
                raise
            root_pv = self._root_pv
            pv = list(root_pv) if root_pv and root_pv[0] is moves[best_i] else [moves[best_i]]
            found.append((best_i, best_score, pv))
            rest.remove(best_i)
        found.sort(key=lambda line: _ranked(line[1], bonus[line[0]]), reverse=True)
        order[:] = [line[0] for line in found] + rest
        return found

    def _root(
        self,
        depth: int,
        moves: list[RawMove],
        order: list[int],
        scores: list[int],
        bonus: list[int],
        exact_all: bool,
        alpha: int = -INF,
        beta: int = INF,
        store: bool = True,
    ) -> tuple[int, int]:
        """Search the moves in ``order`` to ``depth`` in the window (alpha, beta); sort ``order`` best first.

        A score at or above ``beta`` ends the pass at once (the caller searches again); a
        result at or below ``alpha`` is an upper bound.  ``store``: put the result in the
        table (not for a pass over part of the moves).
        """
        window = alpha, beta
        best_i = order[0]
        best_total = -INF
        best_score = -INF
        self._partial = None
        for n, i in enumerate(order):
            m = moves[i]
            state = self._play(m, 0)
            if state == _WIN:
                score = MATE - 1
            elif state == _LOSS:
                score = -(MATE - 1)
            else:
                if exact_all and n > 0 and -MATE_BOUND < best_total < MATE_BOUND:
                    # With noise the root needs each move's score only where it could win once
                    # its bonus is added: above ``best_total - bonus``.  A null window there
                    # first, an open one above it only if the move gets through.  (Searching
                    # every move with the whole window made Fugue's level 4 visit 45,000 nodes
                    # for depth 2 where level 5 needed 500: nothing below the root was cut.)
                    floor = best_total - bonus[i]
                    score = -self._negamax(depth - 1, -floor - 1, -floor, 1, False)
                    if score > floor:
                        score = -self._negamax(depth - 1, -INF, -floor, 1, True)
                elif exact_all:
                    score = -self._negamax(depth - 1, -INF, INF, 1, True)
                elif n == 0:
                    score = -self._negamax(depth - 1, -beta, -alpha, 1, True)
                else:
                    score = -self._negamax(depth - 1, -alpha - 1, -alpha, 1, False)
                    if score > alpha:
                        score = -self._negamax(depth - 1, -beta, -alpha, 1, True)
            self._unplay()
            scores[i] = score
            total = score + bonus[i] if abs(score) < MATE_BOUND else score
            # A later move that failed low on the null window is only bounded: it takes over
            # only by beating alpha (which, without a window, is the best score so far).
            if total > best_total and (exact_all or n == 0 or score > alpha):
                best_total = total
                best_i = i
                best_score = score
                if n == 0 and score <= window[0] and window[0] > -INF:
                    self._partial = None  # only a bound: keep the last iteration's move
                else:
                    self._partial = (i, score)
                self._root_pv = [m, *self._pv[1]] if state == _NORMAL else [m]
            if not exact_all and score > alpha:
                alpha = score
                if score >= beta:
                    break  # an aspiration window missed above: the caller opens it
        order.sort(key=lambda i: scores[i] + (bonus[i] if abs(scores[i]) < MATE_BOUND else 0), reverse=True)
        order.remove(best_i)
        order.insert(0, best_i)
        if not store:
            return best_i, best_score
        key = self.board.zobrist_hash()
        if best_score >= window[1]:
            flag = LOWER
        elif best_score <= window[0] and window[0] > -INF:
            flag = UPPER
        else:
            flag = EXACT
        self.tt.put(key, (depth, to_tt(best_score, 0, MATE_BOUND), flag, moves[best_i]))
        return best_i, best_score

    # --- making moves --------------------------------------------------------------------

    def _play(self, m: RawMove, ply: int) -> int:
        """Play ``m`` (by the side to move at ``ply``); return _WIN, _LOSS or _NORMAL for the mover.

        Undo with :meth:`_unplay`.
        """
        by_code = self.by_code
        # The fields of a raw move are typed Any: declared ints (no code when the source runs)
        # let the compiled build index and subtract natively.
        s1: int
        b1: int
        a1: int
        s2: int
        b2: int
        a2: int
        s3: int
        b3: int
        a3: int
        sq: int
        d: int
        if len(m) == 14:
            # Two change triples (a piece leaving one square for another, taking whatever
            # stood there) are most moves: unrolled, as in Board.push_raw.
            _, _, _, _, _, _, _, _, s1, b1, a1, s2, b2, a2 = m
            d = by_code[a2][s2] - by_code[b1][s1]
            # An empty square is worth 0 (Evaluator.static sums occupied squares only):
            # the origin is usually empty after the move, the destination before it.
            if a1:
                d += by_code[a1][s1]
            if b2:
                d -= by_code[b2][s2]
        elif len(m) == 17:  # three triples: most captures
            _, _, _, _, _, _, _, _, s1, b1, a1, s2, b2, a2, s3, b3, a3 = m
            d = (
                by_code[a1][s1]
                - by_code[b1][s1]
                + by_code[a2][s2]
                - by_code[b2][s2]
                + by_code[a3][s3]
                - by_code[b3][s3]
            )
        else:
            d = 0
            for i in range(CHANGES, len(m), 3):
                sq = m[i]
                d += by_code[m[i + 2]][sq] - by_code[m[i + 1]][sq]
        score = self.score
        self._score_stack.append(score)
        self.score = score + d
        board = self.board
        board.push_raw(m)
        nodes = self.nodes = self.nodes + 1
        if nodes >= self._next_check:
            self._check_budget()
        if ply >= self._seldepth:
            self._seldepth = ply + 1
        # push_raw has judged the move already: it ends the game when the move captures the
        # enemy's last royals (the mover wins) or makes a position occur a third time in a
        # game with the three-fold-loss rule (the mover loses).  Reading its verdict costs
        # one attribute; counting royals and repetitions here again cost a loop and a call.
        over = board.decided
        if over is None:
            return _NORMAL
        return _WIN if over.termination is _ROYAL_CAPTURE else _LOSS

    def _unplay(self) -> None:
        self.board.pop_raw()
        self.score = self._score_stack.pop()

    def _check_budget(self) -> None:
        self._next_check = self.nodes + CHECK_EVERY
        time.sleep(0)  # lets the thread that reads commands run (see CHECK_EVERY)
        if self._protected:
            return  # the first iteration always completes (it is bounded: FIRST_QUIESCENCE)
        if self._node_limit is not None:
            self._next_check = min(self._next_check, self._node_limit)
        if self._stop:
            raise SearchStopped
        if self._deadline is not None and time.perf_counter() >= self._deadline:
            raise SearchStopped
        if self._node_limit is not None and self.nodes >= self._node_limit:
            raise SearchStopped

    # --- evaluation ------------------------------------------------------------------------

    def _static(self, alpha: int, beta: int) -> int:
        """Evaluation for the side to move; the dynamic term only when it can matter."""
        board = self.board
        # Signs by negation, not by products with ``side``: compiled, a product with a
        # negative factor leaves the machine-word path (see Board.push_raw).
        white = board.side > 0
        score = self.score
        base = score + self.tempo if white else self.tempo - score
        margin = self.lazy_margin
        if base - margin >= beta or base + margin <= alpha:
            return base
        dynamic = self._dynamic(board.key)
        return base + dynamic if white else base - dynamic

    def _dynamic(self, key: int) -> int:
        """The evaluator's dynamic term of the current position (White's view), cached by hash."""
        cache = self._eval_cache
        dyn = cache.get(key)
        if dyn is None:
            dyn = self.ev.dynamic(self.board)
            if len(cache) >= self._eval_cap:  # full: start again (no eviction bookkeeping)
                self._retire(cache)
                self._eval_cache = cache = {}
            cache[key] = dyn
        return dyn

    # --- move ordering -----------------------------------------------------------------------

    def _capture_gain(self, m: RawMove) -> int:
        """Ordering value of a capture: victims' values (royals huge) minus a little for the mover."""
        b = self.board.squares
        ov = self.order_value
        # The fields as typed locals: compiled, the loops, indexing and comparisons are then
        # native (from ``Any`` each was a generic call).  Measured: Interweave's compiled
        # search 0.5-2% fewer instructions a node (chains come here), Rebel Fury's 0-0.5%.
        victims: tuple[int, ...] = m[VICTIMS]
        more: tuple[RawAction, ...] | None = m[MORE]
        origin: int = m[FROM]
        kind: str = m[KIND]
        g = 0
        for s in victims:
            g += ov[b[s] & 31]
        if more:
            for a in more:
                victims = a[3]
                for s in victims:
                    g += ov[b[s] & 31]
        if kind == "*":
            g -= ov[b[origin] & 31]
        if m[PROMOTION]:
            g += self.promo_value.get(m[PROMOTION], 0)
        return g * 16 - (ov[b[origin] & 31] >> 4)

    def _captures(self, key: int) -> list[tuple[int, RawMove]]:
        """The capturing moves of the current position (hash ``key``) with their gains, best first.

        Cached by hash (do not modify): the gains depend on the position only.
        """
        cache = self._capture_cache
        captures = cache.get(key)
        if captures is None:
            board = self.board
            if COMPILED:
                found = self._ordered_captures(board.raw_captures())
            else:
                b = board.squares
                ov = self.order_value
                gain = self._capture_gain
                # Most captures take one piece in a single action without promoting: their
                # gain (the same formula as _capture_gain's) is computed inline, without a
                # call.  The field indices are literals here (FROM 0, KIND 2, VICTIMS 3,
                # PROMOTION 4, MORE 6: a constant costs less than a global) and order_value
                # is indexed by the code.
                found = [
                    (ov[b[m[3][0]]] * 16 - (ov[b[m[0]]] >> 4), m)
                    if len(m[3]) == 1 and not m[6] and not m[4] and m[2] != "*"
                    else (gain(m), m)
                    for m in board.raw_captures()
                ]
                if len(found) > 1:
                    found.sort(key=_first, reverse=True)
            if len(cache) >= self._capture_cap:  # full: start again, like the evaluation cache
                self._retire(cache)
                self._capture_cache = cache = {}
            cache[key] = captures = found
        return captures

    def _ordered_captures(self, moves: list[RawMove]) -> list[tuple[int, RawMove]]:
        """The compiled build's half of :meth:`_captures`: the same gains in the same order.

        The source build's comprehension reads the move's fields as ``Any``, so compiled every
        index, product and comparison in it was a generic call, and ``sort(key=..., reverse=True)``
        is a method looked up by name: some 9,000 instructions per capture list in Fugue, as
        many as a third of generating it.  Here the fields are typed locals (native indexing
        and arithmetic) and each capture is inserted after those of equal or greater gain as it
        comes, which is the order of the stable sort (the lists are short: a few to a few dozen).
        """
        b = self.board.squares
        ov = self.order_value
        gains: list[int] = []
        found: list[tuple[int, RawMove]] = []
        victims: tuple[int, ...]
        origin: int
        kind: str
        g: int
        for m in moves:
            victims = m[3]
            if len(victims) == 1 and not m[6] and not m[4]:
                kind = m[2]
                if kind != "*":
                    origin = m[0]
                    g = ov[b[victims[0]]] * 16 - (ov[b[origin]] >> 4)
                else:
                    g = self._capture_gain(m)
            else:
                g = self._capture_gain(m)
            i = len(gains)
            while i > 0 and gains[i - 1] < g:
                i -= 1
            if i == len(gains):
                gains.append(g)
                found.append((g, m))
            else:
                gains.insert(i, g)
                found.insert(i, (g, m))
        return found

    def _usable_tt_move(self, m: RawMove) -> bool:
        """Whether a move from the table can be played here without generating the moves.

        The table is keyed by the full Zobrist hash, so its move was legal in a position
        with this hash: this one, unless two positions share a 64-bit key.  Even then the
        board must never be corrupted, so every change triple must find the piece it
        expects (undoing restores the "before" values).  Chains (Interweave) may change a
        square twice, so they are not checked here but looked up among the captures.  In
        games that forbid repetition a quiet move is also checked against this game's
        history, which the hash does not cover.
        """
        if m[MORE]:
            return False
        board = self.board
        b = board.squares
        if len(m) == 14:  # the common two-triple move, unrolled
            if b[m[8]] != m[9] or b[m[11]] != m[12]:
                return False
        else:
            for i in range(CHANGES, len(m), 3):
                if b[m[i]] != m[i + 1]:
                    return False
        return not (self.forbid_repetition and not m[VICTIMS] and board.has_occurred(board.hash_after(m)))

    def _staged(self, tt_move: RawMove | None, ply: int, key: int) -> Iterator[RawMove | None]:
        """Moves in search order, generated lazily stage by stage.

        TT move (no generation at all), then the captures by gain (the game's capture
        generator; ``key`` is the position's hash), then ``None`` to mark the start of the
        quiet stage (the caller may stop there: futility), then killers and quiet moves by
        history (full generation).  A cut in the first stages never builds the quiet moves.
        """
        board = self.board
        tt = None
        if tt_move is not None and self._usable_tt_move(tt_move):
            tt = tt_move
            yield tt
        captures = self._captures(key)
        if captures:
            if tt is None and tt_move is not None and tt_move[MORE]:
                for _gain, m in captures:
                    if m == tt_move:  # a chain from the table: first, once found legal here
                        tt = m
                        yield m
                        break
            if tt is None:  # spares a comparison per capture
                for _gain, m in captures:
                    yield m
            else:
                for _gain, m in captures:
                    if m != tt:
                        yield m
            if self.compulsory:
                return  # captures exist, so every legal move is one of them
        yield None
        moves = board.raw_moves()
        killers = self.killers[ply]
        found = []
        for k in killers:
            if k is not None and k != tt:
                try:
                    km = moves[moves.index(k)]
                except ValueError:
                    continue
                if not km[VICTIMS]:
                    found.append(km)
                    yield km
        hist_get = self.history.get
        # The keys in one comprehension (a key function is a Python call per move); the sort
        # compares the keys only and is stable, so equal keys keep the generation order.
        if self.quiet_pst:
            # History first (shifted above any table gain), then the table's gain for the side
            # to move of a plain move (two change triples: from square, then to square).
            by_code = self.by_code
            side = board.side
            quiets = [
                (
                    (hist_get((m[FROM] << 8) | m[TO], 0) << 12)
                    + (side * (by_code[m[13]][m[11]] - by_code[m[9]][m[8]]) if len(m) == 14 else 0)
                    + (1 << 40 if m[PROMOTION] else 0),
                    m,
                )
                for m in moves
                if not m[VICTIMS]
            ]
        else:
            quiets = [
                (hist_get((m[FROM] << 8) | m[TO], 0) + (1_000_000 if m[PROMOTION] else 0), m)
                for m in moves
                if not m[VICTIMS]
            ]
        quiets.sort(key=_first, reverse=True)
        if tt is not None:
            found.append(tt)
        for _key, m in quiets:
            if m not in found:  # neither the table move nor a killer, played already
                yield m

    # --- the tree ---------------------------------------------------------------------------

    def _negamax(self, depth: int, alpha: int, beta: int, ply: int, pv_node: bool) -> int:
        board = self.board
        after_null = self._last_null  # this node answers a null move: it may not pass in turn
        if after_null:
            self._last_null = False
        if ply >= MAX_PLY:
            return self._static(alpha, beta)
        if pv_node:
            self._pv[ply] = []
        key = board.key
        # TranspositionTable.get, inline (a call per node): the newer generation, then the older.
        tt = self.tt
        entry = tt.new.get(key)
        if entry is None:
            entry = tt.old.get(key)
        tt_move = None
        if entry is not None:
            tt_move = entry[3]
            if entry[0] >= depth and not pv_node:
                score = entry[1]
                if not -MATE_BOUND < score < MATE_BOUND:
                    score = from_tt(score, ply, MATE_BOUND)
                flag = entry[2]
                if flag == EXACT or (flag == LOWER and score >= beta) or (flag == UPPER and score <= alpha):
                    return score
        if depth <= 0:
            if self.quiescence:
                return self._quiesce(alpha, beta, ply, 0, -1)
            return self._static(alpha, beta)
        prune = self.pruning and not pv_node
        futile = False
        if prune and alpha > -MATE_BOUND and beta < MATE_BOUND:
            # No "reverse futility" (return the static score when it beats beta): it assumes
            # the side to move could pass without loss, and in these games the usual threat is
            # a capture of the royal piece, which no static score sees.  The null move below
            # tests that assumption by a search instead.
            static = INF
            if depth <= 2 or (depth <= 3 and self.razor):
                static = self._static(alpha, beta)
                if self.razor and static + RAZOR_MARGIN[depth] <= alpha:
                    score = self._quiesce(alpha, alpha + 1, ply, 0, -1) if self.quiescence else static
                    if score <= alpha:
                        return score
                futile = depth <= 2 and static + FUTILITY_MARGIN[depth] <= alpha
            if self.null_ok and depth >= 2 and not after_null and self._has_pieces():
                if static == INF:
                    static = self._static(alpha, beta)
                if static >= beta:
                    score = self._null_search(depth, beta, ply)
                    if score >= beta:
                        return beta if score >= MATE_BOUND else score
        best = -INF
        best_move: RawMove | None = None
        original_alpha = alpha
        searched = 0
        quiet_limit = LMP_COUNT[depth] if self.lmp and prune and depth <= 3 else 1 << 30
        quiets_searched = 0
        # A single forced capture: the move costs no ply (generates the captures first).
        forced = self.forced_ext and ply < self._ext_limit and len(self._captures(key)) == 1
        for m in self._staged(tt_move, ply, key):
            if m is None:
                if futile and searched:
                    break  # quiet moves cannot reach alpha: do not even generate them
                continue
            capture = m[VICTIMS] or m[PROMOTION]  # only its truth is used: no bool() call
            if futile and searched and not capture:
                continue
            if not capture:
                if quiets_searched >= quiet_limit and best > -MATE_BOUND:
                    if not (self.lmp_guard and self._attacked()):
                        break  # late quiet moves near the leaves: skipped (the rest are quiet too)
                    quiet_limit = 1 << 30  # a piece is attacked: its escape may come late
                quiets_searched += 1
            state = self._play(m, ply)
            if state == _WIN:
                score = MATE - ply - 1
            elif state == _LOSS:
                score = -(MATE - ply - 1)
            else:
                new_depth = depth if forced else depth - 1
                extended = forced or (self.extend and ply < self._ext_limit and self._threatens_royal())
                if extended:
                    new_depth = depth
                if searched == 0:
                    score = -self._negamax(new_depth, -beta, -alpha, ply + 1, pv_node)
                else:
                    reduction = 0
                    if (
                        self.lmr
                        and not pv_node
                        and depth >= 3
                        and searched >= 3
                        and not capture
                        and not extended
                    ):
                        # At least one full ply stays, so the reduced search is never quiescence alone.
                        reduction = min(
                            LMR_REDUCTION[min(depth, LMR_TABLE_SIZE - 1)][min(searched, LMR_TABLE_SIZE - 1)],
                            new_depth - 1,
                        )
                    score = -self._negamax(new_depth - reduction, -alpha - 1, -alpha, ply + 1, False)
                    if reduction and score > alpha:
                        score = -self._negamax(new_depth, -alpha - 1, -alpha, ply + 1, False)
                    if pv_node and alpha < score < beta:
                        score = -self._negamax(new_depth, -beta, -alpha, ply + 1, True)
            self.board.pop_raw()  # _unplay, inline
            self.score = self._score_stack.pop()
            searched += 1
            if score > best:
                best = score
                best_move = m
                if score > alpha:
                    alpha = score
                    if pv_node:
                        self._pv[ply] = [m, *self._pv[ply + 1]] if state == _NORMAL else [m]
                    if score >= beta:
                        if not capture:
                            killers = self.killers[ply]
                            if killers[0] != m:
                                killers[1] = killers[0]
                                killers[0] = m
                            hk = (m[FROM] << 8) | m[TO]
                            self.history[hk] = self.history.get(hk, 0) + depth * depth
                        break
        if not searched:
            return -(MATE - ply)  # no legal move: the side to move loses
        if best >= beta:
            flag = LOWER
        elif best > original_alpha:
            flag = EXACT
        else:
            flag = UPPER
        stored = best if -MATE_BOUND < best < MATE_BOUND else to_tt(best, ply, MATE_BOUND)
        new = tt.new
        if len(new) < tt.capacity:  # TranspositionTable.put, inline unless a generation ends
            new[key] = (depth, stored, flag, best_move)
        else:
            tt.put(key, (depth, stored, flag, best_move))
        return best

    def _has_pieces(self) -> bool:
        """Whether the side to move has :data:`NULL_MIN_PIECES` pieces besides pawns and royals.

        With fewer, zugzwang (every move loses, passing would not) is too likely: stalemate
        loses in all three games, and frozen or petrified pieces cannot move at all.
        """
        where = self.board.piece_squares
        n = 0
        for code in self.big_pieces[self.board.side]:
            n += len(where[code])
        return n >= NULL_MIN_PIECES

    def _null_search(self, depth: int, beta: int, ply: int) -> int:
        """The score (side to move's view) of passing here, searched shallower on a null window.

        At or above ``beta`` even after passing, the node is cut: a real move would do at
        least as well unless the position is a zugzwang, which :meth:`_has_pieces` and the
        game's rules (:meth:`_setup`) try to exclude.  A royal piece under attack makes the
        reply capture it, so the null move fails low there by itself.
        """
        board = self.board
        r = NULL_REDUCTION + 1 if depth >= 6 else NULL_REDUCTION
        mark = len(self._score_stack)
        board.push_null()
        self._last_null = True
        try:
            score = -self._negamax(depth - 1 - r, -beta, -beta + 1, ply + 1, False)
        except SearchStopped:
            # The moves played above the null move must be undone before it.
            while len(self._score_stack) > mark:
                self._unplay()
            board.pop_null()
            raise
        board.pop_null()
        return score

    def _attacked(self) -> bool:
        """Whether the opponent, if the side to move passed, could take a piece of :data:`LMP_GUARD_VALUE`."""
        return self._waiting_side_best_gain() >= LMP_GUARD_GAIN

    def _threatens_royal(self) -> bool:
        """Whether the side that has just moved could now capture a royal piece, if it moved again."""
        return self._waiting_side_best_gain() >= ROYAL_GAIN

    def _waiting_side_best_gain(self) -> int:
        """The gain of the best capture the side not to move would have if it were its turn (-1: none).

        A null move hands it the turn; its captures are then those of the position after it,
        cached by hash like every capture list."""
        board = self.board
        board.push_null()
        captures = self._captures(board.key)
        board.pop_null()
        return captures[0][0] if captures else -1

    def _quiesce(self, alpha: int, beta: int, ply: int, qply: int, target: int) -> int:
        """Captures only, from a stand pat, until the position is quiet or the caps are reached.

        ``qply`` counts the capture plies so far and ``target`` is the square where the last
        capture's piece stopped (-1 after a quiet move).  Three bounds keep the tree small
        where captures are everywhere (a Rebel Fury Harpy or Fury takes across the board,
        and both sides always have some): delta pruning, then, from ``_q_full`` plies on,
        only recaptures of the piece that has just captured (the exchange on one square
        that decides whether the last capture paid) and captures of royal pieces, and from
        ``_q_max`` plies on the stand pat alone.
        """
        board = self.board
        key = board.key
        # _static, inline: half of the nodes are quiescence nodes.
        # (signs by negation, as in _static)
        white = board.side > 0
        score = self.score
        stand = score + self.tempo if white else self.tempo - score
        margin = self.lazy_margin
        if not (stand - margin >= beta or stand + margin <= alpha):
            if white:
                stand += self._dynamic(key)
            else:
                stand -= self._dynamic(key)
        # Where capturing is compulsory (forced_q) a side that has a capture must take: no
        # stand pat and no delta pruning, since declining is not a choice and the typical
        # Interweave tactic is a piece offered so that the forced capture opens a chain for
        # the other side.  The tree stays small (the capture list is the move list) and the
        # caps below still bound it.  Not in the first iteration: it is never interrupted,
        # and without the stand pat a position full of captures made it overrun a 200 ms
        # move time by up to 0.4 s.
        captures = self._captures(key) if self.forced_q and not self._protected else None
        if captures:  # forced
            if qply >= self._q_max or ply >= MAX_PLY:
                return stand
            floor = best = -INF
        else:
            if stand >= beta or qply >= self._q_max or ply >= MAX_PLY:
                return stand
            if stand > alpha:
                alpha = stand
            # Captures come best first: once one cannot lift the score to within the game's
            # delta margin of alpha even by winning its victims, neither can the rest.
            floor = alpha - stand - self.delta_margin
            best = stand
            # Only the captures are generated: a position without any is scored by its stand
            # pat (a side with no move at all is not detected here, as in any quiescence search).
            captures = self._captures(key)
        recaptures_only = qply >= self._q_full
        for g, m in captures:
            if g >> 4 <= floor:
                break
            if recaptures_only and target not in m[VICTIMS] and g < ROYAL_GAIN:
                continue  # (a capture of a royal piece is always tried: it may end the game)
            # A capture never repeats a position, so it never loses by repetition.
            if self._play(m, ply) == _WIN:
                score = MATE - ply - 1
            else:
                more = m[MORE]
                score = -self._quiesce(-beta, -alpha, ply + 1, qply + 1, more[-1][1] if more else m[TO])
            self.board.pop_raw()  # _unplay, inline
            self.score = self._score_stack.pop()
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if score >= beta:
                        break
        return stand if best == -INF else best  # forced, with every capture skipped by the caps


def _ranked(score: int, bonus: int) -> int:
    """A root move's score as the root ranks it: with its noise bonus unless it is a game end."""
    return score + bonus if -MATE_BOUND < score < MATE_BOUND else score


def _restricted(moves: list[RawMove], searchmoves: Collection[Move]) -> list[RawMove]:
    """The moves of ``moves`` that ``searchmoves`` names (UCI's ``go searchmoves``).

    Raises :class:`~exochess.errors.IllegalMoveError` naming the moves that are not among
    them, or if ``searchmoves`` is empty.
    """
    wanted = set(searchmoves)
    if not wanted:
        raise IllegalMoveError("searchmoves names no move")
    kept = [m for m in moves if to_move(m) in wanted]
    if len(kept) < len(wanted):
        found = {to_move(m) for m in kept}
        missing = " ".join(sorted({str(m) for m in wanted if m not in found}))
        raise IllegalMoveError(f"searchmoves: not a legal move here: {missing}")
    return kept


_first = itemgetter(0)
"""Sort key of (gain, move) pairs (a C function: no Python call per element)."""
