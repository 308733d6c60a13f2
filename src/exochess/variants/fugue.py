"""Fugue (Mike Nelson, 2004): Ultima-style pieces with unusual captures on 8x8.

Rules as fixed by the project's rules of record; the decisions taken where the
original text is ambiguous are listed in ``docs/rules-decisions.md``.

Piece codes (the position in :attr:`Fugue.piece_letters` plus one):
King 1, Queen 2, Immobilizer 3, Pushme-Pullyu 4, Archer 5, Shield 6,
Long Leaper 7, Swapper 8, Cannon Pawn 9.

The generator is written for speed: one scan of the board collects the pieces
of the side to move, the squares protected by enemy Shields and the squares
frozen by enemy Immobilizers; each piece then walks the precomputed rays.

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
_NO_VICTIMS: tuple[int, ...] = ()
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
        rays = self.geometry.rays
        self._leaps: list[tuple[tuple[int, int], ...]] = [
            tuple((ray[0], ray[1]) for ray in rays[s] if len(ray) > 1) for s in range(self.geometry.size)
        ]
        """``_leaps[s]``: (mount, landing) pairs of a Cannon Pawn leap from ``s``."""

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
        and every move of an Immobilizer or Shield are quiet.
        """
        b = board.squares
        me = board.side
        geo = self.geometry
        rays = geo.rays
        neighbours = geo.neighbours
        # One scan: our pieces, squares frozen by enemy Immobilizers, squares
        # protected by enemy Shields (both evaluated on the position before the move).
        own: list[int] = []
        frozen: set[int] = set()
        prot: set[int] = set()
        enemy_imm = -me * IMMOBILIZER
        enemy_shield = -me * SHIELD
        for s in geo.squares:
            v = b[s]
            if v:
                if v * me > 0:
                    own.append(s)
                elif v == enemy_imm:
                    frozen.update(neighbours[s])
                elif v == enemy_shield:
                    prot.update(neighbours[s])
        moves: list[RawMove] = []
        add = moves.append
        no_victims = _NO_VICTIMS
        leaps = self._leaps
        for s in own:
            v = b[s]
            kind = v * me
            if kind != IMMOBILIZER and s in frozen:
                continue
            if kind == PAWN:
                if quiet:
                    self._pawn(b, me, s, v, own, prot, add)
                else:
                    # Most pawns have nothing to capture: look before calling.
                    for mount, land in leaps[s]:
                        if b[land] * me < 0 and b[mount]:
                            self._pawn_captures(b, me, s, v, own, prot, add)
                            break
            elif kind == KING:
                for t in neighbours[s]:
                    x = b[t]
                    if x == 0:
                        if quiet:
                            add((s, t, "-", no_victims, None, None, None, None, s, v, 0, t, 0, v))
                    elif x * me < 0 and t not in prot:
                        add((s, t, "x", SINGLE_VICTIM[t], None, None, None, None, s, v, 0, t, x, v))
            elif kind == QUEEN:
                for ray in rays[s]:
                    for t in ray:
                        x = b[t]
                        if x == 0:
                            if quiet:
                                add((s, t, "-", no_victims, None, None, None, None, s, v, 0, t, 0, v))
                            continue
                        if x * me < 0 and t not in prot:
                            add((s, t, "x", SINGLE_VICTIM[t], None, None, None, None, s, v, 0, t, x, v))
                        break
            elif kind == PUSHME:
                self._pushme(b, me, s, v, prot, add, quiet)
            elif kind == LEAPER:
                for ray in rays[s]:
                    for i, t in enumerate(ray):
                        x = b[t]
                        if x == 0:
                            if quiet:
                                add((s, t, "-", no_victims, None, None, None, None, s, v, 0, t, 0, v))
                            continue
                        if x * me < 0 and t not in prot:
                            victims = SINGLE_VICTIM[t]
                            for land in ray[i + 1:]:
                                if b[land]:
                                    break
                                add((s, land, "x", victims, None, None, None, None,
                                     s, v, 0, t, x, 0, land, 0, v))
                        break
            elif kind == ARCHER:
                for ray in rays[s]:
                    for i, t in enumerate(ray):
                        x = b[t]
                        if x == 0:
                            if quiet:
                                add((s, t, "-", no_victims, None, None, None, None, s, v, 0, t, 0, v))
                            continue
                        if x * me < 0 and t not in prot and (i < 2 or self._spotted(b, me, t)):
                            add((s, t, "@", SINGLE_VICTIM[t], None, None, None, None, t, x, 0))
                        break
            elif kind == SWAPPER:
                enemy_swapper = -me * SWAPPER
                for ray in rays[s] if quiet else ():
                    for t in ray:
                        x = b[t]
                        if x == 0:
                            add((s, t, "-", no_victims, None, None, None, None, s, v, 0, t, 0, v))
                            continue
                        if x * me < 0 and x != enemy_swapper:
                            add((s, t, "~", no_victims, None, None, None, None, s, v, x, t, x, v))
                        break
                for t in neighbours[s]:
                    x = b[t]
                    if x * me < 0 and t not in prot:
                        add((s, t, "*", SINGLE_VICTIM[t], None, None, None, None, s, v, 0, t, x, 0))
            elif quiet:  # Immobilizer and Shield only slide.
                for ray in rays[s]:
                    for t in ray:
                        if b[t]:
                            break
                        add((s, t, "-", no_victims, None, None, None, None, s, v, 0, t, 0, v))
        return moves

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
        self, b: Sequence[int], me: int, s: int, v: int, prot: set[int], add: AddMove, quiet: bool
    ) -> None:
        """Slides of the Pushme-Pullyu with their automatic withdrawal/approach captures."""
        rays = self.geometry.rays[s]
        append = add
        no_victims = _NO_VICTIMS
        for d, ray in enumerate(rays):
            back = rays[OPPOSITE[d]]
            withdraw = -1
            if back:
                w = back[0]
                if b[w] * me < 0 and w not in prot:
                    withdraw = w
            if withdraw < 0 and not quiet:
                # Only an approach can capture: to the square before the first piece on the ray.
                for k, e in enumerate(ray):
                    if b[e]:
                        if k and b[e] * me < 0 and e not in prot:
                            land = ray[k - 1]
                            append((s, land, "x", SINGLE_VICTIM[e], None, None, None, None,
                                    s, v, 0, e, b[e], 0, land, 0, v))
                        break
                continue
            for k, e in enumerate(ray):
                if b[e]:
                    break
                approach = -1
                if k + 1 < len(ray):
                    a = ray[k + 1]
                    if b[a] * me < 0 and a not in prot:
                        approach = a
                if withdraw < 0 and approach < 0:
                    if quiet:
                        append((s, e, "-", no_victims, None, None, None, None, s, v, 0, e, 0, v))
                    continue
                if withdraw >= 0:
                    append((s, e, "x", SINGLE_VICTIM[withdraw], None, None, None, None,
                            s, v, 0, withdraw, b[withdraw], 0, e, 0, v))
                if approach >= 0:
                    append((s, e, "x", SINGLE_VICTIM[approach], None, None, None, None,
                            s, v, 0, approach, b[approach], 0, e, 0, v))

    def _pawn(
        self, b: Sequence[int], me: int, s: int, v: int, own: list[int], prot: set[int], add: AddMove
    ) -> None:
        """Cannon Pawn, every move: king steps, and leaps over an adjacent mount (capturing on landing)."""
        append = add
        last_rank = self.height - 1 if me > 0 else 0
        for ray in self.geometry.rays[s]:
            if not ray:
                continue
            n = ray[0]
            if b[n] == 0:
                t, x, kind = n, 0, "-"
            elif len(ray) > 1:
                t = ray[1]
                x = b[t]
                if x == 0:
                    kind = "-"
                elif x * me < 0 and t not in prot:
                    kind = "x"
                else:
                    continue
            else:
                continue
            victims = SINGLE_VICTIM[t] if x else _NO_VICTIMS
            append((s, t, kind, victims, None, None, None, None, s, v, 0, t, x, v))
            if t >> 4 == last_rank:
                self._promotions(b, me, own, s, v, t, x, kind, victims, add)

    def _pawn_captures(
        self, b: Sequence[int], me: int, s: int, v: int, own: list[int], prot: set[int], add: AddMove
    ) -> None:
        """Cannon Pawn, captures only: a leap over an occupied neighbour onto an enemy."""
        last_rank = self.height - 1 if me > 0 else 0
        for mount, t in self._leaps[s]:
            x = b[t]
            if x * me < 0 and b[mount] and t not in prot:
                victims = SINGLE_VICTIM[t]
                add((s, t, "x", victims, None, None, None, None, s, v, 0, t, x, v))
                if t >> 4 == last_rank:
                    self._promotions(b, me, own, s, v, t, x, "x", victims, add)

    def _promotions(
        self,
        b: Sequence[int],
        me: int,
        own: list[int],
        s: int,
        v: int,
        t: int,
        x: int,
        kind: str,
        victims: tuple[int, ...],
        add: AddMove,
    ) -> None:
        """The promoting versions of a Cannon Pawn move to the last rank: one per type the side
        no longer has (the pawn becomes that piece on ``t``)."""
        present = {b[q] * me for q in own}
        for letter in PROMOTION_TYPES:
            code = self.piece_letters.index(letter) + 1
            if code not in present:
                add((s, t, kind, victims, letter, None, None, None, s, v, 0, t, x, me * code))

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
