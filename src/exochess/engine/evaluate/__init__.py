"""Evaluation per game.  :func:`evaluator_for` finds a game's evaluator through its variant.

A game names its evaluator in :attr:`exochess.variant.Variant.evaluator` (a
``"module:Class"`` string, so that the rules never import the engine); a game
that names none plays with :class:`GenericEvaluator`.
"""

from __future__ import annotations

import importlib
from functools import cache

from exochess.engine.evaluate.base import Evaluator, GenericEvaluator
from exochess.variant import Variant


def evaluator_class(variant: Variant) -> type[Evaluator]:
    """The evaluator class of a game (:class:`GenericEvaluator` when the game names none).

    >>> from exochess import find_variant
    >>> evaluator_class(find_variant("fugue")).__name__
    'FugueEvaluator'
    """
    if not variant.evaluator:
        return GenericEvaluator
    module_name, _, class_name = variant.evaluator.partition(":")
    found = getattr(importlib.import_module(module_name), class_name)
    if not (isinstance(found, type) and issubclass(found, Evaluator)):
        raise TypeError(f"{variant.name}: {variant.evaluator} is not an Evaluator subclass")
    return found


@cache
def evaluator_for(variant: Variant) -> Evaluator:
    """The (shared, read-only) evaluator of a game."""
    return evaluator_class(variant)(variant)


__all__ = ["Evaluator", "GenericEvaluator", "evaluator_class", "evaluator_for"]
