"""Engine-versus-engine matches: players, games from varied openings, Elo.

A player is a level (``"5"``) or a configuration of ``key=value`` pairs
separated by commas::

    level=8,depth=4,noise=0,movetime=200,nodes=20000,quiescence=0,pruning=0,Q=900,I=650

``level`` picks the base level (default 8); ``depth``, ``noise``, ``quiescence``,
``lapses`` (a share from 0 to 1), ``pruning`` override its search options; ``movetime`` (ms) and
``nodes`` fix the budget of every move (otherwise the level's share of the match move
time); the names in :data:`SEARCH_SWITCHES` (``null_move=1``, ``late_move_pruning=0``...)
switch those search features; ``mobility`` sets the evaluation's centipawns per square of
mobility (0 turns the term off); a single upper-case letter overrides that
piece's material value in the evaluation (used to fit values by self-play,
``docs/engine.md``).

A player may also be another program speaking the engine protocol, such as a
frozen build of this one: ``cmd:/path/to/exochess engine`` (the rest of the
text is the command line, split as a shell would), optionally after settings
that the engine is told: ``level=5,nodes=20000,cmd:...`` (``level``,
``movetime``, ``nodes``, ``depth``).

Games are played in pairs from the same random opening (a few random plies),
each player having White once, so the opening's bias cancels out.  An opening
is kept only when a short fixed-depth search scores it within
:data:`OPENING_BALANCE_CP` for either side (:func:`balanced_opening`): in Rebel
Fury four random plies leave most positions lost for one side (a depth-3 search
put the median at 489 cp and 40% beyond 1,000 cp over 30 openings), and a pair
from such an opening is won once by each player whatever their strength, which
says nothing about them.  The games
have no draw rule; a game still going after :data:`MAX_PLIES` plies is
adjudicated by the static evaluation: a lead of :data:`ADJUDICATION_CP` wins,
anything closer is a draw.
"""

from __future__ import annotations

import math
import os
import random
import shlex
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace

from exochess.board import Board
from exochess.engine.evaluate import Evaluator, evaluator_for
from exochess.engine.levels import level as get_level
from exochess.engine.limits import Limits
from exochess.engine.search import MATE, Searcher, SearchOptions
from exochess.errors import ExochessError
from exochess.rawmove import to_move
from exochess.variant import resolve_variant
from exochess_lab.external import ExternalEngine, ExternalEngineError
from exochess_lab.parallel import map_in_processes
from exochess_lab.sprt import Sprt, elo_estimate, pentanomial

MAX_PLIES = 300
"""A game still running after this many plies is adjudicated (the games have no draw rule)."""
ADJUDICATION_CP = 200
"""At the move limit the side ahead by this much in the static evaluation wins; otherwise a draw."""


OPENING_BALANCE_CP = 150
"""Default bound on how far an opening may favour one side (centipawns, :func:`balanced_opening`)."""
BALANCE_DEPTH = 3
"""Depth of the search that judges an opening (fixed, so a seed always gives the same openings)."""
BALANCE_TRIES = 200
"""Random openings drawn at most for one balanced opening; the closest one is kept if none is."""


SEARCH_SWITCHES = (
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
)
"""Player settings that switch a search feature (fields of :class:`SearchOptions`)."""


class MatchConfigError(ExochessError):
    """A player description that cannot be understood."""


