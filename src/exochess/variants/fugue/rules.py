"""Fugue (Mike Nelson, 2004): Ultima-style pieces with unusual captures on 8x8.

Rules as fixed by the project's rules of record; the decisions taken where the
original text is ambiguous are listed in ``decisions.md`` beside it.

Piece codes (the position in :attr:`Fugue.piece_letters` plus one):
King 1, Queen 2, Immobilizer 3, Pushme-Pullyu 4, Archer 5, Shield 6,
Long Leaper 7, Swapper 8, Cannon Pawn 9.

The generator is written for speed.  A side has at most one piece of each type
but the Cannon Pawn, and the board keeps the squares of every piece code
(``Board.piece_squares``): no scan of the board.  The squares frozen by the enemy
Immobilizer are its neighbours, and so are those protected by the enemy Shield;
each piece then walks the precomputed rays to their first piece.  Generating
only the captures (quiescence) skips the quiet moves, and the Cannon Pawns only
look at their leap landings.

>>> from exochess import Board
>>> board = Board("fugue", fen="7k/8/8/4i3/3Q4/8/8/K3A3 w")
>>> sorted(str(m) for m in board.moves_from("e1") if "@" in str(m))
['e1@e5']
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, ClassVar, Final

from mypy_extensions import mypyc_attr

from exochess.errors import FenError
from exochess.geometry import OPPOSITE
from exochess.rawmove import SINGLE_VICTIM
from exochess.variant import THREEFOLD_LOSS, Variant

if TYPE_CHECKING:
    from exochess.board import Board
    from exochess.move import Move
    from exochess.rawmove import RawMove

KING: Final = 1
QUEEN: Final = 2
IMMOBILIZER: Final = 3
PUSHME: Final = 4
ARCHER: Final = 5
SHIELD: Final = 6
LEAPER: Final = 7
SWAPPER: Final = 8
PAWN: Final = 9
PROMOTION_TYPES: Final = "QIUASLW"
"""Types a Cannon Pawn may become (only those its side has no piece of)."""
_PROMOTION_CODES: Final = tuple("KQIUASLWP".index(letter) + 1 for letter in PROMOTION_TYPES)
_NO_VICTIMS: Final[tuple[int, ...]] = ()
_NOWHERE: Final[frozenset[int]] = frozenset()
_OFF: Final = 15
"""A list index that is no square of the 8x8 board (the 16th file of rank 1): its entry is always 0."""
_ENEMY: Final[dict[int, tuple[bool, ...]]] = {
    side: tuple(code * side < 0 for code in (*range(10), *range(-9, 0))) for side in (1, -1)
}
"""``_ENEMY[side][code]``: whether the piece ``code`` is an enemy of ``side`` (negative codes index
from the end)."""
_CODES: Final[dict[int, tuple[int, ...]]] = {s: tuple(s * kind for kind in range(10)) for s in (1, -1)}
"""``_CODES[side][kind]``: the signed code of ``side``'s piece of type ``kind``, read from a table
rather than multiplied: compiled, a product with a negative factor (Black's side, -1) leaves mypyc's
machine-word path for a call that allocates."""


# A game defined elsewhere may start from this one (a subclass in plain Python).
@mypyc_attr(allow_interpreted_subclasses=True)
class Fugue(Variant):
    """Fugue on 8x8: capture the enemy King."""

    name = "fugue"
    title = "Fugue"
    aliases = ("fugue-chess",)
    glyphs: ClassVar[dict[str, str]] = {
        "K": "crown",
        "Q": "octagon",
        "I": "square",
        "U": "hexagon",
        "A": "triangle",
        "S": "shield",
        "L": "diamond",
        "W": "star",
        "P": "pawn",
    }
    evaluator = "exochess.variants.fugue.evaluation:FugueEvaluator"
    rules_page = "rules.md"
    description = "Ultima's heirs: archers, swappers, shields and cannon pawns; capture the King."
    width = 8
    height = 8
    piece_letters = "KQIUASLWP"
    piece_names: ClassVar[dict[str, str]] = {
        "K": "King",
        "Q": "Queen",
        "I": "Immobilizer",
        "U": "Pushme-Pullyu",
        "A": "Archer",
        "S": "Shield",
        "L": "Long Leaper",
        "W": "Swapper",
        "P": "Cannon Pawn",
    }
    piece_descriptions: ClassVar[dict[str, str]] = {
        "K": "Steps one square any way and captures by landing on its victim; lose it and you lose.",
        "Q": "Slides any distance in eight directions and captures by landing on its victim.",
        "I": "Slides like a queen and never captures; enemy pieces next to it cannot move.",
        "U": "Slides like a queen; captures by moving away from an enemy behind it, or by stopping "
        "just in front of one.",
        "A": "Slides like a queen, or shoots without moving: the first piece on a line, two squares "
        "away at most, or farther when a friend stands next to it.",
        "S": "Slides like a queen and never captures; friendly pieces next to it cannot be captured.",
        "L": "Slides like a queen; captures by jumping over an enemy onto an empty square beyond it.",
        "W": "Slides like a queen; swaps places with the first enemy on a line, or destroys itself "
        "together with an enemy next to it.",
        "P": "Steps one square any way, or jumps over a neighbour, capturing an enemy where it lands; "
        "promotes on the last rank.",
    }
    annotator = "exochess.variants.fugue.annotations:annotate"
    royal = "K"
    royal_minimum = 1
    repetition = THREEFOLD_LOSS
    starting_fen = "wlqksaui/pppppppp/8/8/8/8/PPPPPPPP/IUASKQLW w"
    royal_capture_text = "King captured"

    def __init__(self) -> None:
        super().__init__()
        geo = self.geometry
        rays = geo.rays
        squares = range(geo.size)
        assert not geo.on_board(_OFF)
        self._near: list[frozenset[int]] = [frozenset(n) for n in geo.neighbours]
        """``_near[s]``: the squares next to ``s`` (frozen by an Immobilizer, protected by a Shield)."""
        self._slides: list[tuple[tuple[int, ...], ...]] = [
            tuple(ray for ray in rays[s] if ray) for s in squares
        ]
        """``_slides[s]``: the non-empty rays from ``s``."""
        self._landings: list[tuple[int, ...]] = [
            tuple(ray[1] for ray in rays[s] if len(ray) > 1) for s in squares
        ]
        """``_landings[s]``: where a Cannon Pawn on ``s`` lands when it leaps (over the square halfway)."""
        self._reach2: list[frozenset[int]] = [
            frozenset(t for ray in rays[s] for t in ray[:2]) for s in squares
        ]
        """``_reach2[s]``: the squares one or two steps from ``s`` along a line (an Archer's free range)."""
        self._spots: list[tuple[tuple[int, int], ...]] = [
            tuple((ray[0], ray[1] if len(ray) > 1 else _OFF) for ray in rays[s] if ray) for s in squares
        ]
        """``_spots[t]``: (adjacent square, next square in line) pairs where a spotter of ``t`` may stand."""
        self._after: list[dict[int, tuple[int, ...]]] = [
            {t: ray[i + 1 :] for ray in rays[s] for i, t in enumerate(ray)} for s in squares
        ]
        """``_after[s][t]``: the squares beyond ``t`` on the line from ``s`` (where a Long Leaper on
        ``s`` lands when it takes the piece on ``t``)."""
        self._before: list[dict[int, int]] = [
            {t: ray[i - 1] for ray in rays[s] for i, t in enumerate(ray) if i} for s in squares
        ]
        """``_before[s][t]``, ``t`` two or more steps from ``s`` in line: the square before ``t``, where
        a Pushme-Pullyu on ``s`` stops to capture the piece on ``t`` by approach."""
        self._pushme_rays: list[tuple[tuple[tuple[int, ...], int], ...]] = [
            tuple(
                (ray, rays[s][OPPOSITE[d]][0] if rays[s][OPPOSITE[d]] else _OFF)
                for d, ray in enumerate(rays[s])
                if ray
            )
            for s in squares
        ]
        """``_pushme_rays[s]``: (ray, square behind ``s``): the slides of a Pushme-Pullyu on ``s`` and
        where their withdrawal victim stands (an always empty index if nowhere)."""

    def validate(self, squares: Sequence[int], extra: Hashable) -> None:
        """A side has at most one piece of each non-pawn type and at most eight pawns."""
        for code in range(1, 10):
            for sign, side in ((1, "White"), (-1, "Black")):
                count = squares.count(sign * code)
                limit = 8 if code == PAWN else 1
                if count > limit:
                    name = self.piece_names[self.piece_letters[code - 1]]
                    raise FenError(
                        f"impossible Fugue position: {side} has {count} pieces of type {name} "
                        f"(at most {limit})"
                    )

    def generate(self, board: Board) -> list[RawMove]:
        return self._generate(board, True)

    def generate_captures(self, board: Board) -> list[RawMove]:
        return self._generate(board, False)

    def _generate(self, board: Board, quiet: bool) -> list[RawMove]:
        """The legal moves; only those with victims when ``quiet`` is false.

        One implementation for both, so the two can never disagree: the quiet
        moves are the ones behind ``if quiet``.  A Swapper's plain swap (``~``)
        and every move of an Immobilizer or Shield are quiet.  Each piece is found in
        the board's piece sets (``for s in where[code]``: at most one but for the
        pawns, which are sorted because a set's order depends on its history).
        Frozen and protected squares are the neighbours of the enemy Immobilizer and
        Shield (before the move).  A ray's walk stops at its first piece, ``x`` on ``t``: the piece
        that can be captured, if it is an unprotected enemy (``x`` is 0 when the
        ray holds no piece).

        The order depends on the position alone: piece type by piece type as below
        (pawns by square), each piece's moves ray by ray in direction order.  It
        matters: the search's sorts are stable, so it decides between moves with equal
        ordering keys.
        """
        b = board.squares
        me = board.side
        where = board.piece_squares
        near = self._near
        frozen = prot = _NOWHERE
        mine = _CODES[me]
        theirs = _CODES[-me]
        for s in where[theirs[IMMOBILIZER]]:
            frozen = near[s]
        for s in where[theirs[SHIELD]]:
            prot = near[s]
        enemy = _ENEMY[me]
        neighbours = self.geometry.neighbours
        slides = self._slides
        # Raw moves are written as literal tuples (exochess.rawmove's layout): a call per move
        # would cost more than the rest of the inner loop.  Each is a ONE_RELOCATION (14 fields)
        # unless its comment names another shape.
        moves: list[RawMove] = []
        no_victims = _NO_VICTIMS
        victim = SINGLE_VICTIM
        pawns = where[mine[PAWN]]
        if pawns:
            landings = self._landings
            for s in sorted(pawns):  # (a set's order depends on its history)
                if quiet and s not in frozen:
                    self._pawn_steps(b, me, s, where, moves)
                # The frozen test comes last, where it is seldom reached: most landings hold no enemy.
                for t in landings[s]:
                    if enemy[b[t]] and b[(s + t) >> 1] and t not in prot and s not in frozen:
                        self._pawn_capture(me, s, t, b[t], where, moves)  # over the mount halfway
        v = mine[KING]
        for s in where[v]:
            if s in frozen:
                continue
            for t in neighbours[s]:
                if enemy[b[t]]:
                    if t not in prot:
                        moves.append((s, t, "x", victim[t], None, None, None, None, s, v, 0, t, b[t], v))
                elif quiet and not b[t]:
                    moves.append((s, t, "-", no_victims, None, None, None, None, s, v, 0, t, 0, v))
        v = mine[QUEEN]
        for s in where[v]:
            if s in frozen:
                continue
            for ray in slides[s]:
                for t in ray:
                    x = b[t]
                    if x:
                        break
                    if quiet:
                        moves.append((s, t, "-", no_victims, None, None, None, None, s, v, 0, t, 0, v))
                if enemy[x] and t not in prot:
                    moves.append((s, t, "x", victim[t], None, None, None, None, s, v, 0, t, x, v))
        v = mine[PUSHME]
        for s in where[v]:
            if s in frozen:
                continue
            # A withdrawal victim (the enemy behind ``s``) is taken by every slide away from it,
            # an approach victim (the ray's first piece) by the slide that stops next to it.  A
            # slide with both is two moves; a slide with one cannot be made without it.
            before = self._before[s]
            for ray, w in self._pushme_rays[s]:
                xw = b[w]
                if enemy[xw] and w not in prot:
                    plain = False
                    victims = victim[w]
                    for t in ray:
                        x = b[t]
                        if x:
                            break
                        # RELOCATION_AND_VICTIM: the origin, the victim behind it, the arrival
                        moves.append((s, t, "x", victims, None, None, None, None, s, v, 0, w, xw, 0, t, 0, v))
                else:
                    plain = quiet
                    for t in ray:
                        x = b[t]
                        if x:
                            break
                        if quiet:
                            moves.append((s, t, "-", no_victims, None, None, None, None, s, v, 0, t, 0, v))
                if enemy[x] and t != ray[0] and t not in prot:
                    land = before[t]
                    # RELOCATION_AND_VICTIM
                    approach = (s, land, "x", victim[t], None, None, None, None, s, v, 0, t, x, 0, land, 0, v)
                    if plain:
                        moves[-1] = approach  # the plain slide onto ``land``, just added, captures
                    else:
                        moves.append(approach)
        v = mine[LEAPER]
        for s in where[v]:
            if s in frozen:
                continue
            after = self._after[s]
            for ray in slides[s]:
                for t in ray:
                    x = b[t]
                    if x:
                        break
                    if quiet:
                        moves.append((s, t, "-", no_victims, None, None, None, None, s, v, 0, t, 0, v))
                if enemy[x] and t not in prot:
                    victims = victim[t]
                    for land in after[t]:
                        if b[land]:
                            break
                        # RELOCATION_AND_VICTIM
                        moves.append(
                            (s, land, "x", victims, None, None, None, None, s, v, 0, t, x, 0, land, 0, v)
                        )
        v = mine[ARCHER]
        for s in where[v]:
            if s in frozen:
                continue
            close = self._reach2[s]
            for ray in slides[s]:
                for t in ray:
                    x = b[t]
                    if x:
                        break
                    if quiet:
                        moves.append((s, t, "-", no_victims, None, None, None, None, s, v, 0, t, 0, v))
                if enemy[x] and t not in prot and (t in close or self._spotted(b, me, t)):
                    # ONE_REMOVAL: the Archer stays put
                    moves.append((s, t, "@", victim[t], None, None, None, None, t, x, 0))
        v = mine[SWAPPER]
        for s in where[v]:
            if s in frozen:
                continue
            if quiet:
                enemy_swapper = -v
                for ray in slides[s]:
                    for t in ray:
                        x = b[t]
                        if x:
                            break
                        moves.append((s, t, "-", no_victims, None, None, None, None, s, v, 0, t, 0, v))
                    # A swap captures nothing, so a protected enemy may be swapped; the enemy Swapper may not.
                    if enemy[x] and x != enemy_swapper:
                        # ONE_RELOCATION, the two pieces changing places
                        moves.append((s, t, "~", no_victims, None, None, None, None, s, v, x, t, x, v))
            for t in neighbours[s]:
                if enemy[b[t]] and t not in prot:
                    # ONE_RELOCATION, both pieces vanishing
                    moves.append((s, t, "*", victim[t], None, None, None, None, s, v, 0, t, b[t], 0))
        if quiet:  # The Immobilizer and the Shield only slide; Immobilizers do not freeze each other.
            for v, stuck in ((mine[IMMOBILIZER], _NOWHERE), (mine[SHIELD], frozen)):
                for s in where[v]:
                    if s in stuck:
                        continue
                    for ray in slides[s]:
                        for t in ray:
                            if b[t]:
                                break
                            moves.append((s, t, "-", no_victims, None, None, None, None, s, v, 0, t, 0, v))
        return moves

    def _spotted(self, b: list[int], me: int, t: int) -> bool:
        """Whether a friendly piece stands next to ``t`` or two squares away in line with an empty middle."""
        friend = _ENEMY[-me]
        for n, far in self._spots[t]:
            x = b[n]
            if x:
                if friend[x]:
                    return True
            elif friend[b[far]]:
                return True
        return False

    def _pawn_steps(self, b: list[int], me: int, s: int, where: list[set[int]], moves: list[RawMove]) -> None:
        """The moves of a Cannon Pawn on ``s`` that capture nothing: a step to an empty
        neighbour, or a leap over an occupied one onto an empty square."""
        v = _CODES[me][PAWN]
        # The geometry's height, a slot (the class attribute is a lookup by name, compiled too).
        last_rank = self.geometry.height - 1 if me > 0 else 0
        for ray in self._slides[s]:
            t = ray[0]
            if b[t]:
                if len(ray) < 2 or b[ray[1]]:
                    continue
                t = ray[1]
            # ONE_RELOCATION
            moves.append((s, t, "-", _NO_VICTIMS, None, None, None, None, s, v, 0, t, 0, v))
            if t >> 4 == last_rank:
                self._promotions(me, where, s, v, t, 0, "-", _NO_VICTIMS, moves)

    def _pawn_capture(
        self, me: int, s: int, t: int, x: int, where: list[set[int]], moves: list[RawMove]
    ) -> None:
        """A Cannon Pawn on ``s`` leaps onto ``t`` and captures the enemy ``x`` there (and may promote)."""
        v = _CODES[me][PAWN]
        victims = SINGLE_VICTIM[t]
        # ONE_RELOCATION
        moves.append((s, t, "x", victims, None, None, None, None, s, v, 0, t, x, v))
        if t >> 4 == (self.height - 1 if me > 0 else 0):
            self._promotions(me, where, s, v, t, x, "x", victims, moves)

    def _promotions(
        self,
        me: int,
        where: list[set[int]],
        s: int,
        v: int,
        t: int,
        x: int,
        kind: str,
        victims: tuple[int, ...],
        moves: list[RawMove],
    ) -> None:
        """The promoting versions of a Cannon Pawn move to the last rank: one per type the side
        no longer has (the pawn becomes that piece on ``t``).  ``where``: the board's
        ``piece_squares`` before the move."""
        letters = self.piece_letters
        for code in _PROMOTION_CODES:
            if not where[me * code]:
                # ONE_RELOCATION
                promoted = me * code
                letter = letters[code - 1]
                moves.append((s, t, kind, victims, letter, None, None, None, s, v, 0, t, x, promoted))

    def explain_illegal(self, board: Board, move: Move) -> str | None:
        """Name the Immobilizer that freezes the moving piece, if any."""
        # The sentence is the one the board's annotations show (one owner of the wording).
        from exochess.variants.fugue.annotations import frozen_reason

        b = board.squares
        me = board.side
        origin = move.from_square
        code = b[origin]
        if code * me <= 0 or code * me == IMMOBILIZER:
            return None
        for t in self.geometry.neighbours[origin]:
            if b[t] == -me * IMMOBILIZER:
                return frozen_reason(self, b, origin, t)
        return None
