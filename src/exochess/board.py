"""The generic game board: state, legal moves, make/unmake, hashing, outcome.

>>> board = Board("fugue")
>>> len(board.legal_moves)
22
>>> board.push_text("e2-e3")
Move.from_text('e2-e3')
>>> board.fen()
'wlqksaui/pppppppp/8/8/8/4P3/PPPP1PPP/IUASKQLW b'
>>> board.pop()
Move.from_text('e2-e3')
>>> board.outcome() is None
True
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from exochess.annotations import Annotations
from exochess.errors import FenError, IllegalMoveError, MoveSyntaxError
from exochess.fen import format_placement, parse_placement
from exochess.geometry import Geometry, parse_square, square_name
from exochess.move import Action, Move
from exochess.outcome import BLACK, WHITE, Outcome, Termination
from exochess.phrase import Phrase
from exochess.rawmove import CHANGES, EXTRA, FROM, TRIPLE, VICTIMS, RawMove, split_actions, to_move
from exochess.variant import FORBIDDEN, THREEFOLD_LOSS, Variant, resolve_variant
from exochess.zobrist import KEYS_BY_CODE, PIECE_KEYS, SIDE_KEY


@dataclass(frozen=True, slots=True)
class Piece:
    """A piece as seen from outside the board: its type letter and colour."""

    letter: str
    """Upper-case type letter."""
    color: bool
    """``WHITE`` or ``BLACK``."""

    def symbol(self) -> str:
        """FEN letter: upper case for White, lower case for Black."""
        return self.letter if self.color else self.letter.lower()


class LegalMoveList:
    """A lazy view of the legal moves of a board (regenerated after each push/pop).

    Supports iteration, ``len()``, ``bool()`` and ``in``.
    """

    __slots__ = ("_board",)

    def __init__(self, board: Board) -> None:
        self._board = board

    def __iter__(self) -> Iterator[Move]:
        return iter(self._board._move_index())

    def __len__(self) -> int:
        return len(self._board.raw_moves())

    def __bool__(self) -> bool:
        return bool(self._board.raw_moves())

    def __contains__(self, move: object) -> bool:
        return isinstance(move, Move) and move in self._board._move_index()

    def __repr__(self) -> str:
        return f"<LegalMoveList ({', '.join(str(m) for m in self)})>"


class Board:
    """A position of one game, with the history of moves that led to it.

    ``Board("fugue")`` is the starting position; ``Board("fugue", fen=...)`` any
    position.  The variant may be given by name, alias or :class:`Variant`; without one it
    is :func:`~exochess.variants.default_variant`.
    """

    __slots__ = (
        "_cache",
        "_extra",
        "_fresh",
        "_geo",
        "_index",
        "_keys",
        "_nulls",
        "_open",
        "_root_extra",
        "_royal",
        "_royal_min",
        "_stack",
        "_start",
        "_starts",
        "_threefold",
        "_tracks",
        "_where",
        "decided",
        "key",
        "side",
        "squares",
        "starting_fen",
        "variant",
    )

    variant: Variant
    """Rules of the game being played."""
    starting_fen: str
    """FEN the history starts from."""
    # ``squares`` and ``side`` are plain slots rather than properties: move generators and
    # evaluations read them at every node, and a property costs a Python call each time
    # (CPython 3.11 does not specialise property access).
    squares: list[int]
    """The board list of signed piece codes, indexed by square.  Treat as read-only."""
    side: int
    """Side to move as a sign: +1 White, -1 Black (the sign of its piece codes).  Read-only."""
    key: int
    """Zobrist hash of the position, as :meth:`zobrist_hash` returns it.  Read-only."""
    decided: Outcome | None
    """The end of the game that the last move caused by itself (it captured the last royal
    piece, or repeated a position a third time where that loses), known as soon as the move
    is played; None otherwise.  :meth:`outcome` also finds a side left without a move, which
    takes generating the moves.  Read-only."""

    def __init__(self, variant: str | Variant | None = None, fen: str | None = None) -> None:
        variant = resolve_variant(variant)
        self.variant = variant
        self._geo: Geometry = variant.geometry
        self._royal = variant.royal_code
        self._royal_min = variant.royal_minimum
        self._threefold = variant.repetition == THREEFOLD_LOSS
        # Whether every move updates the piece sets; if not, they are made when asked and are
        # good until the squares change (``_fresh``).  See Variant.piece_sets.
        self._tracks = variant.piece_sets
        self.set_fen(fen if fen is not None else variant.starting_fen)

    # --- state ---------------------------------------------------------------

    def set_fen(self, fen: str) -> None:
        """Replace the position (and clear the history) from a FEN.

        Raises :class:`FenError` naming the problem; the board is unchanged then.
        """
        if not isinstance(fen, str):
            raise FenError("a FEN must be text")
        if not fen.isascii():
            # the format is ASCII: this also keeps Unicode digits and spaces out of every field
            bad = next(ch for ch in fen if not ch.isascii())
            raise FenError(f"a FEN is ASCII text; {bad!r} at position {fen.index(bad) + 1} is not")
        fields = fen.split()
        if len(fields) < 2:
            raise FenError(f"a FEN needs at least a placement and a side to move (w or b): {fen!r}")
        squares = parse_placement(fields[0], self._geo, self.variant.codes)
        if fields[1] not in ("w", "b"):
            raise FenError(f"side to move must be 'w' or 'b', not {fields[1]!r}")
        white = fields[1] == "w"
        extra = self.variant.parse_extra(fields[2:], squares, white)
        self.variant.validate(squares, extra)
        self.squares = squares
        self._where = _piece_squares(squares)
        self._fresh = True
        self.side = 1 if white else -1
        self._extra: Hashable = extra
        self._root_extra: Hashable = extra
        self._stack: list[RawMove] = []
        self.decided: Outcome | None = None
        self.key = self._compute_hash()
        self._start_history()
        # Legal moves of the current position, generated on demand; push/pop reset them.
        self._cache: list[RawMove] | None = None
        self._index: dict[Move, RawMove] | None = None
        self._open: list[tuple[Action, tuple[int, ...]]] = []
        self.starting_fen = self.fen()

    def _start_history(self) -> None:
        # Repetition bookkeeping, as Stockfish keeps it: the history of keys, searched only
        # when a question needs it.  ``_keys`` holds the hash of the start and of the position
        # after each move of the stack (one more entry than the stack, plus one for each null
        # move in progress); pop_raw restores the key from it.  Every capture lowers the
        # number of pieces on the board for good, so no position from before a capture can
        # occur again: only the keys from ``_start`` on (the "window", which starts at the
        # position after the last capture) can repeat.  ``_starts`` stacks the window starts
        # that captures closed, so undoing a capture reopens its window by a pop.
        # push_raw looks back over the window for the new key, every second entry (the same
        # side to move), and counts only when it finds it; a repetition table (a dict updated
        # by every push and pop) cost a compiled perft about 950 instructions a node, the
        # look-back some 50.  ``_nulls``: where the null moves in progress put their keys,
        # which are not positions of the game (see push_null).
        self._keys: list[int] = [self.key]
        self._start = 0
        self._starts: list[int] = []
        self._nulls: list[int] = []

    def _occurrences(self, key: int) -> int:
        """How many positions of the window (see :meth:`_start_history`) have the hash ``key``."""
        keys = self._keys
        nulls = self._nulls
        return sum(1 for i in range(self._start, len(keys)) if keys[i] == key and i not in nulls)

    def _window_keys(self) -> set[int]:
        """The hashes of the positions that can recur (the window's, without null moves)."""
        keys = self._keys
        if not self._nulls:
            return set(keys[self._start :])
        return {keys[i] for i in range(self._start, len(keys)) if i not in self._nulls}

    def _compute_hash(self) -> int:
        h = 0
        for sq in self._geo.squares:
            code = self.squares[sq]
            if code:
                h ^= PIECE_KEYS[(sq << 5) | (code & 31)]
        if self.side < 0:
            h ^= SIDE_KEY
        return h ^ self.variant.extra_hash(self._extra)

    @property
    def turn(self) -> bool:
        """Side to move: ``WHITE`` (True) or ``BLACK`` (False)."""
        return self.side > 0

    @property
    def extra(self) -> Hashable:
        """The variant's extra state (en passant, reserves ...), None if it has none."""
        return self._extra

    @property
    def piece_squares(self) -> list[set[int]]:
        """``piece_squares[code & 31]``: the squares holding the piece code ``code`` (32 sets; a
        negative code indexes from the end, where ``code & 31`` puts it, so
        ``piece_squares[code]`` works too; entry 0 stays empty), so that move generators and
        evaluations find pieces without scanning the board.  Kept up to date by every move in
        the games that ask for it (:attr:`Variant.piece_sets <exochess.variant.Variant.piece_sets>`),
        made anew from the squares after a move in the others.  A set's iteration order
        depends on its history: sort it where the order matters.  Read-only."""
        if not self._fresh:
            self._where = _piece_squares(self.squares)
            self._fresh = True
        return self._where

    @property
    def geometry(self) -> Geometry:
        """Precomputed tables of this board size."""
        return self._geo

    def zobrist_hash(self) -> int:
        """62-bit Zobrist hash of the position key (placement, side to move, extra state)."""
        return self.key

    def repetition_count(self) -> int:
        """How many times the current position key has occurred in this game's history."""
        return self._occurrences(self.key)

    def has_occurred(self, key: int) -> bool:
        """Whether a position with Zobrist hash ``key`` occurred in the history and can recur.

        Positions from before the last capture are not considered: they can never recur.
        """
        # The C-level membership test first: the exact count only when the key is there.
        return key in self._keys[self._start :] and self._occurrences(key) > 0

    def piece_at(self, square: int) -> Piece | None:
        """The piece on a square, or None."""
        code = self.squares[square]
        if not code:
            return None
        return Piece(self.variant.letters[abs(code)], code > 0)

    def piece_map(self) -> dict[int, Piece]:
        """Every occupied square and its piece."""
        return {sq: p for sq in self._geo.squares if (p := self.piece_at(sq)) is not None}

    def ply(self) -> int:
        """Number of moves played since the starting FEN."""
        return len(self._stack)

    # --- FEN -----------------------------------------------------------------

    def fen(self) -> str:
        """The FEN of the position in the rules-of-record form."""
        parts = [
            format_placement(self.squares, self._geo, self.variant.letters),
            "w" if self.side > 0 else "b",
        ]
        parts.extend(self.variant.format_extra(self._extra))
        return " ".join(parts)

    # --- moves -----------------------------------------------------------------

    def raw_moves(self) -> list[RawMove]:
        """Legal moves as raw records (see :mod:`exochess.rawmove`); empty when the game is over.

        The list is cached until the next push or pop; do not modify it.
        """
        cached = self._cache
        if cached is not None:
            return cached
        if self.decided is not None:
            moves: list[RawMove] = []
        else:
            moves = self.variant.generate(self)
            if self.variant.repetition == FORBIDDEN:
                # A capture can never recreate an earlier position (fewer pieces): skip its hash.
                # (m[VICTIMS] or m[MORE], as literals: this runs once per generated move.)
                seen = self._window_keys()
                moves = [m for m in moves if m[3] or m[6] or self.hash_after(m) not in seen]
        self._cache = moves
        return moves

    def raw_captures(self) -> list[RawMove]:
        """The moves of :meth:`raw_moves` that capture (non-empty victims), without the quiet ones.

        Cheaper than :meth:`raw_moves` when the full list is not cached yet: the
        game's :meth:`~exochess.variant.Variant.generate_captures` builds only the
        captures.  Not cached; a new list on every call.
        """
        cached = self._cache
        if cached is not None:
            return [m for m in cached if m[VICTIMS]]
        if self.decided is not None:
            return []
        return self.variant.generate_captures(self)

    def hash_after(self, raw: RawMove) -> int:
        """Zobrist hash of the position a raw move would produce (without playing it)."""
        keys = KEYS_BY_CODE
        # The fields of a raw move are typed Any: these declarations (no code when the
        # source runs) let the compiled build use native ints and list indexing on them.
        s1: int
        b1: int
        a1: int
        s2: int
        b2: int
        a2: int
        s: int
        h: int
        if len(raw) == 14:  # ONE_RELOCATION: unrolled, skipping the usually empty squares, as in push_raw
            _, _, _, _, _, _, _, _, s1, b1, a1, s2, b2, a2 = raw
            h = self.key ^ SIDE_KEY ^ keys[b1][s1] ^ keys[a2][s2]
            if a1:
                h ^= keys[a1][s1]
            if b2:
                h ^= keys[b2][s2]
        else:
            h = self.key ^ SIDE_KEY
            for i in range(CHANGES, len(raw), TRIPLE):
                s = raw[i]
                h ^= keys[raw[i + 1]][s] ^ keys[raw[i + 2]][s]
        extra = raw[EXTRA]
        if extra is not self._extra:
            h ^= self.variant.extra_delta(self._extra, extra)
        return h

    def _move_index(self) -> dict[Move, RawMove]:
        index = self._index
        if index is None:
            index = self._index = {to_move(raw): raw for raw in self.raw_moves()}
        return index

    def _raw_of(self, move: Move) -> RawMove | None:
        """The legal raw move that ``move`` writes, or None if it is not legal here.

        Without the index, only the moves from the same square are converted: a conversion
        (:func:`~exochess.rawmove.to_move`) costs about 5 us, so indexing all of a Fugue
        middlegame's 85 moves to look one up took 430 us against 55 us for generating and
        scanning (compiled build), and a server looks up every move it stores or plays from
        another process's note.
        """
        index = self._index
        if index is not None:
            return index.get(move)
        origin = move.from_square
        for raw in self.raw_moves():
            if raw[FROM] == origin and to_move(raw) == move:
                return raw
        return None

    @property
    def legal_moves(self) -> LegalMoveList:
        """The legal moves of the side to move (a lazy view)."""
        return LegalMoveList(self)

    def push_raw(self, raw: RawMove) -> None:
        """Play a raw move from :meth:`raw_moves` of this very position (not checked)."""
        b = self.squares
        keys = KEYS_BY_CODE
        side = -self.side  # the side to move after this move: the enemy of the mover
        # Not side * self._royal: compiled, a product with a negative factor leaves mypyc's
        # machine-word path for a call that allocates (its overflow test reads a negative
        # int as huge), and a negation does not.
        enemy_royal = self._royal if side > 0 else -self._royal
        # Declared for the compiled build, as in hash_after (the fields of a raw move are Any).
        s1: int
        b1: int
        a1: int
        s2: int
        b2: int
        a2: int
        s3: int
        b3: int
        a3: int
        s: int
        before: int
        after: int
        h: int
        # Without piece sets to update (Variant.piece_sets), they are only marked out of date:
        # their upkeep was some 640 instructions a compiled Interweave perft node (push and
        # pop).  (``self._tracks`` asked in each branch, not kept in a local: from source,
        # every extra bytecode here shows in the cost of a move.)
        # The layout of exochess.rawmove, written with literal indices and lengths here and in
        # pop_raw: a literal costs less than a global at every move played.
        if len(raw) == 14:  # ONE_RELOCATION, the common case: unrolled
            # One unpacking of the whole tuple costs less than six subscripts.
            _, _, _, _, _, _, _, _, s1, b1, a1, s2, b2, a2 = raw
            # The fields stored on every move are read from the tuple again (``raw[10]``, not
            # ``a1``): compiled, the int-typed local would be boxed into a Python int at each
            # such use, while the tuple holds the object already (one load).  (Only these
            # four: each costs the source build a little.)
            b[s1] = raw[10]  # a1
            b[s2] = raw[13]  # a2
            if self._tracks:
                where = self._where
                if b1:
                    where[b1].remove(raw[8])  # s1
                if a1:
                    where[a1].add(s1)
                if b2:
                    where[b2].remove(s2)
                if a2:
                    where[a2].add(raw[11])  # s2
            else:
                self._fresh = False
            # An empty square (code 0) has key 0, and each XOR of large ints builds a new
            # int: skip the two terms that are usually empty (what the origin holds after
            # the move, what the destination held before a quiet move).
            h = self.key ^ SIDE_KEY ^ keys[b1][s1] ^ keys[a2][s2]
            if a1:
                h ^= keys[a1][s1]
            if b2:
                h ^= keys[b2][s2]
            royal_hit = b1 == enemy_royal or b2 == enemy_royal
        elif len(raw) == 17:  # RELOCATION_AND_VICTIM (most captures of one piece): unrolled too
            _, _, _, _, _, _, _, _, s1, b1, a1, s2, b2, a2, s3, b3, a3 = raw
            # In the order of the general loop below: a square may appear in two triples.
            b[s1] = a1
            b[s2] = a2
            b[s3] = a3
            if self._tracks:
                where = self._where
                if b1:
                    where[b1].remove(s1)
                if a1:
                    where[a1].add(s1)
                if b2:
                    where[b2].remove(s2)
                if a2:
                    where[a2].add(s2)
                if b3:
                    where[b3].remove(s3)
                if a3:
                    where[a3].add(s3)
            else:
                self._fresh = False
            h = (
                self.key
                ^ SIDE_KEY
                ^ keys[b1][s1]
                ^ keys[a1][s1]
                ^ keys[b2][s2]
                ^ keys[a2][s2]
                ^ keys[b3][s3]
                ^ keys[a3][s3]
            )
            royal_hit = b1 == enemy_royal or b2 == enemy_royal or b3 == enemy_royal
        else:
            h = self.key ^ SIDE_KEY
            royal_hit = False
            tracks = self._tracks
            if not tracks:
                self._fresh = False
            where = self._where
            for i in range(CHANGES, len(raw), TRIPLE):
                s = raw[i]
                before = raw[i + 1]
                after = raw[i + 2]
                b[s] = after
                h ^= keys[before][s] ^ keys[after][s]
                if tracks:
                    if before:
                        where[before].remove(s)
                    if after:
                        where[after].add(s)
                if before == enemy_royal:
                    royal_hit = True
        extra = raw[5]  # EXTRA
        # The identity test spares the call when both are None (Fugue, Rebel Fury) or the
        # generator reused the position's object (most moves leave en passant and reserves
        # alone); the game's extra_delta compares by value (0 when equal).
        if extra is not self._extra:
            h ^= self.variant.extra_delta(self._extra, extra)
            self._extra = extra
        self.side = side
        self.key = h
        self._cache = self._index = None
        self._stack.append(raw)
        history = self._keys
        history.append(h)
        # Typed: compiled, the truth of an Any is a generic call, that of a tuple native; some
        # 75 instructions a compiled Interweave perft node, 100-190 from source (push and pop).
        victims: tuple[int, ...] = raw[3]
        more: tuple[Any, ...] | None = raw[6]
        if victims or more:  # VICTIMS or MORE, a capture: earlier positions can never recur
            self._starts.append(self._start)
            self._start = len(history) - 1
            reversible = False
        else:
            reversible = True
        if royal_hit and b.count(enemy_royal) < self._royal_min:
            self.decided = Outcome(Termination.ROYAL_CAPTURE, side < 0)
        elif reversible and self._threefold:
            # Look back for the new key over the positions with the same side to move (every
            # second one; every one while a null move, which passes the turn, is in progress).
            step = 1 if self._nulls else 2
            start = self._start
            i = len(history) - 1 - step
            while i >= start:
                if history[i] == h:  # seen before: count exactly (rare)
                    if self._occurrences(h) >= 3:
                        self.decided = Outcome(Termination.REPETITION, side > 0)
                    break
                i -= step

    def pop_raw(self) -> RawMove:
        """Undo the last move and return its raw record."""
        stack = self._stack
        raw = stack.pop()
        # Declared for the compiled build, as in hash_after (the fields of a raw move are Any).
        s1: int
        b1: int
        a1: int
        s2: int
        b2: int
        a2: int
        s3: int
        b3: int
        a3: int
        # Typed list[Any]: compiled, popping from a list[int] would unbox the dropped key.
        keys: list[Any] = self._keys
        keys.pop()
        self.key = keys[-1]  # the key of the position before the move
        victims: tuple[int, ...] = raw[3]  # (typed, as in push_raw)
        more: tuple[Any, ...] | None = raw[6]
        if victims or more:  # VICTIMS or MORE: push_raw stacked the window this capture closed
            self._start = self._starts.pop()
        b = self.squares
        if not self._tracks:  # (see push_raw)
            # No piece sets: only the squares go back, each the very object the tuple holds
            # (the board list typed list[Any]), without unpacking the move and boxing the
            # codes again; some 150 instructions less a compiled Interweave perft node.
            self._fresh = False
            objects: list[Any] = b
            square: int
            if len(raw) == 14:  # ONE_RELOCATION
                square = raw[11]
                objects[square] = raw[12]
                square = raw[8]
                objects[square] = raw[9]
            else:
                for i in range(len(raw) - 3, CHANGES - 1, -3):
                    square = raw[i]
                    objects[square] = raw[i + 1]
        elif len(raw) == 14:  # ONE_RELOCATION
            _, _, _, _, _, _, _, _, s1, b1, a1, s2, b2, a2 = raw
            b[s2] = b2
            b[s1] = b1
            where = self._where
            if a2:
                where[a2].remove(s2)
            if b2:
                where[b2].add(s2)
            if a1:
                where[a1].remove(s1)
            if b1:
                where[b1].add(s1)
        elif len(raw) == 17:  # RELOCATION_AND_VICTIM, as _undo_changes does: the last triple first
            _, _, _, _, _, _, _, _, s1, b1, a1, s2, b2, a2, s3, b3, a3 = raw
            b[s3] = b3
            b[s2] = b2
            b[s1] = b1
            where = self._where
            if a3:
                where[a3].remove(s3)
            if b3:
                where[b3].add(s3)
            if a2:
                where[a2].remove(s2)
            if b2:
                where[b2].add(s2)
            if a1:
                where[a1].remove(s1)
            if b1:
                where[b1].add(s1)
        else:
            _undo_changes(b, self._where, raw[CHANGES:])
        self._extra = stack[-1][5] if stack else self._root_extra  # EXTRA
        self.side = -self.side
        self.decided = None
        self._cache = self._index = None
        return raw

    def push(self, move: Move) -> None:
        """Play a legal move.  Raises :class:`IllegalMoveError` (board unchanged) otherwise."""
        self.cancel_turn()
        raw = self._raw_of(move)
        if raw is None:
            raise IllegalMoveError(self._illegal_reason(move))
        self.push_raw(raw)

    def push_text(self, text: str) -> Move:
        """Parse move text, play it and return the :class:`Move`."""
        move = self.parse_move(text)
        self.push(move)
        return move

    def pop(self) -> Move:
        """Undo the last move and return it.  Raises IndexError if there is none.

        An open turn (see :meth:`push_action`) is cancelled first.
        """
        self.cancel_turn()
        if not self._stack:
            raise IndexError("no move to undo")
        return to_move(self.pop_raw())

    def peek(self) -> Move:
        """The last move played.  Raises IndexError if there is none."""
        if not self._stack:
            raise IndexError("no move has been played")
        return to_move(self._stack[-1])

    @property
    def move_stack(self) -> list[Move]:
        """The moves played since the starting FEN, oldest first (a new list)."""
        return [to_move(raw) for raw in self._stack]

    def parse_move(self, text: str) -> Move:
        """The legal move written ``text``.

        Raises :class:`MoveSyntaxError` if the text is malformed and
        :class:`IllegalMoveError` if it is well formed but not legal here.
        """
        parsed = Move.from_text(text)
        raw = self._raw_of(parsed)
        if raw is None:
            raise IllegalMoveError(self._illegal_reason(parsed))
        for action in parsed.actions:
            if action.tag is not None and not self.variant.tag_allowed(raw, action.tag):
                raise IllegalMoveError(f"{parsed} cannot be made with the power /{action.tag}")
        return parsed

    def _illegal_reason(self, move: Move) -> str:
        for action in move.actions:
            for sq in (action.from_square, action.to_square, *action.victims):
                if not self._geo.on_board(sq):
                    raise IllegalMoveError(
                        f"{square_name(sq)} is not on the {self._geo.width}x{self._geo.height} board"
                    )
        text = str(move)
        if self.is_game_over():
            return Phrase("{move} is illegal: the game is over", move=text)
        origin = move.from_square
        code = self.squares[origin]
        side_name = "White" if self.side > 0 else "Black"
        if code == 0:
            return Phrase(
                "{move} is illegal: there is no piece on {square}", move=text, square=square_name(origin)
            )
        if code * self.side < 0:
            return Phrase(
                "{move} is illegal: the piece on {square} is not {side}'s",
                move=text,
                square=square_name(origin),
                side=side_name,
            )
        specific = self.variant.explain_illegal(self, move)
        if specific:
            return Phrase("{move} is illegal: {why}", move=text, why=specific)
        own = sorted(str(m) for m in self.moves_from(origin))
        name = self.variant.piece_names.get(self.variant.letters[abs(code)], "piece")
        if not own:
            return Phrase("{move} is illegal: {why}", move=text, why=self._no_move_text(origin))
        return Phrase(
            "{move} is illegal; the {piece} on {square} can play: {moves}",
            move=text,
            piece=name,
            square=square_name(origin),
            moves=" ".join(own),
        )

    # --- stepwise turns ----------------------------------------------------------

    @property
    def turn_open(self) -> bool:
        """Whether some actions of the current turn have been played with :meth:`push_action`."""
        return bool(self._open)

    def open_actions(self) -> list[Action]:
        """The actions already played in the open turn (empty when no turn is open)."""
        return [action for action, _ in self._open]

    def _turns_extending(self) -> list[tuple[RawMove, list[tuple[Action, tuple[int, ...]]]]]:
        """Legal turns whose first actions are the open ones, each split into (action, changes)."""
        played = [action for action, _ in self._open]
        found = []
        for raw in self.raw_moves():
            steps = split_actions(raw)
            if len(steps) > len(played) and all(steps[i][0] == played[i] for i in range(len(played))):
                found.append((raw, steps))
        return found

    def legal_actions(self) -> list[Action]:
        """The actions that may be played next in the current turn.

        For games whose turns are single actions these are the first (only)
        actions of the legal moves; in an Interweave chain they are the captures
        the chaining piece must choose from.
        """
        seen: dict[Action, None] = {}
        depth = len(self._open)
        for _raw, steps in self._turns_extending():
            seen.setdefault(steps[depth][0], None)
        return list(seen)

    def push_action(self, action: Action | str) -> Move | None:
        """Play one action of the current turn.

        Returns the completed :class:`Move` when the action finishes the turn
        (which is then on the move stack exactly as if pushed whole), or None
        while the turn stays open.  Raises :class:`IllegalMoveError` (nothing
        changed) if the action is not a legal next step.
        """
        if isinstance(action, str):
            parsed = Move.from_text(action)
            if len(parsed.actions) != 1:
                raise IllegalMoveError("push_action takes a single action, not a chain")
            action = parsed.actions[0]
        depth = len(self._open)
        candidates = [(raw, steps) for raw, steps in self._turns_extending() if steps[depth][0] == action]
        if not candidates:
            if self.is_game_over():
                raise IllegalMoveError(f"{action} is illegal: the game is over")
            options = " ".join(str(a) for a in self.legal_actions())
            raise IllegalMoveError(f"{action} is not a legal action here; legal actions: {options}")
        changes = candidates[0][1][depth][1]
        _apply_changes(self.squares, self.piece_squares, changes)
        self._open.append((action, changes))
        for raw, steps in candidates:
            if len(steps) == depth + 1:
                self._undo_open()
                self.push_raw(raw)
                return to_move(raw)
        return None

    def pop_action(self) -> Action:
        """Undo one action: the last of the open turn, or else the last action of the last turn.

        Undoing an action of a completed multi-action turn re-opens that turn
        with its earlier actions played.  Raises IndexError if nothing was played.
        """
        if self._open:
            action, changes = self._open.pop()
            _undo_changes(self.squares, self.piece_squares, changes)
            return action
        if not self._stack:
            raise IndexError("no action to undo")
        raw = self.pop_raw()
        steps = split_actions(raw)
        for action, changes in steps[:-1]:
            _apply_changes(self.squares, self.piece_squares, changes)
            self._open.append((action, changes))
        return steps[-1][0]

    def cancel_turn(self) -> None:
        """Undo every action of the open turn (no effect when no turn is open)."""
        self._undo_open()

    def _undo_open(self) -> None:
        while self._open:
            _undo_changes(self.squares, self.piece_squares, self._open.pop()[1])

    def moves_from(self, square: int | str) -> list[Move]:
        """Legal moves whose piece starts on ``square`` (index or name)."""
        sq = parse_square(square) if isinstance(square, str) else square
        # Only this square's raw moves are converted, as in _raw_of (not the whole index).
        return [to_move(raw) for raw in self.raw_moves() if raw[FROM] == sq]

    # --- end of game ---------------------------------------------------------

    def outcome(self) -> Outcome | None:
        """How the game ended, or None while it goes on."""
        if self.decided is not None:
            return self.decided
        if not self.raw_moves():
            return Outcome(Termination.NO_LEGAL_MOVES, self.side < 0)
        return None

    def is_game_over(self) -> bool:
        """Whether the game has ended."""
        return self.outcome() is not None

    # --- rule states -----------------------------------------------------------

    def annotations(self) -> Annotations:
        """The rule states of the position, each with a reason, for showing them on a board.

        What the game reports (:meth:`Variant.annotate <exochess.variant.Variant.annotate>`:
        frozen, petrified and shielded pieces, gaze cells per gazer, the pieces that must
        capture, reserves), plus :attr:`~exochess.annotations.Annotations.stuck`: every piece
        of the side to move without a legal move, with the reason an illegal move from its
        square is refused with (all of them when the side has no move at all, which ends the
        game; none when a capture or a repetition ended it).  In an open turn
        (:meth:`push_action`) the position at the start of the turn is described.

        >>> board = Board("fugue", fen="7k/8/8/8/8/8/1i6/K7 w")
        >>> notes = board.annotations()
        >>> [(m.kind, square_name(m.square), [square_name(s) for s in m.by]) for m in notes.marks]
        [('frozen', 'a1', ['b2'])]
        >>> notes.stuck == ((parse_square("a1"), "the King on a1 is immobilized by the Immobilizer on b2"),)
        True
        >>> Board("rebelfury").annotations().marks  # no gaze reaches across the empty middle
        ()
        """
        board = self
        if self._open:
            board = self.copy(stack=False)
            board.cancel_turn()
        found = self.variant.annotate(board)
        if board.decided is not None:
            return found
        stuck: list[tuple[int, str]] = []
        origins = {raw[FROM] for raw in board.raw_moves()}
        mine = sorted(sq for sq in self._geo.squares if board.squares[sq] * board.side > 0)
        for sq in mine:
            if sq not in origins:
                stuck.append((sq, board._no_move_reason(sq)))
        return replace(found, stuck=tuple(stuck))

    def _no_move_reason(self, square: int) -> str:
        """Why the piece of the side to move on ``square`` has no legal move (it has none)."""
        probe = Move((Action(square, square, "-"),))  # any move from the square: refused
        specific = self.variant.explain_illegal(self, probe)
        if specific:
            return specific
        return self._no_move_text(square)

    def _no_move_text(self, square: int) -> str:
        """The piece on ``square`` has no legal move and no rule of its game holds it (those
        the game explains itself): say why when its own pieces wall it in."""
        name = self.variant.piece_names.get(self.variant.letters[abs(self.squares[square])], "piece")
        mine = self.squares[square] > 0
        around = [self.squares[t] for t in self._geo.neighbours[square]]
        if around and all(code != 0 and (code > 0) == mine for code in around):
            return Phrase(
                "the {piece} on {square} has no legal move: its own pieces fill every square next to it",
                piece=name,
                square=square_name(square),
            )
        return Phrase("the {piece} on {square} has no legal move", piece=name, square=square_name(square))

    # --- misc ------------------------------------------------------------------

    def copy(self, *, stack: bool = True) -> Board:
        """An independent copy; with ``stack=False`` the copy's history starts here."""
        other = Board.__new__(Board)
        other.variant = self.variant
        other._geo = self._geo
        other._royal = self._royal
        other._royal_min = self._royal_min
        other._threefold = self._threefold
        other.squares = list(self.squares)
        other._tracks = self._tracks
        other._where = [set(where) for where in self.piece_squares]
        other._fresh = True
        other.side = self.side
        other._extra = self._extra
        other.key = self.key
        other.decided = self.decided
        # the same position and history have the same moves: share the cached list (never
        # modified), so a copy handed to a worker does not list them again
        other._cache = self._cache if stack else None
        other._index = None
        other._open = list(self._open)
        if stack:
            other._root_extra = self._root_extra
            other._stack = list(self._stack)
            other._keys = list(self._keys)
            other._start = self._start
            other._starts = list(self._starts)
            other._nulls = list(self._nulls)
            other.starting_fen = self.starting_fen
        else:
            other._root_extra = self._extra
            other._stack = []
            other._start_history()
            other.decided = None
            other.starting_fen = self.fen()
        if self._open:
            # Mid-turn the squares show the open actions, but the legal turns belong to the
            # position at the start of the turn: hand the copy that list instead of letting
            # it regenerate from the mid-turn squares.
            other._cache = self.raw_moves()
        return other

    def push_null(self) -> None:
        """Hand the turn to the other side without moving: the engine's null move.

        No game allows passing; this exists for the search's null-move pruning only, which
        undoes it with :meth:`pop_null` before anything else is played or asked.  The extra
        state (en passant rights, reserves) is left as it is, so the search uses it only in
        games without one (``extra is None``).  The position is not added to the history.
        """
        # The key of the position after the pass goes on the key history like a move's:
        # pop_raw restores the key from the history's last entry, which must be the key of
        # the position the move was played in (appending the key before the pass put the
        # moves searched after a null move back on the wrong side's key when undone).
        self.key ^= SIDE_KEY
        self._nulls.append(len(self._keys))
        self._keys.append(self.key)
        self.side = -self.side
        self._cache = self._index = None

    def pop_null(self) -> None:
        """Undo :meth:`push_null`."""
        keys = self._keys
        keys.pop()
        self._nulls.pop()
        self.key = keys[-1]
        self.side = -self.side
        self._cache = self._index = None

    def __str__(self) -> str:
        from exochess.text import render

        return render(self)

    def __repr__(self) -> str:
        return f"Board({self.variant.name!r}, fen={self.fen()!r})"


def _piece_squares(b: list[int]) -> list[set[int]]:
    """The sets of :attr:`Board.piece_squares` for a board list."""
    where: list[set[int]] = [set() for _ in range(32)]
    for sq, code in enumerate(b):
        if code:
            where[code].add(sq)
    return where


def _apply_changes(b: list[int], where: list[set[int]], changes: tuple[int, ...]) -> None:
    """Play change triples ``(square, before, after)`` in order, on the squares and the piece sets."""
    for i in range(0, len(changes), TRIPLE):
        s = changes[i]
        before = changes[i + 1]
        after = changes[i + 2]
        b[s] = after
        if before:
            where[before].remove(s)
        if after:
            where[after].add(s)


def _undo_changes(b: list[int], where: list[set[int]], changes: tuple[int, ...]) -> None:
    """Undo change triples (last first), on the squares and the piece sets."""
    for i in range(len(changes) - TRIPLE, -1, -TRIPLE):
        s = changes[i]
        before = changes[i + 1]
        after = changes[i + 2]
        b[s] = before
        if after:
            where[after].remove(s)
        if before:
            where[before].add(s)


__all__ = ["BLACK", "WHITE", "Board", "LegalMoveList", "MoveSyntaxError", "Piece"]
