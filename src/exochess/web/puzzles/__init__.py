"""Puzzles on the site: the games' collections served near a player's puzzle rating
(``catalogue``: themes in words, the daily puzzle, a streak's ladder), an attempt judged move by
move (``judge``, CPU work), the ratings of players and puzzles and the accounts' history
(``records``, Glicko-2 of :mod:`exochess.web.accounts.ratings`), and the orchestration with the
engine, which decides whether a move other than the solution's wins as clearly (``service``).

Imports the foundation, :mod:`~exochess.web.storage`, :mod:`~exochess.web.compute`,
:mod:`~exochess.web.limits`, :mod:`~exochess.web.accounts` and :mod:`~exochess.web.game`; never HTTP.
"""
