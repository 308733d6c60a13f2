"""Every game's shipped puzzles, checked by the rules library (generic over the registry), and the
format's errors.

For each puzzle: the solution is legal in turn from its position and written canonically, its
fields are valid (id, rating range, themes from the documented list), ids are unique in the
file, and the generator's settings file stands beside every non-empty collection.  The themes a
puzzle carries are the ones :func:`detect_themes` finds again from its moves.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from exochess.puzzles import (
    MAX_RATING,
    MIN_RATING,
    THEMES,
    Puzzle,
    PuzzleError,
    check_puzzle,
    detect_themes,
    load_puzzles,
    puzzles_path,
    read_puzzles,
    settings_path,
)
from tests.helpers import game_names

SHIPPED = [
    pytest.param(name, puzzle, id=f"{name}-{puzzle.id}")
    for name in game_names()
    for puzzle in load_puzzles(name)
]


@pytest.mark.generic
@pytest.mark.parametrize("game", game_names())
def test_collection_reads_with_unique_ids_and_has_its_settings(game: str) -> None:
    puzzles = load_puzzles(game)
    assert len({p.id for p in puzzles}) == len(puzzles)
    assert len({p.fen for p in puzzles}) == len(puzzles), "two puzzles share a position"
    path = puzzles_path(game)
    if path.is_file() and path.read_text(encoding="utf-8").strip():
        settings = settings_path(game)
        assert settings.is_file(), f"{path.name} has no {settings.name} beside it"
        recorded = json.loads(settings.read_text(encoding="utf-8"))
        assert recorded["game"] == game
        assert recorded["runs"] and all(run["command"] for run in recorded["runs"])
        assert recorded["settings"]["seed"] >= 0


@pytest.mark.generic
@pytest.mark.parametrize(("game", "puzzle"), SHIPPED)
def test_shipped_puzzle_is_legal_and_well_formed(game: str, puzzle: Puzzle) -> None:
    check_puzzle(puzzle)
    assert puzzle.variant == game
    assert MIN_RATING <= puzzle.rating <= MAX_RATING
    assert puzzle.themes and set(puzzle.themes) <= set(THEMES)
    assert len(puzzle.solution) % 2 == 1
    assert puzzle.themes == detect_themes(game, puzzle.fen, puzzle.solution, _values(game))


def _values(game: str) -> dict[str, int]:
    from exochess.variant import resolve_variant
    from exochess_lab.puzzlegen import piece_values

    return piece_values(resolve_variant(game))


def test_every_theme_has_a_description() -> None:
    assert all(name == name.lower() and " " not in name for name in THEMES)
    assert all(text.endswith(".") and len(text) < 110 for text in THEMES.values())
    documented = Path(__file__).parents[2].joinpath("docs", "puzzles.md").read_text(encoding="utf-8")
    for name in THEMES:
        assert f"`{name}`" in documented or name.startswith("royal-capture-in-"), name


GOOD = {
    "id": "a1",
    "fen": "3k4/8/8/8/8/8/8/3QK3 w",
    "solution": ["d1xd8"],
    "rating": 700,
    "themes": ["one-move"],
}


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"id": "A B"}, "'id' must be lower-case"),
        ({"solution": []}, "'solution' must be a non-empty list"),
        ({"solution": ["d1xd8", "d8-d7"]}, ".*odd length"),
        ({"rating": 10}, "'rating' must be a whole number from 400 to 3000"),
        ({"rating": True}, "'rating'"),
        ({"themes": ["pin"]}, "unknown theme 'pin'"),
        ({"fen": ""}, "no 'fen'"),
    ],
)
def test_a_malformed_line_is_refused_with_its_line_number(change: dict[str, object], problem: str) -> None:
    lines = [json.dumps(GOOD | {"id": "b2"}), json.dumps(GOOD | change)]
    with pytest.raises(PuzzleError, match=f"puzzles line 2: {problem}"):
        read_puzzles("fugue", lines)


def test_not_json_and_repeated_ids_are_refused() -> None:
    with pytest.raises(PuzzleError, match="line 1: not JSON"):
        read_puzzles("fugue", ["{"])
    with pytest.raises(PuzzleError, match="line 3: a puzzle with id 'a1' came before"):
        read_puzzles("fugue", [json.dumps(GOOD), "", json.dumps(GOOD)])


@pytest.mark.parametrize(
    ("fen", "solution", "problem"),
    [
        ("3k4/8/8/8/8/8/8/3QK3 w", ["d1-d9"], r"move 1 \(d1-d9\)"),
        ("3k4/8/8/8/8/8/8/3QK3 w", ["d1-d5", "d8-c8", "d5xd8"], r"move 3 \(d5xd8\).*illegal"),
        ("3k4/8/8/8/8/8/8/3QK3 w", ["d1xd8", "e1-e2", "d8-d7"], "the game ends before move 2"),
        ("3k4/8/8/8/8/8/8/3QK3 x", ["d1xd8"], "bad FEN"),
        (
            "3k4/6P1/8/8/8/8/8/4K3 w",
            ["g7-g8=q"],
            "move 1 is not written canonically: 'g7-g8=q', not 'g7-g8=Q'",
        ),
    ],
)
def test_check_puzzle_names_the_move_and_the_problem(fen: str, solution: list[str], problem: str) -> None:
    puzzle = Puzzle(id="t1", variant="fugue", fen=fen, solution=solution, rating=800, themes=["one-move"])
    with pytest.raises(PuzzleError, match=f"puzzle t1: {problem}"):
        check_puzzle(puzzle)


def test_a_game_without_a_file_has_no_puzzles(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import exochess.puzzles as module

    monkeypatch.setattr(module, "puzzles_path", lambda variant: tmp_path / "missing.jsonl")
    module._load.cache_clear()
    try:
        assert module.load_puzzles("fugue") == []
    finally:
        module._load.cache_clear()


@pytest.mark.parametrize(
    ("game", "fen", "solution", "expected"),
    [
        # the Queen takes the King at once
        ("fugue", "3k4/8/8/8/8/8/8/3QK3 w", ["d1xd8"], {"royal-capture-in-1", "one-move"}),
        # the Swapper trades places with the enemy Queen
        ("fugue", "3k4/8/8/3q4/8/8/8/3WK3 w", ["d1~d5"], {"swap", "quiet-move", "advantage"}),
        # the Long Leaper jumps the Queen from d1 to d7
        ("fugue", "k7/8/8/8/8/3q4/8/3LK3 w", ["d1xd7(d3)"], {"long-leap", "advantage"}),
        # an Interweave Remover fires at two neighbours
        ("interweave", "k6k/8/8/3p4/2pB4/8/8/K6K w - 000000", ["d4@(c4,d5)"], {"shot", "multi-capture"}),
    ],
)
def test_detect_themes_from_the_moves(game: str, fen: str, solution: list[str], expected: set[str]) -> None:
    assert expected <= set(detect_themes(game, fen, solution))
