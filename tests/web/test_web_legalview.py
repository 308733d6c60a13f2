"""The legal-move view a live game keeps is JSON text the garbage collector does not walk."""

from __future__ import annotations

import gc
import json

from exochess.board import Board
from exochess.web.game.legalview import EMPTY, LegalView
from exochess.web.game.positions import game_view


def test_a_kept_view_holds_no_tracked_containers_and_decodes_to_the_tree() -> None:
    view = game_view(Board("rebelfury"))
    kept = LegalView.of(view)
    assert kept.count == view["count"] == 118
    assert json.loads(kept.actions) == view["actions"]
    assert json.loads(kept.annotations) == view["annotations"]
    # text only: nothing inside for the collector to traverse
    assert not any(gc.is_tracked(part) for part in (kept.actions, kept.annotations, kept.error))


def test_a_position_too_large_keeps_its_error_and_no_moves() -> None:
    kept = LegalView.too_large("too many moves")
    assert (kept.count, json.loads(kept.actions), json.loads(kept.annotations)) == (0, [], None)
    assert kept.error == "too many moves"
    assert EMPTY.error is None and json.loads(EMPTY.actions) == []
