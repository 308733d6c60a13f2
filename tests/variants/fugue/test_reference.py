"""Fugue's fast move generator and evaluation against slow versions written straight from the rules.

The reference generator below works on a dict ``(file, rank) -> FEN letter`` and shares no
code with :mod:`exochess.variants.fugue` (which finds pieces without scanning the board,
tests captures with precomputed square sets and skips quiet moves when only captures are
asked for).  For every position of seeded random games and of a few crafted ones,
the canonical texts of the legal moves must be the same, and so must the position
after each move.  The King-exposure and Shield terms of the evaluation are checked the
same way against a walk along the King's rays.
"""

from __future__ import annotations

import random

import pytest

from exochess import Board
from exochess.engine.evaluate import evaluator_for
from exochess.rawmove import to_move
from exochess.variants.fugue.evaluation import FugueEvaluator
from tests import reference_fen
from tests.reference_fen import Coord, Placement
from tests.reference_fen import square_name as name

DIRS: tuple[Coord, ...] = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1))
PROMOTIONS = "QIUASLW"


def parse(fen: str) -> tuple[Placement, bool]:
    placement, side, _rest = reference_fen.read(fen)
    return placement, side == "w"


def rows_of(placement: Placement) -> str:
    return reference_fen.format_placement(placement, 8)


def add(c: Coord, d: Coord, k: int = 1) -> Coord:
    return (c[0] + k * d[0], c[1] + k * d[1])


def on(c: Coord) -> bool:
    return 0 <= c[0] < 8 and 0 <= c[1] < 8


def reference_moves(placement: Placement, white: bool) -> dict[str, str]:
    """Canonical text -> placement FEN after the move, for every legal move of the side to move."""

    def mine(c: Coord) -> bool:
        return c in placement and placement[c].isupper() == white

    def theirs(c: Coord) -> bool:
        return c in placement and placement[c].isupper() != white

    def protected(c: Coord) -> bool:  # by a Shield of the piece's own side
        shield = "S" if placement[c].isupper() else "s"
        return any(placement.get(add(c, d)) == shield for d in DIRS)

    def victim(c: Coord) -> bool:
        return on(c) and theirs(c) and not protected(c)

    def frozen(c: Coord) -> bool:
        enemy_imm = "i" if white else "I"
        return placement[c].upper() != "I" and any(placement.get(add(c, d)) == enemy_imm for d in DIRS)

    moves: dict[str, str] = {}

    def record(text: str, changes: dict[Coord, str | None]) -> None:
        after = dict(placement)
        for c, letter in changes.items():
            if letter is None:
                after.pop(c, None)
            else:
                after[c] = letter
        assert text not in moves, text
        moves[text] = rows_of(after)

    def ray(c: Coord, d: Coord) -> list[Coord]:
        out, t = [], add(c, d)
        while on(t):
            out.append(t)
            t = add(t, d)
        return out

    def first_piece(c: Coord, d: Coord) -> tuple[list[Coord], Coord | None]:
        empties: list[Coord] = []
        for t in ray(c, d):
            if t in placement:
                return empties, t
            empties.append(t)
        return empties, None

    def spotted(t: Coord) -> bool:
        for e in DIRS:
            n = add(t, e)
            if on(n) and mine(n):
                return True
            far = add(t, e, 2)
            if on(n) and n not in placement and on(far) and mine(far):
                return True
        return False

    have = {letter.upper() for c, letter in placement.items() if mine(c)}
    for s in [c for c in placement if mine(c)]:
        kind = placement[s].upper()
        letter = placement[s]
        if frozen(s):
            continue
        if kind == "P":
            last = 7 if white else 0
            for d in DIRS:
                n = add(s, d)
                if not on(n):
                    continue
                if n not in placement:
                    t, sep = n, "-"
                else:
                    t = add(n, d)
                    if not on(t) or (t in placement and not victim(t)):
                        continue
                    sep = "x" if t in placement else "-"
                text = f"{name(s)}{sep}{name(t)}"
                record(text, {s: None, t: letter})
                if t[1] == last:
                    for p in PROMOTIONS:
                        if p not in have:
                            record(f"{text}={p}", {s: None, t: p if white else p.lower()})
            continue
        if kind == "K":
            for d in DIRS:
                t = add(s, d)
                if on(t) and t not in placement:
                    record(f"{name(s)}-{name(t)}", {s: None, t: letter})
                elif victim(t):
                    record(f"{name(s)}x{name(t)}", {s: None, t: letter})
            continue
        for d in DIRS:
            empties, hit = first_piece(s, d)
            if kind != "U":
                for e in empties:
                    record(f"{name(s)}-{name(e)}", {s: None, e: letter})
            if kind == "Q" and hit is not None and victim(hit):
                record(f"{name(s)}x{name(hit)}", {s: None, hit: letter})
            elif kind == "A" and hit is not None and victim(hit) and (len(empties) < 2 or spotted(hit)):
                record(f"{name(s)}@{name(hit)}", {hit: None})
            elif kind == "L" and hit is not None and victim(hit):
                for land in first_piece(hit, d)[0]:
                    record(f"{name(s)}x{name(land)}({name(hit)})", {s: None, hit: None, land: letter})
            elif kind == "W":
                if hit is not None and theirs(hit) and placement[hit].upper() != "W":
                    record(f"{name(s)}~{name(hit)}", {s: placement[hit], hit: letter})
                if hit is not None and hit == add(s, d) and victim(hit):
                    record(f"{name(s)}*{name(hit)}", {s: None, hit: None})
            elif kind == "U":
                back = add(s, (-d[0], -d[1]))
                for e in empties:
                    front = add(e, d)
                    found = [v for v in (back, front) if victim(v)]
                    if not found:
                        record(f"{name(s)}-{name(e)}", {s: None, e: letter})
                    for v in found:
                        record(f"{name(s)}x{name(e)}({name(v)})", {s: None, v: None, e: letter})
    return moves


