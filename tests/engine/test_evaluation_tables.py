"""The games' value and placement tables, and the Texel tuner's model of them (bench/tune.py)."""

from __future__ import annotations

import random
from types import ModuleType
from typing import ClassVar

import pytest

from exochess import Board
from exochess.engine.evaluate import evaluator_for
from tests.helpers import bench_script, games_under_test, random_walk

VARIANTS = [v.name for v in games_under_test() if v.evaluator]
"""The games with an evaluator of their own (tables to check); the generic one has none."""


@pytest.fixture(scope="module")
def tune() -> ModuleType:
    """bench/tune.py."""
    return bench_script("tune")


@pytest.mark.generic
@pytest.mark.parametrize("variant", VARIANTS)
def test_every_piece_has_a_complete_placement_table(variant: str) -> None:
    ev = evaluator_for(Board(variant).variant)
    geo = ev.variant.geometry
    for letter in ev.variant.piece_letters:
        assert len(ev.PLACEMENT[letter]) == geo.height * ((geo.width + 1) // 2), letter
        assert letter in ev.values, letter


@pytest.mark.generic
@pytest.mark.parametrize("variant", VARIANTS)
def test_piece_square_table_is_symmetric(variant: str) -> None:
    ev = evaluator_for(Board(variant).variant)
    geo = ev.variant.geometry
    for code in ev.variant.letters:
        for sq in geo.squares:
            f, r = sq & 15, sq >> 4
            value = ev.table[(sq << 5) | (code & 31)]
            across = (r << 4) | (geo.width - 1 - f)
            turned = ((geo.height - 1 - r) << 4) | f
            assert ev.table[(across << 5) | (code & 31)] == value
            assert ev.table[(turned << 5) | (-code & 31)] == -value


@pytest.mark.generic
@pytest.mark.parametrize("variant", VARIANTS)
def test_tuner_model_is_the_evaluation(variant: str, tune: ModuleType) -> None:
    # The linear model the tuner fits (features . parameters + offset) must give exactly the
    # evaluation the engine computes, or the fitted numbers would mean something else.
    board = Board(variant)
    ev = evaluator_for(board.variant)
    lay = tune.layout_of(variant)
    theta = tune.to_vector(tune.current_tables(ev), lay)
    nudges = tune.nudged(ev, lay)
    rng = random.Random(3)
    weighed = 0
    for _ in range(8):
        board = random_walk(variant, rng, rng.randint(4, 30))
        x, offset = tune.features(board, ev, lay, nudges)
        model = offset + sum(theta[j] * n for j, n in x)
        assert model == board.side * ev.evaluate(board)  # White's view, tempo included
        weighed += any(j >= lay.weight(0) for j, _ in x)
    assert weighed  # the dynamic weights have features in some of these positions


@pytest.mark.generic
@pytest.mark.parametrize("variant", VARIANTS)
def test_written_tables_read_back(variant: str, tune: ModuleType) -> None:
    # The block the tuner writes into evaluation.py is Python that gives back the same tables.
    ev = evaluator_for(Board(variant).variant)
    tables = tune.current_tables(ev)
    tables["values"] = {letter: value + 1 for letter, value in tables["values"].items()}
    text = tune.source_block(variant, tables, "test")
    namespace: dict[str, object] = {"ClassVar": ClassVar}
    exec("class T:\n" + text, namespace)  # our own generated source
    cls = namespace["T"]
    assert cls.values == tables["values"]  # type: ignore[attr-defined]
    assert {k: list(v) for k, v in cls.PLACEMENT.items()} == tables["placement"]  # type: ignore[attr-defined]
    # And an evaluator built from those tables (the match's other side) uses them.
    tabled = tune.evaluator_with(variant, tables)
    for letter, value in tables["values"].items():
        code = ev.variant.codes[letter]
        assert tabled.value_of[code & 31] == value
    for name, value in tables["weights"].items():
        assert getattr(tabled, name) == value


def test_tuner_recovers_a_planted_value(tune: ModuleType) -> None:
    # Results drawn from a known model: the descent must move a wrong value towards the true one.
    variant = "interweave"
    lay = tune.layout_of(variant)
    ev = evaluator_for(Board(variant).variant)
    truth = tune.to_vector(tune.current_tables(ev), lay)
    rng = random.Random(7)
    samples = []
    for game in range(300):
        board = random_walk(variant, rng, rng.randint(10, 40))
        x, offset = tune.features(board, ev, lay)
        p = 1 / (1 + 2.718281828 ** (-0.004 * (offset + sum(truth[j] * n for j, n in x))))
        samples.append((x, offset, 1.0 if rng.random() < p else 0.0, game))
    start = list(truth)
    smasher = lay.value(lay.letters.index("R"))
    start[smasher] = 100.0
    train, held = tune.split(samples, 1)
    theta, _, _ = tune.descend(
        train, held + train, start, 0.004, epochs=150, rate=5.0, l2=0.0, frozen=set(), log=False
    )
    assert theta[smasher] > 200
