"""The match record's format (exochess_lab/record.py): what is written reads back the same."""

from __future__ import annotations

from pathlib import Path

import pytest

from exochess_lab.match import GameResult
from exochess_lab.record import MatchSettings, RecordError, game_line, header_line, read_record

SETTINGS = MatchSettings("rebelfury", "8", "cmd:exochess engine", 1000, 51, 4, 150, "150,250", None, 0.1)
GAMES = [
    # A shooter's capture names its victim's square in brackets: "(g4)" is part of the move.
    GameResult("a", 1.0, 5, "royal capture", ("i2-h3", "g12~h12", "h3xh4(g4)", "a1-a2", "h4xk11")),
    GameResult("b", 0.5, 3, "move limit", ("i2-h3", "g12~h12", "b1-b3")),
    GameResult("a", 0.0, 0, "no legal moves", ()),
]


def test_a_written_record_reads_back_the_same(tmp_path: Path) -> None:
    path = tmp_path / "record.txt"
    path.write_text(
        header_line(SETTINGS) + "".join(game_line(i + 1, g) for i, g in enumerate(GAMES)), encoding="utf-8"
    )
    assert read_record(path) == (SETTINGS, GAMES)


def test_differences_name_each_setting() -> None:
    other = MatchSettings("rebelfury", "8", "7", 1000, 52, 4, 150, "150,250", None, 0.1)
    assert SETTINGS.differences(SETTINGS) == []
    assert SETTINGS.differences(other) == [
        "b: 'cmd:exochess engine' (the record's '7')",
        "seed: 51 (the record's 52)",
    ]


def test_a_bad_result_is_not_a_game_line(tmp_path: Path) -> None:
    path = tmp_path / "record.txt"
    bad = "game 1 white=A result=2 (royal capture): a1-a2\n"
    path.write_text(header_line(SETTINGS) + bad, encoding="utf-8")
    with pytest.raises(RecordError, match="line 2: not a game line"):
        read_record(path)
