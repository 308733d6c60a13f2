"""The match records kept in ``bench/data/matches/`` (the games behind docs/benchmarks.md's SPRT
verdicts): each reads as a record, and each SPRT record's pentanomial counts and log-likelihood
ratio, counted again from its games, are the figures the docs quote beside its name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from exochess_lab.record import read_record
from exochess_lab.sprt import llr, llr_bounds, pair_score, pentanomial

ROOT = Path(__file__).resolve().parents[2]
RECORDS = sorted((ROOT / "bench" / "data" / "matches").glob("*.txt"))
BENCHMARKS = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")


def test_there_are_records() -> None:
    assert RECORDS


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.name)
def test_a_record_reads_and_its_sprt_figures_are_the_docs(path: Path) -> None:
    settings, games = read_record(path)
    assert games, path.name
    assert all(g.plies == len(g.moves) for g in games)
    if settings.sprt is None:
        return
    a_scores = [g.score if g.white == "a" else 1.0 - g.score for g in games]
    pairs = [pair_score(a_scores[i], a_scores[i + 1]) for i in range(0, len(a_scores) - 1, 2)]
    counts = pentanomial(pairs)
    elo0, elo1 = (float(x) for x in settings.sprt.split(","))
    ratio = llr(counts, elo0, elo1)
    lower, upper = llr_bounds(settings.alpha or 0.05, settings.beta or 0.05)
    assert ratio <= lower or ratio >= upper, f"{path.name}: the record stops before a verdict ({ratio:.2f})"
    assert path.name in BENCHMARKS, f"docs/benchmarks.md does not name {path.name}"
    text = "-".join(str(n) for n in counts)
    # the docs give the counts on the verdict's line, with the LLR to two places
    line = next((row for row in BENCHMARKS.splitlines() if re.search(rf"\b{re.escape(text)}\b", row)), None)
    assert line is not None, f"docs/benchmarks.md does not quote {path.name}'s pentanomial {text}"
    assert f"{ratio:.2f}" in line, f"{path.name}: LLR {ratio:.2f}, the docs' line says {line!r}"