@dataclass(frozen=True)
class PlayerConfig:
    """How one side of a match plays."""

    label: str
    level: int = 8
    depth: int | None = None
    noise: int | None = None
    quiescence: bool | None = None
    lapses: float | None = None
    pruning: bool | None = None
    movetime_ms: int | None = None
    nodes: int | None = None
    values: tuple[tuple[str, int], ...] = field(default=())
    mobility: int | None = None
    """Centipawns per square of mobility in the evaluation (None: the game's own weight)."""
    command: tuple[str, ...] = ()
    """An external engine's command line (empty: this engine, in the match's own process)."""
    switches: tuple[tuple[str, bool], ...] = field(default=())
    """Search features turned on or off (:data:`SEARCH_SWITCHES`), for A/B matches."""

    def options(self, variant: str | None = None) -> SearchOptions:
        """The search options of this player in the game ``variant`` (whose table of levels applies)."""
        opts = get_level(self.level, variant).options()
        if self.depth is not None:
            opts = replace(opts, max_depth=self.depth)
        if self.noise is not None:
            opts = replace(opts, noise_cp=self.noise)
        if self.quiescence is not None:
            opts = replace(opts, quiescence=self.quiescence)
        if self.lapses is not None:
            opts = replace(opts, lapses=self.lapses)
        if self.pruning is not None:
            opts = replace(opts, pruning=self.pruning)
        if self.switches:
            opts = replace(opts, **dict(self.switches))
        return opts

    def limits(self, match_movetime_ms: int | None, variant: str | None = None) -> Limits:
        """The budget of each move: fixed by the player, or its level's share of the match's move time."""
        if self.nodes is not None or self.movetime_ms is not None:
            return Limits(nodes=self.nodes, movetime_ms=self.movetime_ms)
        return Limits(movetime_ms=get_level(self.level, variant).movetime_ms(match_movetime_ms))

    def evaluator(self, board: Board) -> Evaluator:
        base = evaluator_for(board.variant)
        if not self.values and self.mobility is None:
            return base
        cls = type(base)
        changed: dict[str, object] = {"values": {**cls.values, **dict(self.values)}}
        if self.mobility is not None:
            changed["MOBILITY"] = self.mobility
        custom = type(f"Custom{cls.__name__}", (cls,), changed)
        result: Evaluator = custom(board.variant)
        return result


def parse_player(text: str) -> PlayerConfig:
    """A player from ``"5"`` or ``"level=8,depth=3,Q=900"`` (raises :class:`MatchConfigError`)."""
    text = text.strip()
    if not text:
        raise MatchConfigError("empty player description")
    if text.isdigit():
        return PlayerConfig(label=f"level {int(text)}", level=_level(text))
    settings, marker, command_text = text.partition("cmd:")
    if marker:
        return _parse_command_player(text, settings, command_text)
    fields: dict[str, object] = {}
    values: list[tuple[str, int]] = []
    switches: list[tuple[str, bool]] = []
    for part in text.split(","):
        if "=" not in part:
            raise MatchConfigError(f"expected key=value in player description, got {part!r}")
        key, _, value = (s.strip() for s in part.partition("="))
        try:
            if len(key) == 1 and key.isupper():
                values.append((key, int(value)))
            elif key == "level":
                fields["level"] = _level(value)
            elif key in ("depth", "noise", "nodes", "mobility"):
                fields[key] = int(value)
            elif key == "lapses":
                fields["lapses"] = _share(value)
            elif key == "movetime":
                fields["movetime_ms"] = int(value)
            elif key in ("quiescence", "pruning"):
                fields[key] = _switched_on(value)
            elif key in SEARCH_SWITCHES:
                switches.append((key, _switched_on(value)))
            else:
                raise MatchConfigError(
                    f"unknown player setting {key!r} (level, depth, noise, lapses, movetime, nodes, "
                    f"quiescence, pruning, mobility, {', '.join(SEARCH_SWITCHES)}, a piece letter, "
                    "or cmd:COMMAND)"
                )
        except MatchConfigError:
            raise
        except ValueError:
            raise MatchConfigError(f"{key} needs a number, got {value!r}") from None
    return PlayerConfig(label=text, values=tuple(values), switches=tuple(switches), **fields)  # type: ignore[arg-type]


def _share(value: str) -> float:
    """A share from 0 to 1 (raises ValueError if not a number, MatchConfigError if out of range)."""
    share = float(value)
    if not 0.0 <= share <= 1.0:
        raise MatchConfigError(f"lapses is a share from 0 to 1, not {value!r}")
    return share


def _switched_on(value: str) -> bool:
    """A yes/no setting's value: 1, yes, true or on (any case) turn it on, anything else off."""
    return value.lower() in ("1", "yes", "true", "on")


_COMMAND_SETTINGS = {"level": "level", "movetime": "movetime_ms", "nodes": "nodes", "depth": "depth"}
"""What a match can tell an external engine: its level option and the budget of each ``go``."""


