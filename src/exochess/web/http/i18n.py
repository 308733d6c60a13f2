"""The site's languages: which one a request gets, and the message catalogues of each.

The catalogues are the ``.po`` files under ``web/locale/<lang>/LC_MESSAGES/messages.po``
(extracted and updated with ``make messages``, see docs/translating.md).  They are compiled in
memory the first time a language is asked for, so the sources the wheel carries are the only
copy and no compiled ``.mo`` file can be stale.

A request's language is, in order: the ``lang`` cookie that the header's switch sets, the
browser's ``Accept-Language`` preference, English.

>>> pick_language(None, "es-MX,es;q=0.9,en;q=0.5")
'es'
>>> pick_language("fr", "es")
'fr'
>>> translations("fr").gettext("Games")
'Parties'
"""

from __future__ import annotations

import gettext
import io
from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path

from babel.core import negotiate_locale
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations
from starlette.requests import HTTPConnection

from exochess.phrase import Phrase
from exochess.web.domain import N_ as N_  # the marker lives with the errors that use it most

LOCALE_DIR = Path(__file__).parent.parent / "locale"
DEFAULT_LANGUAGE = "en"
LANGUAGES: dict[str, str] = {"en": "English", "fr": "Français", "es": "Español"}
"""The site's languages, each named in its own words (the header's switch shows these)."""
COOKIE = "lang"
"""The cookie that remembers the language chosen with the header's switch."""
COOKIE_MAX_AGE = 365 * 24 * 3600
SCRIPTS_COMMENT = "scripts:"
"""Starts the extracted comment of a text that the scripts show though it is not in their source
(it comes in the server's JSON, e.g. why a game ended)."""


def pick_language(cookie: str | None, accept_language: str | None) -> str:
    """The language of a request: a valid ``cookie`` value, else the best match for the
    ``Accept-Language`` header (quality values honoured, ``fr-CA`` matches ``fr``), else English."""
    if cookie in LANGUAGES:
        return cookie
    preferred: list[tuple[float, int, str]] = []
    for index, part in enumerate((accept_language or "").split(",")):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if tag and quality > 0:
            preferred.append((-quality, index, tag.replace("_", "-").lower()))
    wanted = [tag for _, _, tag in sorted(preferred)]
    # Babel matches "fr-ca" to "fr" (and knows its aliases), keeping the browser's order
    found = negotiate_locale(wanted, list(LANGUAGES), sep="-")
    return found if found in LANGUAGES else DEFAULT_LANGUAGE


@cache
def catalogue(lang: str) -> Catalog | None:
    """The parsed ``.po`` catalogue of a language (None for English, the source language)."""
    path = LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po"
    if lang == DEFAULT_LANGUAGE or not path.is_file():
        return None
    with path.open("rb") as f:
        return read_po(f, locale=lang)


@cache
def translations(lang: str) -> gettext.NullTranslations:
    """The gettext translations of a language, compiled in memory from its ``.po`` file."""
    cat = catalogue(lang)
    if cat is None:
        return gettext.NullTranslations()
    buffer = io.BytesIO()
    write_mo(buffer, cat)  # fuzzy entries are left out, as pybabel compile does
    buffer.seek(0)
    return Translations(buffer)


@cache
def _in_library(path: str) -> bool:
    """Whether a catalogue location is in the library (outside the web package): its phrases
    (:class:`~exochess.phrase.Phrase`, a rule state's reason) reach the pages in the state's
    JSON, and the scripts translate them."""
    return path.endswith(".py") and "/web/" not in path


def untranslated(path: str) -> list[str]:
    """The message ids of the catalogue at ``path`` without a translation (an empty or fuzzy
    ``msgstr``, or an empty plural form): ``make messages-check`` fails on any."""
    with open(path, "rb") as f:
        cat = read_po(f)
    missing = []
    for message in cat:
        if not message.id:
            continue
        forms = [message.string] if isinstance(message.string, str) else list(message.string or ())
        if message.fuzzy or not forms or not all(form and form.strip() for form in forms):
            missing.append(message.id if isinstance(message.id, str) else message.id[0])
    return missing


