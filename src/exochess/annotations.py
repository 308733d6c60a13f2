"""Rule states of a position, for showing them: which pieces are held, which squares are watched.

A game's rules decide moves from states that the pieces alone do not show: a Fugue piece next
to an enemy Immobilizer cannot move, a Rebel Fury Gorgon's gaze petrifies what it sees, an
Interweave capture is compulsory.  :meth:`exochess.board.Board.annotations` reports them as
an :class:`Annotations` value, each state with a sentence saying why, so that an interface
can draw them and explain a piece that cannot move.  The values are plain and game-neutral;
each game computes its own in ``variants/<game>/annotations.py``.

>>> from exochess import Board, parse_square, square_name
>>> notes = Board("fugue", fen="7k/8/8/4i3/3Q4/8/8/K7 w").annotations()
>>> [(m.kind, square_name(m.square)) for m in notes.marks]
[('frozen', 'd4')]
>>> notes.why_stuck(parse_square("d4"))
'the Queen on d4 is immobilized by the Immobilizer on e5'
"""

from __future__ import annotations

from dataclasses import dataclass

FROZEN = "frozen"
"""Mark kind: the piece cannot move because of an enemy piece next to it (Fugue's Immobilizer)."""
PETRIFIED = "petrified"
"""Mark kind: the piece stands in an enemy gaze and can at most leap (Rebel Fury)."""
SHIELDED = "shielded"
"""Mark kind: the piece cannot be captured (a friendly Fugue Shield stands next to it)."""
MUST_CAPTURE = "must-capture"
"""Mark kind: captures are compulsory this turn and this piece is one that can capture."""
MARK_KINDS = (FROZEN, PETRIFIED, SHIELDED, MUST_CAPTURE)
"""Every mark kind, in the order an interface may list them."""


@dataclass(frozen=True, slots=True)
class Mark:
    """One rule state of the piece on one square."""

    square: int
    """The square of the marked piece."""
    kind: str
    """One of :data:`MARK_KINDS`."""
    reason: str
    """Why, in a sentence naming the pieces that cause it (``"the Queen on d4 is immobilized
    by the Immobilizer on e5"``)."""
    by: tuple[int, ...] = ()
    """The squares of the pieces causing the state (empty when no single piece does)."""


@dataclass(frozen=True, slots=True)
class Gaze:
    """The squares one gazing piece watches (Rebel Fury's Gorgons, Furies and Mimotaurs)."""

    square: int
    """Where the gazer stands."""
    white: bool
    """The gazer's colour; its gaze holds the other side's pieces."""
    cells: tuple[int, ...]
    """The watched squares, in board order: the empty ones up to the first piece of each line,
    and that piece when it is an enemy of the gazer."""
    affects: str
    """Which enemy pieces the gaze holds, in words (``"every piece"``)."""


@dataclass(frozen=True, slots=True)
class Reserve:
    """How many pieces of one type a side holds in reserve (Interweave: what a pawn may become)."""

    white: bool
    """The side holding them."""
    letter: str
    """Upper-case type letter."""
    count: int
    """How many."""


@dataclass(frozen=True, slots=True)
class Annotations:
    """The rule states of a position (see the module text).  Empty for a game that has none."""

    marks: tuple[Mark, ...] = ()
    """Rule states of pieces, of both sides, in board order then :data:`MARK_KINDS` order."""
    gazes: tuple[Gaze, ...] = ()
    """Every gazing piece of both sides with the squares it watches, in board order."""
    stuck: tuple[tuple[int, str], ...] = ()
    """``(square, reason)`` for each piece of the side to move that has no legal move, in board
    order, the reason in the words an illegal move from that square is refused with."""
    reserves: tuple[Reserve, ...] = ()
    """Pieces held in reserve, by side and type (empty for a game without reserves)."""

    def marks_on(self, square: int) -> tuple[Mark, ...]:
        """The marks of the piece on ``square``.

        >>> Annotations(marks=(Mark(3, FROZEN, "why"),)).marks_on(3)[0].kind
        'frozen'
        """
        return tuple(m for m in self.marks if m.square == square)

    def why_stuck(self, square: int) -> str | None:
        """Why the piece of the side to move on ``square`` has no legal move (None if it has one,
        or if no piece of the side to move stands there)."""
        for where, reason in self.stuck:
            if where == square:
                return reason
        return None

    def __bool__(self) -> bool:
        return bool(self.marks or self.gazes or self.stuck or self.reserves)


NONE = Annotations()
"""The empty value: a game without rule states to show."""

__all__ = [
    "FROZEN",
    "MARK_KINDS",
    "MUST_CAPTURE",
    "NONE",
    "PETRIFIED",
    "SHIELDED",
    "Annotations",
    "Gaze",
    "Mark",
    "Reserve",
]