def _parse_command_player(text: str, settings: str, command_text: str) -> PlayerConfig:
    try:
        command = tuple(shlex.split(command_text))
    except ValueError as exc:
        raise MatchConfigError(f"cannot read the engine command {command_text!r}: {exc}") from None
    if not command:
        raise MatchConfigError("cmd: needs the engine's command line, like cmd:/path/to/exochess engine")
    settings = settings.strip()
    if settings and not settings.endswith(","):
        raise MatchConfigError(f"settings before cmd: end with a comma (nodes=5000,cmd:...), not {text!r}")
    fields: dict[str, int] = {}
    for part in filter(None, (p.strip() for p in settings.split(","))):
        key, _, value = (s.strip() for s in part.partition("="))
        if key not in _COMMAND_SETTINGS:
            raise MatchConfigError(
                f"an external engine takes only level, movetime, nodes and depth before cmd:, not {key!r}"
            )
        try:
            number = int(value)
        except ValueError:
            raise MatchConfigError(f"{key} needs a number, got {value!r}") from None
        if number <= 0:
            raise MatchConfigError(f"{key} must be positive, got {number}")
        fields[_COMMAND_SETTINGS[key]] = _level(value) if key == "level" else number
    return PlayerConfig(label=text, command=command, **fields)  # type: ignore[arg-type]


def check_player(variant: str, player: PlayerConfig) -> None:
    """Start an external player's engine once and set it up for ``variant`` (raises a clear error).

    Called before a match so that a wrong command fails at once, not in the first game.
    """
    if player.command:
        with ExternalEngine(player.command, resolve_variant(variant).name, player.level):
            pass


def _level(text: str) -> int:
    try:
        return get_level(int(text)).number
    except ValueError:
        raise MatchConfigError(f"level must be an integer from 1 to 8, not {text!r}") from None


def random_opening(variant: str, plies: int, rng: random.Random) -> list[str]:
    """``plies`` random legal moves from the start that do not end the game (canonical texts)."""
    board = Board(variant)
    texts: list[str] = []
    for _ in range(plies):
        moves = list(board.raw_moves())
        rng.shuffle(moves)
        for raw in moves:
            board.push_raw(raw)
            if board.outcome() is None:
                texts.append(str(to_move(raw)))
                break
            board.pop_raw()
        else:
            break
    return texts


def opening_score(variant: str, texts: list[str], depth: int = BALANCE_DEPTH) -> int:
    """How far the position after ``texts`` favours one side: the size of a ``depth``-ply search's
    score in centipawns (a mate found counts as :data:`~exochess.engine.search.MATE`)."""
    board = Board(variant)
    for text in texts:
        board.push_text(text)
    if board.outcome() is not None:
        return MATE
    analysis = Searcher(evaluator_for(board.variant)).search(board, Limits(depth=depth))
    return MATE if analysis.mate is not None else abs(analysis.score_cp)


def balanced_opening(
    variant: str,
    plies: int,
    rng: random.Random,
    balance_cp: int = OPENING_BALANCE_CP,
    tries: int = BALANCE_TRIES,
) -> list[str]:
    """A :func:`random_opening` that :func:`opening_score` puts within ``balance_cp`` for either
    side: the first of up to ``tries`` drawn from ``rng``, else the closest of them.

    ``balance_cp`` 0 takes the first random opening as it is (no search).
    """
    best: list[str] = []
    best_score = MATE + 1
    for _ in range(max(1, tries)):
        texts = random_opening(variant, plies, rng)
        if balance_cp <= 0 or not texts:
            return texts
        score = opening_score(variant, texts)
        if score <= balance_cp:
            return texts
        if score < best_score:
            best, best_score = texts, score
    return best


@dataclass(frozen=True)
class GameResult:
    """One finished game, scores from White's point of view."""

    white: str
    """``"a"`` or ``"b"``."""
    score: float
    """1 White won, 0 Black won, 0.5 drawn at the move limit (see :data:`ADJUDICATION_CP`)."""
    plies: int
    reason: str
    moves: tuple[str, ...]


