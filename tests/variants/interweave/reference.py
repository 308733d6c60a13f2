"""A slow, straightforward Interweave move generator written directly from the rules.

It shares no code with :mod:`exochess.variants.interweave` (FEN text is read and
written by :mod:`tests.reference_fen`, not by the library), so agreement between
the two on many positions is evidence that the fast generator's tables and
shortcuts are right.  Positions are dictionaries
``{(file, rank): letter}`` with zero-based coordinates.
"""

from __future__ import annotations

from dataclasses import dataclass

from tests import reference_fen
from tests.reference_fen import parse_square_name as parse_name
from tests.reference_fen import square_name as name

Square = tuple[int, int]
ORTH = ((1, 0), (-1, 0), (0, 1), (0, -1))
DIAG = ((1, 1), (1, -1), (-1, 1), (-1, -1))
DOUBLE_KNIGHT = ((4, 2), (2, 4), (-2, 4), (-4, 2), (-4, -2), (-2, -4), (2, -4), (4, -2))
ORDER = "RNB"


@dataclass
class Position:
    board: dict[Square, str]
    white: bool
    ep: tuple[Square, Square] | None
    reserves: list[int]


def on(sq: Square) -> bool:
    return 0 <= sq[0] < 8 and 0 <= sq[1] < 8


def from_fen(fen: str) -> Position:
    board, side, rest = reference_fen.read(fen)
    ep = None
    reserves = [0] * 6
    if len(rest) >= 2:
        if rest[0] != "-":
            a, b = rest[0].split(",")
            ep = (parse_name(a), parse_name(b))
        reserves = parse_counts(rest[1])
    return Position(board, side == "w", ep, reserves)


def parse_counts(text: str) -> list[int]:
    """The reserve counts: digits, and numbers above nine in brackets (``00[12]000``)."""
    counts = []
    rest = text
    while rest:
        if rest[0] == "[":
            close = rest.index("]")
            counts.append(int(rest[1:close]))
            rest = rest[close + 1 :]
        else:
            counts.append(int(rest[0]))
            rest = rest[1:]
    return counts


def to_fen(pos: Position) -> str:
    ep = "-" if pos.ep is None else f"{name(pos.ep[0])},{name(pos.ep[1])}"
    reserves = "".join(str(c) if c < 10 else f"[{c}]" for c in pos.reserves)
    return reference_fen.write(pos.board, 8, "w" if pos.white else "b", ep, reserves)


def is_white(letter: str) -> bool:
    return letter.isupper()


@dataclass
class Act:
    start: Square
    end: Square
    victims: list[Square]
    promo: str | None
    rifle: bool = False
    double_mid: Square | None = None

    def text(self) -> str:
        vs = ",".join(name(v) for v in sorted(self.victims))
        if self.rifle:
            return f"{name(self.start)}@({vs})"
        sep = "x" if self.victims else "-"
        out = name(self.start) + sep + name(self.end)
        if self.victims:
            out += f"({vs})"
        if self.promo:
            out += "=" + self.promo
        return out


