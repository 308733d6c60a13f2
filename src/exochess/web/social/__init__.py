"""Where players meet: the lobby's challenges and live games (``lobby``), chat in a game
(``chat``); both limited through :class:`~exochess.web.limits.RateLimits` (the limits
``lobby`` and ``chat``; a lobby socket's own messages, ``lobby-messages``, are counted by its
route with :class:`~exochess.web.limits.MessageLimit`).

Imports everything below it (foundation, storage, limits, accounts, game); never HTTP.
"""
