"""Evaluation per game.  :func:`evaluator_for` picks the module of a variant."""

from __future__ import annotations

from functools import cache

from exochess.engine.evaluate.base import Evaluator, GenericEvaluator
from exochess.variant import Variant


def _classes() -> dict[str, type[Evaluator]]:
    from exochess.engine.evaluate.fugue import FugueEvaluator

    table: dict[str, type[Evaluator]] = {"fugue": FugueEvaluator}
    try:
        from exochess.engine.evaluate.interweave import InterweaveEvaluator

        table["interweave"] = InterweaveEvaluator
    except ImportError:  # pragma: no cover - the game is not on this branch yet
        pass
    try:
        from exochess.engine.evaluate.rebelfury import RebelFuryEvaluator

        table["rebelfury"] = RebelFuryEvaluator
    except ImportError:  # pragma: no cover
        pass
    return table


@cache
def evaluator_for(variant: Variant) -> Evaluator:
    """The (shared, read-only) evaluator of a game; generic if the game has no module."""
    cls = _classes().get(variant.name, GenericEvaluator)
    return cls(variant)


__all__ = ["Evaluator", "GenericEvaluator", "evaluator_for"]
