"""How many objects the garbage collector tracks in a live game's legal-move view (issue 17):
the view as dicts and lists, as positions.game_view builds it, against the JSON text the server
keeps (web/game/legalview.py).  Deterministic: counts, not times.

    PYTHONPATH=src python bench/gc_tracked.py
"""

from __future__ import annotations

import gc

from exochess.board import Board
from exochess.variants import all_variants
from exochess.web.game.legalview import LegalView
from exochess.web.game.positions import game_view


def tracked(root: object) -> int:
    """Objects the collector tracks among those reachable from ``root`` (classes excluded:
    they are there anyway)."""
    seen: set[int] = set()
    stack = [root]
    count = 0
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if gc.is_tracked(obj) and not isinstance(obj, type):
            count += 1
            stack.extend(gc.get_referents(obj))
    return count


def main() -> None:
    for variant in all_variants():
        view = game_view(Board(variant.name))
        gc.collect()  # untracks the tuples of atoms, as the server's first young pass would
        kept = LegalView.of(view)
        print(
            f"{variant.name} start: {view['count']} moves; view as dicts/lists: {tracked(view)} "
            f"tracked objects; as JSON text: {tracked(kept)} "
            f"({len(kept.actions) + len(kept.annotations)} characters)"
        )


if __name__ == "__main__":
    main()