def actual_moves(board: Board) -> dict[str, str]:
    out = {}
    for raw in board.raw_moves():
        text = str(to_move(raw))
        board.push_raw(raw)
        out[text] = board.fen().split()[0]
        board.pop_raw()
    assert len(out) == len(board.raw_moves())  # no two moves share a text
    return out


def check(board: Board) -> int:
    expected = reference_moves(*parse(board.fen()))
    assert actual_moves(board) == expected, board.fen()
    captures = {str(to_move(raw)) for raw in board.variant.generate_captures(board)}
    assert captures == {text for text in expected if any(c in text for c in "x@*")}, board.fen()
    return len(expected)


# Frozen pieces, protected victims of every capture method, a Pushme-Pullyu with two
# victims and with a protected one, Long Leaper landings, distant Archer shots with and
# without a spotter, Swapper swaps (never with a Swapper) and destruction, Cannon Pawn
# leaps with promotions, a side without a King, Immobilizers side by side.
CRAFTED = [
    "wlqksaui/pppppppp/8/8/8/8/PPPPPPPP/IUASKQLW w",
    "7k/8/3p4/3l4/1wLP4/4Q3/1p3q2/7K w",
    "7k/8/3p4/3l4/1wLP4/4Q3/1p3q2/7K b",
    "7k/8/5I2/4i3/3Q4/8/8/K7 w",
    "k7/8/1p1U1p2/8/3p4/8/8/K7 w",
    "k7/8/1p1U1ps1/8/3p4/8/8/K7 w",
    "k7/8/8/2pUp3/8/8/8/K7 w",
    "k7/1p6/8/3s4/1p1L1p2/8/3p4/K7 w",
    "k7/p6p/8/8/3A4/8/8/p1P3pK w",
    "k6q/8/8/8/3A4/8/1W6/l6K w",
    "k7/8/2w5/2Ws4/2p5/8/8/K7 w",
    "k7/2P3P1/1q3Q2/8/8/8/8/K7 w",
    "1u6/2P5/8/8/8/8/8/K7 w",
    "8/8/8/3i4/3I4/8/8/K6k w",
    "4k3/8/8/3iI3/8/3S4/4K3/8 b",
    "4k3/3s4/8/8/8/8/4p3/4K3 b",
]


