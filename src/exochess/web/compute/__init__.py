"""Compute: CPU-heavy work off the event loop (``cpuwork``) and the engine's worker processes
(``enginepool``): bounded, prioritised, cancellable.

Imports the foundation (``domain``, ``metrics``), the thread job of
:mod:`~exochess.web.storage.threads` and the engine; never a game in play.
"""
