"""Fair play: no engine help in a game between people while it is being played.

An evaluation or an analysis of a game's position is outside help to whoever reads it (a
player, a friend watching, a second account).  The server cannot tell who relays a score to
whom, so it refuses every engine request about a game between two people until that game is
over, whoever asks (docs/web.md, "Fair play").  The same holds for a rated game against a
house bot (the computer's seat held by its bot account, issue 47): a rating must be earned
without help.  Other games against the computer keep their evaluation (their player's own
business), and any finished or aborted game may be analysed.

What is not detected: a position copied by hand onto the analysis board (``/analysis``) or
into another program is a free position like any other, as on lichess.
"""

from __future__ import annotations

from exochess.web.domain import N_, Color, EngineWithheld, GameStatus, PlayerKind
from exochess.web.storage.store import GameRow

ANALYSIS_AFTER_THE_GAME = N_("analysis after the game: no engine while a game between people is on")
"""The refusal's text (and the page's note says the same in short)."""
ANALYSIS_AFTER_A_RATED_GAME = N_("analysis after the game: no engine while a rated game is on")
"""The refusal's text in a rated game against a house bot."""


def between_people_in_play(row: GameRow) -> bool:
    """Whether the game is one between two people that is still being played."""
    return row.status == GameStatus.ACTIVE and all(row.kind_of(c) == PlayerKind.HUMAN for c in Color)


def refuse_engine_help(row: GameRow) -> None:
    """Raise :class:`~exochess.web.domain.EngineWithheld` (403) if no engine may look at the game
    now: one between people, or a rated one, while it is played."""
    if between_people_in_play(row):
        raise EngineWithheld(ANALYSIS_AFTER_THE_GAME)
    if row.status == GameStatus.ACTIVE and row.rated:
        raise EngineWithheld(ANALYSIS_AFTER_A_RATED_GAME)
