"""Tests of the rules pages: rendering, diagrams, seed diagrams, piece coverage, own wording."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from exochess import Board, find_variant, parse_square
from exochess.errors import UnknownVariantError
from exochess.fen import parse_placement
from exochess.geometry import geometry, square_name
from exochess.rulesdoc import Diagram, RulesDocError, available, diagrams, parse_diagram, render_html, source
from exochess.rulesdoc.markdown import render
from exochess.variants import GAMES as SHIPPED

GAMES = [cls.name for cls in SHIPPED]
"""The shipped games, each with a written rules page (and its translations) to check."""
LETTERS = {cls.name: cls.piece_letters for cls in SHIPPED}
SIZES = {cls.name: cls.width for cls in SHIPPED}

# Every diagram of the original rules texts (shared/seeds): game, placement, highlighted squares.
SEED_DIAGRAMS = [
    ("fugue", "wlqksaui/pppppppp/8/8/8/8/PPPPPPPP/IUASKQLW", ""),
    ("fugue", "8/8/3p4/3l4/1wLP4/4Q3/1p3q2/8", "b4,d6,f2"),
    ("interweave", "rbnkknbr/pppppppp/8/8/8/8/PPPPPPPP/RBNKKNBR", ""),
    ("interweave", "8/8/4b3/3nK3/8/8/8/8", "d6,f6,f4,d4"),
    ("interweave", "8/8/4b3/3nK3/8/8/8/8", "c5,e7"),
    ("interweave", "8/8/5p2/8/8/8/1R3p2/8", "a1,c1,d2,a3,b4,c3,d4,e5,b6,b8"),
    ("interweave", "8/1p6/8/8/8/8/1R4p1/8", "b6,f2"),
    ("interweave", "8/p7/5p2/8/8/1P/8/N5p1", "e3,c1,e1,a3,a5,b2,c3,d4,e5"),
    ("interweave", "8/8/8/8/p7/8/2p5/N6b", "e3,a5,a7"),
    ("interweave", "8/8/8/4p3/4Bp2/8/8/8", "e5,f4"),
    ("interweave", "8/8/3P4/8/8/8/1P6/8", "a3,c3,d4,e7,c7"),
    ("interweave", "8/Nr5R/2rP3n/2N5/7b/4b2P/4P3/8", "c7,e4,h5"),
    # Rebel Fury's Capricorn example (drawn as text in the seed; "o" squares filled with Harpies).
    ("rebelfury", "12/12/3hhh6/12/12/12/11h/4C7/11h/7h4/6hh4/12", "e9,g3,l5"),
]
LETTER_CODES = {
    game: {
        **{c: i + 1 for i, c in enumerate(letters)},
        **{c.lower(): -(i + 1) for i, c in enumerate(letters)},
    }
    for game, letters in LETTERS.items()
}


def placement_squares(game: str, placement: str) -> list[int]:
    size = SIZES[game]
    return parse_placement(placement, geometry(size, size), LETTER_CODES[game])


def shared_dir() -> Path | None:
    here = Path(__file__).resolve()
    for base in here.parents:
        candidate = base / "shared" / "seeds"
        if candidate.is_dir():
            return candidate.parent
    candidate = Path("/work/shared")
    return candidate if (candidate / "seeds").is_dir() else None


# --- rendering ----------------------------------------------------------------------------


def test_pages_exist_for_every_shipped_game() -> None:
    assert available()[: len(GAMES)] == GAMES
    assert all(find_variant(game).rules_page for game in GAMES)  # written, not generated


@pytest.mark.parametrize("game", GAMES)
def test_page_renders_with_valid_svg(game: str) -> None:
    page = render_html(game)
    assert page.startswith(f'<article class="rules rules-{game}">')
    figures = re.findall(r"<figure.*?</figure>", page, flags=re.S)
    assert len(figures) == len(diagrams(game)) >= 8
    for figure in figures:
        ET.fromstring(figure)  # figure + inline svg + caption is well-formed XML
    # the page as a whole is well-formed too (all tags closed)
    ET.fromstring(page.replace("<hr>", "<hr/>"))


@pytest.mark.parametrize("game", GAMES)
def test_render_is_deterministic(game: str) -> None:
    assert render_html(game) == render_html(game)


def test_title_alias_and_variant_object_accepted() -> None:
    from exochess import find_variant

    assert render_html("Rebel Fury") == render_html("rebelfury")
    assert render_html(find_variant("fugue")) == render_html("Fugue")
    with pytest.raises(UnknownVariantError):
        render_html("chess")


@pytest.mark.parametrize("game", GAMES)
def test_every_diagram_fen_parses_on_its_board(game: str) -> None:
    for diagram in diagrams(game):
        board = Board(game, fen=diagram.fen)
        assert board.variant.name == game


@pytest.mark.parametrize("game", GAMES)
def test_diagram_squares_are_on_the_board(game: str) -> None:
    size = SIZES[game]
    geo = geometry(size, size)
    for diagram in diagrams(game):
        for name in diagram.squares + diagram.captures + diagram.marks:
            assert geo.on_board(parse_square(name)), (diagram.fen, name)
        placement_squares(game, diagram.fen.split()[0])
        diagram.svg()


@pytest.mark.parametrize("game", GAMES)
def test_diagram_checks_match_the_move_generator(game: str) -> None:
    """``check: SQ``: the highlighted squares are exactly what the piece on SQ can do."""
    checked = 0
    for diagram in diagrams(game):
        origin = diagram.meta.get("check")
        if not origin:
            continue
        board = Board(game, fen=diagram.fen)
        moves = board.moves_from(origin)
        reached = {square_name(a.to_square) for m in moves for a in m.actions}
        removed = {square_name(v) for m in moves for v in m.victims}
        assert set(diagram.captures) == removed, (diagram.fen, sorted(removed))
        assert set(diagram.squares) | set(diagram.captures) == reached | removed, (
            diagram.fen,
            sorted(reached | removed),
        )
        checked += 1
    assert checked >= 5


# --- seed diagrams ---------------------------------------------------------------------------


@pytest.mark.parametrize(("game", "placement", "marked"), SEED_DIAGRAMS)
def test_every_seed_diagram_appears(game: str, placement: str, marked: str) -> None:
    wanted = placement_squares(game, placement)
    marked_set = {s for s in marked.split(",") if s}
    for diagram in diagrams(game):
        if placement_squares(game, diagram.fen.split()[0]) == wanted and set(diagram.squares) == marked_set:
            assert "seed" in diagram.meta, "seed diagrams say where they come from"
            return
    pytest.fail(f"seed diagram {placement} {marked} is missing from {game}.md")


def test_seed_list_matches_the_seed_files() -> None:
    shared = shared_dir()
    if shared is None:
        pytest.skip("shared/seeds not available")
    found = set()
    for path in sorted((shared / "seeds").glob("*.txt")):
        for match in re.finditer(r"fen:(\S+)(?: (\S*))?:", path.read_text(encoding="utf-8")):
            found.add((match.group(1), match.group(2) or ""))
    listed = {(p, m) for _, p, m in SEED_DIAGRAMS}
    assert found <= listed


# --- content ---------------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_every_piece_has_a_section_with_a_diagram(game: str) -> None:
    text = source(game)
    sections = re.split(r"^#{2,3} ", text, flags=re.M)
    for letter in LETTERS[game]:
        section = next((s for s in sections if re.match(rf"[^\n]*\({letter}\)\s*\n", s)), None)
        assert section is not None, f"{game}: no section for {letter}"
        assert "```diagram" in section, f"{game}: the section of {letter} has no diagram"


@pytest.mark.parametrize("game", GAMES)
def test_page_covers_the_required_topics(game: str) -> None:
    text = source(game).lower()
    for topic in (
        "## goal",
        "starting position",
        "## end of the game",
        "## writing moves",
        "## decisions taken by the exochess project",
    ):
        assert topic in text, (game, topic)


def test_rebel_fury_says_the_start_is_a_reconstruction() -> None:
    text = source("rebelfury")
    assert "**Important: the starting position below is a reconstruction.**" in text
    first = diagrams("rebelfury")[0]
    assert first.fen.startswith("fdcghmxjgcdf/aaaaaaaaaaaa/")
    assert "reconstruct" in first.caption
    assert Board("rebelfury").fen() == first.fen


def test_starting_positions_match_the_games() -> None:
    for game in GAMES:
        assert diagrams(game)[0].fen == Board(game).fen()


@pytest.mark.parametrize("game", GAMES)
def test_pages_are_in_our_own_words(game: str) -> None:
    """No run of 9 consecutive words is shared with the rules of record or the seed texts."""
    shared = shared_dir()
    if shared is None:
        pytest.skip("shared texts not available")
    corpus = (shared / "RULES.md").read_text(encoding="utf-8") if (shared / "RULES.md").exists() else ""
    for path in (shared / "seeds").glob("*.txt"):
        corpus += "\n" + path.read_text(encoding="utf-8")
    n = 9
    theirs = re.findall(r"[a-z0-9']+", corpus.lower())
    grams = {tuple(theirs[i : i + n]) for i in range(len(theirs) - n + 1)}
    prose = re.sub(r"```.*?```", " ", source(game), flags=re.S)
    ours = re.findall(r"[a-z0-9']+", prose.lower())
    shared_runs = [
        " ".join(ours[i : i + n]) for i in range(len(ours) - n + 1) if tuple(ours[i : i + n]) in grams
    ]
    assert not shared_runs, shared_runs[:5]


# --- diagram directive and Markdown renderer -------------------------------------------------


def test_parse_diagram_errors() -> None:
    with pytest.raises(RulesDocError):
        parse_diagram("squares: e4", "fugue")
    with pytest.raises(RulesDocError):
        parse_diagram("fen: 8/8/8/8/8/8/8/8 w\nno colon here", "fugue")
    with pytest.raises(RulesDocError):
        parse_diagram("fen: 8/8/8/8/8/8/8/8 w\nfen: 8/8/8/8/8/8/8/8 b", "fugue")


def test_diagram_styles_combine() -> None:
    d = Diagram("fugue", "8/8/8/8/8/8/8/K6k w", squares=("e4",), captures=("e4",), marks=("a1",))
    assert d.styles() == {"e4": "target capture", "a1": "mark"}
    root = ET.fromstring(d.svg(size=100))
    classes = [el.get("class") for el in root.iter()]
    assert classes.count("target") == 1 and classes.count("capture") == 1 and classes.count("mark") == 1


def test_markdown_blocks() -> None:
    text = """# Head

