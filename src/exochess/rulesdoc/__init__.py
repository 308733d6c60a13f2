"""The rules of each game for the web site, as Markdown with embedded board diagrams.

A game's page is the file named by :attr:`Variant.rules_page`, in the game's own
folder (``exochess/variants/fugue/rules.md``); a game without one gets a short page
made from its attributes (pieces and starting position).  Diagrams are fenced blocks with the info string
``diagram``; each line is ``key: value``:

* ``fen``: the position (a bare placement means White to move);
* ``squares``: squares the piece can move to (green dots/rings);
* ``captures``: pieces that are (or would be) removed (red frames);
* ``marks``: squares of interest (yellow);
* ``arrows``: moves to draw, like ``e2e4``;
* ``lastmove``: a move text whose squares are tinted;
* ``flip``: ``yes`` to draw Black at the bottom;
* ``caption``: the text under the diagram;
* ``seed``: where the diagram comes from in the original rules text (metadata);
* ``check``: ``SQ`` (metadata for tests): ``squares`` and ``captures`` together are exactly
  the squares reached and emptied by the legal moves of the piece on ``SQ``.

:func:`render_html` turns a page into an HTML fragment with the diagrams as inline
SVG.

>>> page = render_html("fugue")
>>> page.startswith('<article class="rules rules-fugue">') and page.count("<svg") >= 10
True
>>> sorted(available())
['fugue', 'interweave', 'rebelfury']
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from importlib import resources

from exochess import svg
from exochess.board import Board
from exochess.errors import ExochessError
from exochess.move import Move
from exochess.rulesdoc.markdown import render
from exochess.variant import Variant, resolve_variant
from exochess.variants import all_variants


class RulesDocError(ExochessError):
    """A rules page or one of its diagrams is malformed."""


@dataclass(frozen=True)
class Diagram:
    """One ``diagram`` block of a rules page."""

    variant: str
    """Registry name of the game the page describes."""
    fen: str
    """Position, with the side to move (``w`` added when the block gives a bare placement)."""
    squares: tuple[str, ...] = ()
    """Destination squares (target style)."""
    captures: tuple[str, ...] = ()
    """Squares of removed pieces (capture style)."""
    marks: tuple[str, ...] = ()
    """Squares of interest (mark style)."""
    arrows: tuple[str, ...] = ()
    """Arrows such as ``e2e4``."""
    caption: str = ""
    """Text shown under the diagram (Markdown inline)."""
    lastmove: str | None = None
    """Move text whose squares are tinted."""
    flip: bool = False
    """Whether Black is drawn at the bottom."""
    meta: dict[str, str] = field(default_factory=dict, compare=False)
    """Other keys (``seed``, ``check`` ...)."""

    def board(self) -> Board:
        """The diagram's position on the game's board."""
        return Board(self.variant, fen=self.fen)

    def styles(self) -> dict[str, str]:
        """Square -> highlight styles (space separated) for :func:`exochess.svg.board`."""
        styles: dict[str, list[str]] = {}
        for style, names in (("mark", self.marks), ("target", self.squares), ("capture", self.captures)):
            for name in names:
                styles.setdefault(name, []).append(style)
        return {name: " ".join(found) for name, found in styles.items()}

    def svg(self, size: int | None = None) -> str:
        """The diagram as an SVG document."""
        return svg.board(
            self.board(),
            squares=self.styles(),
            arrows=self.arrows,
            lastmove=Move.from_text(self.lastmove) if self.lastmove else None,
            orientation=not self.flip,
            size=size,
        )


def _names(value: str) -> tuple[str, ...]:
    return tuple(
        part.strip().lower() for part in value.replace(";", ",").replace(" ", ",").split(",") if part.strip()
    )


def parse_diagram(text: str, variant: str) -> Diagram:
    """Parse the body of a ``diagram`` block.

    >>> d = parse_diagram("fen: 8/8/8/8/8/8/8/K6k\\nsquares: a2, b1\\ncaption: Hi", "fugue")
    >>> d.fen, d.squares, d.caption
    ('8/8/8/8/8/8/8/K6k w', ('a2', 'b1'), 'Hi')
    """
    values: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        key, sep, value = line.partition(":")
        if not sep:
            raise RulesDocError(f"diagram line without 'key:': {line!r}")
        key = key.strip().lower()
        if key in values:
            raise RulesDocError(f"diagram key {key!r} given twice")
        values[key] = value.strip()
    fen = values.pop("fen", "")
    if not fen:
        raise RulesDocError("a diagram needs a 'fen:' line")
    if len(fen.split()) == 1:
        fen += " w"
    return Diagram(
        variant=variant,
        fen=fen,
        squares=_names(values.pop("squares", "")),
        captures=_names(values.pop("captures", "")),
        marks=_names(values.pop("marks", "")),
        arrows=_names(values.pop("arrows", "")),
        caption=values.pop("caption", ""),
        lastmove=values.pop("lastmove", None),
        flip=values.pop("flip", "no").lower() in ("yes", "true", "1"),
        meta=values,
    )


def canonical_name(variant_name: str | Variant) -> str:
    """The registry name of a game given by name, title, alias or :class:`Variant`.

    >>> canonical_name("Rebel Fury")
    'rebelfury'
    """
    return resolve_variant(variant_name).name


def available() -> list[str]:
    """Registry names of the games that have a rules page (every registered game has one)."""
    return [variant.name for variant in all_variants()]


def translated_page(variant_name: str | Variant, lang: str) -> str | None:
    """The file name of a game's rules page in ``lang`` (``rules.fr.md`` beside ``rules.md``),
    or None when the game has no page in that language.

    >>> translated_page("fugue", "fr"), translated_page("fugue", "de")
    ('rules.fr.md', None)
    """
    variant = resolve_variant(variant_name)
    if variant.rules_page is None or not lang.isalpha():
        return None
    stem, dot, suffix = variant.rules_page.rpartition(".")
    name = f"{stem}.{lang}.{suffix}" if dot else f"{variant.rules_page}.{lang}"
    package = type(variant).__module__.rpartition(".")[0]
    try:
        return name if resources.files(package).joinpath(name).is_file() else None
    except ModuleNotFoundError:
        return None


def page_language(variant_name: str | Variant, lang: str) -> str:
    """The language a game's rules page is shown in when ``lang`` is asked for: ``lang`` when
    the page is written in it, else English (the language of ``rules.md``)."""
    return lang if lang != "en" and translated_page(variant_name, lang) else "en"


def source(variant_name: str | Variant, lang: str = "en") -> str:
    """The Markdown text of a game's rules page in ``lang`` (English when that language has no
    page): its own file, or one made from its attributes."""
    variant = resolve_variant(variant_name)
    if variant.rules_page is None:
        return generated_page(variant)
    page = translated_page(variant, lang) if lang != "en" else None
    page = page or variant.rules_page
    package = type(variant).__module__.rpartition(".")[0]
    try:
        return resources.files(package).joinpath(page).read_text(encoding="utf-8")
    except (FileNotFoundError, ModuleNotFoundError) as exc:
        raise RulesDocError(
            f"{variant.name}: rules page {page!r} not found beside {type(variant).__module__}"
        ) from exc


def generated_page(variant: Variant) -> str:
    """A short rules page for a game that has no page of its own: description, pieces, start.

    >>> print(generated_page(resolve_variant("fugue")).splitlines()[0])
    # Fugue
    """
    lines = [f"# {variant.title or variant.name}", "", variant.description or "", "", "## Pieces", ""]
    lines += ["| letter | piece |", "|---|---|"]
    lines += [f"| {letter} | {variant.piece_names.get(letter, letter)} |" for letter in variant.piece_letters]
    if variant.royal:
        royal = variant.piece_names.get(variant.royal, variant.royal)
        lines += ["", f"A side left with fewer than {variant.royal_minimum} {royal} loses."]
    if variant.starting_fen:
        lines += [
            "",
            "## Starting position",
            "",
            "```diagram",
            f"fen: {variant.starting_fen}",
            "caption: The starting position.",
            "```",
        ]
    return "\n".join(lines) + "\n"


def diagrams(variant_name: str | Variant, lang: str = "en") -> list[Diagram]:
    """Every diagram of a game's rules page (in ``lang``), in page order."""
    name = canonical_name(variant_name)
    found: list[Diagram] = []
    lines = source(name, lang).splitlines()
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```diagram":
            j = i + 1
            while j < len(lines) and lines[j].strip() != "```":
                j += 1
            found.append(parse_diagram("\n".join(lines[i + 1 : j]), name))
            i = j
        i += 1
    return found


