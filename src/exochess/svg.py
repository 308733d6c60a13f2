"""Self-contained SVG board diagrams, in the spirit of ``chess.svg.board``.

:func:`board` draws any exochess board (8x8, 12x12, anything up to 16x16):
light and dark squares, coordinates, every piece as a small vector glyph (a
shape per piece type with the type letter inside), highlighted squares in
three styles, arrows, the last move and a flipped orientation.

The output uses no external images or fonts (only generic font families),
contains no ``id`` attributes (so many diagrams can share one HTML page) and
is deterministic: the same arguments always give the same text.

>>> from exochess import Board
>>> text = board(Board("fugue"), squares={"e4": "target"}, arrows=["e2e4"])
>>> text.startswith("<svg")
True
>>> import xml.etree.ElementTree as ET
>>> ET.fromstring(text).tag
'{http://www.w3.org/2000/svg}svg'
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING
from xml.sax.saxutils import escape, quoteattr

from exochess.geometry import parse_square, square, square_file, square_name, square_rank
from exochess.variant import resolve_variant

if TYPE_CHECKING:
    from exochess.board import Board
    from exochess.move import Move
    from exochess.variant import Variant

SQUARE_SIZE = 45
"""Side of one square in SVG user units."""
MARGIN = 20
"""Width of the coordinate margin around the board."""

STYLES = ("mark", "target", "capture")
"""Highlight styles accepted by :func:`board`'s ``squares`` argument.