def actions(pos: Position, sq: Square, first: bool) -> list[Act]:
    """Every action (capturing or not) of the piece on ``sq``."""
    b = pos.board
    me = pos.white
    piece = b[sq].upper()

    def enemy(t: Square) -> bool:
        return t in b and is_white(b[t]) != me

    out: list[Act] = []
    x, y = sq
    if piece == "K":
        for dx, dy in DIAG:
            t = (x + dx, y + dy)
            if on(t) and t not in b:
                out.append(Act(sq, t, [], None))
        for dx, dy in ORTH:
            m, land = (x + dx, y + dy), (x + 2 * dx, y + 2 * dy)
            if on(land) and enemy(m) and land not in b:
                out.append(Act(sq, land, [m], None))
    if piece in "RNB":
        for dx, dy in DIAG:
            t = (x + dx, y + dy)
            while on(t) and t not in b:
                out.append(Act(sq, t, [], None))
                t = (t[0] + dx, t[1] + dy)
    if piece in "RN":
        for dx, dy in ORTH:
            k = 1
            while True:
                t = (x + k * dx, y + k * dy)
                if not on(t) or t in b:
                    break
                if k % 2 == 0:
                    nxt = (t[0] + dx, t[1] + dy)
                    if piece == "R" and on(nxt) and enemy(nxt):
                        out.append(Act(sq, t, [nxt], None))
                    else:
                        out.append(Act(sq, t, [], None))
                k += 1
    if piece == "N":
        for dx, dy in DOUBLE_KNIGHT:
            land = (x + dx, y + dy)
            mid = (x + dx // 2, y + dy // 2)
            if on(land) and land not in b:
                if mid not in b:
                    out.append(Act(sq, land, [], None))
                elif enemy(mid):
                    out.append(Act(sq, land, [mid], None))
        for dx, dy in ORTH:
            k = 1
            while on((x + k * dx, y + k * dy)) and (x + k * dx, y + k * dy) not in b:
                k += 1
            victim = (x + k * dx, y + k * dy)
            if on(victim) and k % 2 == 1 and enemy(victim):
                j = k + 1
                while on((x + j * dx, y + j * dy)) and (x + j * dx, y + j * dy) not in b:
                    if j % 2 == 0:
                        out.append(Act(sq, (x + j * dx, y + j * dy), [victim], None))
                    j += 1
    if piece == "B":
        vs = [(x + dx, y + dy) for dx, dy in ORTH if on((x + dx, y + dy)) and enemy((x + dx, y + dy))]
        if vs:
            out.append(Act(sq, sq, vs, None, rifle=True))
    if piece == "P":
        f = 1 if me else -1
        landings: list[tuple[Square, list[Square], Square | None, bool]] = []
        for dx in (-1, 1):
            t = (x + dx, y + f)
            if on(t) and t not in b:
                landings.append((t, [], None, False))
                t2 = (x + 2 * dx, y + 2 * f)
                if y == (1 if me else 6) and on(t2) and t2 not in b:
                    landings.append((t2, [], t, False))
        m, land = (x, y + f), (x, y + 2 * f)
        if on(land) and enemy(m) and land not in b:
            landings.append((land, [m], None, True))
        if first and pos.ep is not None:
            mid, dest = pos.ep
            pawn_there = b.get(dest, "").upper() == "P" and enemy(dest)
            beside = abs(dest[0] - x) == 1 and dest[1] == y
            if m == mid and on(land) and land not in b and pawn_there and beside:
                landings.append((land, [dest], None, True))
        for t, vs, dmid, _leap in landings:
            after = dict(b)
            del after[sq]
            for v in vs:
                del after[v]
            after[t] = b[sq]
            cust = []
            for dx, dy in ORTH:
                a, c = (t[0] + dx, t[1] + dy), (t[0] + 2 * dx, t[1] + 2 * dy)
                if a in after and c in after and is_white(after[a]) != me and is_white(after[c]) == me:
                    cust.append(a)
            victims = vs + cust
            rank = t[1]
            last = 7 if me else 0
            seventh = 6 if me else 1
            offset = 0 if me else 3
            avail = [ORDER[i] for i in range(3) if pos.reserves[offset + i] > 0]
            if rank == last:
                options: list[str | None] = list(avail)
            elif rank == seventh:
                options = [None, *avail]
            else:
                options = [None]
            for promo in options:
                out.append(Act(sq, t, victims, promo, double_mid=dmid))
    return out


def apply(pos: Position, act: Act) -> Position:
    b = dict(pos.board)
    res = list(pos.reserves)
    for v in act.victims:
        letter = b.pop(v)
        if letter.upper() in ORDER:
            res[ORDER.index(letter.upper()) + (0 if letter.isupper() else 3)] += 1
    piece = b.pop(act.start)
    if act.promo:
        offset = 0 if pos.white else 3
        res[ORDER.index(act.promo) + offset] -= 1
        piece = act.promo if pos.white else act.promo.lower()
    b[act.end] = piece
    ep = (act.double_mid, act.end) if act.double_mid is not None else None
    return Position(b, pos.white, ep, res)


def kings(pos: Position, white: bool) -> int:
    return sum(1 for p in pos.board.values() if p == ("K" if white else "k"))


def legal_turns(fen: str) -> dict[str, str]:
    """Every legal turn of the position: canonical text -> FEN after the turn."""
    pos = from_fen(fen)
    me = pos.white
    firsts = []
    for sq, p in sorted(pos.board.items()):
        if is_white(p) == me:
            firsts.extend(actions(pos, sq, True))
    caps = [a for a in firsts if a.victims]
    result: dict[str, str] = {}

    def finish(p: Position, texts: list[str]) -> None:
        # p.ep is the en-passant right left by the last action (RULES 2.5): only a double
        # step sets it, so a chain ending with one keeps it.
        done = Position(p.board, not p.white, p.ep, p.reserves)
        result[",".join(texts)] = to_fen(done)

    def chain(p: Position, act: Act, texts: list[str]) -> None:
        before = kings(p, not me)
        q = apply(p, act)
        texts = [*texts, act.text()]
        if any(p.board[v] == ("k" if me else "K") for v in act.victims) and kings(q, not me) < 2:
            finish(q, texts)
            return
        assert kings(q, not me) <= before
        more = [a for a in actions(q, act.end, False) if a.victims]
        if not more:
            finish(q, texts)
            return
        for a in more:
            chain(q, a, texts)

    if caps:
        for a in caps:
            chain(pos, a, [])
    else:
        for a in firsts:
            finish(apply(pos, a), [a.text()])
    return result


def perft(fen: str, depth: int) -> int:
    """Perft by the reference generator (no repetition: it cannot occur below depth 8)."""
    if depth == 0:
        return 1
    pos = from_fen(fen)
    total = 0
    for after in legal_turns(fen).values():
        if depth == 1:
            total += 1
            continue
        before = kings(pos, not pos.white)
        left = kings(from_fen(after), not pos.white)
        if left < before and left < 2:
            continue  # a King was taken: the game is over
        total += perft(after, depth - 1)
    return total
