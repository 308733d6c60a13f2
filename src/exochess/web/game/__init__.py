"""The live game. ``service`` is the one orchestrator (a move from request to store and broadcast);
beside it, the collaborators it hands each step to: ``live`` (a game in memory), ``cache``
(loading, replaying, forgetting), ``reader`` (the read side: a game fetched up to date, its
state and presence sent), ``moves`` (playing a move through the storage's ``MoveStore``),
``finisher`` (resign, abort, flag, claims), ``takebacks`` (takebacks and rematches),
``computer`` (the computer's turns), ``sync`` (other servers' moves), ``clockwatch`` (deadline
timers), ``recovery`` (games picked up again after a start), ``newgames``, ``jsonview`` and
``statemodel`` (the state watchers receive, and its typed model), ``analysis`` (free positions).
Clocks and time controls (``clock``, ``timecontrol``), boards as JSON (``positions``,
``history``, ``legalview``), the PGN of a stored game (``pgnexport``) and the engine jobs of
Redis mode (``jobs``, its analyses in ``jobanalysis``).

Imports the foundation, :mod:`~exochess.web.storage`, :mod:`~exochess.web.compute`,
:mod:`~exochess.web.live` and :mod:`~exochess.web.accounts`; never HTTP.
"""