* ``mark``: the square is tinted yellow;
* ``target``: a green dot (on an empty square) or ring (around a piece), as for move destinations;
* ``capture``: a red frame with corner wedges, for pieces that are (or would be) removed.
"""

COLORS: dict[str, str] = {
    "light": "#f0d9b5",
    "dark": "#b58863",
    "margin": "#312e2b",
    "coord": "#e8e0d2",
    "lastmove": "#cdd16a",
    "mark": "#f6e05e",
    "target": "#2f7d32",
    "capture": "#c62828",
    "arrow": "#1f6fbf",
    "white_fill": "#fbfaf5",
    "white_stroke": "#1b1b1b",
    "white_text": "#1b1b1b",
    "black_fill": "#2a2a2a",
    "black_stroke": "#000000",
    "black_text": "#f6f3ea",
}
"""Default palette; pass ``colors={...}`` to :func:`board` to override entries."""

SquareSpec = int | str
"""A square given as an index (``exochess.square(4, 3)``) or a name (``"e4"``)."""
ArrowSpec = str | tuple[SquareSpec, SquareSpec]
"""An arrow: ``"e2e4"``, ``"e2-e4"`` or a pair of squares."""

# --- piece glyphs -------------------------------------------------------------

# Shape names drawn by _shape(); every piece type of every game gets one.
_SHAPES = ("circle", "square", "diamond", "hexagon", "octagon", "triangle", "shield", "star", "pentagon")


def glyph_shape(variant: Variant | None, letter: str) -> str:
    """The shape name used for a piece type: the game's own choice (:attr:`Variant.glyphs`),
    else the crown for its royal type, else a shape picked from the letter's position.

    >>> from exochess import find_variant
    >>> glyph_shape(find_variant("fugue"), "K"), glyph_shape(None, "Z")
    ('crown', 'circle')
    """
    if variant is not None:
        if letter in variant.glyphs:
            return variant.glyphs[letter]
        if letter == variant.royal:
            return "crown"
    letters = variant.piece_letters if variant is not None else ""
    index = letters.index(letter) if letter in letters else ord(letter)
    return _SHAPES[index % len(_SHAPES)]


def _num(x: float) -> str:
    """Deterministic compact number text."""
    text = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _points(pts: Iterable[tuple[float, float]]) -> str:
    return " ".join(f"{_num(x)},{_num(y)}" for x, y in pts)


def _regular(
    n: int, radius: float, cx: float, cy: float, rotation: float = -90.0
) -> list[tuple[float, float]]:
    return [
        (
            cx + radius * math.cos(math.radians(rotation + 360.0 * i / n)),
            cy + radius * math.sin(math.radians(rotation + 360.0 * i / n)),
        )
        for i in range(n)
    ]


def _shape(name: str, cx: float, cy: float, r: float, style: str) -> str:
    """SVG element of a glyph outline centred on (cx, cy) with nominal radius r."""
    if name == "pawn":
        return f'<circle cx="{_num(cx)}" cy="{_num(cy)}" r="{_num(r * 0.78)}" {style}/>'
    if name == "circle":
        return f'<circle cx="{_num(cx)}" cy="{_num(cy)}" r="{_num(r)}" {style}/>'
    if name == "square":
        s = r * 0.86
        return (
            f'<rect x="{_num(cx - s)}" y="{_num(cy - s)}" width="{_num(2 * s)}" height="{_num(2 * s)}" '
            f'rx="{_num(r * 0.18)}" {style}/>'
        )
    if name == "crown":
        u = r
        pts = [
            (-0.88, 0.72),
            (0.88, 0.72),
            (1.0, -0.62),
            (0.5, -0.12),
            (0.0, -0.95),
            (-0.5, -0.12),
            (-1.0, -0.62),
        ]
        return f'<polygon points="{_points((cx + x * u, cy + y * u) for x, y in pts)}" {style}/>'
    if name == "shield":
        pts = [(-0.9, -0.85), (0.9, -0.85), (0.9, 0.05), (0.0, 1.0), (-0.9, 0.05)]
        return f'<polygon points="{_points((cx + x * r, cy + y * r) for x, y in pts)}" {style}/>'
    if name == "star":
        pts = []
        for i in range(16):
            radius = r * (1.05 if i % 2 == 0 else 0.72)
            angle = math.radians(-90.0 + 22.5 * i)
            pts.append((cx + radius * math.cos(angle), cy + radius * math.sin(angle)))
        return f'<polygon points="{_points(pts)}" {style}/>'
    sides = {
        "diamond": (4, 1.12, -90.0),
        "hexagon": (6, 1.0, 0.0),
        "octagon": (8, 1.0, 22.5),
        "triangle": (3, 1.22, -90.0),
        "pentagon": (5, 1.05, -90.0),
    }
    n, scale, rot = sides.get(name, (40, 1.0, 0.0))
    cy_shift = r * 0.22 if name == "triangle" else 0.0
    return f'<polygon points="{_points(_regular(n, r * scale, cx, cy + cy_shift, rot))}" {style}/>'


def piece_svg(
    letter: str,
    white: bool,
    cx: float,
    cy: float,
    size: float = SQUARE_SIZE,
    *,
    variant: Variant | None = None,
    colors: Mapping[str, str] | None = None,
) -> str:
    """One piece glyph as an SVG group centred on (cx, cy) in a square of side ``size``.

    >>> piece_svg("Q", True, 22.5, 22.5).count("<text")
    1
    """
    palette = {**COLORS, **(colors or {})}
    side = "white" if white else "black"
    shape = glyph_shape(variant, letter)
    r = size * 0.36
    style = (
        f'fill="{palette[side + "_fill"]}" stroke="{palette[side + "_stroke"]}" '
        f'stroke-width="{_num(size * 0.04)}" stroke-linejoin="round"'
    )
    outline = _shape(shape, cx, cy, r, style)
    # the game may draw another letter than the FEN one where that would mislead
    label = variant.glyph_labels.get(letter, letter) if variant is not None else letter
    font = size * (0.36 if shape == "pawn" else 0.42)
    ty = cy + font * 0.36
    if shape == "crown":
        ty += size * 0.06
    elif shape == "triangle":
        ty += size * 0.07
        font *= 0.85
    elif shape == "shield":
        ty -= size * 0.03
    text = (
        f'<text x="{_num(cx)}" y="{_num(ty)}" font-family="Helvetica, Arial, sans-serif" '
        f'font-size="{_num(font)}" font-weight="bold" text-anchor="middle" '
        f'fill="{palette[side + "_text"]}">{escape(label)}</text>'
    )
    return f'<g class="piece {side} {escape(letter)}">{outline}{text}</g>'


def piece(
    variant: Variant | str,
    letter: str,
    white: bool = True,
    *,
    size: int | None = None,
    colors: Mapping[str, str] | None = None,
) -> str:
    """A stand-alone SVG document of one piece glyph (for piece pickers, legends, buttons).

    ``letter`` is the type letter (either case); ``variant`` a :class:`~exochess.variant.Variant`
    or a game name.

    >>> text = piece("fugue", "W", white=False, size=32)
    >>> text.startswith("<svg") and 'class="piece black W"' in text
    True
    """
    variant = resolve_variant(variant)
    upper = letter.upper()
    if upper not in variant.piece_letters:
        raise ValueError(f"{letter!r} is not a piece letter of {variant.title or variant.name}")
    dims = f' width="{size}" height="{size}"' if size else ""
    name = variant.piece_names.get(upper, upper)
    label = f"{'White' if white else 'Black'} {name}"
    glyph = piece_svg(
        upper,
        white,
        SQUARE_SIZE / 2,
        SQUARE_SIZE / 2,
        SQUARE_SIZE,
        variant=variant,
        colors=colors,
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" viewBox="0 0 {SQUARE_SIZE} {SQUARE_SIZE}"'
        f'{dims} role="img" aria-label={quoteattr(label)}>{glyph}</svg>\n'
    )


# --- argument normalisation ----------------------------------------------------------


def _sq(spec: SquareSpec) -> int:
    if isinstance(spec, int):
        return spec
    return parse_square(spec.strip().lower())


def _square_styles(
    squares: Iterable[SquareSpec] | Mapping[SquareSpec, str] | None,
) -> dict[int, frozenset[str]]:
    result: dict[int, frozenset[str]] = {}
    if squares is None:
        return result
    if isinstance(squares, str):
        squares = [s for s in squares.replace(" ", ",").split(",") if s]
    if isinstance(squares, Mapping):
        for spec, style in squares.items():
            wanted = frozenset(style.replace("+", " ").split())
            unknown = sorted(wanted - set(STYLES))
            if unknown or not wanted:
                raise ValueError(f"unknown square style {style!r}; use one of {', '.join(STYLES)}")
            sq = _sq(spec)
            result[sq] = result.get(sq, frozenset()) | wanted
    else:
        for spec in squares:
            result[_sq(spec)] = frozenset({"mark"})
    return result


def parse_arrow(spec: ArrowSpec) -> tuple[int, int]:
    """Tail and head squares of an arrow given as ``"e2e4"``, ``"e2-e4"`` or a pair.

    >>> parse_arrow("k10l12") == (parse_square("k10"), parse_square("l12"))
    True
    """
    if isinstance(spec, tuple):
        return _sq(spec[0]), _sq(spec[1])
    text = spec.strip().lower().replace("-", "").replace(">", "")
    for cut in range(2, min(4, len(text) - 1) + 1):
        head = text[cut:]
        if text[cut - 1].isdigit() and head[:1].isalpha():
            try:
                return parse_square(text[:cut]), parse_square(head)
            except ValueError:
                continue
    raise ValueError(f"not an arrow: {spec!r} (write it like e2e4)")


# --- the diagram ---------------------------------------------------------------------


def board(
    board: Board,
    *,
    squares: Iterable[SquareSpec] | Mapping[SquareSpec, str] | None = None,
    arrows: Iterable[ArrowSpec] = (),
    lastmove: Move | None = None,
    orientation: bool = True,
    size: int | None = None,
    coordinates: bool = True,
    colors: Mapping[str, str] | None = None,
    title: str | None = None,
) -> str:
    """Render ``board`` as an SVG document (a string).

    * ``squares``: squares to highlight, either an iterable (each is ``mark``ed) or a mapping
      square -> style (``mark``, ``target`` or ``capture``, see :data:`STYLES`; several styles
      can be combined with spaces, ``"mark target"``); squares are indices or names.
    * ``arrows``: ``"e2e4"`` strings or ``(tail, head)`` pairs.
    * ``lastmove``: a :class:`~exochess.move.Move` whose squares are tinted (every action of a
      chain).
    * ``orientation``: ``True`` (White at the bottom) or ``False`` (flipped).
    * ``size``: width and height in pixels (the picture scales; default: natural size).
    * ``coordinates``: draw file letters and rank numbers in a margin.
    * ``colors``: overrides for :data:`COLORS`.
    * ``title``: accessible description (defaults to the variant title and FEN).

    Raises :class:`ValueError` for a bad square name, arrow or style.

    >>> from exochess import Board
    >>> svg = board(Board("fugue"), squares={"d6": "capture"}, orientation=False, size=200)
    >>> 'width="200"' in svg and svg.count('class="piece ') == 32
    True
    """
    palette = {**COLORS, **(colors or {})}
    geo = board.geometry
    variant = board.variant
    width, height = geo.width, geo.height
    sq_size = SQUARE_SIZE
    margin = MARGIN if coordinates else 0
    total_w = width * sq_size + 2 * margin
    total_h = height * sq_size + 2 * margin
    styles = _square_styles(squares)
    arrow_pairs = [parse_arrow(a) for a in arrows]
    for sq in list(styles) + [s for pair in arrow_pairs for s in pair]:
        if not geo.on_board(sq):
            raise ValueError(f"{square_name(sq)} is not on the {width}x{height} board")

    def corner(sq: int) -> tuple[float, float]:
        f, r = square_file(sq), square_rank(sq)
        col = f if orientation else width - 1 - f
        row = height - 1 - r if orientation else r
        return margin + col * sq_size, margin + row * sq_size

    def centre(sq: int) -> tuple[float, float]:
        x, y = corner(sq)
        return x + sq_size / 2, y + sq_size / 2

    fen = board.fen()
    label = title if title is not None else f"{variant.title or variant.name}: {fen}"
    dims = f' width="{size}" height="{round(size * total_h / total_w)}"' if size else ""
    out: list[str] = [
        f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" viewBox="0 0 {total_w} {total_h}"'
        f'{dims} role="img" aria-label={quoteattr(label)} class="exochess-board {escape(variant.name)}">',
        f"<desc>{escape(label)}</desc>",
    ]
    if margin:
        out.append(f'<rect x="0" y="0" width="{total_w}" height="{total_h}" fill="{palette["margin"]}"/>')

    # squares
    for sq in geo.squares:
        x, y = corner(sq)
        dark = (square_file(sq) + square_rank(sq)) % 2 == 0
        fill = palette["dark" if dark else "light"]
        out.append(
            f'<rect x="{_num(x)}" y="{_num(y)}" width="{sq_size}" height="{sq_size}" '
            f'class="square {"dark" if dark else "light"} {square_name(sq)}" fill="{fill}"/>'
        )

    # last move tint
    if lastmove is not None:
        seen: list[int] = []
        for action in lastmove.actions:
            for sq in (action.from_square, action.to_square):
                if sq not in seen and geo.on_board(sq):
                    seen.append(sq)
        for sq in seen:
            x, y = corner(sq)
            out.append(
                f'<rect x="{_num(x)}" y="{_num(y)}" width="{sq_size}" height="{sq_size}" '
                f'class="lastmove" fill="{palette["lastmove"]}" fill-opacity="0.6"/>'
            )

    # marks and capture frames (under the pieces)
    for sq in sorted(styles):
        wanted = styles[sq]
        x, y = corner(sq)
        if "mark" in wanted:
            out.append(
                f'<rect x="{_num(x)}" y="{_num(y)}" width="{sq_size}" height="{sq_size}" '
                f'class="mark" fill="{palette["mark"]}" fill-opacity="0.55"/>'
            )
        if "capture" in wanted:
            w = sq_size * 0.3
            c = palette["capture"]
            s = sq_size
            wedges = [
                [(x, y), (x + w, y), (x, y + w)],
                [(x + s, y), (x + s - w, y), (x + s, y + w)],
                [(x, y + s), (x + w, y + s), (x, y + s - w)],
                [(x + s, y + s), (x + s - w, y + s), (x + s, y + s - w)],
            ]
            out.append(f'<g class="capture" fill="{c}" fill-opacity="0.85">')
            out.extend(f'<polygon points="{_points(p)}"/>' for p in wedges)
            out.append(
                f'<rect x="{_num(x + 1.5)}" y="{_num(y + 1.5)}" width="{_num(s - 3)}" '
                f'height="{_num(s - 3)}" fill="none" stroke="{c}" stroke-width="3"/></g>'
            )

    # coordinates
    if margin:
        font = 12
        for f in range(width):
            x, _ = centre(square(f, 0))
            letter = chr(97 + f)
            for y in (total_h - margin / 2 + font * 0.35, margin / 2 + font * 0.35):
                out.append(
                    f'<text x="{_num(x)}" y="{_num(y)}" font-family="Helvetica, Arial, sans-serif" '
                    f'font-size="{font}" text-anchor="middle" fill="{palette["coord"]}">{letter}</text>'
                )
        for r in range(height):
            _, y = centre(square(0, r))
            for x in (margin / 2, total_w - margin / 2):
                out.append(
                    f'<text x="{_num(x)}" y="{_num(y + font * 0.35)}" '
                    f'font-family="Helvetica, Arial, sans-serif" font-size="{font}" '
                    f'text-anchor="middle" fill="{palette["coord"]}">{r + 1}</text>'
                )

    # pieces
    b = board.squares
    for sq in geo.squares:
        code = b[sq]
        if not code:
            continue
        cx, cy = centre(sq)
        out.append(
            piece_svg(
                variant.letters[abs(code)],
                code > 0,
                cx,
                cy,
                sq_size,
                variant=variant,
                colors=palette,
            )
        )

    # targets (over the pieces: a ring around an occupied square, a dot on an empty one)
    for sq in sorted(styles):
        if "target" not in styles[sq]:
            continue
        cx, cy = centre(sq)
        if b[sq]:
            out.append(
                f'<circle cx="{_num(cx)}" cy="{_num(cy)}" r="{_num(sq_size * 0.45)}" class="target" '
                f'fill="none" stroke="{palette["target"]}" stroke-width="{_num(sq_size * 0.08)}" '
                f'stroke-opacity="0.8"/>'
            )
        else:
            out.append(
                f'<circle cx="{_num(cx)}" cy="{_num(cy)}" r="{_num(sq_size * 0.16)}" class="target" '
                f'fill="{palette["target"]}" fill-opacity="0.75"/>'
            )

    # arrows
    for tail, head in arrow_pairs:
        out.append(_arrow(centre(tail), centre(head), sq_size, palette["arrow"]))

    out.append("</svg>")
    return "\n".join(out) + "\n"


def _arrow(start: tuple[float, float], end: tuple[float, float], sq_size: float, color: str) -> str:
    x0, y0 = start
    x1, y1 = end
    dx, dy = x1 - x0, y1 - y0
    length = math.hypot(dx, dy)
    if length == 0:
        r = sq_size * 0.42
        return (
            f'<circle cx="{_num(x0)}" cy="{_num(y0)}" r="{_num(r)}" class="arrow" fill="none" '
            f'stroke="{color}" stroke-width="{_num(sq_size * 0.1)}" stroke-opacity="0.8"/>'
        )
    ux, uy = dx / length, dy / length
    head_len = sq_size * 0.42
    head_w = sq_size * 0.26
    tip_x, tip_y = x1 - ux * sq_size * 0.12, y1 - uy * sq_size * 0.12
    base_x, base_y = tip_x - ux * head_len, tip_y - uy * head_len
    shaft = sq_size * 0.15
    head = [
        (tip_x, tip_y),
        (base_x + uy * head_w, base_y - ux * head_w),
        (base_x - uy * head_w, base_y + ux * head_w),
    ]
    return (
        f'<g class="arrow" fill="{color}" stroke="{color}" opacity="0.8">'
        f'<line x1="{_num(x0)}" y1="{_num(y0)}" x2="{_num(base_x)}" y2="{_num(base_y)}" '
        f'stroke-width="{_num(shaft)}" stroke-linecap="round"/>'
        f'<polygon points="{_points(head)}" stroke-width="1"/></g>'
    )
