"""Where players meet: the lobby's challenges and live games (``lobby``), chat in a game
(``chat``); both limited through :class:`~exochess.web.limits.RateLimits` (the limits
``lobby``, ``lobby-messages`` and ``chat``).

Imports everything below it (foundation, storage, limits, accounts, game); never HTTP.
"""
