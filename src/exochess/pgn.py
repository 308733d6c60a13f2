"""PGN export and import for every exochess game.

The format is ordinary PGN: a tag section followed by numbered movetext and a
result token.  Moves are written in the canonical move text of the rules of
record (section 0.5), which can contain characters PGN normally gives other
meanings -- Interweave chains have commas and parentheses
(``a7xe7(b7),e7xa5(c6)``), Fugue has ``@``, ``~`` and ``*`` (``c1@f4``,
``d5~c5``, ``e4*e5``).  The tokeniser keeps a parenthesis that follows a
square as part of the move and reads a parenthesis after white space as a
variation, so every move survives a round trip unchanged.

Tags written: the seven-tag roster minus ``Round`` (``Event``, ``Site``,
``Date``, ``White``, ``Black``, ``Result``), then ``Variant``, ``SetUp``,
``FEN`` and ``Termination``, then any other tags in the order given (a web
site adds ``TimeControl``, ``WhiteElo``, ``BlackElo``, ``Rated``).  The
``FEN`` tag is always written, so a game stays readable even if a starting
position is revised (the Rebel Fury array is a reconstruction).

``Termination`` takes the values other sites write: ``normal`` (the rules
ended the game: a royal capture, a repetition, no legal move -- which one is
found again from the moves, :attr:`Game.termination`), ``resignation``,
``time forfeit``, ``abandoned`` (a game called off, or left by a player) and
``unterminated`` while it goes on.  Clocks are written as lichess does, a
``[%clk h:mm:ss]`` command in the comment after each move (the mover's time
left; fractions of a second only when there are some, ``0:00:09.25``), and
read back into :attr:`Game.clocks`.

>>> from exochess import Board
>>> board = Board("fugue")
>>> for text in ("e2-e3", "d7-d6"):
...     _ = board.push_text(text)
>>> text = write_game(board, headers={"White": "Ann", "Black": "Bob"})
>>> print(text)  # doctest: +NORMALIZE_WHITESPACE
[Event "?"]
[Site "?"]
[Date "????.??.??"]
[White "Ann"]
[Black "Bob"]
[Result "*"]
[Variant "Fugue"]
[SetUp "1"]
[FEN "wlqksaui/pppppppp/8/8/8/8/PPPPPPPP/IUASKQLW w"]
[Termination "unterminated"]
<BLANKLINE>
1. e2-e3 d7-d6 *
<BLANKLINE>
>>> game = read_game(text)
>>> game.variant, [str(m) for m in game.moves], game.result
('fugue', ['e2-e3', 'd7-d6'], '*')
>>> game.board().fen()
'wlqksaui/ppp1pppp/3p4/8/8/4P3/PPPP1PPP/IUASKQLW w'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from exochess.board import Board
from exochess.errors import ExochessError
from exochess.move import Move
from exochess.outcome import Termination
from exochess.variant import Variant, resolve_variant

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
"""The four PGN result tokens (no exochess game can be drawn, but the token is accepted)."""

ROSTER = ("Event", "Site", "Date", "Round", "White", "Black", "Result")
"""Tags written first, in this order (``Round`` only when given)."""

_DEFAULTS = {"Event": "?", "Site": "?", "Date": "????.??.??", "White": "?", "Black": "?"}
_AFTER_ROSTER = ("Variant", "SetUp", "FEN", "Termination")

UNTERMINATED = "unterminated"
"""``Termination`` tag value of a game still in progress."""
NORMAL = "normal"
"""``Termination`` of a game the rules ended (the reason is found again from the moves)."""
TIME_FORFEIT = "time forfeit"
"""``Termination`` of a game lost on time."""
ABANDONED = "abandoned"
"""``Termination`` of a game called off (aborted) or left by a player."""
_SITE_TERMINATIONS = {
    # the site's own words for an ending, as the PGN writes them
    "aborted": ABANDONED,
    ABANDONED: ABANDONED,
    TIME_FORFEIT: TIME_FORFEIT,
    "resignation": "resignation",
    NORMAL: NORMAL,
    UNTERMINATED: UNTERMINATED,
}


def pgn_termination(value: str) -> str:
    """The ``Termination`` tag value of an ending named ``value``: one of the rules'
    (:class:`~exochess.outcome.Termination`, written ``normal``) or of a site's (``time
    forfeit``, ``aborted``...).  An unknown value is kept as it is.

    >>> pgn_termination("royal capture"), pgn_termination("aborted")
    ('normal', 'abandoned')
    """
    key = value.strip().lower()
    if key in _SITE_TERMINATIONS:
        return _SITE_TERMINATIONS[key]
    if any(term.value == key and term is not Termination.RESIGNATION for term in Termination):
        return NORMAL
    return value


_CLOCK_RE = re.compile(r"\[%clk\s+(\d{1,4}):([0-5]\d):([0-5]\d)(?:\.(\d{1,3}))?\s*\]")
_CLOCK_COMMAND_RE = re.compile(r"\[%clk\b[^\]]*\]?")
"""Any ``[%clk ...]`` command, well formed or not (a reader refuses one :data:`_CLOCK_RE` cannot read)."""


def format_clock(ms: int) -> str:
    """A clock reading as ``[%clk]`` writes it: ``h:mm:ss``, with the fraction of a second
    only when there is one (lossless to the millisecond).

    >>> format_clock(59_000), format_clock(3_723_450), format_clock(-5)
    ('0:00:59', '1:02:03.45', '0:00:00')
    """
    ms = max(0, ms)
    seconds, frac = divmod(ms, 1000)
    hours, rest = divmod(seconds, 3600)
    text = f"{hours}:{rest // 60:02d}:{rest % 60:02d}"
    return text + f".{frac:03d}".rstrip("0") if frac else text


def parse_clock(text: str) -> int | None:
    """Milliseconds of the first ``[%clk h:mm:ss(.f)]`` command in a comment (None: none there)."""
    m = _CLOCK_RE.search(text)
    if m is None:
        return None
    hours, minutes, seconds, frac = m.groups()
    return ((int(hours) * 60 + int(minutes)) * 60 + int(seconds)) * 1000 + int((frac or "0").ljust(3, "0"))


class PgnError(ExochessError):
    """A PGN text that cannot be read: malformed tags or movetext, or an illegal move.

    The message names the problem and, for moves, the move number
    (``move 3... e7-e5: ...``).
    """


@dataclass
class Game:
    """A game read from (or to be written as) PGN.

    ``moves`` are the moves of the main line in canonical form; ``comments`` maps a
    ply count to the comment written after that many moves (0 = before the first move).
    """

    headers: dict[str, str]
    """All tags, in file order (``Variant``, ``FEN``, ``Result`` ... included)."""
    variant: str
    """Registry name of the game (``"fugue"``)."""
    fen: str
    """FEN of the starting position."""
    moves: list[Move] = field(default_factory=list)
    """Main-line moves, oldest first."""
    result: str = "*"
    """Result token: ``1-0``, ``0-1``, ``1/2-1/2`` or ``*``."""
    comments: dict[int, str] = field(default_factory=dict)
    """Comment after ply n (n = 0: before the first move), without its ``[%clk]`` command."""
    clocks: dict[int, int] = field(default_factory=dict)
    """The mover's clock (milliseconds left) after ply n, from the ``[%clk]`` commands."""

    def board(self, plies: int | None = None) -> Board:
        """A board with the first ``plies`` moves (default: all) played from :attr:`fen`.

        Raises :class:`PgnError` naming the move number if a move is illegal.
        """
        board = Board(self.variant, fen=self.fen)
        for index, move in enumerate(self.moves[:plies] if plies is not None else self.moves):
            try:
                board.push(move)
            except ExochessError as exc:
                raise PgnError(f"move {_move_label(board, index)} {move}: {exc}") from exc
        return board

    def replay(self, board: Board) -> Board:
        """Play every move of the game on ``board`` (which should be at :attr:`fen`); return it."""
        for index, move in enumerate(self.moves):
            try:
                board.push(move)
            except ExochessError as exc:
                raise PgnError(f"move {_move_label(board, index)} {move}: {exc}") from exc
        return board

    @property
    def termination(self) -> Termination | None:
        """The ``Termination`` tag as a :class:`~exochess.outcome.Termination`, if it names one;
        for ``normal``, the rules' reason found again from the final position."""
        value = self.headers.get("Termination", "").strip().lower()
        if value == NORMAL:
            outcome = self.board().outcome()
            return outcome.termination if outcome is not None else None
        for term in Termination:
            if term.value == value:
                return term
        return None

    @classmethod
    def from_board(cls, board: Board, headers: Mapping[str, str] | None = None) -> Game:
        """The game played on ``board`` since its starting FEN."""
        text = write_game(board, headers=headers)
        return read_game(text)