@pytest.mark.parametrize("fen", CRAFTED)
def test_crafted_positions_match_the_reference(fen: str) -> None:
    check(Board("fugue", fen=fen))


def test_random_games_match_the_reference() -> None:
    rng = random.Random(2026)
    seen = 0
    for _game in range(16):
        board = Board("fugue")
        for _ply in range(rng.randrange(20, 90)):
            if board.is_game_over():
                break
            seen += check(board)
            moves = board.raw_moves()
            captures = [m for m in moves if m[3]]
            board.push_raw(rng.choice(captures if captures and rng.random() < 0.4 else moves))
    assert seen > 10_000


def reference_dynamic(board: Board) -> int:
    """The evaluation's dynamic term by walking every ray (White's view)."""
    ev = evaluator_for(board.variant)
    assert isinstance(ev, FugueEvaluator)
    placement, _white = parse(board.fen())
    value = {letter: ev.values[letter] for letter in "QIUASLWP"}
    score = 0
    covered = set()
    for c, letter in placement.items():
        sign = 1 if letter.isupper() else -1
        neighbours = [placement.get(add(c, d)) for d in DIRS if on(add(c, d))]
        for other in neighbours:
            if other is None:
                continue
            friend = other.isupper() == letter.isupper()
            if letter.upper() == "I" and not friend and other.upper() != "I":
                loss = ev.FROZEN_KING if other.upper() == "K" else value[other.upper()] // ev.FROZEN_SHARE
                score += sign * loss
            if letter.upper() == "S" and friend:
                gain = ev.COVER_KING if other.upper() == "K" else value[other.upper()] // ev.COVER_SHARE
                score += sign * gain
                if other.upper() == "K":
                    covered.add(letter.isupper())
    for c, letter in placement.items():
        if letter.upper() != "K" or letter.isupper() in covered:
            continue
        sign = 1 if letter.isupper() else -1
        danger = 0
        for d in DIRS:
            line = [t for t in [add(c, d, k) for k in range(1, 8)] if on(t)]
            hits = [(k, t) for k, t in enumerate(line, 1) if t in placement]
            if len(line) >= 2 and (not hits or hits[0][0] >= 2):
                danger += ev.OPEN_RAY
            if hits and placement[hits[0][1]].isupper() != letter.isupper():
                dist, enemy = hits[0][0], placement[hits[0][1]].upper()
                if enemy == "Q" or (enemy == "A" and dist <= 2):
                    danger += ev.LINE_THREAT
                elif enemy == "L":
                    danger += ev.LINE_THREAT // 2
                elif enemy == "W" and dist == 1:
                    danger += ev.SWAPPER_NEXT_TO_KING
        score -= sign * danger
    return score


def test_dynamic_evaluation_matches_the_ray_walk() -> None:
    ev = None
    rng = random.Random(7)
    seen = 0
    for fen in CRAFTED:
        board = Board("fugue", fen=fen)
        ev = evaluator_for(board.variant)
        assert ev.dynamic(board) == reference_dynamic(board), fen
    for _game in range(12):
        board = Board("fugue")
        ev = evaluator_for(board.variant)
        for _ply in range(rng.randrange(20, 100)):
            moves = board.raw_moves()
            if not moves or board.is_game_over():
                break
            board.push_raw(rng.choice(moves))
            assert ev.dynamic(board) == reference_dynamic(board), board.fen()
            seen += 1
    assert seen > 300


def test_piece_map_follows_the_position() -> None:
    """The piece map is kept for the last position only: alternating boards, moves and
    undos always see their own position."""
    a = Board("fugue")
    b = Board("fugue", fen="k7/8/1p1U1p2/8/3p4/8/8/K7 w")
    for _round in range(2):
        for board in (a, b, a):
            assert actual_moves(board) == reference_moves(*parse(board.fen()))
    raw = next(m for m in b.raw_moves() if m[3])
    before = actual_moves(b)
    b.push_raw(raw)
    assert actual_moves(b) == reference_moves(*parse(b.fen()))
    b.pop_raw()
    assert actual_moves(b) == before
