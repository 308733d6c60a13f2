"""The registry of games: :data:`GAMES` lists them; each game is one package in this folder.

>>> find_variant("Fugue").name
'fugue'
>>> [v.name for v in all_variants()][:1]
['fugue']
>>> default_variant().name
'fugue'


Adding a game: a package beside ``fugue/`` with a :class:`~exochess.variant.Variant`
subclass, and its class in :data:`GAMES` (checklist: ``docs/adding-a-game.md``).  A game defined
elsewhere (a plugin, a test) is added at run time with :func:`register_variant`.
"""

from __future__ import annotations

from exochess.errors import UnknownVariantError
from exochess.variant import Variant
from exochess.variants.fugue import Fugue
from exochess.variants.interweave import Interweave
from exochess.variants.rebelfury import RebelFury

GAMES: tuple[type[Variant], ...] = (Fugue, Interweave, RebelFury)
"""Every game exochess ships, in menu order."""

_registered: list[Variant] = []
_by_key: dict[str, Variant] = {}


def _key(name: str) -> str:
    return name.strip().lower().replace(" ", "")


def register_variant(cls: type[Variant]) -> Variant:
    """Add a game to the registry (after the shipped ones) and return its instance.

    Registering a class whose name is already taken replaces the earlier game of that name.
    """
    instance = cls()
    old = _by_key.get(_key(cls.name))
    if old is not None:
        unregister_variant(old.name)
    _registered.append(instance)
    # The title is a key too: PGN writes it in the Variant tag, and reading must find it back.
    for key in (cls.name, cls.title, *cls.aliases):
        if key:
            _by_key.setdefault(_key(key), instance)
    return instance


def unregister_variant(name: str) -> None:
    """Remove a game added by :func:`register_variant` (tests use it to clean up)."""
    instance = find_variant(name)
    _registered.remove(instance)
    for key in [k for k, v in _by_key.items() if v is instance]:
        del _by_key[key]


def find_variant(name: str) -> Variant:
    """The variant called ``name`` (its name, title or an alias; case and spaces do not matter).

    Raises :class:`UnknownVariantError` listing the known names.
    """
    found = _by_key.get(_key(name)) if isinstance(name, str) else None
    if found is None:
        if isinstance(name, str) and not _key(name):
            raise UnknownVariantError(f"no game given; known variants: {names_text()}")
        raise UnknownVariantError(f"unknown variant {name!r}; known variants: {names_text()}")
    return found


def default_variant() -> Variant:
    """The game meant when none is named: the first of :data:`GAMES` (Fugue).

    The one place that choice is made: ``Board()``, the engine protocol before its first
    ``variant`` command, PGN written without a game, and the site's analysis board and
    ``POST /api/position`` without a ``variant`` all ask here.

    >>> default_variant().name
    'fugue'
    """
    return find_variant(GAMES[0].name)


def all_variants() -> list[Variant]:
    """One instance of every registered game, in menu order."""
    return list(_registered)


def names_text() -> str:
    """The registered games' names for help texts and messages (``fugue, interweave, rebelfury``)."""
    return ", ".join(variant.name for variant in _registered)


for _cls in GAMES:
    register_variant(_cls)
