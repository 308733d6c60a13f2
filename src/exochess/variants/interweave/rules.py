"""Interweave (Peter Aronson, 2002): colour-bound Ultima pieces with capture chains.

Rules as fixed by the project's rules of record; the decisions taken where the
rules are silent are listed in ``decisions.md`` beside it.

Piece codes (the position in :attr:`Interweave.piece_letters` plus one):
King 1, Smasher (``R``) 2, Leaper (``N``) 3, Remover (``B``) 4, Pawn 5.

A *turn* is one non-capturing action, or -- whenever the side to move can
capture at all -- a capturing action followed by every further capture the
same piece is then obliged to make.  The generator yields whole turns; the
second and later actions of a chain travel in the raw move's ``more`` field.

The extra state is a pair ``(ep, reserves)`` of ints:

* ``ep`` is 0, or ``mid << 8 | dest`` after a double step from ``2*mid-dest``
  through ``mid`` to ``dest`` (written ``mid,dest`` in a FEN);
* ``reserves`` packs six 5-bit counters, lowest first: White's captured
  Smashers, Leapers, Removers, then Black's (the FEN's six counts, in order).
  A count never exceeds :data:`RESERVE_MAX` (see :meth:`Interweave.validate`).

>>> from exochess import Board
>>> board = Board("interweave", fen="8/8/8/4p3/4Bp2/8/8/8 w")
>>> [str(m) for m in board.legal_moves]
['e4@(e5,f4)']
>>> board = Board("interweave", fen="8/8/4p3/3k4/3K4/8/8/K6k w - 000000")
>>> [str(m) for m in board.legal_moves]
['d4xd6(d5)']
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar, Final

from mypy_extensions import mypyc_attr

from exochess.compiled import COMPILED
from exochess.errors import FenError
from exochess.geometry import parse_square, square_name
from exochess.move import Action
from exochess.phrase import Phrase
from exochess.rawmove import ACTION_CHANGES, ACTION_LENGTH, FROM, SINGLE_VICTIM, TO, VICTIMS, RawMove, to_move
from exochess.variant import THREEFOLD_LOSS, Variant
from exochess.zobrist import KEY_BITS

if TYPE_CHECKING:
    from exochess.board import Board
    from exochess.move import Move

KING: Final = 1
SMASHER: Final = 2
LEAPER: Final = 3
REMOVER: Final = 4
PAWN: Final = 5
_WHITE_HOSTILE: Final = tuple(code < 0 for code in (*range(6), *range(-5, 0)))
_BLACK_HOSTILE: Final = tuple(code > 0 for code in (*range(6), *range(-5, 0)))
_HOSTILE: Final[tuple[tuple[bool, ...], ...]] = (_WHITE_HOSTILE, _WHITE_HOSTILE, _BLACK_HOSTILE)
"""``_HOSTILE[side][code]``: whether the piece ``code`` belongs to the enemy of ``side`` (negative
codes index from the end; an empty square is nobody's).  The capture generator reads signs from
this table, and a piece's type by negation, instead of multiplying by the side: compiled, a
product with a negative factor (Black's side, -1) leaves mypyc's machine-word path for a call
that allocates.  Indexed by the side sign like :data:`PAWN_TABLES` ([1] White, [-1] Black): a
tuple, not a dict, whose lookup with a boxed key cost some 130 instructions compiled."""
_WHITE_CODES: Final = tuple(range(6))
_CODES: Final[tuple[tuple[int, ...], ...]] = (_WHITE_CODES, _WHITE_CODES, tuple(-kind for kind in range(6)))
"""``_CODES[side][kind]``: the signed code of ``side``'s pieces of type ``kind`` (a table for the
reasons given at :data:`_HOSTILE`)."""
RESERVE_TYPES: Final = "RNB"
"""Piece types a pawn may promote to, in the order of the reserve digits."""

Extra = tuple[int, int]
"""The extra state ``(ep, reserves)``: a plain tuple, not a NamedTuple, because the generator
builds one for every move that changes it and a NamedTuple's constructor is a Python call."""
_ExtraObject = Any
"""An :data:`Extra` that the generator passes on into raw moves as it is, the very object.
Compiled, a value typed ``tuple[int, int]`` is a C struct of two machine words, boxed into a new
tuple at each use as an object: every quiet move would get its own copy of the position's extra
state, which :meth:`Board.push_raw` then compares by value instead of finding it identical."""
_Act = tuple[Any, ...]
"""Internal capture action: ``(from, to, kind, victims, promotion, changes, reserve_delta, ep)``,
a :data:`~exochess.rawmove.RawAction` (its first ``ACTION_LENGTH`` fields) and two more."""

_NO_VICTIMS: Final[tuple[int, ...]] = ()

_NO_MOVE: Final[RawMove] = (None,) * 14
_QUIET_MOVES: Final[list[RawMove]] = [_NO_MOVE] * (128 << 7)
"""The cache of quiet moves: ``_QUIET_MOVES[origin << 7 | arrival]`` is the last quiet move
(without promotion) made from ``origin`` to ``arrival``, or a tuple of Nones.  Such a move is
fixed by its two squares, the piece and the extra state it leaves, so the generator hands out
the cached tuple when those two fields are the very objects it has (a piece code is a small
int, one object in CPython; the extra state is mostly :data:`_PLAIN` or the position's own
object, see :data:`_ExtraObject`).  Compiled, building a 14-field tuple and later freeing it
cost some 300 instructions, the lookup and the two identity tests some 50.  A slot written by
another thread meanwhile holds a whole move too: the tests decide."""

_PLAIN: Final[_ExtraObject] = (0, 0)
"""The extra state without en passant or reserves, one object for every position that has it
(:meth:`Interweave.parse_extra` and the generator hand out this one rather than a new tuple):
moves that share it are then found identical, by :meth:`Board.push_raw
<exochess.board.Board.push_raw>` and by the cache of quiet moves (:data:`_QUIET_MOVES`)."""

_SIZE: Final = 8


# --- precomputed tables (8x8, squares numbered rank * 16 + file) ---------------


def _sq(f: int, r: int) -> int:
    return r * 16 + f


def _on(f: int, r: int) -> bool:
    return 0 <= f < _SIZE and 0 <= r < _SIZE


SQUARES: Final[tuple[int, ...]] = tuple(_sq(f, r) for r in range(_SIZE) for f in range(_SIZE))
_SQUARES_DOWN: Final[tuple[int, ...]] = SQUARES[::-1]
"""The squares from h8 down to a1 (White's order of the pieces, see :func:`_own_pieces`)."""
_ORTH_DIRS: Final = ((1, 0), (-1, 0), (0, 1), (0, -1))
_DIAG_DIRS: Final = ((1, 1), (1, -1), (-1, 1), (-1, -1))
_DOUBLE_KNIGHT: Final = ((4, 2), (2, 4), (-2, 4), (-4, 2), (-4, -2), (-2, -4), (2, -4), (4, -2))


def _ray(s: int, dx: int, dy: int) -> tuple[int, ...]:
    f, r = (s & 15) + dx, (s >> 4) + dy
    out = []
    while _on(f, r):
        out.append(_sq(f, r))
        f += dx
        r += dy
    return tuple(out)


def _victim_key(sq: int) -> int:
    """Canonical victim order: by file, then by rank."""
    return (sq & 15) * 16 + (sq >> 4)


# Precise types of the tables, not list[Any]: the compiled build then indexes, unpacks and
# compares their entries natively instead of through Python's generic protocols.
_Squares = tuple[int, ...]
_Pairs = tuple[tuple[int, int], ...]
_Triples = tuple[tuple[int, int, int], ...]
_Landings = tuple[tuple[int, int], ...] | None
_Line = tuple[tuple[int, _Landings], ...]
_PawnTables = tuple[
    list[_Squares],
    list[_Pairs],
    list[tuple[int, int] | None],
    list[_Pairs],
    int,
    int,
    int,
    list[bool],
    list[_Triples],
]
_NO_SQUARES: _Squares = ()
_NO_PAIRS: _Pairs = ()
DIAG_RAYS: Final[list[tuple[_Squares, ...]]] = [()] * 128
"""Non-empty diagonal rays of each square."""
ORTH_RAYS: Final[list[tuple[_Squares, ...]]] = [()] * 128
"""Non-empty orthogonal rays of each square."""
KING_STEPS: Final[list[_Squares]] = [_NO_SQUARES] * 128
"""Diagonal neighbours."""
KING_LEAPS: Final[list[_Pairs]] = [_NO_PAIRS] * 128
"""(victim, landing) pairs of the King's short orthogonal leap."""
DOUBLE_KNIGHT: Final[list[_Pairs]] = [_NO_PAIRS] * 128
"""(midpoint, landing) pairs of the Leaper's double knight move."""
ORTH_ADJ: Final[list[_Squares]] = [_NO_SQUARES] * 128
"""Orthogonal neighbours in canonical victim order (the Remover's targets)."""
CUSTODIAN: Final[list[_Pairs]] = [_NO_PAIRS] * 128
"""(enemy square, friend square) pairs of a custodian capture by a pawn landing on a square."""
DOUBLE_KNIGHT_REACH: Final[list[frozenset[int]]] = [frozenset()] * 128
"""The midpoints of :data:`DOUBLE_KNIGHT`, where the Leaper's double knight move finds its victim."""
CUSTODIAN_REACH: Final[list[frozenset[int]]] = [frozenset()] * 128
"""The enemy squares of :data:`CUSTODIAN`: a pawn landing there captures only if one holds an enemy."""
VICTIM_KEY: Final[list[int]] = [0] * 128
"""Sort key of the canonical victim order."""

for _s in SQUARES:
    _f, _r = _s & 15, _s >> 4
    DIAG_RAYS[_s] = tuple(ray for dx, dy in _DIAG_DIRS if (ray := _ray(_s, dx, dy)))
    ORTH_RAYS[_s] = tuple(ray for dx, dy in _ORTH_DIRS if (ray := _ray(_s, dx, dy)))
    KING_STEPS[_s] = tuple(_sq(_f + dx, _r + dy) for dx, dy in _DIAG_DIRS if _on(_f + dx, _r + dy))
    KING_LEAPS[_s] = tuple(
        (_sq(_f + dx, _r + dy), _sq(_f + 2 * dx, _r + 2 * dy))
        for dx, dy in _ORTH_DIRS
        if _on(_f + 2 * dx, _r + 2 * dy)
    )
    DOUBLE_KNIGHT[_s] = tuple(
        (_sq(_f + dx // 2, _r + dy // 2), _sq(_f + dx, _r + dy))
        for dx, dy in _DOUBLE_KNIGHT
        if _on(_f + dx, _r + dy)
    )
    ORTH_ADJ[_s] = tuple(
        sorted((_sq(_f + dx, _r + dy) for dx, dy in _ORTH_DIRS if _on(_f + dx, _r + dy)), key=_victim_key)
    )
    CUSTODIAN[_s] = KING_LEAPS[_s]
    CUSTODIAN_REACH[_s] = frozenset(a for a, _ in CUSTODIAN[_s])
    DOUBLE_KNIGHT_REACH[_s] = frozenset(m for m, _ in DOUBLE_KNIGHT[_s])
    VICTIM_KEY[_s] = _victim_key(_s)


def _side_tables(me: int) -> _PawnTables:
    """Pawn tables of one side: steps, double steps, short leap, custodian pairs without
    the backward direction, initial rank, second-to-last rank, last rank, whether a
    square is off the promotion ranks, and the advances (steps and double steps as
    ``(passed, arrival, en-passant key)`` triples, a step passing its own arrival square)."""
    steps: list[_Squares] = [_NO_SQUARES] * 128
    doubles: list[_Pairs] = [_NO_PAIRS] * 128
    leaps: list[tuple[int, int] | None] = [None] * 128
    forward_custodian: list[_Pairs] = [_NO_PAIRS] * 128
    first = 1 if me > 0 else _SIZE - 2
    for s in SQUARES:
        f, r = s & 15, s >> 4
        steps[s] = tuple(_sq(f + dx, r + me) for dx in (-1, 1) if _on(f + dx, r + me))
        if r == first:
            doubles[s] = tuple(
                (_sq(f + dx, r + me), _sq(f + 2 * dx, r + 2 * me)) for dx in (-1, 1) if _on(f + 2 * dx, r)
            )
        if _on(f, r + 2 * me):
            leaps[s] = (_sq(f, r + me), _sq(f, r + 2 * me))
        forward_custodian[s] = tuple(
            (_sq(f + dx, r + dy), _sq(f + 2 * dx, r + 2 * dy))
            for dx, dy in _ORTH_DIRS
            if (dx, dy) != (0, -me) and _on(f + 2 * dx, r + 2 * dy)
        )
    seventh = _SIZE - 2 if me > 0 else 1
    last = _SIZE - 1 if me > 0 else 0
    plain = [(s >> 4) not in (seventh, last) for s in range(128)]
    advances: list[_Triples] = [()] * 128
    for s in SQUARES:
        advances[s] = tuple((e, e, 0) for e in steps[s]) + tuple((m, e, (m << 8) | e) for m, e in doubles[s])
    return steps, doubles, leaps, forward_custodian, first, seventh, last, plain, advances


# Indexed by the side sign: [1] White, [-1] (= [2]) Black.
_WHITE_TABLES: Final = _side_tables(1)
_BLACK_TABLES: Final = _side_tables(-1)
# A tuple of unknown length is one Python object, compiled; with three typed items it would be
# a C struct, boxed into four new tuples at every lookup.
PAWN_TABLES: Final[tuple[_PawnTables, ...]] = (_WHITE_TABLES, _WHITE_TABLES, _BLACK_TABLES)

ORTH_PAIRS: Final[list[tuple[_Pairs, ...]]] = [()] * 128
"""The orthogonal non-capturing moves of the Smasher and the Leaper: per direction, the
(passed, arrival) pairs of the slide by two, four and six squares."""
for _s in SQUARES:
    ORTH_PAIRS[_s] = tuple(
        pairs for ray in ORTH_RAYS[_s] if (pairs := tuple(zip(ray[0::2], ray[1::2], strict=False)))
    )

APPROACH: Final[list[tuple[_Triples, ...]]] = [()] * 128
"""The Smasher's approach captures: per direction, the (passed, arrival, victim) triples
of the slide by two, four and six squares."""
for _s in SQUARES:
    APPROACH[_s] = tuple(
        triples
        for ray in ORTH_RAYS[_s]
        if (triples := tuple(zip(ray[0::2], ray[1::2], ray[2::2], strict=False)))
    )

LEAPER_LINES: Final[list[tuple[tuple[frozenset[int], _Line], ...]]] = [()] * 128
"""The Leaper's long leap, per direction: the squares an odd number of squares away (where a
piece may be leapt), and ``(square, landings)`` for each square of the line from the nearest
outwards.  The first piece on the line may be leapt if it is an odd number
of squares away (``landings`` is None for the others); ``landings`` then lists ``(passed,
arrival)`` pairs for the arrivals an odd number of squares beyond it, each needing both
squares empty (the nearest one repeats its single square), in the order they are reached."""


def _leaper_line(ray: tuple[int, ...]) -> tuple[tuple[int, tuple[tuple[int, int], ...] | None], ...]:
    line: list[tuple[int, tuple[tuple[int, int], ...] | None]] = []
    for i, t in enumerate(ray):
        beyond = ray[i + 1 :]
        if i & 1 or not beyond:
            line.append((t, None))
            continue
        pairs = [(beyond[0], beyond[0]), *zip(beyond[1::2], beyond[2::2], strict=False)]
        line.append((t, tuple(pairs)))
    return tuple(line)


for _s in SQUARES:
    LEAPER_LINES[_s] = tuple((frozenset(ray[0::2]), _leaper_line(ray)) for ray in ORTH_RAYS[_s])


def _reach_tables(me: int) -> tuple[list[frozenset[int]], ...]:
    """``tables[kind][s]``: the squares where an enemy must stand for a piece of ``kind`` on
    ``s`` (of the side ``me``) to have any capturing action, en passant aside.

    A piece whose reach holds no enemy is skipped after one ``isdisjoint``: proving square
    by square that it can capture nothing costs several times more.
    """
    steps, doubles, leaps = PAWN_TABLES[me][0], PAWN_TABLES[me][1], PAWN_TABLES[me][2]
    tables: tuple[list[frozenset[int]], ...] = tuple([frozenset()] * 128 for _ in range(6))
    for s in SQUARES:
        tables[KING][s] = frozenset(m for m, _ in KING_LEAPS[s])  # the leapt enemy
        tables[SMASHER][s] = frozenset(t for triples in APPROACH[s] for _, _, t in triples)
        tables[REMOVER][s] = frozenset(ORTH_ADJ[s])
        tables[LEAPER][s] = frozenset(  # the first piece on a line, an odd distance away
            ray[i] for ray in ORTH_RAYS[s] for i in range(0, len(ray), 2)
        ) | frozenset(m for m, _ in DOUBLE_KNIGHT[s])
        landings = [*steps[s], *(e for _, e in doubles[s])]  # custodian captures on arrival
        pawn = {a for e in landings for a, _ in CUSTODIAN[e]}
        leap = leaps[s]
        if leap is not None:
            pawn.add(leap[0])  # the short leap over an enemy straight ahead
        tables[PAWN][s] = frozenset(pawn)
    return tables


_WHITE_REACH: Final = _reach_tables(1)
REACH: Final[tuple[tuple[list[frozenset[int]], ...], ...]] = (_WHITE_REACH, _WHITE_REACH, _reach_tables(-1))
"""Indexed by the side sign, like :data:`PAWN_TABLES`."""
PARITY: Final[list[int]] = [0] * 128
"""``PARITY[s]``: the colour of square ``s``, 0 or 1 (``(file + rank) & 1``).  Every piece keeps
the colour of its square (each move covers an even number of squares), and every square of a
piece's :data:`REACH` lies on the other colour: the squares of one colour fit in 32 bits."""
PARITY_BIT: Final[list[int]] = [0] * 128
"""``PARITY_BIT[s]``: the bit of square ``s`` among the 32 squares of its colour (four a rank)."""
for _s in SQUARES:
    PARITY[_s] = ((_s & 15) + (_s >> 4)) & 1
    PARITY_BIT[_s] = 1 << ((_s >> 4) * 4 + ((_s & 15) >> 1))


def _reach_masks(tables: tuple[list[frozenset[int]], ...]) -> tuple[list[int], ...]:
    """:data:`REACH` as bits of the other colour's squares (see :data:`PARITY_BIT`)."""
    masks: tuple[list[int], ...] = tuple([0] * 128 for _ in tables)
    for kind, table in enumerate(tables):
        for s in SQUARES:
            for t in table[s]:
                # The one fact the masks rely on, checked once here rather than assumed.
                assert PARITY[t] != PARITY[s], "a piece's reach lies on the other colour"
                masks[kind][s] |= PARITY_BIT[t]
    return masks


_WHITE_REACH_MASKS: Final = _reach_masks(_WHITE_REACH)
REACH_MASKS: Final[tuple[tuple[list[int], ...], ...]] = (
    _WHITE_REACH_MASKS,
    _WHITE_REACH_MASKS,
    _reach_masks(REACH[-1]),
)
""":data:`REACH` as 32-bit masks of squares of the other colour, for the compiled build's survey
(:func:`_survey`), indexed by the side sign like :data:`PAWN_TABLES`."""
_KINDS: Final[tuple[int, ...]] = (KING, SMASHER, LEAPER, REMOVER, PAWN)  # (one object: see PAWN_TABLES)


def _enemy_squares(board: Board, me: int) -> set[int]:
    """The squares of the enemy's pieces (a new set), from :attr:`Board.piece_squares`."""
    where = board.piece_squares
    codes = _CODES[-me]
    return where[codes[1]].union(where[codes[2]], where[codes[3]], where[codes[4]], where[codes[5]])


def _capturers(board: Board, me: int, enemies: set[int]) -> list[int]:
    """The squares of the side to move's pieces with an enemy in reach: the only ones that may
    capture, en passant aside.  In the order of :func:`_own_pieces`; only these few are
    sorted (the order of the sets depends on the board's history, and the moves must not).
    """
    if COMPILED:
        return _survey(board.squares, me)[1]
    where = board.piece_squares
    reach = REACH[me]
    found: list[int] = []
    codes = _CODES[me]
    # The bound method, looked up once (compiled, ``table[s].isdisjoint(enemies)`` looks the
    # method up by name at every call: mypyc has no primitive for it).
    disjoint = enemies.isdisjoint
    for kind in _KINDS:
        table = reach[kind]
        for s in where[codes[kind]]:
            if not disjoint(table[s]):
                found.append(s)
    if len(found) > 1:
        # sort() and reverse() without arguments are direct C calls, compiled; a keyword
        # argument makes the call go through the method's name.
        found.sort()
        if me > 0:
            found.reverse()
    return found


def _survey(b: list[int], me: int) -> tuple[list[int], list[int]]:
    """The compiled build's one pass over the board before generating: the side to move's
    pieces in the order of :func:`_own_pieces`, and those of them with an enemy in reach (as
    :func:`_capturers` finds them).

    Compiled, a scan of the 64 squares is native, while the piece sets are iterated through
    Python's generic protocol; the enemies are gathered as bits of their squares' colour
    (:data:`PARITY_BIT`), and a piece's reach is then one AND with a mask of the other colour
    (:data:`REACH_MASKS`) instead of a look at each of its squares on the board.  The three
    functions it replaces cost about 23,000 instructions a position, this one about 10,400
    (a callgrind of a compiled perft 3 from the start).
    From source the sets and ``isdisjoint`` stay cheaper: only the compiled build calls this.
    """
    own: list[int] = []
    hostile = _HOSTILE[me]
    bit = PARITY_BIT
    even = odd = 0  # the enemy's squares of each colour, as bits
    # A square's colour is computed, (s ^ s >> 4) & 1, rather than read from PARITY: two
    # native operations instead of a list lookup and an unboxing.
    for s in _SQUARES_DOWN if me > 0 else SQUARES:
        x = b[s]
        if x:
            if hostile[x]:
                if (s ^ (s >> 4)) & 1:
                    odd |= bit[s]
                else:
                    even |= bit[s]
            else:
                own.append(s)
    capturers: list[int] = []
    masks = REACH_MASKS[me]
    for s in own:
        v = b[s]
        # A piece's reach lies on the other colour: test the enemies there.
        if masks[v if me > 0 else -v][s] & (even if (s ^ (s >> 4)) & 1 else odd):
            capturers.append(s)
    return own, capturers


def _own_pieces(board: Board, me: int) -> list[int]:
    """The squares of the side to move's pieces, most advanced first (captures among equals
    are tried in this order; it is also the order of the quiet moves).

    From source, read from :attr:`Board.piece_squares` (the five codes of the side) and
    sorted, because a set's iteration order depends on its history and the moves must come
    in the same order whatever the history; compiled, by scanning the squares in order.  Squares are numbered
    ``rank * 16 + file``, so descending order is White's "top rank first, file h first" and
    ascending order Black's.  Only for a board whose list and sets agree: the chains, which
    change the list temporarily, never call this.
    """
    if COMPILED:
        # Compiled, a scan of the 64 squares in order costs a fifth of gathering five sets into
        # a list (a generic iteration of each set) and sorting it; from source it costs more
        # than that, which runs in C.  Both give the same list.
        b = board.squares
        if me > 0:
            return [s for s in _SQUARES_DOWN if b[s] > 0]
        return [s for s in SQUARES if b[s] < 0]
    where = board.piece_squares
    if me > 0:
        own = [*where[KING], *where[SMASHER], *where[LEAPER], *where[REMOVER], *where[PAWN]]
        own.sort()  # then reversed: see _capturers
        own.reverse()
    else:
        own = [*where[-KING], *where[-SMASHER], *where[-LEAPER], *where[-REMOVER], *where[-PAWN]]
        own.sort()
    return own


# Reserve counters: 5 bits each, the six of them in 30 bits, so that a packed reserves
# value stays a one-digit CPython int (the cheapest arithmetic).  RESERVE_UNIT[code] is
# the amount added to the packed reserves when the piece ``code`` (signed) is captured,
# and subtracted when a pawn of that colour promotes to it.  Negative codes index from
# the end.  Kings count nothing in the reserves but carry a flag bit far above them.
RESERVE_BITS: Final = 5
RESERVE_MAX: Final = (1 << RESERVE_BITS) - 1
"""The largest reserve count (31).  A side's pieces of one type, in its reserve and on the
board together, never change in number during a game (a capture moves one from the board
to the reserve, a promotion back), so a FEN whose totals are at most this can never make
a counter overflow; :meth:`Interweave.validate` refuses the others."""
RESERVE_SHIFT: Final = {SMASHER: 0, LEAPER: RESERVE_BITS, REMOVER: 2 * RESERVE_BITS}
_BLACK_RESERVE_SHIFT: Final = 3 * RESERVE_BITS
RESERVE_UNIT: Final[list[int]] = [0] * 11
for _t, _shift in RESERVE_SHIFT.items():
    RESERVE_UNIT[_t] = 1 << _shift
    RESERVE_UNIT[-_t] = 1 << (_shift + _BLACK_RESERVE_SHIFT)
KING_TAKEN: Final = 1 << 32
"""Added to a reserve delta for each King an action removes, so the chain logic can see it."""
RESERVE_UNIT[KING] = RESERVE_UNIT[-KING] = KING_TAKEN
_LETTER_OF: Final = {SMASHER: "R", LEAPER: "N", REMOVER: "B"}

CHAINS_PER_GIL_RELEASE: Final = 256
"""A thread listing Interweave's chains gives the GIL up about every this many turns it lists
(checked as a chain of two or more actions ends).  Compiled code never does on its own
(mypyc's native code does not run CPython's evaluation loop, where a thread is asked to), and a
position can have tens of thousands of chains (45,135 in ``bench/grown_position.py``'s game):
listed in one of the site's worker threads, it stopped the event loop for the whole listing,
474 ms.  256 chains take about 2.5 ms compiled; the release is a ``time.sleep(0)`` (a few
µs), and a list of fewer than 256 turns has none."""

# Zobrist keys of the extra state.
_rng = random.Random(0x1E7E_A7E5)
_EP_KEYS: Final[dict[int, int]] = {}
for _m in SQUARES:
    for _d in SQUARES:
        if abs((_m >> 4) - (_d >> 4)) == 1 and abs((_m & 15) - (_d & 15)) == 1:
            _EP_KEYS[(_m << 8) | _d] = _rng.getrandbits(KEY_BITS)
_RESERVE_KEYS: Final[list[list[int]]] = [
    [0] + [_rng.getrandbits(KEY_BITS) for _ in range(15)] for _ in range(6)
]
# Counts 16 to 31 came with the two-digit reserve form: their keys come from a second
# generator, so that the keys of the counts up to 15 stay what they were.
_rng_more = random.Random(0x1E7E_A7E6)
for _keys in _RESERVE_KEYS:
    _keys += [_rng_more.getrandbits(KEY_BITS) for _ in range(16, RESERVE_MAX + 1)]


_EP_KEY_LIST: Final[list[int]] = [0] * (1 << 15)
"""The keys of :data:`_EP_KEYS` by the en-passant state itself (``mid << 8 | dest``, below
``1 << 15``): compiled, a list indexed by a machine word instead of a dict looked up with a
five-digit int, boxed into a new object for every lookup.  Indexed directly rather than by
a packed twelve-bit form of the two squares: computing that index was a call of some 110
instructions, made twice by most moves that change the extra state (about 100 instructions a
compiled Interweave perft node; the list costs 256 KiB of pointers to one 0)."""
for _ep, _key in _EP_KEYS.items():
    _EP_KEY_LIST[_ep] = _key

_DOUBLE_STEP_EXTRA: Final[list[_ExtraObject]] = [None] * (1 << 15)
"""``_DOUBLE_STEP_EXTRA[ep]``: the extra state ``(ep, 0)`` a double step leaves when both
reserves are empty, one object for each en-passant state (indexed like :data:`_EP_KEY_LIST`),
instead of a new tuple and a new int for every double step generated (see :data:`_PLAIN`)."""
for _ep in _EP_KEYS:
    _DOUBLE_STEP_EXTRA[_ep] = (_ep, 0)

_RESERVE_CHUNK: Final = 2 * RESERVE_BITS
"""Bits of the packed reserves hashed by one lookup in :data:`_RESERVE_HASH`: two counters."""
_RESERVE_HASH: Final[list[int]] = [
    _RESERVE_KEYS[2 * j][chunk & RESERVE_MAX] ^ _RESERVE_KEYS[2 * j + 1][chunk >> RESERVE_BITS]
    for j in range(3)
    for chunk in range(1 << _RESERVE_CHUNK)
]
"""``_RESERVE_HASH[j << 10 | chunk]``: the keys of counters ``2j`` and ``2j + 1`` holding the
two 5-bit counts packed in ``chunk``, XORed: three lookups hash all six reserve counters."""


def _extra_key(ep: int, reserves: int) -> int:
    """Zobrist contribution of the extra state ``(ep, reserves)``: the one formula."""
    mask = (1 << _RESERVE_CHUNK) - 1
    h = (
        _RESERVE_HASH[reserves & mask]
        ^ _RESERVE_HASH[(1 << _RESERVE_CHUNK) | ((reserves >> _RESERVE_CHUNK) & mask)]
        ^ _RESERVE_HASH[(2 << _RESERVE_CHUNK) | ((reserves >> (2 * _RESERVE_CHUNK)) & mask)]
    )
    if ep:
        h ^= _EP_KEY_LIST[ep]
    return h


class _ExtraHashes(dict[Hashable, int]):
    """Zobrist contribution of each extra state, computed on first use."""

    def __missing__(self, extra: Hashable) -> int:
        h = _extra_key(*as_extra(extra))
        self[extra] = h
        return h


_EXTRA_HASH = _ExtraHashes()


def as_extra(extra: Hashable) -> Extra:
    """``extra`` as an Interweave extra state; :class:`TypeError` if it is not one.

    >>> as_extra((0, 0))
    (0, 0)
    >>> as_extra(None)
    Traceback (most recent call last):
    ...
    TypeError: not an Interweave extra state (ep, reserves): None
    """
    if isinstance(extra, tuple) and len(extra) == 2 and all(type(x) is int for x in extra):
        return extra
    raise TypeError(f"not an Interweave extra state (ep, reserves): {extra!r}")


def reserves_of(extra: Hashable) -> dict[str, dict[str, int]]:
    """The reserves of an Interweave extra state by side and piece letter (for interfaces).

    >>> from exochess import Board
    >>> reserves_of(Board("interweave", fen="8/8/8/8/8/8/8/8 w - 012300").extra)
    {'white': {'R': 0, 'N': 1, 'B': 2}, 'black': {'R': 3, 'N': 0, 'B': 0}}
    """
    counts = reserve_counts(as_extra(extra)[1])
    return {
        "white": dict(zip(RESERVE_TYPES, counts[:3], strict=True)),
        "black": dict(zip(RESERVE_TYPES, counts[3:], strict=True)),
    }


def reserve_counts(reserves: int) -> tuple[int, ...]:
    """The six reserve counters of a packed reserves int, in FEN order.

    >>> reserve_counts(_pack_reserves([1, 0, 2, 0, 12, 0]))
    (1, 0, 2, 0, 12, 0)
    """
    return tuple((reserves >> (RESERVE_BITS * i)) & RESERVE_MAX for i in range(6))


def _pack_reserves(counts: Sequence[int]) -> int:
    packed = 0
    for i, c in enumerate(counts):
        packed |= c << (RESERVE_BITS * i)
    return packed


_RESERVE_ITEM = re.compile(r"\d|\[(\d{1,2})\]")
"""One count of the reserves field: a digit, or a number of one or two digits in brackets."""


def parse_reserves(text: str) -> list[int]:
    """The six counts of a reserves field: single digits, with ``[nn]`` for a count above nine.

    >>> parse_reserves("01[12]000")
    [0, 1, 12, 0, 0, 0]
    """
    counts: list[int] = []
    pos = 0
    while pos < len(text):
        m = _RESERVE_ITEM.match(text, pos)
        if m is None or not text.isascii():
            counts = []
            break
        counts.append(int(m.group(1) or m.group(0)))
        pos = m.end()
    if len(counts) != 6:
        raise FenError(
            "the reserves field must be six counts, each a digit or a number in brackets above nine "
            f"(like 000000 or 0[10]0000), not {text!r}"
        )
    return counts


def format_reserves(counts: Sequence[int]) -> str:
    """The reserves field of six counts (inverse of :func:`parse_reserves`).

    >>> format_reserves([0, 1, 12, 0, 0, 0])
    '01[12]000'
    """
    return "".join(str(c) if c < 10 else f"[{c}]" for c in counts)


def _board_square(text: str, problem: str) -> int:
    try:
        sq = parse_square(text)
    except ValueError:
        raise FenError(f"{problem}: {text!r} is not a square") from None
    if (sq & 15) >= _SIZE or (sq >> 4) >= _SIZE:
        raise FenError(f"{problem}: {text} is not on the 8x8 board")
    return sq


def en_passant(extra: Hashable) -> tuple[int, int] | None:
    """``(mid, dest)`` of the en-passant right in an Interweave extra state, or None.

    >>> from exochess import Board
    >>> board = Board("interweave")
    >>> en_passant(board.extra) is None
    True
    >>> _ = board.push_text("b2-d4")
    >>> [square_name(sq) for sq in en_passant(board.extra)]
    ['c3', 'd4']
    """
    ep = as_extra(extra)[0]
    if not ep:
        return None
    return ep >> 8, ep & 255


# A game defined elsewhere may start from this one (a subclass in plain Python).
@mypyc_attr(allow_interpreted_subclasses=True)
class Interweave(Variant):
    """Interweave on 8x8: compulsory captures, capture chains; capture one of the two Kings."""

    name = "interweave"
    title = "Interweave"
    aliases = ("interweave-chess",)
    glyphs: ClassVar[dict[str, str]] = {
        "K": "crown",
        "R": "square",
        "N": "diamond",
        "B": "hexagon",
        "P": "pawn",
    }
    evaluator = "exochess.variants.interweave.evaluation:InterweaveEvaluator"
    rules_page = "rules.md"
    description = "Two colour-bound teams each: smashers, leapers, removers; captures chain; take a King."
    width = 8
    height = 8
    piece_letters = "KRNBP"
    piece_names: ClassVar[dict[str, str]] = {
        "K": "King",
        "R": "Smasher",
        "N": "Leaper",
        "B": "Remover",
        "P": "Pawn",
    }
    piece_descriptions: ClassVar[dict[str, str]] = {
        "K": "Steps one square diagonally; captures by jumping over an enemy next to it "
        "(straight) onto the empty square beyond. Lose one of your two Kings and you lose.",
        "R": "Slides diagonally, or straight by an even number of squares; captures the enemy "
        "just beyond where it stops (not one it starts next to).",
        "N": "Slides like the Smasher; captures by leaping over an enemy on a straight line, "
        "or by a double knight's move over one.",
        "B": "Slides diagonally; fires without moving, removing every enemy straight next to it.",
        "P": "Steps diagonally forward; captures by leaping straight over an enemy, or by trapping "
        "one against a friend; promotes to a piece from its side's reserve.",
    }
    # FEN keeps vchess's R/N/B, which read as chess's rook, knight and bishop; the glyphs show
    # letters of the pieces' own names instead (X: the Remover crosses pieces out).
    glyph_labels: ClassVar[dict[str, str]] = {"R": "S", "N": "L", "B": "X"}
    acts_in_place = "B"
    annotator = "exochess.variants.interweave.annotations:annotate"
    royal = "K"
    royal_minimum = 2
    repetition = THREEFOLD_LOSS
    captures_compulsory = True
    # Compiled, the generator and the evaluation find the pieces by a scan of the squares
    # (_survey, _own_pieces, InterweaveEvaluator.dynamic), and the board need not keep the
    # piece sets: their upkeep was about 640 instructions a compiled perft node.  From source
    # the sets are the cheaper way to find the pieces, and they are kept.
    piece_sets = not COMPILED
    starting_fen = "rbnkknbr/pppppppp/8/8/8/8/PPPPPPPP/RBNKKNBR w - 000000"
    royal_capture_text = "King captured"

    # --- FEN ---------------------------------------------------------------------

    def parse_extra(self, fields: Sequence[str], squares: list[int], white_to_move: bool) -> Hashable:
        """Read ``<ep> <reserves>``, vchess's ``<moves> <ep> <captured>``, or nothing.

        The en-passant field is ``-``, ``mid,dest`` (``c3,d4``) or vchess's
        ``mid,file`` (``c3,d``).
        """
        if not fields:
            return (0, 0)
        if len(fields) == 2:
            ep_text, reserve_text = fields
        elif len(fields) == 3:
            if not (fields[0].isascii() and fields[0].isdigit()):
                raise FenError(
                    "an Interweave FEN has two fields after the side to move, '<ep> <reserves>', or "
                    f"vchess's three, '<moves> <ep> <captured>'; with three, the move counter {fields[0]!r} "
                    "is not a number"
                )
            ep_text, reserve_text = fields[1], fields[2]
        else:
            raise FenError(
                "an Interweave FEN has two fields after the side to move, '<ep> <reserves>' "
                f"(for example '- 000000'), or vchess's three, not {len(fields)}: {' '.join(fields)!r}"
            )
        counts = parse_reserves(reserve_text)
        if max(counts) > RESERVE_MAX:
            raise FenError(
                f"a reserve count is at most {RESERVE_MAX}, not {max(counts)} (in {reserve_text!r})"
            )
        reserves = _pack_reserves(counts)
        ep = self._parse_ep(ep_text, squares, white_to_move)
        return (ep, reserves) if ep or reserves else _PLAIN

    def _parse_ep(self, text: str, squares: Sequence[int], white_to_move: bool) -> int:
        if text == "-":
            return 0
        problem = f"the en-passant field {text!r}"
        parts = text.split(",")
        if len(parts) != 2:
            raise FenError(
                f"{problem} must be '-' or 'mid,dest' (the passed and the arrival square, like c3,d4)"
            )
        mover = -1 if white_to_move else 1  # the side that made the double step
        side = "White" if mover > 0 else "Black"
        mid = _board_square(parts[0], problem)
        mid_rank = 2 if mover > 0 else _SIZE - 3
        if mid >> 4 != mid_rank:
            raise FenError(
                f"{problem}: with {'Black' if mover > 0 else 'White'} to move, the passed square belongs to "
                f"a {side} double step and must be on rank {mid_rank + 1}, not {square_name(mid)}"
            )
        if len(parts[1]) == 1 and "a" <= parts[1] <= "h":  # vchess: only the arrival file
            dest = _sq(ord(parts[1]) - 97, mid_rank + mover)
        else:
            dest = _board_square(parts[1], problem)
        mf, df = mid & 15, dest & 15
        if dest >> 4 != mid_rank + mover or abs(df - mf) != 1 or not 0 <= 2 * mf - df < _SIZE:
            raise FenError(
                f"{problem}: no double step passes {square_name(mid)} and ends on {square_name(dest)}"
            )
        start = 2 * mid - dest
        if squares[dest] != mover * PAWN:
            raise FenError(f"{problem}: there is no {side} pawn on {square_name(dest)} that double-stepped")
        for empty in (mid, start):
            if squares[empty]:
                raise FenError(f"{problem}: {square_name(empty)} must be empty right after the double step")
        return (mid << 8) | dest

    def format_extra(self, extra: Hashable) -> list[str]:
        ep, reserves = as_extra(extra)
        ep_text = "-" if not ep else f"{square_name(ep >> 8)},{square_name(ep & 255)}"
        return [ep_text, format_reserves(reserve_counts(reserves))]

    def extra_hash(self, extra: Hashable) -> int:
        """Zobrist contribution of an extra state (replaced when running from source, below)."""
        # Compiled, three list lookups in machine words cost less than hashing the tuple and
        # comparing it with the table's key; from source the table's lookup is cheaper.
        ep: int
        reserves: int
        if isinstance(extra, tuple) and len(extra) == 2:
            ep, reserves = extra
            return _extra_key(ep, reserves)
        return _EXTRA_HASH[extra]  # as_extra's TypeError for anything else

    def extra_delta(self, before: Hashable, after: Hashable) -> int:
        """The key change from extra state ``before`` to ``after`` (replaced when running from
        source, below)."""
        # Compiled: a quiet move changes only the en-passant pair, so when the reserves are
        # equal two list lookups give the change (none, one or two keys), instead of hashing
        # both states in full and comparing the two tuples first; about 320 instructions a
        # compiled perft node less (58% of the moves from the start change the extra state).
        ep0: int
        ep1: int
        r0: int
        r1: int
        if isinstance(before, tuple) and isinstance(after, tuple) and len(before) == 2 and len(after) == 2:
            ep0, r0 = before
            ep1, r1 = after
            if r0 != r1:
                return _extra_key(ep0, r0) ^ _extra_key(ep1, r1)
            h = 0
            if ep0:
                h = _EP_KEY_LIST[ep0]
            if ep1:
                h ^= _EP_KEY_LIST[ep1]
            return h
        return self.extra_hash(before) ^ self.extra_hash(after)  # as_extra's TypeError

    def __init__(self) -> None:
        super().__init__()
        self._capture_free: tuple[list[int], int, Extra] | None = None
        """The last position :meth:`generate_captures` found without a capture (squares, side,
        extra state).  A search asks for the captures of a
        position first and for all its moves only when there is none: :meth:`generate` then
        knows, after comparing the position, that only quiet actions remain to be built.
        Written in one assignment of a whole tuple and read once into a local: two threads
        sharing this instance then see either the old or the new record, never a mix."""

    def validate(self, squares: Sequence[int], extra: Hashable) -> None:
        """A side has at most two Kings (the game is lost when fewer than two are left), and
        its pieces of each promotable type, in reserve and on the board, number at most
        :data:`RESERVE_MAX` (that total never changes in play, so no count can overflow)."""
        counts = reserve_counts(extra[1])  # type: ignore[index]
        for sign, side, offset in ((1, "White", 0), (-1, "Black", 3)):
            kings = squares.count(sign * KING)
            if kings > 2:
                raise FenError(f"impossible Interweave position: {side} has {kings} Kings (at most 2)")
            for i, letter in enumerate(RESERVE_TYPES):
                held = counts[offset + i]
                placed = squares.count(sign * self.codes[letter])
                if held + placed > RESERVE_MAX:
                    name = self.piece_names[letter]
                    raise FenError(
                        f"impossible Interweave position: {side}'s {name}s, {placed} on the board and "
                        f"{held} in reserve, make {held + placed}; at most {RESERVE_MAX}, the largest "
                        "reserve count, since captures could move all of them into the reserve"
                    )

    # --- move generation ------------------------------------------------------------
    #
    # One capture generator serves generate and generate_captures: _piece_captures, the
    # capturing actions of one piece, for the first action of a turn (_first_captures)
    # and for every later action of a chain (_chains).  The non-capturing actions
    # (_quiet_actions) are built only when no capture exists: captures are compulsory.

    def generate(self, board: Board) -> list[RawMove]:
        b = board.squares
        me = board.side
        extra = board.extra
        assert isinstance(extra, tuple)  # an Extra (as_extra checks more, at the cost of a call)
        known = self._capture_free
        if known is None or known[1] != me or known[2] != extra or known[0] != b:
            own: list[int] | None
            enemies: set[int] | None
            if COMPILED:  # one pass over the board finds both, and no enemy set is needed
                own, capturers = _survey(b, me)
                enemies = None
            else:
                enemies = _enemy_squares(board, me)
                capturers = _capturers(board, me, enemies)
                own = None
            caps = self._first_captures(b, me, extra, capturers, enemies)
            if caps:
                return self._chains(b, me, extra, caps, enemies)
            if own is not None:
                return self._quiet_actions(b, me, extra, own)
        return self._quiet_actions(b, me, extra, _own_pieces(board, me))

    def generate_captures(self, board: Board) -> list[RawMove]:
        """The turns of :meth:`generate` that begin with a capture, without building any quiet action.

        Captures are compulsory, so these are all of :meth:`generate`'s turns when the
        side to move can capture, and none otherwise.  The same capture generator as
        :meth:`generate` runs.
        """
        b = board.squares
        me = board.side
        extra = board.extra
        assert isinstance(extra, tuple)  # an Extra (as_extra checks more, at the cost of a call)
        enemies: set[int] | None
        if COMPILED:
            capturers = _survey(b, me)[1]
            enemies = None
        else:
            enemies = _enemy_squares(board, me)
            capturers = _capturers(board, me, enemies)
        caps = self._first_captures(b, me, extra, capturers, enemies)
        if not caps:
            self._capture_free = (b[:], me, extra)
            return []
        return self._chains(b, me, extra, caps, enemies)

    def quiet_moves(self, board: Board) -> list[RawMove]:
        """Every non-capturing action of the side to move, as if captures were not compulsory.

        Not legal moves when a capture exists; for diagrams, hints and tests.
        """
        b = board.squares
        me = board.side
        extra = as_extra(board.extra)
        own = _own_pieces(board, me)
        # _quiet_actions assumes that nothing can be captured, so it also lists the
        # moves that would capture: a pawn step making a custodian capture, a Smasher's
        # slide ending next to an enemy.  Each of them has the same origin and arrival as
        # a capturing action, which no truly quiet action has.
        enemies = _enemy_squares(board, me)
        firsts = self._first_captures(b, me, extra, _capturers(board, me, enemies), enemies)
        capturing = {(a[FROM], a[TO]) for a in firsts}
        return [m for m in self._quiet_actions(b, me, extra, own) if (m[FROM], m[TO]) not in capturing]

    def _first_captures(
        self, b: list[int], me: int, extra: Extra, capturers: list[int], enemies: set[int] | None
    ) -> list[_Act]:
        """The capturing first actions of the pieces on ``capturers``, en passant included
        (``enemies``: the enemy's squares, or None, see :meth:`_piece_captures`)."""
        caps: list[_Act] = []
        ep, reserves = extra
        if capturers:
            self._piece_captures(b, me, capturers, reserves, caps, enemies)
        if ep:
            self._en_passant(b, me, ep, reserves, caps)
        return caps

    def _quiet_actions(self, b: list[int], me: int, extra: _ExtraObject, own: list[int]) -> list[RawMove]:
        """The non-capturing actions of the pieces on ``own``, as finished raw moves, in a
        position where nothing can be captured (see :meth:`quiet_moves` otherwise)."""
        ep: int
        reserves: int
        ep, reserves = extra
        # The state after a quiet move: one object shared by every quiet move (see _ExtraObject).
        after: _ExtraObject = extra if not ep else ((0, reserves) if reserves else _PLAIN)
        tables = PAWN_TABLES[me]
        advances, plain = tables[8], tables[7]
        no_victims = _NO_VICTIMS
        diag_rays = DIAG_RAYS
        cache = _QUIET_MOVES
        # Literal raw moves, every one a ONE_RELOCATION (14 fields, exochess.rawmove's layout): a
        # call per move would cost more than the rest of the inner loop.  Each is first looked
        # up in the cache of quiet moves, by origin and arrival; it is the move wanted when it
        # holds this piece and this very extra state (the only other fields that vary).
        quiet: list[RawMove] = []
        move: RawMove
        # The piece and 0 as Python objects: compiled, an int-typed value is boxed into an
        # object at each place in a tuple.  The piece is the board list's own object (read
        # typed Any, not unboxed and boxed again); the two squares are boxed only when a move
        # is built, which the cache makes rare.
        objects: list[Any] = b
        zero: Any = 0
        for s in own:
            v = b[s]
            vo: Any = objects[s]
            base = s << 7  # the origin's part of the index into the cache
            kind = v if me > 0 else -v  # (by negation: see _HOSTILE)
            if kind == PAWN:
                for m, e, ep_key in advances[s]:
                    if b[m] or b[e]:
                        continue
                    if not (ep_key or plain[e]):
                        self._quiet_promotions(me, s, v, e, reserves, tables, after, quiet)
                        continue
                    state: _ExtraObject = after
                    if ep_key:
                        state = (ep_key, reserves) if reserves else _DOUBLE_STEP_EXTRA[ep_key]
                    move = cache[base | e]
                    if move[5] is not state or move[9] is not vo:
                        move = (s, e, "-", no_victims, None, state, None, None, s, vo, zero, e, zero, vo)
                        cache[base | e] = move
                    quiet.append(move)
                continue
            if kind == KING:
                for t in KING_STEPS[s]:
                    if b[t]:
                        continue
                    move = cache[base | t]
                    if move[5] is not after or move[9] is not vo:
                        move = (s, t, "-", no_victims, None, after, None, None, s, vo, zero, t, zero, vo)
                        cache[base | t] = move
                    quiet.append(move)
                continue
            if kind != REMOVER:  # the Smasher and the Leaper slide by two, four or six squares
                for pairs in ORTH_PAIRS[s]:
                    for a, e in pairs:
                        if b[a] or b[e]:
                            break
                        move = cache[base | e]
                        if move[5] is not after or move[9] is not vo:
                            move = (s, e, "-", no_victims, None, after, None, None, s, vo, zero, e, zero, vo)
                            cache[base | e] = move
                        quiet.append(move)
                if kind == LEAPER:
                    for m, e in DOUBLE_KNIGHT[s]:
                        if b[m] or b[e]:
                            continue
                        move = cache[base | e]
                        if move[5] is not after or move[9] is not vo:
                            move = (s, e, "-", no_victims, None, after, None, None, s, vo, zero, e, zero, vo)
                            cache[base | e] = move
                        quiet.append(move)
            for ray in diag_rays[s]:  # the Smasher, Leaper and Remover slide diagonally
                for t in ray:
                    if b[t]:
                        break
                    move = cache[base | t]
                    if move[5] is not after or move[9] is not vo:
                        move = (s, t, "-", no_victims, None, after, None, None, s, vo, zero, t, zero, vo)
                        cache[base | t] = move
                    quiet.append(move)
        return quiet

    def _quiet_promotions(
        self,
        me: int,
        s: int,
        v: int,
        e: int,
        reserves: int,
        tables: _PawnTables,
        quiet_extra: _ExtraObject,
        quiet: list[RawMove],
    ) -> None:
        """A pawn's non-capturing step from ``s`` to ``e`` on one of the last two ranks, once
        per piece it may become."""
        unit = RESERVE_UNIT
        for code in self._promotions(me, reserves, e >> 4, tables[5], tables[6]):
            if code:
                quiet.append(
                    (
                        s,
                        e,
                        "-",
                        _NO_VICTIMS,
                        _LETTER_OF[code * me],
                        (0, reserves - unit[code]),
                        None,
                        None,
                        s,
                        v,
                        0,
                        e,
                        0,
                        code,
                    )
                )
            else:
                quiet.append((s, e, "-", _NO_VICTIMS, None, quiet_extra, None, None, s, v, 0, e, 0, v))

    def _promotions(self, me: int, reserves: int, rank: int, seventh: int, last: int) -> tuple[int, ...]:
        """Piece codes a pawn arriving on ``rank`` may become (0 = stays a pawn)."""
        if rank != seventh and rank != last:
            return (0,)
        offset = 0 if me > 0 else _BLACK_RESERVE_SHIFT
        available = tuple(
            me * t
            for t in (SMASHER, LEAPER, REMOVER)
            if (reserves >> (RESERVE_SHIFT[t] + offset)) & RESERVE_MAX
        )
        return available if rank == last else (0, *available)

    def _piece_captures(
        self,
        b: list[int],
        me: int,
        squares: tuple[int, ...] | list[int],
        reserves: int,
        out: list[_Act],
        enemies: set[int] | None,
    ) -> None:
        """Capturing actions of the side to move's pieces on ``squares`` (en passant aside):
        the pieces with an enemy in reach for the first action of a turn, the capturing one
        for a chain's next action.  ``enemies`` holds the enemy's squares (at least): a
        Leaper's line, a pawn's landing is searched only when an enemy stands in its reach.
        With None (the compiled build) every line and landing is searched: the search finds
        the same actions, and compiled it costs less than the ``isdisjoint`` calls (some 350
        instructions each) and the set they need."""
        # Literal actions (_Act): a RawAction and two fields.  Their changes are
        # RELOCATION_AND_VICTIM_CHANGES (origin, victim, arrival) but for the Remover's (one
        # triple per victim: a removal) and the pawn's (one triple per victim between them).
        unit = RESERVE_UNIT
        single = SINGLE_VICTIM
        custodian = CUSTODIAN
        tables = PAWN_TABLES[me]
        psteps, pdoubles, pleaps, forward_custodian = tables[0], tables[1], tables[2], tables[3]
        hostile = _HOSTILE[me]
        friendly = _HOSTILE[-me]
        # Bound once (see _capturers); None: no filter.
        disjoint = None if enemies is None else enemies.isdisjoint
        for s in squares:
            v = b[s]
            kind = v if me > 0 else -v
            if kind == PAWN:  # custodian captures on a step or double step; the short leap
                for e in psteps[s]:
                    if b[e] or (disjoint is not None and disjoint(CUSTODIAN_REACH[e])):
                        continue
                    pairs = custodian[e]
                    for a, c in pairs:
                        if hostile[b[a]] and friendly[b[c]]:
                            self._pawn_action(b, me, s, v, e, -1, reserves, pairs, 0, tables, out)
                            break
                for m, e in pdoubles[s]:
                    if b[m] or b[e] or (disjoint is not None and disjoint(CUSTODIAN_REACH[e])):
                        continue
                    pairs = custodian[e]
                    for a, c in pairs:
                        if hostile[b[a]] and friendly[b[c]]:
                            self._pawn_action(b, me, s, v, e, -1, reserves, pairs, (m << 8) | e, tables, out)
                            break
                leap = pleaps[s]
                if leap is not None:
                    m, e = leap
                    if hostile[b[m]] and not b[e]:
                        self._pawn_action(b, me, s, v, e, m, reserves, forward_custodian[e], 0, tables, out)
            elif kind == KING:  # short leap over an adjacent enemy
                for m, e in KING_LEAPS[s]:
                    x = b[m]
                    if hostile[x] and not b[e]:
                        out.append((s, e, "x", single[m], None, (s, v, 0, m, x, 0, e, 0, v), unit[x], 0))
            elif kind == SMASHER:  # approach: slide by two, four or six squares up to an enemy
                for triples in APPROACH[s]:
                    for a, e, t in triples:
                        if b[a] or b[e]:
                            break
                        x = b[t]
                        if x:
                            if hostile[x]:
                                out.append(
                                    (s, e, "x", single[t], None, (s, v, 0, t, x, 0, e, 0, v), unit[x], 0)
                                )
                            break
            elif kind == REMOVER:  # withdrawal: every adjacent enemy, without moving
                victims = [t for t in ORTH_ADJ[s] if hostile[b[t]]]
                if victims:
                    changes: list[int] = []
                    delta = 0
                    for t in victims:
                        x = b[t]
                        changes += (t, x, 0)
                        delta += unit[x]
                    out.append((s, s, "@", tuple(victims), None, tuple(changes), delta, 0))
            else:  # LEAPER: long leap over the first piece, an odd number of squares away
                for reach, line in LEAPER_LINES[s]:
                    if disjoint is not None and disjoint(reach):
                        continue
                    for t, landings in line:
                        x = b[t]
                        if x:
                            if landings is not None and hostile[x]:
                                for a, e in landings:
                                    if b[a] or b[e]:
                                        break
                                    out.append(
                                        (s, e, "x", single[t], None, (s, v, 0, t, x, 0, e, 0, v), unit[x], 0)
                                    )
                            break
                if disjoint is None or not disjoint(DOUBLE_KNIGHT_REACH[s]):
                    for m, e in DOUBLE_KNIGHT[s]:  # double knight move over the midpoint
                        x = b[m]
                        if hostile[x] and not b[e]:
                            out.append((s, e, "x", single[m], None, (s, v, 0, m, x, 0, e, 0, v), unit[x], 0))

    def _pawn_action(
        self,
        b: list[int],
        me: int,
        s: int,
        v: int,
        e: int,
        victim: int,
        reserves: int,
        pairs: tuple[tuple[int, int], ...],
        ep_key: int,
        tables: _PawnTables,
        caps: list[_Act],
    ) -> None:
        """A capturing pawn action from ``s`` to ``e``, once per piece the pawn may become:
        ``victim`` is the leapt square (or -1), ``pairs`` the custodian pairs to test at ``e``."""
        unit = RESERVE_UNIT
        changes: list[int] = [s, v, 0]
        victims: list[int] = []
        delta = 0
        if victim >= 0:
            x = b[victim]
            victims.append(victim)
            changes += (victim, x, 0)
            delta = unit[x]
        hostile = _HOSTILE[me]
        friendly = _HOSTILE[-me]
        for a, c in pairs:
            y = b[a]
            if hostile[y] and friendly[b[c]]:
                victims.append(a)
                changes += (a, y, 0)
                delta += unit[y]
        if len(victims) > 1:
            victims.sort(key=VICTIM_KEY.__getitem__)
        vt = tuple(victims)
        rank = e >> 4
        if rank == tables[5] or rank == tables[6]:
            for code in self._promotions(me, reserves, rank, tables[5], tables[6]):
                if code:
                    caps.append(
                        (
                            s,
                            e,
                            "x",
                            vt,
                            _LETTER_OF[code * me],
                            (*changes, e, 0, code),
                            delta - unit[code],
                            ep_key,
                        )
                    )
                else:
                    caps.append((s, e, "x", vt, None, (*changes, e, 0, v), delta, ep_key))
        else:
            caps.append((s, e, "x", vt, None, (*changes, e, 0, v), delta, ep_key))

    def _en_passant(self, b: list[int], me: int, ep: int, reserves: int, caps: list[_Act]) -> None:
        """The en-passant short leap over ``mid`` removing the double-stepped pawn on ``dest``."""
        mid, dest = ep >> 8, ep & 255
        q = mid - 16 * me
        v = me * PAWN
        # ``mid`` is on the third rank of the side that double-stepped, so ``q`` and ``e``
        # (a rank behind and ahead of it) are always on the board.
        e = mid + 16 * me
        if b[q] != v or b[dest] != -v or b[mid] or b[e]:
            return
        # The victim is not on the leap line; reuse the pawn action with it as the leapt piece.
        tables = PAWN_TABLES[me]
        self._pawn_action(b, me, q, v, e, dest, reserves, tables[3][e], 0, tables, caps)

    def _chains(
        self, b: list[int], me: int, extra: _ExtraObject, caps: list[_Act], enemies: set[int] | None
    ) -> list[RawMove]:
        """Whole turns starting with each capture in ``caps``, following the chain rule.

        ``enemies`` (the enemy's squares, a set the caller gives away) follows ``b`` through
        the chains: an action's victims leave it and come back when the action is undone.  A
        piece looks for a further capture only when an enemy is in its reach.
        """
        turns: list[RawMove] = []
        ep: int
        reserves: int
        ep, reserves = extra
        enemy_king = _CODES[-me][KING]  # (a table: see _HOSTILE)
        single = SINGLE_VICTIM
        reach = REACH[me]
        # Bound once (see _capturers); the set changes, not the object.  Without the set (None,
        # the compiled build: see _piece_captures) every continuation is searched.
        disjoint = None if enemies is None else enemies.isdisjoint
        # An action's fields are typed Any (_Act): declared ints and tuples (no code when the
        # source runs) let the compiled build index the board and the tables natively.
        changes: tuple[int, ...]
        victims: tuple[int, ...]
        s1: int
        b1: int
        a1: int
        s2: int
        b2: int
        a2: int
        s3: int
        b3: int
        a3: int
        e: int
        after: int
        new_ep: int
        for action in caps:
            # The first action is unrolled here (the same steps as _extend): most captures do
            # not continue, and those become a raw move at once; chains go on in _extend.
            # Calling _extend with [action] instead was measured at 2.3% more instructions per
            # capture generation (about 1% of a search node).
            changes = action[5]
            if len(changes) == 9:  # RELOCATION_AND_VICTIM_CHANGES: origin, victim, arrival
                s1, b1, a1, s2, b2, a2, s3, b3, a3 = changes
                b[s1] = a1
                b[s2] = a2
                b[s3] = a3
            else:
                for i in range(0, len(changes), 3):
                    b[changes[i]] = changes[i + 2]
            victims = action[3]
            if enemies is not None:
                for t in victims:  # (a loop of set primitives: compiled, the methods taking an
                    enemies.discard(t)  # iterable are called through their names)
            after = reserves + action[6]
            if after >= KING_TAKEN:  # the action took a King: the chain ends if the game does
                after &= KING_TAKEN - 1
                going_on = b.count(enemy_king) >= 2
            else:
                going_on = True
            conts: list[_Act] = []
            e = action[1]
            if going_on and (disjoint is None or not disjoint(reach[b[e] if me > 0 else -b[e]][e])):
                # Called as a method, not through a bound method kept in a local: compiled, the
                # first is a direct C call, the second a call through a Python object.
                self._piece_captures(b, me, single[e], after, conts, enemies)
            if conts:
                actions = [action]
                for cont in conts:
                    actions.append(cont)
                    self._extend(b, me, actions, after, enemy_king, extra, turns, enemies, disjoint)
                    actions.pop()
            else:
                new_ep = action[7]
                state: _ExtraObject = extra if (new_ep == ep and after == reserves) else (new_ep, after)
                # A raw move of one action: its fields, then its changes
                turns.append((action[0], e, action[2], victims, action[4], state, None, None, *changes))
            if len(changes) == 9:
                b[s3] = b3
                b[s2] = b2
                b[s1] = b1
            else:
                for i in range(len(changes) - 3, -1, -3):
                    b[changes[i]] = changes[i + 1]
            if enemies is not None:
                for t in victims:
                    enemies.add(t)
        return turns

    def _extend(
        self,
        b: list[int],
        me: int,
        actions: list[_Act],
        reserves: int,
        enemy_king: int,
        extra: _ExtraObject,
        turns: list[RawMove],
        enemies: set[int] | None,
        disjoint: Callable[[frozenset[int]], bool] | None,
    ) -> None:
        """Play the last action of ``actions`` on ``b`` (and take its victims out of
        ``enemies``), branch over the forced continuations, emit a turn when none is left, and
        restore both (``disjoint``: ``enemies.isdisjoint``, bound once by :meth:`_chains`;
        both None in the compiled build, which keeps no enemy set: see :meth:`_piece_captures`)."""
        # Declared for the compiled build, as in _chains.
        changes: tuple[int, ...]
        victims: tuple[int, ...]
        s1: int
        b1: int
        a1: int
        s2: int
        b2: int
        a2: int
        s3: int
        b3: int
        a3: int
        e: int
        action = actions[-1]
        changes = action[5]
        if len(changes) == 9:  # RELOCATION_AND_VICTIM_CHANGES, unrolled as in _chains
            s1, b1, a1, s2, b2, a2, s3, b3, a3 = changes
            b[s1] = a1
            b[s2] = a2
            b[s3] = a3
        else:
            for i in range(0, len(changes), 3):
                b[changes[i]] = changes[i + 2]
        victims = action[3]
        if enemies is not None:
            for t in victims:  # (as in _chains)
                enemies.discard(t)
        reserves += action[6]
        if reserves >= KING_TAKEN:  # the action took a King: the chain ends if the game does
            reserves &= KING_TAKEN - 1
            going_on = b.count(enemy_king) >= 2
        else:
            going_on = True
        conts: list[_Act] = []
        e = action[1]
        if going_on and (disjoint is None or not disjoint(REACH[me][b[e] if me > 0 else -b[e]][e])):
            self._piece_captures(b, me, SINGLE_VICTIM[e], reserves, conts, enemies)
        if conts:
            for cont in conts:
                actions.append(cont)
                self._extend(b, me, actions, reserves, enemy_king, extra, turns, enemies, disjoint)
                actions.pop()
        else:
            turns.append(self._turn(actions, reserves, extra))
            if not len(turns) % CHAINS_PER_GIL_RELEASE:
                time.sleep(0)  # let a waiting thread (the site's event loop) in: see the constant
        if len(changes) == 9:
            b[s3] = b3
            b[s2] = b2
            b[s1] = b1
        else:
            for i in range(len(changes) - 3, -1, -3):
                b[changes[i]] = changes[i + 1]
        if enemies is not None:
            for t in victims:
                enemies.add(t)

    @staticmethod
    def _turn(actions: list[_Act], reserves: int, extra: _ExtraObject) -> RawMove:
        first = actions[0]
        after: _ExtraObject
        if len(actions) == 1:
            ep = first[7]
            after = extra if (ep == extra[0] and reserves == extra[1]) else (ep, reserves)
            return (first[0], first[1], first[2], first[3], first[4], after, None, None, *first[5])
        # The field follows the turn's last action (RULES 2.5): a chain that ends with a
        # pawn's double step leaves its en-passant right, any other chain clears it.
        ep = actions[-1][7]
        after = extra if (ep == extra[0] and reserves == extra[1]) else (ep, reserves)
        changes: list[int] = []
        for a in actions:
            changes += a[5]
        more = tuple([a[:ACTION_LENGTH] for a in actions[1:]])
        return (first[0], first[1], first[2], first[3], first[4], after, more, None, *changes)

    # --- explanations ---------------------------------------------------------------

    def explain_illegal(self, board: Board, move: Move) -> str | None:
        """Why a move breaks the capture obligation, the chain rule or the promotion rule."""
        return _explain(self, board, move)


def _extra_delta_source(before: Hashable, after: Hashable) -> int:
    """:meth:`Interweave.extra_delta` from source: two lookups in the memo table."""
    if before == after:
        return 0
    return _EXTRA_HASH[before] ^ _EXTRA_HASH[after]


if not COMPILED:
    # Running from source: the board calls extra_hash twice for every move that changes the
    # extra state, and the table's own lookup (filled on demand by _ExtraHashes.__missing__),
    # called directly, costs no Python frame; the method was measured at 1.2% more
    # instructions per Interweave perft node.  Compiled by mypyc, the method is a direct C
    # call already (and mypyc accepts no ``if`` in a class body), so it stays.
    setattr(Interweave, "extra_hash", staticmethod(_EXTRA_HASH.__getitem__))  # noqa: B010 (mypy: a method)
    # The change of the key between two extra states: the table's lookups again (two C calls
    # and no Python frame beyond this one), rather than the compiled method's unpacking.
    setattr(Interweave, "extra_delta", staticmethod(_extra_delta_source))  # noqa: B010 (mypy: a method)


def shown_text(variant: Variant, action: Action) -> str:
    """``action`` written as the board shows it (issue 40): a promotion names the piece by the
    letter on its glyph (a Smasher is drawn "S", its FEN letter is R), not by its FEN letter.

    >>> from exochess import Board
    >>> shown_text(Board("interweave").variant, Action.from_text("e7-e8=R"))
    'e7-e8=S'
    """
    if action.promotion is None:
        return str(action)
    label = variant.glyph_labels.get(action.promotion, action.promotion)
    return f"{replace(action, promotion=None)}={label}"


def _explain(variant: Interweave, board: Board, move: Move) -> str | None:

    raws = board.raw_moves()
    if not raws:
        return None
    me = board.side
    side = "White" if me > 0 else "Black"
    played = move.actions
    first = played[0]
    if not first.victims and any(raw[VICTIMS] for raw in raws):
        # Only the distinct first actions are made into text: tens of thousands of chains may
        # share a handful of them.
        starts = {raw[:ACTION_CHANGES] for raw in raws}
        firsts = " ".join(sorted({shown_text(variant, Action(*start)) for start in starts}))
        return Phrase(
            "capturing is compulsory; {side} must begin with one of: {moves}", side=side, moves=firsts
        )
    legal = [to_move(raw) for raw in raws]
    n = len(played)
    longer = sorted({str(m.actions[n]) for m in legal if len(m.actions) > n and m.actions[:n] == played})
    if longer:
        where = square_name(played[-1].to_square)
        return Phrase(
            "the chain must go on: the piece on {square} can still capture ({moves})",
            square=where,
            moves=" ".join(longer),
        )
    for m in legal:
        k = len(m.actions)
        if k < n and played[:k] == m.actions:
            return f"the turn ends after {m}: the capturing piece has no further capture or a King fell"
    if board.squares[first.from_square] * me == PAWN:
        last = _SIZE - 1 if me > 0 else 0
        seventh = _SIZE - 2 if me > 0 else 1
        rank = first.to_square >> 4
        letter = first.promotion
        counts = reserve_counts(as_extra(board.extra)[1])
        mine = counts[:3] if me > 0 else counts[3:]
        if letter is None and rank == last:
            if not any(mine):
                return f"a pawn reaching the last rank must promote, and {side} has nothing in reserve"
            return "a pawn reaching the last rank must promote, to a piece from its side's reserve"
        if letter is not None:
            if letter not in RESERVE_TYPES:
                return f"a pawn promotes only to a Smasher (R), Leaper (N) or Remover (B), not {letter}"
            if rank not in (seventh, last):
                return "a pawn promotes only on arriving on the last two ranks"
            if not mine[RESERVE_TYPES.index(letter)]:
                return f"{side} has no {variant.piece_names[letter]} in reserve to promote to"
    return None