def _move_label(board: Board, index: int) -> str:
    """``3.`` or ``3...`` for the move at ply ``index`` of a game whose board is just before it."""
    white_first = board.starting_fen.split()[1] == "w"
    offset = index if white_first else index + 1
    number = offset // 2 + 1
    return f"{number}." if offset % 2 == 0 else f"{number}..."


# --- writing -----------------------------------------------------------------------


def _quote(value: str) -> str:
    value = value.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + " ".join(value.splitlines()) + '"'


def write_game(
    game: Board | Game | Iterable[Move | str],
    *,
    variant: str | Variant | None = None,
    fen: str | None = None,
    headers: Mapping[str, str] | None = None,
    result: str | None = None,
    comments: Mapping[int, str] | None = None,
    clocks: Mapping[int, int] | None = None,
    width: int = 79,
) -> str:
    """The PGN text of a game.

    ``game`` is a :class:`~exochess.board.Board` (its moves since its starting FEN), a
    :class:`Game`, or a sequence of moves (``Move`` or text) played from ``fen`` (default:
    the starting position of ``variant``, default :func:`~exochess.variants.default_variant`).
    The moves are replayed, so an illegal one raises :class:`PgnError`.  ``result`` defaults
    to the outcome of the final position (``*`` while the game goes on); give
    ``"1-0"``/``"0-1"`` for a resignation.
    ``clocks`` maps a ply n to the mover's milliseconds left after it (``[%clk]``); a
    ``Termination`` header names how the game ended (:func:`pgn_termination`'s words).
    Movetext lines are wrapped at ``width`` characters; a move is never split.

    >>> print(write_game(["e2-e3"], variant="fugue", headers={"Event": "Demo"}).splitlines()[-1])
    1. e2-e3 *
    """
    all_headers: dict[str, str] = {}
    extra_comments: dict[int, str] = {}
    all_clocks: dict[int, int] = {}
    if isinstance(game, Board):
        board = game.copy()
        moves = board.move_stack
        start = Board(board.variant, fen=board.starting_fen)
    elif isinstance(game, Game):
        all_headers.update(game.headers)
        extra_comments.update(game.comments)
        all_clocks.update(game.clocks)
        start = Board(game.variant, fen=game.fen)
        moves = list(game.moves)
        if result is None and game.result != "*":
            result = game.result
    else:
        start = Board(variant, fen=fen)  # None: the default game
        moves = [m if isinstance(m, Move) else Move.from_text(m) for m in game]
    if headers:
        all_headers.update(headers)
    if comments:
        extra_comments.update(comments)
    if clocks:
        all_clocks.update(clocks)
    final = start.copy()
    canonical: list[Move] = []
    for index, move in enumerate(moves):
        try:
            final.push(move)
        except ExochessError as exc:
            raise PgnError(f"move {_move_label(final, index)} {move}: {exc}") from exc
        canonical.append(move)
    outcome = final.outcome()
    if result is None:
        result = outcome.result() if outcome else all_headers.get("Result", "*")
        if result not in RESULTS:
            result = "*"
    if result not in RESULTS:
        raise PgnError(f"not a PGN result: {result!r} (use 1-0, 0-1, 1/2-1/2 or *)")
    if outcome is not None:
        termination = NORMAL
    elif "Termination" in all_headers and all_headers["Termination"] != UNTERMINATED:
        termination = pgn_termination(all_headers["Termination"])
    elif result != "*":
        termination = Termination.RESIGNATION.value
    else:
        termination = UNTERMINATED
    all_headers["Result"] = result
    all_headers["Variant"] = start.variant.title or start.variant.name
    all_headers["SetUp"] = "1"
    all_headers["FEN"] = start.starting_fen
    all_headers["Termination"] = termination

    lines = []
    for tag in ROSTER:
        if tag in all_headers:
            lines.append(f"[{tag} {_quote(all_headers[tag])}]")
        elif tag in _DEFAULTS:
            lines.append(f"[{tag} {_quote(_DEFAULTS[tag])}]")
    for tag in _AFTER_ROSTER:
        lines.append(f"[{tag} {_quote(all_headers[tag])}]")
    for tag, value in all_headers.items():
        if tag in ROSTER or tag in _AFTER_ROSTER:
            continue
        if not re.fullmatch(r"[A-Za-z0-9_]+", tag):
            raise PgnError(f"not a valid PGN tag name: {tag!r}")
        lines.append(f"[{tag} {_quote(value)}]")

    tokens: list[str] = []
    if 0 in extra_comments:
        tokens.append(_comment(_comment_text(extra_comments[0])))
    white_first = start.turn
    for index, move in enumerate(canonical):
        offset = index if white_first else index + 1
        if offset % 2 == 0:
            tokens.append(f"{offset // 2 + 1}.")
        elif index == 0 or (index in extra_comments):
            tokens.append(f"{offset // 2 + 1}...")
        tokens.append(str(move))
        after = [f"[%clk {format_clock(all_clocks[index + 1])}]"] if index + 1 in all_clocks else []
        if index + 1 in extra_comments:
            after.append(_comment_text(extra_comments[index + 1]))
        if after:
            tokens.append(_comment(" ".join(after)))
    tokens.append(result)
    movetext: list[str] = []
    line = ""
    for token in tokens:
        if line and len(line) + 1 + len(token) > width:
            movetext.append(line)
            line = token
        else:
            line = f"{line} {token}" if line else token
    movetext.append(line)
    return "\n".join(lines) + "\n\n" + "\n".join(movetext) + "\n"


