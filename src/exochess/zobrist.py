"""Zobrist keys: one 62-bit number per (square, piece code), plus the side to move.

The table is generated from a fixed seed, so hashes are identical across runs,
machines and processes (engines may store them; tests may compare them).

The keys have :data:`KEY_BITS` (62) bits, not 64: every hash is then below ``2**62``,
which the compiled build (mypyc) keeps as a machine word ("short int") rather than a
heap-allocated Python int, so each XOR of a move is one instruction instead of a call
that allocates.  62 bits are as safe as 64 for a search of a few million positions.
"""

from __future__ import annotations

import random
from typing import Final

from exochess.geometry import MAX_SIZE, STRIDE

KEY_BITS: Final = 62
"""Bits of every key (and so of every hash): below mypyc's short-int limit of ``2**62``."""

SIDE_KEY: Final = 0x9D39247E33776D41 >> (64 - KEY_BITS)
"""XORed into the hash when Black is to move."""


def _table() -> tuple[int, ...]:
    rng = random.Random(0x5EED_E0C4)
    keys = []
    for _sq in range(MAX_SIZE * STRIDE):
        for code_index in range(32):
            # Index (sq << 5) | (code & 31); code 0 (empty) hashes to 0.
            keys.append(0 if code_index == 0 else rng.getrandbits(KEY_BITS))
    return tuple(keys)


PIECE_KEYS: Final[tuple[int, ...]] = _table()
"""``PIECE_KEYS[(square << 5) | (code & 31)]`` is the key of piece ``code`` on ``square``."""


KEYS_BY_CODE: Final[tuple[list[int], ...]] = tuple(
    [PIECE_KEYS[(sq << 5) | (code & 31)] for sq in range(MAX_SIZE * STRIDE)] for code in range(32)
)
"""``KEYS_BY_CODE[code][square]``: the same keys indexed by the signed code first.

A negative code indexes from the end of the tuple, which is exactly where
``code & 31`` puts it, so hot loops need no arithmetic to find a key.
"""
