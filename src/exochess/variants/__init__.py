"""The registry of games.  Adding a game = one module here + one line below.

>>> find_variant("Fugue").name
'fugue'
>>> [v.name for v in all_variants()][:1]
['fugue']
"""

from __future__ import annotations

from functools import cache

from exochess.errors import UnknownVariantError
from exochess.variant import Variant
from exochess.variants.fugue import Fugue
from exochess.variants.interweave import Interweave
from exochess.variants.rebelfury import RebelFury

VARIANT_CLASSES: tuple[type[Variant], ...] = (Fugue, Interweave, RebelFury)
"""Every game exochess knows, in menu order."""


@cache
def _instances() -> dict[str, Variant]:
    table: dict[str, Variant] = {}
    for cls in VARIANT_CLASSES:
        instance = cls()
        for key in (cls.name, *cls.aliases):
            table[key.lower()] = instance
    return table


def find_variant(name: str) -> Variant:
    """The variant called ``name`` (case-insensitive; aliases accepted).

    Raises :class:`UnknownVariantError` listing the known names.
    """
    found = _instances().get(name.strip().lower().replace(" ", "")) if isinstance(name, str) else None
    if found is None:
        known = ", ".join(cls.name for cls in VARIANT_CLASSES)
        raise UnknownVariantError(f"unknown variant {name!r}; known variants: {known}")
    return found


def all_variants() -> list[Variant]:
    """One instance of every registered game, in menu order."""
    seen: list[Variant] = []
    for v in _instances().values():
        if v not in seen:
            seen.append(v)
    return seen
