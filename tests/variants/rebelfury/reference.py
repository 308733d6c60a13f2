"""A slow, independent Rebel Fury move generator used only to check the real one.

It is written straight from the rules of record, power by power, on a dict of
``(file, rank) -> FEN letter`` with coordinates instead of square numbers, and
it shares no code with :mod:`exochess.variants.rebelfury` (FEN text goes
through :mod:`tests.reference_fen`, not the library).  Each power produces
candidate moves with their resulting positions; moves with the same canonical
text are merged (and must have the same effect).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tests import reference_fen
from tests.reference_fen import Coord, Placement
from tests.reference_fen import square_name as name

SIZE = 12
DIRS: tuple[Coord, ...] = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1))
KNIGHT: tuple[Coord, ...] = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))

# The powers each type may use (SLIDE has no letter; "c" marks the automatic Capricorn strike).
POWERS = {
    "A": "A",
    "C": "c",
    "D": "SD",
    "G": "SG",
    "H": "SH",
    "J": "SJ",
    "X": "SX",
    "F": "SCDGHJX",
    "M": "SACDGHJ",
}


def parse_fen(fen: str) -> tuple[Placement, str]:
    """Placement dict and side (``w``/``b``) of a Rebel Fury FEN."""
    placement, side, _rest = reference_fen.read(fen)
    return placement, side


def format_fen(placement: Placement, side: str) -> str:
    """Inverse of :func:`parse_fen`."""
    return reference_fen.write(placement, SIZE, side)


def on_board(c: Coord) -> bool:
    return 0 <= c[0] < SIZE and 0 <= c[1] < SIZE


def add(c: Coord, d: Coord) -> Coord:
    return (c[0] + d[0], c[1] + d[1])


def colour(ch: str) -> str:
    return "w" if ch.isupper() else "b"


@dataclass
class RefMove:
    text: str
    after: Placement
    powers: set[str] = field(default_factory=set)


def generate(placement: Placement, side: str) -> dict[str, RefMove]:
    """Every move by the piece rules (no repetition filter): canonical text -> RefMove."""
    forward = 1 if side == "w" else -1
    gaze_all: set[Coord] = set()
    gaze_mimotaur: set[Coord] = set()
    for sq, ch in placement.items():
        if colour(ch) == side or ch.upper() not in "GFM":
            continue
        target = gaze_mimotaur if ch.upper() == "M" else gaze_all
        for d in DIRS:
            c = add(sq, d)
            while on_board(c):
                if c not in placement:
                    target.add(c)
                    c = add(c, d)
                    continue
                if colour(placement[c]) == side:
                    target.add(c)
                break

    def blocked(c: Coord, kind: str) -> bool:
        return c in gaze_all or (kind in "GF" and c in gaze_mimotaur)

    def enemy(c: Coord) -> bool:
        return c in placement and colour(placement[c]) != side

    result: dict[str, RefMove] = {}

    def emit(
        frm: Coord, to: Coord, sep: str, victims: list[Coord], promo: str | None, after: Placement, power: str
    ) -> None:
        victims = sorted(set(victims))
        if sep == "-" and victims:
            sep = "x"
        text = name(frm) + sep + name(to)
        if any(v != to for v in victims):
            text += "(" + ",".join(name(v) for v in victims) + ")"
        if promo:
            text += "=" + promo
        move = result.get(text)
        if move is None:
            move = result[text] = RefMove(text, after)
        assert move.after == after, f"two effects for {text}"
        if power != "S":
            move.powers.add(power)

    def relocate(frm: Coord, to: Coord, removed: list[Coord], new_piece: str | None = None) -> Placement:
        after = dict(placement)
        piece = after.pop(frm)
        for v in removed:
            del after[v]
        after[to] = new_piece or piece
        return after

    def approach(frm: Coord, d: Coord, kind: str) -> Coord | None:
        """The first piece on the ray if every empty square before it is unblocked."""
        c = add(frm, d)
        while on_board(c):
            if c in placement:
                return c
            if blocked(c, kind):
                return None
            c = add(c, d)
        return None

    def slide_ends(frm: Coord, d: Coord, kind: str) -> list[Coord]:
        ends = []
        c = add(frm, d)
        while on_board(c) and c not in placement:
            ends.append(c)
            if blocked(c, kind):
                break
            c = add(c, d)
        return ends

    for sq, ch in list(placement.items()):
        if colour(ch) != side:
            continue
        kind = ch.upper()
        mimic = kind == "M"
        petrified = blocked(sq, kind)

        def prey(c: Coord, power: str, mimic: bool = mimic) -> bool:
            if not enemy(c):
                return False
            if not mimic:
                return True
            t = placement[c].upper()
            return t == power or (t == "F" and power != "A")

        for power in POWERS[kind]:
            if power == "J":
                for k in KNIGHT:
                    t = add(sq, k)
                    if not on_board(t):
                        continue
                    if t not in placement and not mimic:
                        emit(sq, t, "-", [], None, relocate(sq, t, []), "J")
                    elif prey(t, "J"):
                        emit(sq, t, "x", [t], None, relocate(sq, t, [t]), "J")
                continue
            if petrified:
                continue
            if power == "A":
                for dx in (-1, 0, 1):
                    e = (sq[0] + dx, sq[1] + forward)
                    if not on_board(e) or e in placement:
                        continue
                    sides = [s2 for s2 in ((e[0] - 1, e[1]), (e[0] + 1, e[1])) if on_board(s2)]
                    if mimic:
                        victims = [s2 for s2 in sides if prey(s2, "A")]
                        if not victims:
                            continue
                        victims += [s2 for s2 in sides if enemy(s2) and placement[s2].upper() == "M"]
                        emit(sq, e, "x", victims, None, relocate(sq, e, victims), "A")
                        continue
                    victims = [s2 for s2 in sides if enemy(s2)]
                    emit(sq, e, "-", victims, None, relocate(sq, e, victims), "A")
                    zone = e[1] >= 6 if side == "w" else e[1] <= 5
                    if zone:
                        jumper = "J" if side == "w" else "j"
                        emit(sq, e, "-", victims, "J", relocate(sq, e, victims, jumper), "A")
                continue
            for d in DIRS:
                if power == "S":
                    for e in slide_ends(sq, d, kind):
                        emit(sq, e, "-", [], None, relocate(sq, e, []), "S")
                elif power in "Cc":
                    for e in slide_ends(sq, d, kind):
                        front = add(e, d)
                        if not (on_board(front) and front in placement):
                            if power == "c":
                                emit(sq, e, "-", [], None, relocate(sq, e, []), "S")
                            continue
                        if d[0] == 0 or d[1] == 0:
                            fan = [front, add(front, (d[1], d[0])), add(front, (-d[1], -d[0]))]
                        else:
                            fan = [front, (e[0] + d[0], e[1]), (e[0], e[1] + d[1])]
                        fan = [c for c in fan if on_board(c)]
                        if mimic:
                            victims = [c for c in fan if prey(c, "C")]
                            if not victims:
                                continue
                            victims += [c for c in fan if enemy(c) and placement[c].upper() == "M"]
                        else:
                            victims = [c for c in fan if enemy(c)]
                        emit(sq, e, "-", victims, None, relocate(sq, e, victims), "C")
                else:
                    x = approach(sq, d, kind)
                    if x is None:
                        continue
                    if power == "D":
                        if mimic and not prey(x, "D"):
                            continue
                        land = add(x, d)
                        victims = [x] if enemy(x) else []
                        while on_board(land) and land not in placement:
                            emit(sq, land, "-", victims, None, relocate(sq, land, victims), "D")
                            if blocked(land, kind):
                                break
                            land = add(land, d)
                    elif power == "G":
                        if prey(x, "G"):
                            emit(sq, x, "x", [x], None, relocate(sq, x, [x]), "G")
                    elif power == "H":
                        y = add(x, d)
                        while on_board(y) and y not in placement:
                            y = add(y, d)
                        if on_board(y) and prey(y, "H"):
                            emit(sq, y, "x", [y], None, relocate(sq, y, [y]), "H")
                    elif power == "X":
                        if placement[x] == ch:
                            continue
                        after = dict(placement)
                        after[sq], after[x] = placement[x], ch
                        emit(sq, x, "~", [], None, after, "X")
    return result


def key(placement: Placement, side: str) -> tuple[str, tuple[tuple[Coord, str], ...]]:
    return side, tuple(sorted(placement.items()))


def legal(placement: Placement, side: str, history: set[object]) -> dict[str, RefMove]:
    """Moves after the repetition ban; none if a side without Furies has just lost (after a move)."""
    other = "b" if side == "w" else "w"
    return {t: m for t, m in generate(placement, side).items() if key(m.after, other) not in history}


def perft(fen: str, depth: int) -> int:
    """Perft by the reference generator, with the royal-loss and repetition rules."""
    placement, side = parse_fen(fen)
    history: set[object] = {key(placement, side)}

    def furies(p: Placement, s: str) -> int:
        return sum(1 for ch in p.values() if ch == ("F" if s == "w" else "f"))

    def walk(p: Placement, s: str, n: int) -> int:
        if n == 0:
            return 1
        other = "b" if s == "w" else "w"
        total = 0
        before = furies(p, other)
        for move in legal(p, s, history).values():
            if n == 1:
                total += 1
                continue
            after_count = furies(move.after, other)
            if after_count < before and after_count < 1:
                continue  # the game is over: no further moves
            k = key(move.after, other)
            history.add(k)
            total += walk(move.after, other, n - 1)
            history.discard(k)
        return total

    return walk(placement, side, depth)