def play_game(
    variant: str,
    white: PlayerConfig,
    black: PlayerConfig,
    opening: list[str],
    movetime_ms: int | None,
    seed: int = 0,
    max_plies: int = MAX_PLIES,
) -> tuple[float, int, str, list[str]]:
    """Play one game; returns (White's score, plies, reason, move texts)."""
    board = Board(variant)
    name = board.variant.name  # the canonical name picks the game's table of levels
    for text in opening:
        board.push_text(text)
    players = {True: white, False: black}
    engines: list[ExternalEngine] = []
    try:
        movers = {}
        for turn, player in players.items():
            if player.command:
                engines.append(ExternalEngine(player.command, name, player.level))
                movers[turn] = _external_mover(engines[-1], player, movetime_ms, name)
            else:
                searcher = Searcher(player.evaluator(board))
                movers[turn] = _searcher_mover(searcher, player, movetime_ms, name, seed)
        while board.ply() < max_plies:
            outcome = board.outcome()
            if outcome is not None:
                score = 1.0 if outcome.winner else 0.0
                return score, board.ply(), outcome.termination.value, [str(m) for m in board.move_stack]
            movers[board.turn](board)
    finally:
        for engine in engines:
            engine.close()
    outcome = board.outcome()
    if outcome is not None:
        return (
            1.0 if outcome.winner else 0.0,
            board.ply(),
            outcome.termination.value,
            [str(m) for m in board.move_stack],
        )
    # Adjudication by the static evaluation (material first) of the game's own evaluator.
    white_view = board.side * evaluator_for(board.variant).evaluate(board)
    moves = [str(m) for m in board.move_stack]
    if white_view >= ADJUDICATION_CP:
        return 1.0, board.ply(), "adjudicated", moves
    if white_view <= -ADJUDICATION_CP:
        return 0.0, board.ply(), "adjudicated", moves
    return 0.5, board.ply(), "move limit", moves


def _searcher_mover(
    searcher: Searcher, player: PlayerConfig, movetime_ms: int | None, variant: str, seed: int
) -> Callable[[Board], None]:
    """Plays this engine's move for ``player`` on the board."""

    def move(board: Board) -> None:
        result = searcher.search(
            board,
            player.limits(movetime_ms, variant),
            options=player.options(variant),
            seed=seed * 1000 + board.ply(),
        )
        board.push(result.best)

    return move


def _external_mover(
    engine: ExternalEngine, player: PlayerConfig, movetime_ms: int | None, variant: str
) -> Callable[[Board], None]:
    """Plays the external engine's move on the board (an illegal answer raises a clear error)."""
    limits = player.limits(movetime_ms, variant)

    def move(board: Board) -> None:
        answer = engine.best_move(
            [str(m) for m in board.move_stack],
            movetime_ms=limits.movetime_ms,
            nodes=limits.nodes,
            depth=player.depth,
        )
        try:
            board.push_text(answer)
        except ExochessError as exc:
            raise ExternalEngineError(f"engine {engine.name!r} played {answer!r}: {exc}") from None

    return move


@dataclass(frozen=True)
class _GameSpec:
    index: int
    variant: str
    a_white: bool
    a: PlayerConfig
    b: PlayerConfig
    opening: tuple[str, ...]
    movetime_ms: int | None
    seed: int


def _play_spec(spec: _GameSpec) -> GameResult:
    white, black = (spec.a, spec.b) if spec.a_white else (spec.b, spec.a)
    score, plies, reason, moves = play_game(
        spec.variant, white, black, list(spec.opening), spec.movetime_ms, spec.seed
    )
    return GameResult("a" if spec.a_white else "b", score, plies, reason, tuple(moves))


