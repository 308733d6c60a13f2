"""The :class:`Variant` base class: what a game must tell the generic board.

A game is one module in :mod:`exochess.variants` with one subclass of
:class:`Variant`.  Class attributes carry the metadata (name, board size, piece
letters, starting position, end-of-game policy); a handful of hook methods
carry the rules (move generation, extra FEN fields).  Everything else -- making
and unmaking moves, hashing, repetition, outcome, FEN placement, move text --
is done once, in :mod:`exochess.board`, for every game.
"""

from __future__ import annotations

import importlib
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, ClassVar, Final

from mypy_extensions import mypyc_attr

from exochess.annotations import NONE as NO_ANNOTATIONS
from exochess.annotations import Annotations
from exochess.errors import FenError
from exochess.geometry import Geometry, geometry
from exochess.rawmove import VICTIMS

if TYPE_CHECKING:
    from exochess.board import Board
    from exochess.move import Move
    from exochess.rawmove import RawMove

THREEFOLD_LOSS: Final = "threefold-loss"
"""Repetition policy: the player whose move makes a position occur a third time loses."""
FORBIDDEN: Final = "forbidden"
"""Repetition policy: a move that recreates any earlier position is illegal."""


# Games outside the compiled build (plugins, tests) subclass it in plain Python.
@mypyc_attr(allow_interpreted_subclasses=True)
class Variant:
    """Metadata and rules hooks of one game.  Subclass it once per game."""

    name: ClassVar[str] = ""
    """Registry key, lower case (``"fugue"``)."""
    title: ClassVar[str] = ""
    """Human name (``"Fugue"``)."""
    aliases: ClassVar[tuple[str, ...]] = ()
    """Other names accepted by :func:`exochess.variants.find_variant`."""
    description: ClassVar[str] = ""
    """One line for menus and the home page."""
    width: ClassVar[int] = 8
    """Number of files."""
    height: ClassVar[int] = 8
    """Number of ranks."""
    piece_letters: ClassVar[str] = ""
    """Upper-case letters of the piece types; the type code is the position in this string plus one."""
    piece_names: ClassVar[dict[str, str]] = {}
    """Letter -> English name of each piece type."""
    royal: ClassVar[str] = ""
    """Letter of the royal type whose capture ends the game."""
    royal_minimum: ClassVar[int] = 1
    """A side left with fewer royals than this after a move has lost."""
    repetition: ClassVar[str] = THREEFOLD_LOSS
    """Repetition policy (:data:`THREEFOLD_LOSS` or :data:`FORBIDDEN`)."""
    starting_fen: ClassVar[str] = ""
    """FEN of the starting position."""
    starting_position_note: ClassVar[str | None] = None
    """Caveat to show wherever the starting position is presented (None if it is authentic)."""
    royal_capture_text: ClassVar[str] = "royal captured"
    """How the royal-capture termination is described to players."""
    captures_compulsory: ClassVar[bool] = False
    """Whether a side that can capture must: then, when captures exist, they are all the moves."""
    piece_values: ClassVar[dict[str, int]] = {}
    """Letter -> rough material value in centipawns, for a game that has no evaluator of its own
    (the generic one uses it; a letter left out is worth
    :attr:`~exochess.engine.evaluate.base.Evaluator.default_value`)."""
    glyphs: ClassVar[dict[str, str]] = {}
    """Letter -> shape of its glyph in diagrams and on the web board (see :mod:`exochess.svg`);
    letters left out get the crown if royal, else a shape chosen from their position."""
    evaluator: ClassVar[str | None] = None
    """Where the engine finds this game's evaluation, as ``"module:Class"`` (None: the generic
    one).  A string, so that the rules never import the engine."""
    piece_descriptions: ClassVar[dict[str, str]] = {}
    """Letter -> one sentence of what the piece does, for legends (a letter left out gets none)."""
    glyph_labels: ClassVar[dict[str, str]] = {}
    """Letter -> the text drawn on its glyph, when the FEN letter would mislead (Interweave's
    Remover is ``B`` in a FEN, which reads as a chess bishop); letters left out show themselves."""
    acts_in_place: ClassVar[str] = ""
    """Letters of the types with an action that leaves the piece on its own square (written
    ``e4@(e5,f4)``, from and to the same square): interfaces enter it on the piece itself."""
    annotator: ClassVar[str | None] = None
    """Where :meth:`annotate` finds this game's rule states, as ``"module:function"`` taking
    ``(variant, board)`` and returning an :class:`~exochess.annotations.Annotations` (None: the
    game has none to show).  A string, like :attr:`evaluator`, so that a game's display logic
    is imported only by those who ask for it."""
    piece_sets: ClassVar[bool] = True
    """Whether the board updates :attr:`Board.piece_squares <exochess.board.Board.piece_squares>`
    at every move (True), or makes them anew when asked after a move (False): for a game whose
    move generator and evaluation do not read them, which spares every move their upkeep."""
    rules_page: ClassVar[str | None] = None
    """File name of this game's rules page (Markdown with diagrams, see :mod:`exochess.rulesdoc`),
    next to the module that defines the class; None: a page is made from the attributes."""

    geometry: Geometry
    """Precomputed tables of this game's board size."""
    codes: dict[str, int]
    """Piece letter (either case) -> signed piece code (white positive, black negative)."""
    letters: dict[int, str]
    """Signed piece code -> FEN letter."""
    royal_code: int
    """Positive code of the royal type."""

    def __init__(self) -> None:
        self.geometry = geometry(self.width, self.height)
        self.codes = {}
        self.letters = {}
        for index, letter in enumerate(self.piece_letters, start=1):
            self.codes[letter] = index
            self.codes[letter.lower()] = -index
            self.letters[index] = letter
            self.letters[-index] = letter.lower()
        self.royal_code = self.codes[self.royal] if self.royal else 0

    # --- hooks -----------------------------------------------------------------

    def parse_extra(self, fields: Sequence[str], squares: list[int], white_to_move: bool) -> Hashable:
        """Parse the FEN fields after the side to move into the extra state.

        The default accepts no fields, except one trailing non-negative move counter
        (vchess writes ``... w 0``).  Raise :class:`FenError` on anything else.
        """
        if not fields:
            return None
        if len(fields) == 1 and fields[0].isascii() and fields[0].isdigit():
            return None
        raise FenError(f"unexpected FEN field(s) after the side to move: {' '.join(fields)!r}")

    def format_extra(self, extra: Hashable) -> list[str]:
        """FEN fields written after the side to move for this extra state."""
        return []

    def extra_hash(self, extra: Hashable) -> int:
        """Zobrist contribution of the extra state (0 for the default, which has none)."""
        return 0

    def extra_delta(self, before: Hashable, after: Hashable) -> int:
        """What a move from extra state ``before`` to ``after`` changes in the key: the XOR of
        their :meth:`extra_hash` (0 when they are equal).

        The board calls this for every move whose extra state is not the very object of the
        position's, so a game may override it with a cheaper form of the same value.
        """
        if before == after:
            return 0
        return self.extra_hash(before) ^ self.extra_hash(after)

    def validate(self, squares: Sequence[int], extra: Hashable) -> None:
        """Raise :class:`FenError` if a parsed position is impossible in this game."""

    def generate(self, board: Board) -> list[RawMove]:
        """Every legal move (whole turn) of the side to move, as raw moves.

        Called only when the game is not over.  The board's repetition policy
        :data:`FORBIDDEN` is applied by the board afterwards.
        """
        raise NotImplementedError

    def generate_captures(self, board: Board) -> list[RawMove]:
        """The legal moves of :meth:`generate` whose first action has victims.

        Same tuples (equal by value), possibly in another order.  Engines call it
        in quiescence and before the quiet moves of a node, where most moves of a
        full generation would be built for nothing.  The default filters
        :meth:`generate`; a game overrides it with a generator that builds only
        the captures.  No repetition filter is needed: a capture cannot recreate
        an earlier position.
        """
        return [m for m in self.generate(board) if m[VICTIMS]]

    def explain_illegal(self, board: Board, move: Move) -> str | None:
        """A game-specific reason why ``move`` is illegal, or None to use the generic one."""
        return None

    def annotate(self, board: Board) -> Annotations:
        """The rule states of ``board``'s position worth showing (frozen, petrified, shielded
        pieces, gazes, compulsory captures, reserves), from the game's :attr:`annotator`.

        :meth:`Board.annotations <exochess.board.Board.annotations>` adds the pieces that cannot
        move; call that rather than this.  A game without an annotator returns nothing.
        """
        if not self.annotator:
            return NO_ANNOTATIONS
        module, _, function = self.annotator.partition(":")
        found: Annotations = getattr(importlib.import_module(module), function)(self, board)
        return found

    def tag_allowed(self, raw: RawMove, tag: str) -> bool:
        """Whether a power tag written after a move (``/C``) fits the move; default: no tags."""
        return False

    def __repr__(self) -> str:
        return f"<Variant {self.name}>"


def resolve_variant(variant: str | Variant | None) -> Variant:
    """``variant`` itself, or the registered game it names (name, title or alias); None
    stands for :func:`~exochess.variants.default_variant`.

    The one way from the core (board, PGN, SVG, engine) to the registry: the registry
    imports the games, which import the core, so the core looks a game up only here,
    at call time, and never imports :mod:`exochess.variants` itself.

    Raises :class:`~exochess.errors.UnknownVariantError` listing the known games.

    >>> resolve_variant("Rebel Fury").name
    'rebelfury'
    """
    if isinstance(variant, Variant):
        return variant
    from exochess.variants import default_variant, find_variant

    return default_variant() if variant is None else find_variant(variant)
