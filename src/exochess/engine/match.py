"""Engine-versus-engine matches: players, games from varied openings, Elo.

A player is a level (``"5"``) or a configuration of ``key=value`` pairs
separated by commas::

    level=8,depth=4,noise=0,movetime=200,nodes=20000,quiescence=0,pruning=0,Q=900,I=650

``level`` picks the base level (default 8); ``depth``, ``noise``,
``quiescence``, ``pruning`` override its search options; ``movetime`` (ms) and
``nodes`` fix the budget of every move; ``aspiration``, ``null_move``, ``razoring``,
``lmr`` and ``royal_extension`` (0 or 1) switch those search features (otherwise the level's share of the
match move time); ``mobility`` sets the evaluation's centipawns per square of
mobility (0 turns the term off); a single upper-case letter overrides that
piece's material value in the evaluation (used to fit values by self-play,
``docs/engine.md``).

Games are played in pairs from the same random opening (a few random plies),
each player having White once, so the opening's bias cancels out.  The games
have no draw rule; a game still going after :data:`MAX_PLIES` plies is
adjudicated by the static evaluation: a lead of :data:`ADJUDICATION_CP` wins,
anything closer is a draw.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace

from exochess.board import Board
from exochess.engine.evaluate import Evaluator, evaluator_for
from exochess.engine.levels import level as get_level
from exochess.engine.limits import Limits
from exochess.engine.search import Searcher, SearchOptions
from exochess.errors import ExochessError
from exochess.rawmove import to_move
from exochess.variant import resolve_variant

MAX_PLIES = 300
"""A game still running after this many plies is adjudicated (the games have no draw rule)."""
ADJUDICATION_CP = 200
"""At the move limit the side ahead by this much in the static evaluation wins; otherwise a draw."""


SEARCH_SWITCHES = ("aspiration", "null_move", "razoring", "lmr", "royal_extension")
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
    pruning: bool | None = None
    movetime_ms: int | None = None
    nodes: int | None = None
    values: tuple[tuple[str, int], ...] = field(default=())
    mobility: int | None = None
    """Centipawns per square of mobility in the evaluation (None: the game's own weight)."""
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
            elif key == "movetime":
                fields["movetime_ms"] = int(value)
            elif key in ("quiescence", "pruning"):
                fields[key] = value.lower() in ("1", "yes", "true", "on")
            elif key in SEARCH_SWITCHES:
                switches.append((key, value.lower() in ("1", "yes", "true", "on")))
            else:
                raise MatchConfigError(
                    f"unknown player setting {key!r} (level, depth, noise, movetime, nodes, quiescence, "
                    f"pruning, mobility, {', '.join(SEARCH_SWITCHES)}, or a piece letter)"
                )
        except ValueError:
            raise MatchConfigError(f"{key} needs a number, got {value!r}") from None
    return PlayerConfig(label=text, values=tuple(values), switches=tuple(switches), **fields)  # type: ignore[arg-type]


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
    searchers = {turn: Searcher(player.evaluator(board)) for turn, player in players.items()}
    while board.ply() < max_plies:
        outcome = board.outcome()
        if outcome is not None:
            score = 1.0 if outcome.winner else 0.0
            return score, board.ply(), outcome.termination.value, [str(m) for m in board.move_stack]
        p = players[board.turn]
        result = searchers[board.turn].search(
            board, p.limits(movetime_ms, name), options=p.options(name), seed=seed * 1000 + board.ply()
        )
        board.push(result.best)
    outcome = board.outcome()
    if outcome is not None:
        return 1.0 if outcome.winner else 0.0, board.ply(), outcome.termination.value, [
            str(m) for m in board.move_stack
        ]
    # Adjudication by the static evaluation (material first) of the game's own evaluator.
    white_view = board.side * evaluator_for(board.variant).evaluate(board)
    moves = [str(m) for m in board.move_stack]
    if white_view >= ADJUDICATION_CP:
        return 1.0, board.ply(), "adjudicated", moves
    if white_view <= -ADJUDICATION_CP:
        return 0.0, board.ply(), "adjudicated", moves
    return 0.5, board.ply(), "move limit", moves


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
) -> Iterator[_GameSpec]:
    """The games of a match: pairs from one random opening each, colours alternating."""
    resolve_variant(variant)  # an unknown game fails here, before any game starts
    rng = random.Random(seed)
    opening: list[str] = []
    for i in range(games):
        if i % 2 == 0:
            opening = random_opening(variant, opening_plies, rng)
        yield _GameSpec(i, variant, i % 2 == 0, a, b, tuple(opening), movetime_ms, seed * 100_003 + i)


def run_match(
    variant: str,
    a: PlayerConfig,
    b: PlayerConfig,
    games: int,
    movetime_ms: int | None = None,
    *,
    seed: int = 1,
    opening_plies: int = 4,
    jobs: int = 1,
    progress: Callable[[MatchResult], None] | None = None,
) -> MatchResult:
    """Play ``games`` games between A and B and return the totals."""
    result = MatchResult()
    specs = list(game_specs(variant, a, b, games, movetime_ms, seed, opening_plies))
    if jobs <= 1:
        for spec in specs:
            result.games.append(_play_spec(spec))
            if progress is not None:
                progress(result)
        return result
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for game in pool.map(_play_spec, specs):
            result.games.append(game)
            if progress is not None:
                progress(result)
    return result