Para *one*
continues **here**.

* item `a*b`
  more of item
* item two

1. first
2. second

| A | B |
|---|---|
| `x|y` | <b> |

> quoted

---

```
code <here>
```
"""
    out = render(text, id_prefix="t")
    assert '<h1 id="t-head">Head</h1>' in out
    assert "<p>Para <em>one</em> continues <strong>here</strong>.</p>" in out
    assert "<li>item <code>a*b</code> more of item</li>" in out
    assert "<ol>\n<li>first</li>\n<li>second</li>\n</ol>" in out
    assert "<td><code>x|y</code></td><td>&lt;b&gt;</td>" in out
    assert "<blockquote>\n<p>quoted</p>\n</blockquote>" in out
    assert "<hr>" in out
    assert "<pre><code>code &lt;here&gt;</code></pre>" in out


def test_markdown_duplicate_heading_ids_and_directives() -> None:
    out = render("## A\n\n## A\n\n```shout\nhi\n```\n", directives={"shout": lambda s: s.upper()})
    assert 'id="a"' in out and 'id="a-2"' in out and "HI" in out


def test_a_missing_rules_page_file_is_a_clear_error() -> None:
    from exochess.variants.fugue import Fugue

    class Misfiled(Fugue):
        name = "misfiled"
        rules_page = "no-such-page.md"

    with pytest.raises(RulesDocError, match=r"misfiled: rules page 'no-such-page\.md' not found"):
        source(Misfiled())


def test_bad_diagram_is_reported_with_its_number(monkeypatch: pytest.MonkeyPatch) -> None:
    import exochess.rulesdoc as rd

    monkeypatch.setattr(rd, "source", lambda name, lang="en": "# X\n\n```diagram\nfen: 9/8 w\n```\n")
    with pytest.raises(RulesDocError, match="diagram 1"):
        rd.render_html("fugue")


# --- the pages in other languages -----------------------------------------------------------

TRANSLATIONS = ("fr", "es")


@pytest.mark.parametrize("lang", TRANSLATIONS)
@pytest.mark.parametrize("game", GAMES)
def test_translated_pages_show_the_same_diagrams(game: str, lang: str) -> None:
    """A translated page is the English page in other words: the same diagrams in the same
    order, only their captions translated."""
    from exochess.rulesdoc import page_language

    assert page_language(game, lang) == lang
    english, translated = diagrams(game), diagrams(game, lang)
    assert len(translated) == len(english)
    for ours, theirs in zip(translated, english, strict=True):
        assert ours == Diagram(**{**theirs.__dict__, "caption": ours.caption}), theirs.caption
        assert ours.caption and ours.caption != theirs.caption
        assert ours.meta == theirs.meta
    page = render_html(game, lang)
    assert page.count("<figure") == len(english)
    # the same sections: a heading for each English heading
    assert source(game, lang).count("\n## ") == source(game).count("\n## ")
    assert source(game, lang).count("\n### ") == source(game).count("\n### ")


def test_a_language_without_a_page_falls_back_to_english() -> None:
    from exochess.rulesdoc import page_language

    assert page_language("fugue", "de") == "en" and source("fugue", "de") == source("fugue")
    assert page_language("fugue", "../fugue/rules") == "en"


@pytest.mark.parametrize("lang", TRANSLATIONS)
@pytest.mark.parametrize("game", GAMES)
def test_translated_pages_are_in_our_own_words(game: str, lang: str) -> None:
    """The translations are made from our English pages, not from the seed texts (one of which
    is French): no run of 9 words is shared with any seed text."""
    shared = shared_dir()
    if shared is None:
        pytest.skip("shared texts not available")
    corpus = "\n".join(p.read_text(encoding="utf-8") for p in (shared / "seeds").glob("*.txt"))
    n = 9
    theirs = re.findall(r"[\w']+", corpus.lower())
    grams = {tuple(theirs[i : i + n]) for i in range(len(theirs) - n + 1)}
    prose = re.sub(r"```.*?```", " ", source(game, lang), flags=re.S)
    ours = re.findall(r"[\w']+", prose.lower())
    shared_runs = [
        " ".join(ours[i : i + n]) for i in range(len(ours) - n + 1) if tuple(ours[i : i + n]) in grams
    ]
    assert not shared_runs, shared_runs[:5]
