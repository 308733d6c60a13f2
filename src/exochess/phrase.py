"""Sentences the library writes for people, which an interface may show in another language.

The library speaks English: a rule state's reason, why a piece cannot move, why a move text is
refused.  A :class:`Phrase` is that English text (it *is* a ``str``, so every caller that
prints or compares it is unchanged) which also keeps the template it was made from and the
fields filled into it.  An interface that translates looks the template up in its catalogue
and fills the fields, each of them translated too where the catalogue has it (a piece's name)
or itself a phrase (``"the Gorgon on d9 and the Fury on c3"``).  The templates are found by
the web site's message extraction (``make messages``: the keyword ``Phrase``).

>>> p = Phrase("the {piece} on {square} has no legal move", piece="Queen", square="d4")
>>> p, p.template, phrase_json(p)
('the Queen on d4 has no legal move', 'the {piece} on {square} has no legal move', \
['the {piece} on {square} has no legal move', {'piece': 'Queen', 'square': 'd4'}])
"""

from __future__ import annotations

from typing import Any


class Phrase(str):
    """English text that remembers its ``template`` and its ``params`` (see the module text)."""

    template: str
    """The English text with ``{name}`` fields."""
    params: dict[str, str]
    """The fields' values: plain text, or phrases of their own."""

    def __new__(cls, template: str, /, **params: object) -> Phrase:
        values = {name: value if isinstance(value, str) else str(value) for name, value in params.items()}
        made = super().__new__(cls, template.format(**values) if values else template)
        made.template = template
        made.params = values
        return made

    def __reduce__(self) -> tuple[Any, ...]:
        # pickled across processes (the site's worker pools): keep the template and fields
        return (_rebuild, (self.template, self.params))


def _rebuild(template: str, params: dict[str, str]) -> Phrase:
    return Phrase(template, **params)


def joined(parts: list[str]) -> str:
    """``a``, ``a and b``, ``a and b and c`` as one phrase (each ``and`` translatable).

    >>> joined(["x", "y", "z"])
    'x and y and z'
    """
    if len(parts) == 1:
        return parts[0]
    return Phrase("{first} and {rest}", first=parts[0], rest=joined(parts[1:]))


def phrase_json(text: str) -> Any:
    """``[template, {name: value}]`` of a phrase (values nested the same way), or the text
    itself when it is a plain ``str``: what a page needs to translate it."""
    if not isinstance(text, Phrase):
        return text
    return [text.template, {name: phrase_json(value) for name, value in text.params.items()}]


__all__ = ["Phrase", "joined", "phrase_json"]
