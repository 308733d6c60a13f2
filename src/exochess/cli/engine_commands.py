"""``analyse``, ``match`` and ``engine``: the engine on the command line."""

from __future__ import annotations

import argparse
import contextlib
import datetime
import math
import sys
from collections.abc import Callable, Iterable
from typing import TextIO

from exochess.cli.common import CliError, add_variant, add_variant_and_fen, board_from_args, positive_int
from exochess.engine import Analysis, Searcher
from exochess.engine.limits import Limits
from exochess.pgn import write_game
from exochess.variants import find_variant
from exochess_lab.match import (
    OPENING_BALANCE_CP,
    GameResult,
    MatchResult,
    PlayerConfig,
    SprtStatus,
    check_player,
    default_jobs,
    parse_player,
    run_match,
    run_sprt,
)
from exochess_lab.record import MatchSettings, game_line, header_line, read_record
from exochess_lab.sprt import Sprt, elo_estimate

SPRT_MAX_GAMES = 20_000
"""Games after which a sequential test stops without a verdict unless ``--games`` says otherwise."""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the engine subcommands."""
    p = sub.add_parser("analyse", aliases=["analyze"], help="search a position and print each iteration")
    add_variant_and_fen(p)
    budget = p.add_mutually_exclusive_group()
    budget.add_argument("--depth", type=positive_int, help="search this many plies")
    budget.add_argument("--movetime", type=positive_int, metavar="MS", help="search this long (default 2000)")
    budget.add_argument("--nodes", type=positive_int, help="search this many nodes")
    p.set_defaults(handler=cmd_analyse)

    p = sub.add_parser(
        "match", help="engine against engine, with a score table and Elo difference, or a sequential test"
    )
    add_variant(p)
    p.add_argument(
        "--a",
        required=True,
        metavar="PLAYER",
        help="player A: a level 1-8, key=value,... or cmd:COMMAND (an external engine, see docs/engine.md)",
    )
    p.add_argument("--b", required=True, metavar="PLAYER", help="player B (same forms)")
    p.add_argument(
        "--games",
        type=positive_int,
        help=f"number of games (default 10); with --sprt the cap (default {SPRT_MAX_GAMES})",
    )
    p.add_argument("--movetime", type=positive_int, metavar="MS", help="time per move of a level-8 player")
    p.add_argument("--seed", type=int, default=1, help="seed of the random openings (default 1)")
    p.add_argument("--opening-plies", type=int, default=4, help="random plies before the engines play")
    p.add_argument(
        "--opening-balance",
        type=int,
        default=OPENING_BALANCE_CP,
        metavar="CP",
        help="keep only openings a depth-3 search scores within CP centipawns for "
        f"either side (default {OPENING_BALANCE_CP}; 0 keeps every random opening)",
    )
    p.add_argument(
        "--jobs",
        type=positive_int,
        default=default_jobs(),
        help="games played at once, each in its own process (default: the number of cores, %(default)s)",
    )
    p.add_argument(
        "--sprt",
        metavar="ELO0,ELO1",
        help="play pairs until a sequential test accepts A - B <= ELO0 (H0) or >= ELO1 (H1), logistic Elo",
    )
    p.add_argument("--alpha", type=float, help="SPRT false-positive rate (default 0.05)")
    p.add_argument("--beta", type=float, help="SPRT false-negative rate (default 0.05)")
    p.add_argument(
        "--record",
        metavar="FILE",
        help="write the settings and a line per game to FILE as the games end (--resume reads it)",
    )
    p.add_argument(
        "--resume",
        action="store_true",
        help="continue the stopped match recorded in the --record FILE "
        "(the same settings; --jobs and --games may differ)",
    )
    p.add_argument("--pgn", metavar="FILE", help="also write every game to FILE as PGN, as the games end")
    p.set_defaults(handler=cmd_match)

    p = sub.add_parser("engine", help="speak the UCI-like engine protocol on stdin/stdout")
    p.set_defaults(handler=cmd_engine)


def format_score(a: Analysis) -> str:
    """``+0.35`` style score, or ``#3`` / ``#-2`` (plies to the end of the game)."""
    if a.mate is not None:
        return f"#{a.mate}"
    return f"{a.score_cp / 100:+.2f}"


