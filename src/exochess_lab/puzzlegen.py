"""Mining puzzles from games: find positions with one clearly winning move, and its line.

The generator behind ``exochess puzzles generate`` (docs/puzzles.md).  It walks the positions
of games -- engine games it plays itself, or games read from PGN -- and for each one asks the
engine for its two best moves (a cheap *screen*: MultiPV 2 on a small node budget).  A position
is a *candidate* when the best move wins (its score reaches :attr:`MiningSettings.win_cp`, a
forced capture of the royal piece included) while the second best does not and trails it by
:attr:`MiningSettings.margin_cp`.  A candidate is searched again on a larger budget (the
*confirmation*) and must pass the same test there; then the line is followed: the opponent's
reply is the engine's best, and at each of the solver's turns the best move must again be
unique by the same test (a move that captures the royal piece needs no such test: any other
move that does the same is recorded as an alternative).  The line stops after a solver's move
that ends the game, or once the material won since the start (counted after the opponent's
reply) reaches :attr:`MiningSettings.decisive_cp`, or where the solver's next move is no longer
unique.  A line whose only move is a capture that a one-ply search without quiescence also finds
is trivial and dropped.

Everything is counted in nodes, never in time, so a run gives the same puzzles on any machine
and in either build (compiled or pure Python); the compiled build is only faster.

The rating estimate is made from the depth at which the confirming search first chose the
solution's move and kept it (a move found at depth 1 is easy), the number of solver moves,
and whether the first move is quiet or a sacrifice; it is mapped to 600-2600.  The site's own
puzzle ratings (Glicko-2, from the players' attempts) replace it once puzzles are played.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from exochess.board import Board
from exochess.engine import Analysis, Limits, Searcher, SearchOptions
from exochess.engine.evaluate import evaluator_class
from exochess.engine.levels import level as get_level
from exochess.errors import ExochessError
from exochess.move import Move
from exochess.outcome import Termination
from exochess.pgn import read_games
from exochess.puzzles import WINNING_CP, Puzzle, detect_themes, puzzle_id
from exochess.variant import Variant, resolve_variant
from exochess_lab.sitegames import SiteGame, finished_games, masked

RATING_LOW, RATING_HIGH = 600, 2600
"""The range the rating estimates are mapped to."""

ONE_PLY = SearchOptions(max_depth=1, quiescence=False, pruning=False)
"""The triviality test's search: what a beginner sees (level 1 without its noise)."""

# Per-game defaults, chosen by short measured runs (docs/puzzles.md, "Generating"): where
# random blunders mostly hang pieces outright (Fugue, Rebel Fury) the candidates were nearly all
# trivial, so those games are played by weak levels (one ply and quiescence, with noise: they
# miss two-move tactics but not a hanging piece) and screened deeper than the players look.  A
# Rebel Fury node costs about twice a Fugue node and its positions have five times the moves.
GAME_DEFAULTS: dict[str, dict[str, Any]] = {
    "fugue": {
        "screen_nodes": 4000,
        "confirm_nodes": 15000,
        "levels": (2, 3),
        "blunder_rate": 0.0,
        "mistake_rate": 0.0,
        "swing_screen": True,
    },
    "rebelfury": {
        "screen_nodes": 3000,
        "confirm_nodes": 20000,
        "levels": (2, 3),
        "blunder_rate": 0.0,
        "mistake_rate": 0.0,
        "swing_screen": True,
    },
}
"""Game -> settings that differ from :class:`MiningSettings`'s defaults (any other game: none)."""


