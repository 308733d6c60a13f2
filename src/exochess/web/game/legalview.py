"""A live game's legal-move view kept as JSON text, out of the garbage collector's sight.

A server holds one view per live game for as long as the game waits for its next move: a
tree of actions made of small dicts and lists (about 350 container objects for an Interweave
position, thousands for a large one).  The collector tracks every such container, and as
they live for seconds they all survive into the older generations, where each pass walks
them again: under load they were most of what a generation-1 pass traversed (issue 17).  Text
is never tracked, so the view is encoded once, in the worker thread that computes it, and
spliced as it is into every state sent to the watchers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson


@dataclass(frozen=True, slots=True)
class LegalView:
    """The legal moves of a position as the game state carries them: ``count`` moves, the
    action tree and the rule annotations as JSON text, or the ``error`` of a position too
    large to list (then no actions)."""

    count: int
    actions: str
    """JSON text of the action tree (a list)."""
    annotations: str
    """JSON text of the position's rule annotations (an object, or ``null``)."""
    error: str | None = None

    @classmethod
    def of(cls, view: dict[str, Any]) -> LegalView:
        """Encode a view as :func:`exochess.web.game.positions.game_view` builds it (CPU work)."""
        return cls(
            view["count"],
            orjson.dumps(view["actions"]).decode(),
            orjson.dumps(view.get("annotations")).decode(),
            view.get("error"),
        )

    @classmethod
    def too_large(cls, error: str) -> LegalView:
        """The empty view of a position with too many moves to serve, naming why."""
        return cls(0, "[]", "null", error)


EMPTY = LegalView(0, "[]", "null")
"""No legal moves to show (a game over, or a view not computed yet)."""
