"""Where players meet: the lobby's challenges and live games (``lobby``), chat in a game
(``chat``) and the token buckets that tell a person from a flood (``throttle``).

Imports everything below it (foundation, storage, accounts, game); never HTTP.
"""