@dataclass(frozen=True)
class MiningSettings:
    """What decides which puzzles a run finds (recorded beside the collection; a resumed run
    must use the same)."""

    game: str
    seed: int = 1
    """Engine games are played with seeds ``seed``, ``seed + 1``, ..."""
    screen_nodes: int = 1500
    confirm_nodes: int = 12000
    win_cp: int = WINNING_CP
    """The best move's score (for the solver, centipawns) must reach this."""
    margin_cp: int = 250
    """The second best must trail the best by this much and stay below ``win_cp``."""
    decisive_cp: int = 450
    """Material won since the start (after the opponent's reply) that ends the line."""
    max_solver_moves: int = 5
    min_ply: int = 4
    """Positions before this ply of a game are skipped (openings repeat across games)."""
    max_plies: int = 140
    """An engine game is stopped after this many plies."""
    blunder_rate: float = 0.15
    """Share of an engine game's moves played at random (the blunders that make puzzles)."""
    mistake_rate: float = 0.25
    """Share of an engine game's moves that are the screen's second best (subtler mistakes)."""
    levels: tuple[int, ...] = ()
    """Engine-game players: each side of each game plays at one of these levels (chosen by the
    seed), with its noise; empty: the screen's best move, with the blunders and mistakes above."""
    per_game: int = 3
    """Most puzzles taken from one game."""
    spacing: int = 4
    """Fewest plies between two puzzles of one game (the same tactic, still on the board)."""
    pgn: tuple[str, ...] = ()
    """PGN files to read games from instead of playing engine games."""
    database: str = ""
    """The site's database URL: mine its finished games instead of playing engine games."""
    swing_screen: bool = False
    """Screen with one line, and search the two lines only where the side to move wins now and
    the opponent was not lost before its move (a swing): most positions cost one cheap line."""

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["pgn"] = list(self.pgn)
        data["database"] = masked(self.database)  # never a password in a file
        data["levels"] = list(self.levels)
        return data

    @classmethod
    def for_game(cls, game: str, **overrides: Any) -> MiningSettings:
        """The default settings for ``game`` (its node budgets), with ``overrides`` (None = default)."""
        name = resolve_variant(game).name
        values: dict[str, Any] = {"game": name, **GAME_DEFAULTS.get(name, {})}
        values.update({k: v for k, v in overrides.items() if v is not None})
        values["levels"] = tuple(values.get("levels", ()))
        values["pgn"] = tuple(values.get("pgn", ()))
        return cls(**values)


@dataclass
class Stats:
    """What a task (or a run) looked at and why candidates were dropped."""

    positions: int = 0
    candidates: int = 0
    kept: int = 0
    rejected: Counter[str] = field(default_factory=Counter)

    def add(self, other: Stats) -> None:
        self.positions += other.positions
        self.candidates += other.candidates
        self.kept += other.kept
        self.rejected.update(other.rejected)

    def to_json(self) -> dict[str, Any]:
        return {
            "positions": self.positions,
            "candidates": self.candidates,
            "kept": self.kept,
            "rejected": dict(sorted(self.rejected.items())),
        }


@dataclass(frozen=True)
class Task:
    """One game to mine: an engine game by seed, the ``index``-th game of a PGN file, or a game
    given by its moves (the site's)."""

    settings: MiningSettings
    seed: int = 0
    pgn: str = ""
    index: int = 0
    site: SiteGame | None = None

    @property
    def key(self) -> str:
        if self.site is not None:
            return f"site:{self.site.id}"
        return f"pgn:{Path(self.pgn).name}:{self.index}" if self.pgn else f"engine:{self.seed}"


@dataclass
class TaskResult:
    """The puzzles of one task (as JSON objects) and its counts."""

    key: str
    puzzles: list[dict[str, Any]]
    stats: Stats


@dataclass(frozen=True)
class Found:
    """A puzzle found in a position."""

    puzzle: Puzzle


@dataclass(frozen=True)
class Rejected:
    """A candidate dropped, and why (one of a few words: ``ambiguous``, ``trivial``...)."""

    reason: str


# --- judging one position --------------------------------------------------------------------


def piece_values(variant: Variant) -> dict[str, int]:
    """Letter -> centipawns, as the game's evaluator counts material."""
    ev = evaluator_class(variant)
    values = {**variant.piece_values, **ev.values}
    return {letter: values.get(letter, ev.default_value) for letter in variant.piece_letters}


def material(board: Board, values: dict[str, int], side: int) -> int:
    """Material of ``side`` (+1 White, -1 Black) minus the other's, royal pieces left out."""
    letters, royal = board.variant.letters, board.variant.royal_code
    total = 0
    for code in board.squares:
        if code and abs(code) != royal:
            total += values[letters[abs(code)]] * (1 if code * side > 0 else -1)
    return total


def unique_win(analysis: Analysis, legal: int, settings: MiningSettings) -> str | None:
    """None when the best line wins and is the only one that does, else the reason it is not."""
    lines = analysis.all_lines()
    best = lines[0].score_cp
    if best < settings.win_cp:
        return "not-winning"
    if legal == 1:
        return None
    if len(lines) < 2:
        return "unclear"  # the budget ended before the second line was searched
    second = lines[1].score_cp
    if second >= settings.win_cp or best - second < settings.margin_cp:
        return "ambiguous"
    return None


def _search(
    searcher: Searcher, board: Board, nodes: int, multipv: int, record: list[Analysis] | None = None
) -> Analysis:
    callback: Callable[[Analysis], None] | None = record.append if record is not None else None
    return searcher.search(board, Limits(nodes=nodes), multipv=multipv, on_iteration=callback)


def _wins_now(board: Board, move: Move) -> bool:
    board.push(move)
    try:
        return board.decided is not None and board.decided.termination == Termination.ROYAL_CAPTURE
    finally:
        board.pop()