def _comment(text: str) -> str:
    return "{" + " ".join(text.replace("}", ")").split()) + "}"


def _comment_text(text: str) -> str:
    """A comment's own text, a ``[%clk`` in it spaced out (``[% clk``): only the writer's clock
    command is read back as a clock, and a reader refuses one it cannot read."""
    return text.replace("[%clk", "[% clk")


# --- reading -----------------------------------------------------------------------

_TAG_RE = re.compile(r'\[\s*([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\s*\]')
_NUMBER_RE = re.compile(r"^(\d+)(\.+)")
_ANNOTATION_RE = re.compile(r"[!?]+$")


@dataclass
class _Token:
    kind: str  # "move", "number", "result", "comment", "nag", "open", "close"
    text: str
    line: int


def _tokenise(text: str, first_line: int) -> list[_Token]:
    """Split movetext into tokens, keeping canonical move texts whole."""
    tokens: list[_Token] = []
    i = 0
    n = len(text)
    line = first_line
    at_line_start = True
    while i < n:
        ch = text[i]
        if ch == "\n":
            line += 1
            i += 1
            at_line_start = True
            continue
        if ch.isspace():
            i += 1
            continue
        if ch == "%" and at_line_start:
            while i < n and text[i] != "\n":
                i += 1
            continue
        at_line_start = False
        if ch == "{":
            end = text.find("}", i + 1)
            if end < 0:
                raise PgnError(f"line {line}: a comment opened with '{{' is never closed")
            body = text[i + 1 : end]
            tokens.append(_Token("comment", " ".join(body.split()), line))
            line += body.count("\n")
            i = end + 1
            continue
        if ch == ";":
            end = text.find("\n", i)
            end = n if end < 0 else end
            tokens.append(_Token("comment", text[i + 1 : end].strip(), line))
            i = end
            continue
        if ch == "(":
            tokens.append(_Token("open", "(", line))
            i += 1
            continue
        if ch == ")":
            tokens.append(_Token("close", ")", line))
            i += 1
            continue
        if ch == "$":
            j = i + 1
            while j < n and text[j].isdigit():
                j += 1
            tokens.append(_Token("nag", text[i:j], line))
            i = j
            continue
        # a word: a move (with balanced parentheses), a move number, or a result
        j = i
        depth = 0
        while j < n:
            c = text[j]
            if c == "(":
                depth += 1
            elif c == ")":
                if depth == 0:
                    break
                depth -= 1
            elif depth == 0 and (c.isspace() or c in "{;"):
                # a chain written with a space after a comma continues in the next word
                if text[j - 1] == ",":
                    while j < n and text[j].isspace():
                        line += text[j] == "\n"
                        j += 1
                    continue
                break
            elif depth > 0 and c == "\n":
                break
            j += 1
        word = "".join(text[i:j].split())
        i = j
        m = _NUMBER_RE.match(word)
        if m:
            tokens.append(_Token("number", m.group(0), line))
            word = word[m.end() :]
            if not word:
                continue
        if word in RESULTS:
            tokens.append(_Token("result", word, line))
            continue
        tokens.append(_Token("move", word, line))
    return tokens


