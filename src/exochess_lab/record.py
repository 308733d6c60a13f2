"""The game record of a match (``exochess match --record FILE``), written and read back.

The first line holds the settings that decide which games are played (the game, the
players, the move time, the openings' seed and filter, the sequential test), as JSON
after ``# exochess match``; then one line per finished game, in game order::

    # exochess match {"a": "8", "b": "7", "movetime_ms": 1000, ...}
    game 1 white=A result=1 (royal capture): b2-a3 g7-g6 ...
    game 2 white=B result=0 (royal capture): b2-a3 g7-g6 ...

``result`` is White's score.  A record is written a line at a time as the games are
taken, so a match that is stopped keeps what it played, and ``--resume`` continues it:
:func:`read_record` gives back the settings and the games, which the match checks
against its own settings before it plays on.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from exochess.errors import ExochessError
from exochess_lab.match import GameResult

HEADER_PREFIX = "# exochess match "
"""How the settings line starts."""

_GAME_LINE = re.compile(r"game (\d+) white=([AB]) result=(1|0|0\.5) \((.*?)\): ?(.*)")


class RecordError(ExochessError):
    """A match record that cannot be read or does not belong to the match resuming it."""


@dataclass(frozen=True)
class MatchSettings:
    """What decides the games of a match: a resumed match must have the same."""

    variant: str
    a: str
    """Player A as given on the command line."""
    b: str
    movetime_ms: int | None
    seed: int
    opening_plies: int
    opening_balance: int
    sprt: str | None
    """``"ELO0,ELO1"`` of a sequential test, else None."""
    alpha: float | None
    beta: float | None

    def differences(self, other: MatchSettings) -> list[str]:
        """The settings that differ, as ``name: ours (the record's theirs)`` texts."""
        mine, theirs = asdict(self), asdict(other)
        return [
            f"{name}: {mine[name]!r} (the record's {theirs[name]!r})"
            for name in mine
            if mine[name] != theirs[name]
        ]


def header_line(settings: MatchSettings) -> str:
    """The record's first line (with its newline)."""
    return HEADER_PREFIX + json.dumps(asdict(settings), sort_keys=True) + "\n"


def game_line(number: int, game: GameResult) -> str:
    """The record line of game ``number`` (1-based), with its newline."""
    white = "A" if game.white == "a" else "B"
    return f"game {number} white={white} result={game.score:g} ({game.reason}): {' '.join(game.moves)}\n"


def read_record(path: str | Path) -> tuple[MatchSettings, list[GameResult]]:
    """The settings and the games of a record; :class:`RecordError` names the first problem."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordError(f"cannot read the match record {path}: {exc}") from exc
    if not lines or not lines[0].startswith(HEADER_PREFIX):
        raise RecordError(
            f"{path} is not a match record: its first line is not {HEADER_PREFIX.strip()!r} "
            "and the settings (records written before --resume existed have none)"
        )
    settings = _settings(path, lines[0][len(HEADER_PREFIX) :])
    games: list[GameResult] = []
    for number, line in enumerate(lines[1:], start=1):
        if not line.strip():
            continue
        match = _GAME_LINE.fullmatch(line)
        if match is None:
            raise RecordError(
                f"{path}, line {number + 1}: not a game line (game N white=A|B result=1|0|0.5 "
                "(reason): moves)"
            )
        if int(match[1]) != len(games) + 1:
            raise RecordError(
                f"{path}, line {number + 1}: game {match[1]} where game {len(games) + 1} was due"
            )
        moves = tuple(match[5].split())
        white = "a" if match[2] == "A" else "b"
        games.append(GameResult(white, float(match[3]), len(moves), match[4], moves))
    return settings, games


def _settings(path: str | Path, text: str) -> MatchSettings:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(f"{path}, line 1: the settings are not JSON ({exc.msg})") from exc
    names = {f.name for f in fields(MatchSettings)}
    if not isinstance(data, dict) or set(data) != names:
        raise RecordError(
            f"{path}, line 1: the settings must have exactly the keys {', '.join(sorted(names))}"
        )
    return MatchSettings(**data)