@dataclass
class MatchResult:
    """Totals of a match from player A's point of view."""

    games: list[GameResult] = field(default_factory=list)

    def a_score(self, game: GameResult) -> float:
        return game.score if game.white == "a" else 1.0 - game.score

    @property
    def wins(self) -> int:
        return sum(1 for g in self.games if self.a_score(g) == 1.0)

    @property
    def losses(self) -> int:
        return sum(1 for g in self.games if self.a_score(g) == 0.0)

    @property
    def draws(self) -> int:
        return len(self.games) - self.wins - self.losses

    @property
    def score(self) -> float:
        """A's points."""
        return sum(self.a_score(g) for g in self.games)

    def elo(self) -> tuple[float, float, float]:
        """(Elo difference A - B, low, high) of the 95% interval; infinities when a side scored 100%."""
        return elo_interval([self.a_score(g) for g in self.games])

    def pair_scores(self) -> list[float]:
        """A's points in each complete pair of games (0, 0.5, 1, 1.5 or 2), in pair order."""
        scores = [self.a_score(g) for g in self.games]
        return [scores[i] + scores[i + 1] for i in range(0, len(scores) - 1, 2)]

    def pentanomial(self) -> tuple[int, int, int, int, int]:
        """How many pairs A scored 0, 0.5, 1, 1.5 and 2 points in."""
        return pentanomial(self.pair_scores())


def elo_from_score(s: float) -> float:
    """Elo difference that makes the expected score ``s`` (0..1)."""
    if s <= 0.0:
        return -math.inf
    if s >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / s - 1.0)


def elo_interval(scores: list[float]) -> tuple[float, float, float]:
    """Elo estimate and 95% interval from per-game scores (normal approximation of the mean)."""
    n = len(scores)
    if n == 0:
        return 0.0, -math.inf, math.inf
    mean = sum(scores) / n
    var = sum((x - mean) ** 2 for x in scores) / n
    se = math.sqrt(var / n)
    if se == 0.0:
        # Every game had the same result: use the rule of three for the interval's far end.
        bound = 1.0 - 3.0 / n if n > 3 else 0.5
        if mean >= 1.0:
            return math.inf, elo_from_score(bound), math.inf
        if mean <= 0.0:
            return -math.inf, -math.inf, elo_from_score(1.0 - bound)
        return elo_from_score(mean), elo_from_score(mean), elo_from_score(mean)
    # Clamp to half a point from a perfect score: the normal approximation says nothing beyond.
    floor = 0.5 / n
    lo = min(mean, max(floor, mean - 1.96 * se))
    hi = max(mean, min(1 - floor, mean + 1.96 * se))
    return elo_from_score(mean), elo_from_score(lo), elo_from_score(hi)


def game_specs(
    variant: str,
    a: PlayerConfig,
    b: PlayerConfig,
    games: int,
    movetime_ms: int | None,
    seed: int = 1,
    opening_plies: int = 4,
    balance_cp: int = OPENING_BALANCE_CP,
) -> Iterator[_GameSpec]:
    """The games of a match: pairs from one balanced random opening each, colours alternating."""
    resolve_variant(variant)  # an unknown game fails here, before any game starts
    rng = random.Random(seed)
    opening: list[str] = []
    for i in range(games):
        if i % 2 == 0:
            opening = balanced_opening(variant, opening_plies, rng, balance_cp)
        yield _GameSpec(i, variant, i % 2 == 0, a, b, tuple(opening), movetime_ms, seed * 100_003 + i)


def _resumed(specs: Iterator[_GameSpec], previous: Sequence[GameResult]) -> Iterator[_GameSpec]:
    """The games after ``previous`` (a match's games so far, from its record).

    Each earlier game must be the one these settings give at its place: the same colours and
    the same opening moves.  A record from another seed, opening rule or game fails here
    (:class:`MatchConfigError`, naming the game), before anything is played.
    """
    for spec in specs:
        if spec.index < len(previous):
            game = previous[spec.index]
            opening = game.moves[: len(spec.opening)]
            if (game.white == "a") != spec.a_white or opening != spec.opening:
                raise MatchConfigError(
                    f"the record's game {spec.index + 1} does not follow from these settings: it opened "
                    f"{' '.join(opening) or '(nothing)'} with {game.white.upper()} as White, where they give "
                    f"{' '.join(spec.opening) or '(nothing)'} with {'A' if spec.a_white else 'B'} as White"
                )
            continue
        yield spec