def _split_games(text: str) -> Iterator[tuple[str, str, int, int]]:
    """Yield (tag section, movetext, first line of tags, first line of movetext) per game."""
    lines = text.splitlines()
    i = 0
    n = len(lines)
    while i < n:
        while i < n and not lines[i].strip():
            i += 1
        if i >= n:
            return
        tag_start = i
        tags: list[str] = []
        while i < n and lines[i].lstrip().startswith("["):
            tags.append(lines[i])
            i += 1
        while i < n and not lines[i].strip():
            i += 1
        move_start = i
        body: list[str] = []
        while i < n and not lines[i].lstrip().startswith("["):
            body.append(lines[i])
            i += 1
        yield "\n".join(tags), "\n".join(body), tag_start + 1, move_start + 1


def read_games(
    text: str, *, default_variant: str | None = None, max_comment: int | None = None
) -> list[Game]:
    """Every game of a PGN text (see :func:`read_game`)."""
    games = [
        _read_one(tags, body, tag_line, move_line, default_variant, max_comment)
        for tags, body, tag_line, move_line in _split_games(text)
    ]
    if not games:
        raise PgnError("the text contains no game")
    return games


def read_game(text: str, *, default_variant: str | None = None, max_comment: int | None = None) -> Game:
    """Read the first game of a PGN text, checking every move.

    The variant comes from the ``Variant`` tag (or ``default_variant`` when it is
    missing), the start from the ``FEN`` tag (default: the game's starting position).
    Each comment of the main line is kept in :attr:`Game.comments` under the ply it follows
    (several at one ply are joined by a space), its ``[%clk]`` command read into
    :attr:`Game.clocks`; variations and their comments are skipped.
    Raises :class:`PgnError` naming the problem and where it is: the line of the text (for a
    malformed tag or movetext, a bad ``Variant`` or ``FEN`` tag, a ``[%clk]`` command that is
    not ``h:mm:ss``, a comment longer than ``max_comment`` characters when given, a bad
    move), and the move number for a bad move.

    >>> game = read_game('[Variant "Fugue"]\\n\\n{A quiet start} 1. e2-e3 {[%clk 0:04:58] solid} '
    ...                  'd7-d6 {[%clk 0:04:57.5]} *')
    >>> game.comments, game.clocks
    ({0: 'A quiet start', 1: 'solid'}, {1: 298000, 2: 297500})
    >>> read_game('[Variant "Fugue"]\\n\\n1. e2-e3 {[%clk 0:61:00]} *')  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    exochess.pgn.PgnError: line 3: bad clock annotation '[%clk 0:61:00]' (write the time left as ...)

    >>> read_game('[Variant "Fugue"]\\n\\n1. e2-e3 e7-e7 *')  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    exochess.pgn.PgnError: line 3, move 1... e7-e7: e7-e7 is illegal; the Cannon Pawn on e7 can play: ...
    """
    if not isinstance(text, str) or not text.strip():
        raise PgnError("the text contains no game")
    tags, body, tag_line, move_line = next(_split_games(text))
    return _read_one(tags, body, tag_line, move_line, default_variant, max_comment)


