"""Where a sequential test is heading: continuations drawn from the pairs it has played.

    python bench/sprt_outlook.py bench/data/matches/fugue-sprt-150-250-seed61.txt [--fresh 150,200 ...]
    python bench/sprt_outlook.py 5-0-24-1-44 --sprt 150,250 [--runs 300] [--seed 1]

The source is a match record (``exochess match --record``, whose SPRT settings are used) or
pentanomial pair counts (how many pairs A scored 0, 0.5, 1, 1.5 and 2 points in) with
``--sprt``.  Each run draws further pairs at random from the frequencies played so far (a
bootstrap of the pairs) until the test decides, first continuing the test from where it
stands, then for each ``--fresh`` a new test with those bounds starting from nothing.  It
prints how often each verdict came and after how many more pairs (median and 90th
percentile).

This is a forecast that assumes the pairs played so far are what the rest will look like,
not a verdict: it says how long a run is likely to take, and whether a test's bounds
suit the difference being measured (a true difference at the bounds' midpoint drifts to
neither).  Choose the bounds of a run before its games are played.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from exochess.errors import ExochessError
from exochess_lab.match import MatchResult
from exochess_lab.record import read_record
from exochess_lab.sprt import Sprt, elo_estimate

MAX_PAIRS = 10_000
"""A run still undecided after this many more pairs counts as undecided (the match's own cap)."""


@dataclass
class Outlook:
    """How the simulated runs of one test ended."""

    h1: list[int]
    """Pairs added by each run that accepted H1."""
    h0: list[int]
    """Likewise for H0."""
    undecided: int

    def line(self, runs: int) -> str:
        """Each verdict's share of ``runs`` with its median and 90th percentile of added pairs."""
        parts = []
        for name, ends in (("H1", self.h1), ("H0", self.h0)):
            ends = sorted(ends)
            if ends:
                parts.append(
                    f"{name} {100 * len(ends) / runs:5.1f}% after {ends[len(ends) // 2]} more pairs "
                    f"(90%: {ends[int(len(ends) * 0.9)]})"
                )
            else:
                parts.append(f"{name}   0.0%")
        if self.undecided:
            parts.append(f"undecided after {MAX_PAIRS} pairs {100 * self.undecided / runs:.1f}%")
        return "; ".join(parts)


def simulate(
    test: Sprt, start: Sequence[int], weights: Sequence[int], runs: int, rng: random.Random
) -> Outlook:
    """Continue ``test`` from the pair counts ``start``, drawing pairs with ``weights``, ``runs`` times."""
    outlook = Outlook([], [], 0)
    kinds = range(5)
    for _ in range(runs):
        counts = list(start)
        for added in range(1, MAX_PAIRS + 1):
            counts[rng.choices(kinds, weights=weights)[0]] += 1
            verdict = test.verdict(counts)
            if verdict == "H1":
                outlook.h1.append(added)
                break
            if verdict == "H0":
                outlook.h0.append(added)
                break
        else:
            outlook.undecided += 1
    return outlook


def source_counts(source: str, sprt: str | None) -> tuple[list[int], Sprt]:
    """The pair counts and the test of a record path, or of ``a-b-c-d-e`` counts with ``--sprt``."""
    parts = source.split("-")
    if len(parts) == 5 and all(p.isdigit() for p in parts):
        if sprt is None:
            raise ExochessError("pair counts need --sprt ELO0,ELO1 (a record carries its own)")
        return [int(p) for p in parts], Sprt.parse(sprt)
    settings, games = read_record(source)
    if settings.sprt is None and sprt is None:
        raise ExochessError(f"{source} is not the record of a sequential test: give --sprt ELO0,ELO1")
    test = Sprt.parse(sprt or settings.sprt or "", settings.alpha or 0.05, settings.beta or 0.05)
    return list(MatchResult(games).pentanomial()), test


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", help="a match record, or pair counts like 5-0-24-1-44")
    parser.add_argument("--sprt", help="the test's ELO0,ELO1 (default: the record's)")
    parser.add_argument(
        "--fresh",
        action="append",
        default=[],
        metavar="ELO0,ELO1",
        help="also a new test with these bounds, from no pairs (repeatable)",
    )
    parser.add_argument("--runs", type=int, default=300, help="simulated runs a test (default 300)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the draws (default 1)")
    args = parser.parse_args(argv)
    try:
        counts, test = source_counts(args.source, args.sprt)
        fresh = [Sprt.parse(text, test.alpha, test.beta) for text in args.fresh]
    except (ExochessError, OSError) as error:
        print(f"sprt_outlook: {error}", file=sys.stderr)
        return 2
    if sum(counts) == 0:
        print("sprt_outlook: no complete pair to draw from", file=sys.stderr)
        return 2
    elo, low, high = elo_estimate(counts)
    pentanomial = "-".join(map(str, counts))
    print(
        f"{sum(counts)} pairs {pentanomial}: Elo {elo:+.0f} ({low:+.0f} .. {high:+.0f}), "
        f"LLR {test.llr(counts):.2f} of SPRT({test.elo0:g}, {test.elo1:g}) "
        f"[{test.bounds[0]:.2f}, {test.bounds[1]:.2f}]"
    )
    rng = random.Random(args.seed)
    decided = test.verdict(counts)
    if decided is not None:
        print(f"the test has decided: {decided}")
    else:
        outlook = simulate(test, counts, counts, args.runs, rng)
        print(f"continued, {args.runs} runs: {outlook.line(args.runs)}")
    for other in fresh:
        outlook = simulate(other, [0] * 5, counts, args.runs, rng)
        print(f"fresh SPRT({other.elo0:g}, {other.elo1:g}), {args.runs} runs: {outlook.line(args.runs)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
