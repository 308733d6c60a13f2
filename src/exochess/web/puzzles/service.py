"""``PuzzleService``: puzzles served, attempts judged and recorded, with the engine for the moves
the solution does not list.

A move other than the solution's is accepted (decision 0024) when it wins the game at once or
the collection lists it (both decided by :mod:`~exochess.web.puzzles.judge`), or when the engine
agrees it wins as clearly: one analysis of the position after it (charged to the player, bounded
like every analysis by the engine pool, counted against the ``puzzle-checks`` rate limit) must
find

* for a solution that ends the game: a forced win for the solver, no longer than the solution's
  remaining plies;
* for a solution that wins material: a forced win, or a score of at least :data:`DECISIVE_CP`
  for the solver that is within :data:`MARGIN_CP` of the score of the solution's own move (a
  second analysis, of the same length).

Without an engine on the server only the exact checks apply.
"""

from __future__ import annotations

import random
from typing import Any

from exochess.puzzles import WINNING_CP, Puzzle
from exochess.web.accounts.ratings import Rating
from exochess.web.domain import N_, TooManyAttempts
from exochess.web.game.service import GameService
from exochess.web.limits import RateLimits, client_key
from exochess.web.puzzles import catalogue, records
from exochess.web.puzzles.judge import (
    CHECK,
    FAILED,
    PLAYING,
    SOLVED,
    Verdict,
    attempt_position,
    judge,
    solution_position,
    start_position,
)

CHECK_MS = 700
"""The engine's thinking time for each position of a check (a forced win of a few plies is found
in far less; the analysis cap of the pool bounds it anyway)."""
DECISIVE_CP = WINNING_CP
"""The least score (centipawns, the solver's side) of a winning move that is not a forced win:
the generator's own bar, so that a move the generator would have called a second winning move
(the puzzle then not unique) is the only kind accepted (a lower bar accepted moves it had
rightly judged worse, such as +332 beside the solution's +458)."""
MARGIN_CP = 150
"""How much less than the solution's move an accepted move may score."""
CHECKS = "puzzle-checks"
"""The rate limit counted by each engine check (limits/catalogue.py)."""


def _rating_json(rating: Rating) -> dict[str, Any]:
    return {
        "rating": round(rating.rating),
        "rd": round(rating.rd, 2),
        "volatility": round(rating.volatility, 6),
        "provisional": rating.provisional,
    }


def _solver_view(analysis: dict[str, Any]) -> tuple[int | None, int]:
    """(plies to the solver's forced win or None, score for the solver) of an analysis of a
    position where the solver's opponent is to move."""
    mate = analysis.get("mate")
    won = -mate if isinstance(mate, int) and mate < 0 else None
    return won, -int(analysis.get("score_cp") or 0)


def engine_accepts(
    verdict: Verdict, after: dict[str, Any], best: dict[str, Any] | None = None
) -> bool | None:
    """Whether the engine's analysis ``after`` the solver's move (off the solution) shows it
    winning as clearly as the solution (see the module docstring); None when that takes
    ``best``, the analysis after the solution's own move, of the same length."""
    won, score = _solver_view(after)
    if verdict.ends_game:
        return won is not None and won <= verdict.remaining
    if won is not None:
        return True
    if score < DECISIVE_CP:
        return False
    if best is None:
        return None
    best_won, best_score = _solver_view(best)
    return best_won is None and score >= best_score - MARGIN_CP


