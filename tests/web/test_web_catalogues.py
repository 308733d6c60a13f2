"""The site's message catalogues: complete, in step with the sources, and no template text left
out of them (see docs/translating.md)."""

from __future__ import annotations

import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from exochess.web.http.i18n import LANGUAGES, LOCALE_DIR, js_messages, pick_language, translations

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = ROOT / "src/exochess/web/templates"
TRANSLATED = [lang for lang in LANGUAGES if lang != "en"]
PLACEHOLDER = re.compile(r"\{\w+\}|%\(\w+\)[sd]")
# words that are the same in every language: the site's name and two file formats
UNTRANSLATED_WORDS = {"exochess", "FEN", "PGN"}


def catalogue(lang: str):  # type: ignore[no-untyped-def]
    with (LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po").open("rb") as f:
        return read_po(f, locale=lang)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_has_a_translation_with_the_same_placeholders(lang: str) -> None:
    messages = [m for m in catalogue(lang) if m.id]
    assert len(messages) > 100
    for m in messages:
        assert not m.fuzzy, f"{lang}: fuzzy translation of {m.id!r}"
        # a plural entry (ngettext) has a singular and a plural id, and a translation per form
        ids = [m.id] if isinstance(m.id, str) else list(m.id)
        forms = [m.string] if isinstance(m.string, str) else list(m.string)
        assert forms and all(f.strip() for f in forms), f"{lang}: no translation for {m.id!r}"
        for i, form in enumerate(forms):
            source = ids[min(i, len(ids) - 1)]
            assert sorted(PLACEHOLDER.findall(source)) == sorted(PLACEHOLDER.findall(form)), (
                lang,
                m.id,
                form,
            )


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_catalogues_hold_every_text_of_the_sources() -> None:
    # extract the texts of templates, Python, scripts and the games' words afresh, and compare
    result = subprocess.run(["make", "-s", "messages-check"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, "catalogues out of date: run `make messages`\n" + result.stderr[-2000:]


class _BareText(HTMLParser):
    """Collects text outside Jinja expressions (replaced by NUL) in text nodes and in the
    attributes that people read."""

    READ_ATTRIBUTES = ("title", "placeholder", "aria-label", "alt")

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self.skip = 0

    def _check(self, text: str) -> None:
        words = [w for w in re.findall(r"[^\W\d_]+", text.replace("\0", " ")) if w not in UNTRANSLATED_WORDS]
        if words:
            self.found.append(text.replace("\0", "{…}").strip())

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self.skip += 1
        button = tag == "input" and dict(attrs).get("type") in ("submit", "button", "reset")
        for name, value in attrs:
            # a form field's value is data, but a button's value is its label
            if value and (name in self.READ_ATTRIBUTES or (button and name == "value")):
                self._check(value)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self.skip -= 1

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self._check(data)


def bare_texts(source: str) -> list[str]:
    """Words in a template that no ``{{ _("...") }}`` wraps."""
    blanked = re.sub(r"\{#.*?#\}|\{\{.*?\}\}|\{%.*?%\}", "\0", source, flags=re.S)
    parser = _BareText()
    parser.feed(blanked)
    return parser.found


def test_the_bare_text_finder_finds_bare_text() -> None:
    assert bare_texts('<p>Hello {{ name }}</p><input title="Go">') == ["Hello {…}", "Go"]
    assert bare_texts('<p>{{ _("Hello") }} · FEN</p><option value="white">{{ _("White") }}</option>') == []


@pytest.mark.parametrize("template", sorted(p.name for p in TEMPLATES.glob("*.html")))
def test_no_template_text_is_left_unwrapped(template: str) -> None:
    assert bare_texts((TEMPLATES / template).read_text(encoding="utf-8")) == []


def test_language_choice() -> None:
    assert pick_language(None, None) == "en"
    assert pick_language(None, "de-DE,de;q=0.9") == "en"
    assert pick_language(None, "de-DE,fr-CA;q=0.8,es;q=0.7") == "fr"
    assert pick_language(None, "en;q=0.2, ES;q=0.9") == "es"
    assert pick_language(None, "fr;q=0, es") == "es"
    assert pick_language("es", "fr") == "es"
    assert pick_language("xx", "fr;q=abc, es;q=0.5") == "es"


def test_scripts_get_their_texts_and_the_game_endings() -> None:
    fr = js_messages("fr")
    assert fr["Your move"] == translations("fr").gettext("Your move") != "Your move"
    assert "Black wins: Black resigned" not in fr and "White wins: Black resigned" in fr
    assert "New game" not in fr  # a template's text stays out of the scripts' catalogue
    # the clocks', keyboard's and move words' texts, and the endings the server words itself
    assert fr["{side} has {time} for this move."] == "Les {side} ont {time} pour ce coup."
    assert js_messages("es")["{square}, empty"] == "{square}, vacía"
    assert fr["White wins on time"] == "Les Blancs gagnent au temps" and "aborted by Black" in fr
    assert js_messages("en") == {}