def cmd_analyse(args: argparse.Namespace) -> int:
    board = board_from_args(args)
    if board.is_game_over():
        raise CliError("the game is over in this position: there is nothing to analyse")
    movetime = args.movetime
    if args.depth is None and args.nodes is None and movetime is None:
        movetime = 2000
    out = sys.stdout

    def line(a: Analysis) -> None:
        pv = " ".join(str(m) for m in a.pv)
        out.write(
            f"depth {a.depth:>2}  score {format_score(a):>7}  nodes {a.nodes:>9}  nps {a.nps:>7}  "
            f"time {a.time_ms / 1000:6.2f}s  pv {pv}\n"
        )
        out.flush()

    result = Searcher().search(
        board, Limits(depth=args.depth, movetime_ms=movetime, nodes=args.nodes), on_iteration=line
    )
    print(f"bestmove {result.best}")
    return 0


def _progress(stream: TextIO, total: int) -> Callable[[MatchResult], None]:
    tty = stream.isatty()
    step = max(1, total // 10)

    def update(result: MatchResult) -> None:
        done = len(result.games)
        text = f"{done}/{total} games  A {result.score:g} - {done - result.score:g} B"
        if tty:
            width = 30
            filled = width * done // total
            stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {text}")
            if done == total:
                stream.write("\n")
            stream.flush()
        elif done % step == 0 or done == total:
            stream.write(f"[{done * 100 // total:3d}%] {text}\n")
            stream.flush()

    return update


def format_elo(value: float) -> str:
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{round(value) + 0:+d}"


def cmd_match(args: argparse.Namespace) -> int:
    variant = find_variant(args.variant).name
    a = parse_player(args.a)
    b = parse_player(args.b)
    if args.opening_plies < 0:
        raise CliError("--opening-plies must be 0 or more")
    if args.opening_balance < 0:
        raise CliError("--opening-balance must be 0 (off) or a number of centipawns")
    if args.sprt is None and (args.alpha is not None or args.beta is not None):
        raise CliError("--alpha and --beta belong to a sequential test: give --sprt ELO0,ELO1 too")
    test = None
    if args.sprt is not None:
        alpha = 0.05 if args.alpha is None else args.alpha
        beta = 0.05 if args.beta is None else args.beta
        test = Sprt.parse(args.sprt, alpha, beta)
    settings = MatchSettings(
        variant,
        args.a,
        args.b,
        args.movetime,
        args.seed,
        args.opening_plies,
        args.opening_balance,
        args.sprt,
        args.alpha,
        args.beta,
    )
    previous: list[GameResult] = []
    if args.resume:
        previous = _recorded_games(args.record, settings)
    for player in (a, b):
        check_player(variant, player)  # a wrong engine command fails now, not in game 1
    with contextlib.ExitStack() as files:
        writers = []
        if args.record:
            writers.append(_record_writer(files, args.record, settings, len(previous)))
        if args.pgn:
            writers.append(_pgn_writer(files, args.pgn, settings, len(previous)))

        def on_game(game: GameResult) -> None:
            for write in writers:
                write(game)

        return _play_match(args, variant, a, b, test, on_game, previous)


def _recorded_games(path: str | None, settings: MatchSettings) -> list[GameResult]:
    """The games of the match that ``--resume`` continues, after checking its settings are these."""
    if not path:
        raise CliError("--resume continues the match recorded in --record FILE: give --record too")
    recorded, games = read_record(path)
    differences = settings.differences(recorded)
    if differences:
        raise CliError(
            f"cannot resume {path}: these settings differ from the record's: {'; '.join(differences)}"
        )
    return games


def _open_output(files: contextlib.ExitStack, option: str, path: str, append: bool) -> TextIO:
    """A file the match writes as it goes, opened before the first game: a path that cannot be
    written fails then, not after the match."""
    try:
        fh = open(path, "a" if append else "w", encoding="utf-8")  # noqa: SIM115 - closed by ``files``
    except OSError as exc:
        raise CliError(f"cannot write {option} file {path}: {exc.strerror or exc}") from exc
    return files.enter_context(fh)


def _record_writer(
    files: contextlib.ExitStack, path: str, settings: MatchSettings, played: int
) -> Callable[[GameResult], None]:
    """The ``--record`` file, written a line per game as each is taken, so a match stopped
    early keeps the games it played.  A new record starts with the settings; a resumed one
    (``played`` games already in it) is appended to."""
    fh = _open_output(files, "--record", path, append=played > 0)
    if not played:
        fh.write(header_line(settings))
        fh.flush()
    count = played

    def write(game: GameResult) -> None:
        nonlocal count
        count += 1
        fh.write(game_line(count, game))
        fh.flush()

    return write


def _pgn_writer(
    files: contextlib.ExitStack, path: str, settings: MatchSettings, played: int
) -> Callable[[GameResult], None]:
    """The ``--pgn`` file: each game as PGN (exochess.pgn) as it is taken; appended to when resuming."""
    fh = _open_output(files, "--pgn", path, append=played > 0)
    count = played
    date = datetime.datetime.now(datetime.UTC).strftime("%Y.%m.%d")

    def write(game: GameResult) -> None:
        nonlocal count
        count += 1
        names = {"a": f"A: {settings.a}", "b": f"B: {settings.b}"}
        headers = {
            "Event": f"exochess match {settings.variant}",
            "Date": date,
            "Round": str(count),
            "White": names[game.white],
            "Black": names["b" if game.white == "a" else "a"],
            "Termination": game.reason,  # kept when the final position is not a game end (adjudicated)
        }
        result = {1.0: "1-0", 0.0: "0-1"}.get(game.score, "1/2-1/2")
        fh.write(write_game(game.moves, variant=settings.variant, headers=headers, result=result) + "\n")
        fh.flush()

    return write


def _play_match(
    args: argparse.Namespace,
    variant: str,
    a: PlayerConfig,
    b: PlayerConfig,
    test: Sprt | None,
    record: Callable[[GameResult], None],
    previous: list[GameResult],
) -> int:
    movetime = f"movetime {args.movetime} ms" if args.movetime else "level default times"
    if args.resume:
        print(f"resuming {args.record}: {len(previous)} games played before")
    if test is None:
        games = args.games or 10
        result = run_match(
            variant,
            a,
            b,
            games,
            args.movetime,
            seed=args.seed,
            opening_plies=args.opening_plies,
            balance_cp=args.opening_balance,
            jobs=args.jobs,
            progress=_progress(sys.stderr, games),
            on_game=record,
            previous=previous,
        )
        plies = args.opening_plies
        print(
            f"match {variant}: {len(result.games)} games, {movetime}, {plies} random opening plies"
            f"{_balance_text(args.opening_balance)}"
        )
        _print_table(result, a, b)
        counts = result.pentanomial()
        if sum(counts) > 0:
            # The pairs' own spread: the honest interval when openings favour one colour.
            print(
                f"pairs: {sum(counts)}, pentanomial {'-'.join(map(str, counts))}, "
                f"Elo A - B from the pairs {format_elo_error(elo_estimate(counts))}"
            )
    else:
        cap = args.games or SPRT_MAX_GAMES
        lower, upper = test.bounds
        print(
            f"SPRT {variant}: A - B <= {test.elo0:g} (H0) against >= {test.elo1:g} (H1) in logistic Elo, "
            f"alpha {test.alpha:g}, beta {test.beta:g}, LLR bounds [{lower:.2f}, {upper:.2f}], "
            f"at most {cap} games, {movetime}, {args.jobs} at once{_balance_text(args.opening_balance)}"
        )
        sys.stdout.flush()
        result, status = run_sprt(
            variant,
            a,
            b,
            test,
            cap,
            args.movetime,
            seed=args.seed,
            opening_plies=args.opening_plies,
            balance_cp=args.opening_balance,
            jobs=args.jobs,
            progress=_sprt_line,
            on_game=record,
            previous=previous,
        )
        print(_verdict(test, status, cap))
        _print_table(result, a, b)
    return 0


def _balance_text(balance_cp: int) -> str:
    return f", openings within {balance_cp} cp" if balance_cp > 0 else ", openings unfiltered"


def format_elo_error(elo: tuple[float, float, float]) -> str:
    """``+123 ± 45`` (half the 95% interval), or the open side when a side has scored everything."""
    value, lo, hi = elo
    if math.isinf(value):  # one side scored everything: no spread to measure
        return format_elo(value)
    if math.isinf(lo) or math.isinf(hi):
        return f"{format_elo(value)} (95% {format_elo(lo)} .. {format_elo(hi)})"
    return f"{format_elo(value)} ± {(hi - lo) / 2:.0f}"


def _sprt_line(status: SprtStatus) -> None:
    lower, upper = status.bounds
    counts = "-".join(str(c) for c in status.counts)
    print(
        f"pairs {status.pairs:>5}  pentanomial {counts:<17} Elo {format_elo_error(status.elo):<20} "
        f"LLR {status.llr:6.2f} [{lower:.2f}, {upper:.2f}]",
        flush=True,
    )


def _verdict(test: Sprt, status: SprtStatus, cap: int) -> str:
    if status.verdict == "H1":
        return (
            f"SPRT verdict: H1 accepted after {status.pairs} pairs: A - B >= {test.elo1:g} Elo "
            f"rather than <= {test.elo0:g} (LLR {status.llr:.2f} >= {status.bounds[1]:.2f})"
        )
    if status.verdict == "H0":
        return (
            f"SPRT verdict: H0 accepted after {status.pairs} pairs: A - B <= {test.elo0:g} Elo "
            f"rather than >= {test.elo1:g} (LLR {status.llr:.2f} <= {status.bounds[0]:.2f})"
        )
    return f"SPRT verdict: none after {status.pairs} pairs, the cap of {cap} games (LLR {status.llr:.2f})"


def _print_table(result: MatchResult, a: PlayerConfig, b: PlayerConfig) -> None:
    n = len(result.games)
    if n == 0:
        return
    elo, lo, hi = result.elo()
    w = max(28, len(a.label), len(b.label))  # an engine's command line can be long
    print(f"{'player':<8} {'config':<{w}} {'wins':>5} {'losses':>6} {'draws':>5} {'score':>7}")
    print(
        f"{'A':<8} {a.label:<{w}} {result.wins:>5} {result.losses:>6} {result.draws:>5} "
        f"{100 * result.score / n:>6.1f}%"
    )
    print(
        f"{'B':<8} {b.label:<{w}} {result.losses:>5} {result.wins:>6} {result.draws:>5} "
        f"{100 * (n - result.score) / n:>6.1f}%"
    )
    if math.isinf(elo):
        bound = lo if elo > 0 else hi
        print(f"Elo difference A - B: {format_elo(elo)} (95% interval from {format_elo(bound)})")
    else:
        print(f"Elo difference A - B: {format_elo(elo)} (95% interval {format_elo(lo)} .. {format_elo(hi)})")
    plies = sorted(g.plies for g in result.games)
    print(
        f"game length: median {plies[n // 2]} plies; endings: "
        + ", ".join(f"{r} {c}" for r, c in _count(g.reason for g in result.games))
    )


def _count(items: Iterable[str]) -> list[tuple[str, int]]:
    counts: dict[str, int] = {}
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    return sorted(counts.items())


def cmd_engine(args: argparse.Namespace) -> int:
    from exochess.engine.protocol import main

    return main()
