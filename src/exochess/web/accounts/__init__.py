"""Accounts: users and passwords (``users``), server-side sessions (``sessions``) and Glicko-2
ratings (``ratings``).

Imports the foundation and :mod:`exochess.web.storage`.
"""