def found_depth(iterations: Sequence[Analysis], move: Move) -> int:
    """The first iteration's depth from which the search's best move stayed ``move``."""
    depth = iterations[-1].depth if iterations else 1
    for a in reversed(iterations):
        if a.best != move:
            break
        depth = a.depth
    return depth


def estimate_rating(depth: int, solver_moves: int, themes: Sequence[str]) -> int:
    """The difficulty estimate (see the module text), from :data:`RATING_LOW` to :data:`RATING_HIGH`."""
    value = 500 + 300 * depth + 180 * (solver_moves - 1)
    if "quiet-move" in themes:
        value += 200
    if "sacrifice" in themes:
        value += 150
    if "defence" in themes:
        value += 100
    return max(RATING_LOW, min(RATING_HIGH, int(round(value, -1))))


def examine(
    board: Board, settings: MiningSettings, searcher: Searcher | None = None, source: str = ""
) -> Found | Rejected:
    """Decide whether the position of ``board`` (not modified) is a puzzle for its side to move.

    Runs the confirmation and the line (not the screen: the caller screens).  Deterministic:
    every search is bounded by nodes and starts from a fresh table.
    """
    variant = board.variant
    searcher = searcher or Searcher()
    values = piece_values(variant)
    root = board.copy(stack=False)
    solver = root.side
    start_material = material(root, values, solver)
    legal = len(root.legal_moves)
    if legal == 0 or root.is_game_over():
        return Rejected("game-over")
    if legal == 1:
        return Rejected("forced")  # one legal move: nothing to find
    searcher.new_game()
    iterations: list[Analysis] = []
    analysis = _search(searcher, root, settings.confirm_nodes, 2, iterations)
    why = unique_win(analysis, legal, settings)
    if why is not None:
        return Rejected(why)
    first_depth = found_depth(iterations, analysis.best)
    first_score = analysis.score_cp
    line: list[Move] = []
    alternatives: dict[str, list[str]] = {}
    work = root.copy(stack=False)
    while True:
        move = analysis.best
        if _wins_now(work, move):
            others = [m for m in work.legal_moves if m != move and _wins_now(work, m)]
            if others:
                alternatives[str(len(line))] = sorted(str(m) for m in others)
        line.append(move)
        work.push(move)
        if work.decided is not None or work.outcome() is not None:
            break
        if (len(line) + 1) // 2 >= settings.max_solver_moves:
            if analysis.score_cp < settings.win_cp:
                return Rejected("too-long")
            break
        pv = analysis.pv
        reply = pv[1] if len(pv) > 1 and pv[1] in work.legal_moves else None
        if reply is None:
            reply = _search(searcher, work, settings.confirm_nodes, 1).best
        work.push(reply)
        if work.outcome() is not None:
            return Rejected("refuted")  # the reply ended the game: the line did not win
        if material(work, values, solver) - start_material >= settings.decisive_cp:
            break
        legal_here = len(work.legal_moves)
        nxt = _search(searcher, work, settings.confirm_nodes, 2)
        if unique_win(nxt, legal_here, settings) is not None and not _wins_now(work, nxt.best):
            break  # not unique any more: the line ends at the solver's last move
        line.append(reply)
        analysis = nxt
    texts = [str(m) for m in line]
    if len(line) == 1 and line[0].is_capture():
        simple = Searcher().search(root, Limits(depth=1), options=ONE_PLY)
        if simple.best == line[0]:
            return Rejected("trivial")
    if len(line) == 1 and work.outcome() is None and analysis.score_cp < settings.win_cp:
        return Rejected("not-winning")
    try:
        themes = detect_themes(variant, root.fen(), texts, values)
    except ExochessError as exc:  # pragma: no cover - the engine only plays legal moves
        return Rejected(f"illegal-line: {exc}")
    fen = root.fen()
    puzzle = Puzzle(
        id=puzzle_id(variant.name, fen),
        variant=variant.name,
        fen=fen,
        solution=texts,
        rating=estimate_rating(first_depth, (len(texts) + 1) // 2, themes),
        themes=themes,
        source=source,
        score_cp=first_score,
        alternatives=alternatives,
    )
    return Found(puzzle)


# --- mining games ----------------------------------------------------------------------------


def _positions_of_engine_game(task: Task, searcher: Searcher) -> Iterator[tuple[Board, Analysis, int, str]]:
    """Play an engine game and yield each position with its screen analysis (before the move)."""
    s = task.settings
    rng = random.Random(task.seed)
    board = Board(s.game)
    players = [get_level(rng.choice(s.levels), s.game) for _ in "wb"] if s.levels else []
    player = Searcher()
    for ply in range(s.max_plies):
        if board.is_game_over():
            return
        analysis = _search(searcher, board, s.screen_nodes, 1 if s.swing_screen else 2)
        yield board, analysis, ply, f"engine game {task.seed}, ply {ply}"
        moves = list(board.legal_moves)
        lines = analysis.all_lines()
        roll = rng.random()
        if roll < s.blunder_rate and len(moves) > 1:
            board.push(rng.choice(moves))
        elif roll < s.blunder_rate + s.mistake_rate and len(lines) > 1:
            board.push(lines[1].best)
        elif players:
            lv = players[0 if board.side > 0 else 1]
            limits = Limits(nodes=s.screen_nodes)
            board.push(player.search(board, limits, options=lv.options(), seed=rng.randrange(1 << 30)).best)
        else:
            board.push(analysis.best)


def _positions_of_pgn_game(task: Task, searcher: Searcher) -> Iterator[tuple[Board, Analysis, int, str]]:
    s = task.settings
    game = read_games(Path(task.pgn).read_text(encoding="utf-8"), default_variant=s.game)[task.index]
    if resolve_variant(game.variant).name != s.game:
        return
    board = Board(game.variant, fen=game.fen)
    event = game.headers.get("Event", Path(task.pgn).name)
    for ply, move in enumerate([*game.moves, None]):
        if board.is_game_over():
            return
        analysis = _search(searcher, board, s.screen_nodes, 1 if s.swing_screen else 2)
        yield board, analysis, ply, f"{event}, game {task.index + 1}, ply {ply}"
        if move is None:
            return
        board.push(move)


def _positions_of_site_game(task: Task, searcher: Searcher) -> Iterator[tuple[Board, Analysis, int, str]]:
    assert task.site is not None
    s = task.settings
    board = Board(s.game, fen=task.site.fen)
    for ply, text in enumerate([*task.site.moves, None]):
        if board.is_game_over():
            return
        analysis = _search(searcher, board, s.screen_nodes, 1 if s.swing_screen else 2)
        yield board, analysis, ply, f"site game {task.site.id}, ply {ply}"
        if text is None:
            return
        board.push(board.parse_move(text))


def mine(task: Task) -> TaskResult:
    """Mine one game (a module-level function: it runs in a worker process)."""
    s = task.settings
    searcher = Searcher()
    confirm = Searcher()
    stats = Stats()
    puzzles: list[dict[str, Any]] = []
    last_ply = -(10**6)
    previous: Analysis | None = None
    if task.site is not None:
        positions = _positions_of_site_game(task, searcher)
    elif task.pgn:
        positions = _positions_of_pgn_game(task, searcher)
    else:
        positions = _positions_of_engine_game(task, searcher)
    for board, analysis, ply, source in positions:
        before, previous = previous, analysis
        if ply < s.min_ply or len(puzzles) >= s.per_game or ply - last_ply < s.spacing:
            continue
        stats.positions += 1
        # The opponent's last move must have been the mistake: it was not lost before it.
        if before is not None and before.score_cp <= -s.win_cp:
            continue
        if s.swing_screen:
            if analysis.score_cp < s.win_cp:
                continue
            analysis = _search(searcher, board, s.screen_nodes, 2)
        if unique_win(analysis, len(board.legal_moves), s) is not None:
            continue
        stats.candidates += 1
        verdict = examine(board, s, confirm, source)
        if isinstance(verdict, Rejected):
            stats.rejected[verdict.reason] += 1
            continue
        stats.kept += 1
        last_ply = ply
        puzzles.append(verdict.puzzle.to_json())
    return TaskResult(task.key, puzzles, stats)


def tasks(settings: MiningSettings, start: int = 0) -> Iterator[Task]:
    """The run's tasks in order, from the ``start``-th: the site's finished games, the PGN files'
    games, or engine games without end."""
    if settings.database:
        for game in finished_games(settings.database, settings.game)[start:]:
            yield Task(settings, site=game)
        return
    if settings.pgn:
        index = 0
        for path in settings.pgn:
            count = len(read_games(Path(path).read_text(encoding="utf-8"), default_variant=settings.game))
            for i in range(count):
                if index >= start:
                    yield Task(settings, pgn=path, index=i)
                index += 1
        return
    n = start
    while True:
        yield Task(settings, seed=settings.seed + n)
        n += 1


def rating_histogram(ratings: Iterable[int], width: int = 400) -> dict[str, int]:
    """Ratings counted by bands of ``width`` (``"600-999"``...), for the run's summary."""
    bands: Counter[int] = Counter(math.floor(r / width) * width for r in ratings)
    return {f"{b}-{b + width - 1}": n for b, n in sorted(bands.items())}