def _read_one(
    tags: str, body: str, tag_line: int, move_line: int, default_variant: str | None, max_comment: int | None
) -> Game:
    headers: dict[str, str] = {}
    tag_lines: dict[str, int] = {}
    for offset, raw_line in enumerate(tags.splitlines()):
        stripped = raw_line.strip()
        if not stripped:
            continue
        pos = 0
        while pos < len(stripped):
            m = _TAG_RE.match(stripped, pos)
            if m is None:
                raise PgnError(f"line {tag_line + offset}: malformed tag {stripped[pos:]!r}")
            headers[m.group(1)] = re.sub(r"\\(.)", r"\1", m.group(2))
            tag_lines[m.group(1)] = tag_line + offset
            pos = m.end()
            while pos < len(stripped) and stripped[pos].isspace():
                pos += 1
    name = headers.get("Variant") or default_variant
    try:
        variant = resolve_variant(name or "")
    except ExochessError as exc:
        where = (
            f"line {tag_lines['Variant']}: [Variant {name!r}]"
            if "Variant" in tag_lines
            else f"[Variant {name!r}]"
            if name
            else "the game has no [Variant] tag"
        )
        raise PgnError(f"{where}: {exc}") from exc
    fen = headers.get("FEN") or variant.starting_fen
    try:
        board = Board(variant, fen=fen)
    except ExochessError as exc:
        where = f"line {tag_lines['FEN']}: " if "FEN" in tag_lines else ""
        raise PgnError(f"{where}[FEN {fen!r}]: {exc}") from exc

    moves: list[Move] = []
    comments: dict[int, str] = {}
    clocks: dict[int, int] = {}
    result: str | None = None
    depth = 0
    for token in _tokenise(body, move_line):
        if token.kind == "open":
            depth += 1
            continue
        if token.kind == "close":
            if depth == 0:
                raise PgnError(f"line {token.line}: ')' without a variation to close")
            depth -= 1
            continue
        if depth > 0 or token.kind in ("nag", "number"):
            continue
        if result is not None:
            raise PgnError(f"line {token.line}: {token.text!r} after the result {result}")
        if token.kind == "comment":
            ply = len(moves)
            text = token.text
            for command in _CLOCK_COMMAND_RE.findall(text):
                if _CLOCK_RE.fullmatch(command) is None:
                    raise PgnError(
                        f"line {token.line}: bad clock annotation {command!r} "
                        "(write the time left as [%clk h:mm:ss], for instance [%clk 0:04:59])"
                    )
            clock = parse_clock(text)
            if clock is not None:
                clocks[ply] = clock
                text = " ".join(_CLOCK_RE.sub(" ", text).split())
            if text:
                comments[ply] = f"{comments[ply]} {text}" if ply in comments else text
                if max_comment is not None and len(comments[ply]) > max_comment:
                    raise PgnError(
                        f"line {token.line}: a comment of {len(comments[ply])} characters "
                        f"(at most {max_comment}, please)"
                    )
            continue
        if token.kind == "result":
            result = token.text
            continue
        move_text = _ANNOTATION_RE.sub("", token.text)
        label = _move_label(board, len(moves))
        try:
            move = board.parse_move(move_text)
            board.push(move)
        except ExochessError as exc:
            raise PgnError(f"line {token.line}, move {label} {move_text}: {exc}") from exc
        moves.append(move)
    if depth:
        raise PgnError("a variation opened with '(' is never closed")
    if result is None:
        result = headers.get("Result", "*")
        if result not in RESULTS:
            raise PgnError(f"not a PGN result: {result!r}")
    headers["Result"] = result
    return Game(headers, variant.name, board.starting_fen, moves, result, comments, clocks)


__all__ = [
    "ABANDONED",
    "NORMAL",
    "RESULTS",
    "TIME_FORFEIT",
    "UNTERMINATED",
    "Game",
    "PgnError",
    "format_clock",
    "parse_clock",
    "pgn_termination",
    "read_game",
    "read_games",
    "write_game",
]
