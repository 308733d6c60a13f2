"""Storage: the site's database (SQLAlchemy 2 on SQLite or PostgreSQL), its tables and queries,
the threads that run storage calls and the group commit of moves.

Imports from :mod:`exochess.web` only its foundation (``domain``, ``metrics``); nothing here
knows about games in play, HTTP or websockets.
"""
