"""Exceptions raised by exochess; all derive from :class:`ExochessError`.

Every message names the problem in words a player understands, so interfaces
can show ``str(error)`` directly.
"""

from __future__ import annotations


class ExochessError(ValueError):
    """Base class of every error caused by bad input to exochess."""


class UnknownVariantError(ExochessError):
    """A variant name or alias that exochess does not know."""


class FenError(ExochessError):
    """A FEN that is malformed or describes an impossible position."""


class MoveSyntaxError(ExochessError):
    """Move text that does not follow the move grammar at all."""


class IllegalMoveError(ExochessError):
    """A well-formed move that is not legal in the current position."""