def _figure(diagram: Diagram) -> str:
    picture = diagram.svg()
    attrs = ' class="diagram"'
    if "seed" in diagram.meta:
        attrs += f' data-source="{html.escape(diagram.meta["seed"])}"'
    caption = ""
    if diagram.caption:
        from exochess.rulesdoc.markdown import inline

        caption = f"<figcaption>{inline(diagram.caption)}</figcaption>"
    return f"<figure{attrs}>\n{picture}{caption}</figure>"


def render_html(variant_name: str | Variant, lang: str = "en") -> str:
    """A game's rules page as an HTML fragment (``<article>``) with inline SVG diagrams, in
    ``lang`` when the game has a page in that language (see :func:`page_language`).

    The game may be given by name, title, alias or :class:`~exochess.variant.Variant`.

    Raises :class:`~exochess.errors.UnknownVariantError` for an unknown game and
    :class:`RulesDocError` (naming the diagram) for a malformed diagram.
    """
    name = canonical_name(variant_name)
    counter = [0]

    def diagram_directive(body: str) -> str:
        counter[0] += 1
        try:
            return _figure(parse_diagram(body, name))
        except (ExochessError, ValueError) as exc:
            raise RulesDocError(f"{name} ({lang}), diagram {counter[0]}: {exc}") from exc

    body = render(source(name, lang), directives={"diagram": diagram_directive}, id_prefix=name)
    return f'<article class="rules rules-{name}">\n{body}</article>\n'


__all__ = [
    "Diagram",
    "RulesDocError",
    "available",
    "canonical_name",
    "diagrams",
    "generated_page",
    "page_language",
    "parse_diagram",
    "render_html",
    "source",
    "translated_page",
]
