"""Interweave (Peter Aronson, 2002): everything about the game lives in this folder.

* ``rules.py``: the :class:`~exochess.variant.Variant` subclass (metadata, move generation, FEN extra);
* ``evaluation.py``: the engine's evaluation and level table (loaded only by the engine);
* ``rules.md``: the rules page of the web site, with diagrams;
* ``decisions.md``: how the questions the original rules leave open were decided.
"""

from exochess.variants.interweave.rules import Interweave

__all__ = ["Interweave"]