class PuzzleService:
    """The puzzles of the site, over the game service's pools, database and engine."""

    def __init__(self, games: GameService, limits: RateLimits, check_ms: int = CHECK_MS) -> None:
        self.games = games
        self.limits = limits
        self.check_ms = check_ms
        self.rng = random.Random()

    @property
    def _engine(self) -> Any:
        return self.games.storage.engine

    async def _public(self, puzzle: Puzzle, rating: float | None = None) -> dict[str, Any]:
        """A puzzle as a client gets it: everything but the solution, with its position."""
        if rating is None:
            rating = (await self.games.db(records.puzzle_rating, self._engine, puzzle)).rating
        start = await self.games.cpu_games.run("listing the puzzle's moves", start_position, puzzle)
        return {
            "id": puzzle.id,
            "variant": puzzle.variant,
            "fen": puzzle.fen,
            "rating": round(rating),
            "themes": list(puzzle.themes),
            "moves": puzzle.solver_moves,
            **start,
        }

    async def player(self, user_id: int | None, game: str) -> dict[str, Any] | None:
        """The account's puzzle standing in ``game`` (None for a guest)."""
        if user_id is None:
            return None
        name, _puzzles = catalogue.collection(game)
        standing = await self.games.db(records.player_puzzles, self._engine, user_id, name)
        return {**_rating_json(standing.rating), "plays": standing.plays, "best_streak": standing.best_streak}

    async def next(
        self,
        game: str,
        user_id: int | None,
        guest: Rating | None,
        exclude: set[str],
        theme: str | None,
        streak: int | None,
    ) -> dict[str, Any]:
        """A puzzle for the player: near their puzzle rating (a streak's: near its ladder's
        step), with ``theme``, not among ``exclude`` nor (an account) its latest plays."""
        name, puzzles = catalogue.collection(game)
        ratings = await self.games.db(records.puzzle_ratings_of, self._engine, name)
        if streak is not None:
            target: float = catalogue.streak_target(streak)
        elif user_id is not None:
            target = (await self.games.db(records.player_puzzles, self._engine, user_id, name)).rating.rating
        else:
            target = guest.rating if guest is not None else Rating().rating
        if user_id is not None and streak is None:
            exclude = exclude | await self.games.db(records.recent_puzzles, self._engine, user_id, name)
        puzzle = catalogue.pick(puzzles, ratings, target, exclude=exclude, theme=theme, rng=self.rng)
        reply = await self._public(puzzle, ratings.get(puzzle.id, float(puzzle.rating)))
        reply["target"] = round(target)
        return reply

    async def one(self, game: str, puzzle_id: str) -> dict[str, Any]:
        """The puzzle ``puzzle_id`` of ``game``."""
        return await self._public(catalogue.find(game, puzzle_id))

    async def daily(self, game: str) -> dict[str, Any]:
        """Today's puzzle of ``game`` (UTC)."""
        name, puzzles = catalogue.collection(game)
        day = catalogue.today()
        reply = await self._public(catalogue.daily(puzzles, name, day))
        reply["day"] = day.isoformat()
        return reply

    async def _engine_accepts(self, puzzle: Puzzle, verdict: Verdict, client: str | None, owner: str) -> bool:
        """Whether the engine finds the solver's last move (off the solution) as winning as the
        solution's (see the module docstring)."""
        if self.games.pool is None:
            return False
        refusal = await self.limits.hit(CHECKS, client_key(client))
        if refusal is not None:
            raise TooManyAttempts(
                N_("too many puzzle moves for the engine to check; try again in {seconds} s"),
                retry_after=refusal.retry_s,
                seconds=refusal.retry_s,
            )
        evaluate = self.games.computer.evaluate
        after = await evaluate(puzzle.variant, puzzle.fen, verdict.line, self.check_ms, client, owner)
        verdict_now = engine_accepts(verdict, after)
        if verdict_now is not None or verdict.departed is None:
            return bool(verdict_now)
        theirs = [*verdict.line[:-1], puzzle.solution[verdict.departed]]
        best = await evaluate(puzzle.variant, puzzle.fen, theirs, self.check_ms, client, owner)
        return bool(engine_accepts(verdict, after, best))

    async def _result(
        self, puzzle: Puzzle, solved: bool, mode: str, streak: int, user_id: int | None, guest: Rating | None
    ) -> dict[str, Any]:
        """Record a finished attempt: the account's play (and ratings), or a guest's new rating."""
        if user_id is not None:
            result = await self.games.db(
                records.record_play, self._engine, user_id, puzzle, solved, mode, streak
            )
            return {
                "rated": result.rated,
                "rating": {
                    **_rating_json(result.after),
                    "before": round(result.before.rating),
                    "diff": round(result.after.rating) - round(result.before.rating),
                },
                "puzzle_rating": round(result.puzzle_after),
                "best_streak": result.best_streak,
            }
        if guest is None or mode != records.RATED:
            return {"rated": False, "rating": None}
        current = await self.games.db(records.puzzle_rating, self._engine, puzzle)
        after = records.guest_result(guest, current, solved)
        return {
            "rated": True,
            "rating": {
                **_rating_json(after),
                "before": round(guest.rating),
                "diff": round(after.rating) - round(guest.rating),
            },
            "puzzle_rating": round(current.rating),
        }

    async def attempt(
        self,
        game: str,
        puzzle_id: str,
        moves: list[str],
        prefix: list[str],
        *,
        mode: str,
        streak: int,
        user_id: int | None,
        guest: Rating | None,
        client: str | None,
        owner: str,
    ) -> dict[str, Any]:
        """The attempt after the solver's ``moves``: its status, the line played (the opponent's
        replies included), the position; once over, what it changed (see :meth:`_result`)."""
        puzzle = catalogue.find(game, puzzle_id)
        verdict, position = await self.games.cpu_games.run(
            "judging the puzzle", attempt_position, puzzle, moves, prefix
        )
        if verdict.status == CHECK:
            accepted = await self._engine_accepts(puzzle, verdict, client, owner)
            verdict.status, verdict.alternative = (SOLVED, True) if accepted else (FAILED, False)
        reply: dict[str, Any] = {
            "status": verdict.status,
            "alternative": verdict.alternative,
            "line": verdict.line,
            "position": position,
        }
        if verdict.status != PLAYING:
            reply.update(await self._result(puzzle, verdict.status == SOLVED, mode, streak, user_id, guest))
        return reply

    async def solution(
        self,
        game: str,
        puzzle_id: str,
        moves: list[str],
        *,
        mode: str,
        streak: int,
        user_id: int | None,
        guest: Rating | None,
    ) -> dict[str, Any]:
        """The solution, to be played on the board: asked before the attempt was over, it
        counts as a failed attempt (recorded as one)."""
        puzzle = catalogue.find(game, puzzle_id)
        verdict, _board = await self.games.cpu_games.run("judging the puzzle", judge, puzzle, moves)
        position = await self.games.cpu_games.run("playing the solution", solution_position, puzzle)
        reply: dict[str, Any] = {"solution": list(puzzle.solution), "position": position, "recorded": False}
        if verdict.status == PLAYING:  # given up: a failure (one already over was recorded then)
            reply.update(await self._result(puzzle, False, mode, streak, user_id, guest))
            reply["recorded"] = True
        return reply
