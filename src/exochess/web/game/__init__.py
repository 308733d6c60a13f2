"""The live game: the game service that orchestrates a move from request to store and
broadcast (``service``), clocks and time controls (``clock``, ``timecontrol``), boards as JSON
(``positions``, ``history``, ``legalview``), the PGN of a stored game (``pgnexport``) and the
engine jobs of Redis mode (``jobs``).

Imports the foundation, :mod:`~exochess.web.storage`, :mod:`~exochess.web.compute`,
:mod:`~exochess.web.live` and :mod:`~exochess.web.accounts`; never HTTP.
"""