def default_jobs() -> int:
    """Games played at once by default: one per core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on every platform
        return max(1, os.cpu_count() or 1)


def _play_in_order(specs: Iterable[_GameSpec], jobs: int) -> Generator[GameResult, None, None]:
    """Play the games and yield their results in the order of ``specs``, whatever order they end in.

    With ``jobs`` > 1 each game runs in a fresh process of its own
    (:func:`~exochess_lab.parallel.map_in_processes`); closing the iterator early (an
    SPRT verdict) stops the games still running.  ``jobs`` = 1 plays in this process, one
    game after another.
    """
    if jobs <= 1:
        for spec in specs:
            yield _play_spec(spec)
        return
    yield from map_in_processes(_play_spec, specs, jobs)


def run_match(
    variant: str,
    a: PlayerConfig,
    b: PlayerConfig,
    games: int,
    movetime_ms: int | None = None,
    *,
    seed: int = 1,
    opening_plies: int = 4,
    balance_cp: int = OPENING_BALANCE_CP,
    jobs: int = 1,
    progress: Callable[[MatchResult], None] | None = None,
    on_game: Callable[[GameResult], None] | None = None,
    previous: Sequence[GameResult] = (),
) -> MatchResult:
    """Play ``games`` games between A and B and return the totals; ``on_game`` sees each game
    as it is taken, in order (a record written as the match goes).

    ``previous`` resumes a stopped match: its games count towards ``games`` and the match
    plays on from the next one (checked to be the same match by :func:`_resumed`).
    """
    result = MatchResult(list(previous))
    specs = _resumed(game_specs(variant, a, b, games, movetime_ms, seed, opening_plies, balance_cp), previous)
    for game in _play_in_order(specs, jobs):
        result.games.append(game)
        if on_game is not None:
            on_game(game)
        if progress is not None:
            progress(result)
    return result


@dataclass(frozen=True)
class SprtStatus:
    """Where a sequential test stands after a pair of games."""

    pairs: int
    counts: tuple[int, int, int, int, int]
    """Pairs in which A scored 0, 0.5, 1, 1.5, 2 points."""
    llr: float
    bounds: tuple[float, float]
    elo: tuple[float, float, float]
    """(estimate, low, high) of the 95% interval, logistic Elo A - B."""
    verdict: str | None
    """``"H1"``, ``"H0"``, or None while the test goes on (and when the cap stopped it)."""


def sprt_status(result: MatchResult, test: Sprt) -> SprtStatus:
    """The test's state for the complete pairs of ``result``."""
    counts = result.pentanomial()
    return SprtStatus(
        sum(counts), counts, test.llr(counts), test.bounds, elo_estimate(counts), test.verdict(counts)
    )


def run_sprt(
    variant: str,
    a: PlayerConfig,
    b: PlayerConfig,
    test: Sprt,
    max_games: int,
    movetime_ms: int | None = None,
    *,
    seed: int = 1,
    opening_plies: int = 4,
    balance_cp: int = OPENING_BALANCE_CP,
    jobs: int = 1,
    progress: Callable[[SprtStatus], None] | None = None,
    on_game: Callable[[GameResult], None] | None = None,
    previous: Sequence[GameResult] = (),
) -> tuple[MatchResult, SprtStatus]:
    """Play pairs until the test accepts H0 or H1, or ``max_games`` (rounded up to pairs) are played.
    ``on_game`` sees each game as it is taken, in order.

    Pairs are judged in their order whatever order their games end in, so a run with node
    budgets gives the same games, the same counts and the same verdict for any ``jobs``.
    ``previous`` resumes a stopped test (as in :func:`run_match`): its pairs count first,
    ``progress`` sees where they leave the test before any game is played, and a test they
    decide already plays nothing more.
    """
    pairs = (max_games + 1) // 2
    result = MatchResult(list(previous))
    status = sprt_status(result, test)
    if status.pairs and progress is not None:
        progress(status)
    if status.verdict is not None:
        return result, status
    specs = game_specs(variant, a, b, 2 * pairs, movetime_ms, seed, opening_plies, balance_cp)
    specs = _resumed(specs, previous)
    games = _play_in_order(specs, jobs)
    try:
        for game in games:
            result.games.append(game)
            if on_game is not None:
                on_game(game)
            if len(result.games) % 2:
                continue
            status = sprt_status(result, test)
            if progress is not None:
                progress(status)
            if status.verdict is not None:
                break
    finally:
        games.close()
    return result, status
