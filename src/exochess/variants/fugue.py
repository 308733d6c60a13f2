"""Fugue (Mike Nelson, 2004): Ultima-style pieces with unusual captures on 8x8.

Rules as fixed by the project's rules of record; the decisions taken where the
original text is ambiguous are listed in ``docs/rules-decisions.md``.

Piece codes (the position in :attr:`Fugue.piece_letters` plus one):
King 1, Queen 2, Immobilizer 3, Pushme-Pullyu 4, Archer 5, Shield 6,
Long Leaper 7, Swapper 8, Cannon Pawn 9.

The generator is written for speed: it finds the pieces in the board's
``piece_squares`` sets instead of scanning the board, derives from them the
capturable enemies (all but those next to an enemy Shield) and the squares
frozen by the enemy Immobilizer; each piece then walks the precomputed rays.

>>> from exochess import Board
>>> board = Board("fugue", fen="7k/8/8/4i3/3Q4/8/8/K3A3 w")
>>> sorted(str(m) for m in board.moves_from("e1") if "@" in str(m))
['e1@e5']
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from exochess.errors import FenError
from exochess.geometry import OPPOSITE, square_name
from exochess.rawmove import SINGLE_VICTIM
from exochess.variant import THREEFOLD_LOSS, Variant

if TYPE_CHECKING:
    from exochess.board import Board
    from exochess.move import Move
    from exochess.rawmove import RawMove

KING, QUEEN, IMMOBILIZER, PUSHME, ARCHER, SHIELD, LEAPER, SWAPPER, PAWN = range(1, 10)
PROMOTION_TYPES = "QIUASLW"
"""Types a Cannon Pawn may become (only those its side has no piece of)."""
_PROMOTION_CODES = tuple("KQIUASLWP".index(letter) + 1 for letter in PROMOTION_TYPES)
_NO_VICTIMS: tuple[int, ...] = ()
_NO_SQUARES: frozenset[int] = frozenset()
AddMove = Callable[[tuple[Any, ...]], None]
"""The ``append`` of the move list a generator fills."""


class Fugue(Variant):
    """Fugue on 8x8: capture the enemy King."""

    name = "fugue"
    title = "Fugue"
    aliases = ("fugue-chess",)
    description = "Ultima's heirs: archers, swappers, shields and cannon pawns; capture the King."
    width = 8
    height = 8
    piece_letters = "KQIUASLWP"
    piece_names: ClassVar[dict[str, str]] = {
        "K": "King", "Q": "Queen", "I": "Immobilizer", "U": "Pushme-Pullyu",
        "A": "Archer", "S": "Shield", "L": "Long Leaper", "W": "Swapper", "P": "Cannon Pawn",
    }
    royal = "K"
    royal_minimum = 1
    repetition = THREEFOLD_LOSS
    starting_fen = "wlqksaui/pppppppp/8/8/8/8/PPPPPPPP/IUASKQLW w"
    royal_capture_text = "King captured"

    def __init__(self) -> None:
        super().__init__()
        geo = self.geometry
        rays = geo.rays
        size = geo.size
        self._leaps: list[tuple[tuple[int, int], ...]] = [
            tuple((ray[0], ray[1]) for ray in rays[s] if len(ray) > 1) for s in range(size)
        ]
        """``_leaps[s]``: (mount, landing) pairs of a Cannon Pawn leap from ``s``."""
        # Sets for the capture tests: a piece none of whose reach meets the set of
        # capturable enemies costs one set operation instead of a walk.
        self._near: list[frozenset[int]] = [frozenset(n) for n in geo.neighbours]
        """``_near[s]``: the neighbours of ``s``."""
        self._landings: list[frozenset[int]] = [frozenset(t for _m, t in leaps) for leaps in self._leaps]
        """``_landings[s]``: the landing squares of a Cannon Pawn leap from ``s``."""
        self._lines: list[frozenset[int]] = [
            frozenset(t for ray in rays[s] for t in ray) for s in range(size)
        ]
        """``_lines[s]``: every square on the eight rays from ``s``."""
        self._paths: list[dict[int, tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]]] = [
            {
                t: (ray[:i], ray[i + 1:], rays[s][OPPOSITE[d]] if i == 0 else ())
                for d, ray in enumerate(rays[s])
                for i, t in enumerate(ray)
            }
            for s in range(size)
        ]
        """``_paths[s][t]`` for ``t`` on a line from ``s``: the squares between them, those
        beyond ``t``, and (``t`` a neighbour) the ray from ``s`` directly away from ``t``."""

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

        One implementation for both, so the two can never disagree: every piece's
        captures are found by one piece of code, its non-capturing moves by the code
        behind ``if quiet``.  A Swapper's plain swap (``~``) and every move of an
        Immobilizer or Shield are quiet.

        Captures are found from the set of capturable enemies (``targets``): a piece
        whose neighbours, lines or leap landings hold none of them costs one set
        operation, and only the enemies on its lines are looked at, not every square.
        """
        b = board.squares
        me = board.side
        near = self._near
        # No scan: ``board.piece_squares[code]`` is the set of squares of the piece ``code``, and a
        # side has at most one piece of each type but the Cannon Pawn (``validate``; a pawn
        # promotes only to a type its side lacks), so each of those sets holds 0 or 1 square.
        where = board.piece_squares
        # Capturable: every enemy but those next to an enemy Shield.  A new set (``where``'s
        # belong to the board), built in an order fixed by the position alone: the moves come
        # out in the order of sets derived from it, which would otherwise depend on the
        # history of the enemy pawns' set.
        targets = set(sorted(where[-me * PAWN]))
        targets.update(*(where[-SWAPPER:] if me > 0 else where[KING:PAWN]))
        for shield in where[-me * SHIELD]:
            targets -= near[shield]
        frozen = _NO_SQUARES
        for imm in where[-me * IMMOBILIZER]:
            frozen = near[imm]
        moves: list[RawMove] = []
        if not targets and not quiet:
            return moves
        add = moves.append
        single = SINGLE_VICTIM
        lines = self._lines
        paths = self._paths
        landings = self._landings
        last_rank = self.height - 1 if me > 0 else 0
        v = me * PAWN
        for s in sorted(where[v]):  # sorted: a set's order depends on its history
            if s in frozen:
                continue
            # A leap over an occupied neighbour (the mount, halfway) onto an enemy.
            if not landings[s].isdisjoint(targets):
                for t in landings[s] & targets:
                    if b[(s + t) >> 1]:
                        x = b[t]
                        add((s, t, "x", single[t], None, None, None, None, s, v, 0, t, x, v))
                        if t >> 4 == last_rank:
                            self._promotions(me, where, s, v, t, x, "x", single[t], add)
            if quiet:
                self._pawn_quiet(b, me, where, s, v, add)
        for s in where[me * KING]:
            if s in frozen:
                continue
            v = me * KING
            for t in near[s] & targets:
                add((s, t, "x", single[t], None, None, None, None, s, v, 0, t, b[t], v))
            if quiet:
                self._steps(b, s, v, add)
        for s in where[me * QUEEN]:
            if s in frozen:
                continue
            v = me * QUEEN
            path = paths[s]
            for t in lines[s] & targets:
                for q in path[t][0]:
                    if b[q]:
                        break
                else:
                    add((s, t, "x", single[t], None, None, None, None, s, v, 0, t, b[t], v))
            if quiet:
                self._slides(b, s, v, add)
        for s in where[me * PUSHME]:
            if s in frozen:
                continue
            self._pushme(b, s, me * PUSHME, targets, add, quiet)
        for s in where[me * LEAPER]:
            if s in frozen:
                continue
            # Jump the first piece of a line, if an enemy, onto any empty square behind it.
            v = me * LEAPER
            path = paths[s]
            for t in lines[s] & targets:
                between, beyond, _away = path[t]
                for q in between:
                    if b[q]:
                        break
                else:
                    x = b[t]
                    victims = single[t]
                    for land in beyond:
                        if b[land]:
                            break
                        add((s, land, "x", victims, None, None, None, None, s, v, 0, t, x, 0, land, 0, v))
            if quiet:
                self._slides(b, s, v, add)
        for s in where[me * ARCHER]:
            if s in frozen:
                continue
            # Shoot the first piece of a line, if an enemy: within two squares, or spotted.
            v = me * ARCHER
            path = paths[s]
            for t in lines[s] & targets:
                between = path[t][0]
                for q in between:
                    if b[q]:
                        break
                else:
                    if len(between) < 2 or self._spotted(b, me, t):
                        add((s, t, "@", single[t], None, None, None, None, t, b[t], 0))
            if quiet:
                self._slides(b, s, v, add)
        for s in where[me * SWAPPER]:
            if s in frozen:
                continue
            v = me * SWAPPER
            for t in near[s] & targets:
                add((s, t, "*", single[t], None, None, None, None, s, v, 0, t, b[t], 0))
            if quiet:
                self._swapper_quiet(b, me, s, v, add)
        if quiet:  # The Immobilizer (never frozen) and the Shield only slide.
            for s in where[me * IMMOBILIZER]:
                self._slides(b, s, me * IMMOBILIZER, add)
            for s in where[me * SHIELD]:
                if s not in frozen:
                    self._slides(b, s, me * SHIELD, add)
        return moves

    def _steps(self, b: Sequence[int], s: int, v: int, add: AddMove) -> None:
        """The non-capturing King steps: to each empty neighbour."""
        for t in self.geometry.neighbours[s]:
            if not b[t]:
                add((s, t, "-", _NO_VICTIMS, None, None, None, None, s, v, 0, t, 0, v))

    def _slides(self, b: Sequence[int], s: int, v: int, add: AddMove) -> None:
        """The non-capturing slides of a piece: to each empty square before the first piece of a line."""
        for ray in self.geometry.rays[s]:
            for t in ray:
                if b[t]:
                    break
                add((s, t, "-", _NO_VICTIMS, None, None, None, None, s, v, 0, t, 0, v))

    def _swapper_quiet(self, b: Sequence[int], me: int, s: int, v: int, add: AddMove) -> None:
        """Swapper slides, and swaps (``~``) with the first piece of a line if it is an enemy
        other than the Swapper (protection does not matter: nothing is captured)."""
        enemy_swapper = -me * SWAPPER
        for ray in self.geometry.rays[s]:
            for t in ray:
                x = b[t]
                if x == 0:
                    add((s, t, "-", _NO_VICTIMS, None, None, None, None, s, v, 0, t, 0, v))
                    continue
                if x * me < 0 and x != enemy_swapper:
                    add((s, t, "~", _NO_VICTIMS, None, None, None, None, s, v, x, t, x, v))
                break

    def _spotted(self, b: Sequence[int], me: int, t: int) -> bool:
        """Whether a friendly piece stands next to ``t`` or two squares away in line with an empty middle."""
        for ray in self.geometry.rays[t]:
            if not ray:
                continue
            x = b[ray[0]]
            if x * me > 0:
                return True
            if x == 0 and len(ray) > 1 and b[ray[1]] * me > 0:
                return True
        return False

    def _pushme(
        self, b: Sequence[int], s: int, v: int, targets: set[int], add: AddMove, quiet: bool
    ) -> None:
        """Slides of the Pushme-Pullyu with their automatic withdrawal/approach captures.

        A slide away from an adjacent capturable enemy captures it (withdrawal); a slide
        ending next to one on the same line captures it (approach); a slide doing both is
        two moves, one per victim.  The other slides are quiet.
        """
        single = SINGLE_VICTIM
        path = self._paths[s]
        for t in self._lines[s] & targets:
            between, _beyond, away = path[t]
            x = b[t]
            if between:  # approach: slide to the square before it, if the way is clear
                for q in between:
                    if b[q]:
                        break
                else:
                    e = between[-1]
                    add((s, e, "x", single[t], None, None, None, None, s, v, 0, t, x, 0, e, 0, v))
            else:  # withdrawal: slide directly away from it
                for e in away:
                    if b[e]:
                        break
                    add((s, e, "x", single[t], None, None, None, None, s, v, 0, t, x, 0, e, 0, v))
        if not quiet:
            return
        rays = self.geometry.rays[s]
        for d, ray in enumerate(rays):
            back = rays[OPPOSITE[d]]
            if back and back[0] in targets:
                continue  # every slide this way withdraws from that enemy
            last = len(ray) - 1
            for k, e in enumerate(ray):
                if b[e]:
                    break
                if k < last and ray[k + 1] in targets:
                    continue  # approaches that enemy
                add((s, e, "-", _NO_VICTIMS, None, None, None, None, s, v, 0, e, 0, v))

    def _pawn_quiet(
        self, b: Sequence[int], me: int, where: list[set[int]], s: int, v: int, add: AddMove
    ) -> None:
        """Cannon Pawn, non-capturing moves: a step to an empty neighbour, or a leap over an
        occupied neighbour onto an empty square (with the promotions on the last rank)."""
        last_rank = self.height - 1 if me > 0 else 0
        for ray in self.geometry.rays[s]:
            if not ray:
                continue
            t = ray[0]
            if b[t]:
                if len(ray) == 1:
                    continue
                t = ray[1]
                if b[t]:
                    continue
            add((s, t, "-", _NO_VICTIMS, None, None, None, None, s, v, 0, t, 0, v))
            if t >> 4 == last_rank:
                self._promotions(me, where, s, v, t, 0, "-", _NO_VICTIMS, add)

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
        add: AddMove,
    ) -> None:
        """The promoting versions of a Cannon Pawn move to the last rank: one per type the side
        no longer has (``where[code]`` is empty; the pawn becomes that piece on ``t``)."""
        for code in _PROMOTION_CODES:
            if not where[me * code]:
                add((s, t, kind, victims, self.piece_letters[code - 1], None, None, None,
                     s, v, 0, t, x, me * code))

    def explain_illegal(self, board: Board, move: Move) -> str | None:
        """Name the Immobilizer that freezes the moving piece, if any."""
        b = board.squares
        me = board.side
        origin = move.from_square
        code = b[origin]
        if code * me <= 0 or code * me == IMMOBILIZER:
            return None
        for t in self.geometry.neighbours[origin]:
            if b[t] == -me * IMMOBILIZER:
                name = self.piece_names[self.piece_letters[code * me - 1]]
                return (
                    f"the {name} on {square_name(origin)} is immobilized "
                    f"by the Immobilizer on {square_name(t)}"
                )
        return None