def js_messages(lang: str) -> dict[str, str]:
    """The translated texts of the site's scripts (entries extracted from ``static/*.js``):
    each page carries this small catalogue, so that scripts never show English on a French page."""
    cat = catalogue(lang)
    if cat is None:
        return {}
    out: dict[str, str] = {}
    for message in cat:
        if not message.id or message.fuzzy or not isinstance(message.id, str):
            continue
        for_scripts = any(path.endswith(".js") or _in_library(path) for path, _ in message.locations) or any(
            comment.startswith(SCRIPTS_COMMENT) for comment in message.auto_comments
        )
        if for_scripts and isinstance(message.string, str) and message.string:
            out[message.id] = message.string
    return out


def localized(template: str, params: Mapping[str, object], lang: str) -> str:
    """A server message in ``lang``: its English ``template`` translated, then its ``{name}``
    fields filled, each text field translated too when the catalogue has it (e.g. why a game
    ended).  Texts from the library (an illegal move's explanation) stay English.

    >>> localized("the game is over ({reason})", {"reason": "White wins: Black resigned"}, "fr")
    'la partie est terminée (Les Blancs gagnent : les Noirs ont abandonné)'
    """
    tr = translations(lang).gettext
    # a field that is a phrase of the library is a sentence of its own, translated the same way
    fields = {
        name: localized(value.template, value.params, lang)
        if isinstance(value, Phrase)
        else tr(value)
        if isinstance(value, str) and value
        else value
        for name, value in params.items()
    }
    try:
        return tr(template).format(**fields) if fields else tr(template)
    except (KeyError, IndexError, ValueError):  # a translation with broken fields: the English text
        return template.format(**params) if params else template


def gettext_for(lang: str, message: str) -> str:
    """``message`` translated into ``lang`` (unchanged when the catalogue lacks it)."""
    return translations(lang).gettext(message)


def request_language(conn: HTTPConnection) -> str:
    """The language of a page request or websocket (see :func:`pick_language`)."""
    return pick_language(conn.cookies.get(COOKIE), conn.headers.get("accept-language"))


def extract_variant_texts(
    fileobj: object, keywords: object, comment_tags: object, options: object
) -> Iterator[tuple[int, str | None, str, list[str]]]:
    """A Babel extractor (named in babel.cfg) for the games' words that the site shows: each
    registered game's description, starting-position note, piece names and what each piece
    does, and every way a game can end (:func:`~exochess.web.game.positions.reason_text` and the
    server's own endings, :data:`~exochess.web.game.positions.SERVER_ENDINGS`, stored with each
    finished game).
    These texts live in the library, which stays English; the site translates them with these
    message ids."""
    # read when extracting only: the registry and the outcome words
    from exochess.outcome import Outcome, Termination
    from exochess.variants import all_variants
    from exochess.web.domain import Color
    from exochess.web.game.positions import SERVER_ENDINGS, reason_text

    for ending in SERVER_ENDINGS:
        for side in Color:
            yield 1, None, ending(side), [f"{SCRIPTS_COMMENT} why a game ended"]
    for variant in all_variants():
        for termination in Termination:
            for winner in (True, False):
                text = reason_text(variant, Outcome(termination=termination, winner=winner))
                yield 1, None, text, [f"{SCRIPTS_COMMENT} why a game ended"]
        where = f"{variant.name}:"
        for words in (variant.description, variant.starting_position_note):
            if words:
                yield 1, None, words, [f"{where} game description"]
        for letter, name in variant.piece_names.items():
            yield 1, None, name, [f"{where} piece {letter}"]
        for letter, words in variant.piece_descriptions.items():
            if words:
                yield 1, None, words, [f"{where} what piece {letter} does (the board's legend)"]
