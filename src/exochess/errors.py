"""Exceptions raised by exochess; all derive from :class:`ExochessError`.

Every message names the problem in words a player understands, so interfaces
can show ``str(error)`` directly.
"""

from __future__ import annotations


class ExochessError(ValueError):
    """Base class of every error caused by bad input to exochess.

    A message made as a :class:`~exochess.phrase.Phrase` stays one through ``str(error)``, so
    an interface can translate it.
    """

    def __str__(self) -> str:
        # str(error) hands back the message itself: a Phrase keeps its template and fields
        if len(self.args) == 1 and isinstance(self.args[0], str):
            return self.args[0]
        return super().__str__()


class UnknownVariantError(ExochessError):
    """A variant name or alias that exochess does not know."""


class FenError(ExochessError):
    """A FEN that is malformed or describes an impossible position."""


class MoveSyntaxError(ExochessError):
    """Move text that does not follow the move grammar at all."""


class IllegalMoveError(ExochessError):
    """A well-formed move that is not legal in the current position."""
