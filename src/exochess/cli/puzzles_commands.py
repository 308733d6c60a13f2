"""``puzzles generate`` and ``puzzles check``: make and verify a game's puzzle collection.

The mining itself is tooling (:mod:`exochess_lab.puzzlegen`, :mod:`exochess_lab.puzzlerun`);
this module reads the command line, shows the progress and prints the summary.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from exochess.cli.common import CliError, add_variant, non_negative_int, positive_int
from exochess.puzzles import check_puzzle, load_puzzles, puzzles_path, read_puzzles
from exochess.variant import resolve_variant
from exochess_lab.puzzlegen import MiningSettings
from exochess_lab.puzzlerun import Progress, run, settings_file


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``puzzles`` command and its subcommands."""
    p = sub.add_parser("puzzles", help="make and check puzzle collections (docs/puzzles.md)")
    inner = p.add_subparsers(dest="puzzles_command", metavar="SUBCOMMAND")
    inner.required = True

    g = inner.add_parser(
        "generate",
        help="mine puzzles from engine games or PGN files (resumable)",
        description="Mine puzzles for a game and append them to its collection. A run goes on "
        "where the last one stopped when given the same mining settings.",
    )
    add_variant(g)
    g.add_argument("-o", "--output", help="puzzles file (default: the game's own puzzles.jsonl)")
    g.add_argument("--count", type=positive_int, help="stop when the file holds this many puzzles")
    g.add_argument("--games", type=positive_int, help="stop when this many games are mined (all runs)")
    g.add_argument("--minutes", type=float, help="stop after this many minutes of this run")
    g.add_argument("-j", "--jobs", type=positive_int, default=1, help="worker processes (default 1)")
    g.add_argument("--fresh", action="store_true", help="empty the file and start the collection over")
    g.add_argument("--pgn", action="append", default=[], help="mine this PGN file's games (repeatable)")
    g.add_argument(
        "--database", help="mine the site's finished games from this database URL (SQLAlchemy form)"
    )
    g.add_argument("--seed", type=non_negative_int, help="first engine game's seed (default 1)")
    g.add_argument("--screen-nodes", type=positive_int, help="nodes of the screening search")
    g.add_argument("--confirm-nodes", type=positive_int, help="nodes of each confirming search")
    g.add_argument("--win-cp", type=positive_int, help="score the best move must reach (centipawns)")
    g.add_argument("--margin-cp", type=positive_int, help="how far the second best must trail")
    g.add_argument("--decisive-cp", type=positive_int, help="material won that ends the line")
    g.add_argument("--max-solver-moves", type=positive_int, help="longest solution, in solver moves")
    g.add_argument("--blunder-rate", type=float, help="share of random moves in engine games")
    g.add_argument("--mistake-rate", type=float, help="share of second-best moves in engine games")
    g.add_argument(
        "--levels",
        help="engine games' players: levels 1-8, comma-separated (each side draws one); 'none': "
        "the screen's best move with blunders and mistakes",
    )
    g.add_argument("--per-game", type=positive_int, help="most puzzles taken from one game")
    g.add_argument("--quiet", action="store_true", help="no progress bar")
    g.set_defaults(handler=cmd_generate)

    c = inner.add_parser("check", help="check every puzzle of a game's collection against the rules")
    add_variant(c)
    c.add_argument("-i", "--input", help="puzzles file (default: the game's own puzzles.jsonl)")
    c.set_defaults(handler=cmd_check)


def _settings(args: argparse.Namespace) -> MiningSettings:
    for name in ("blunder_rate", "mistake_rate"):
        value = getattr(args, name)
        if value is not None and not 0.0 <= value <= 1.0:
            raise CliError(f"--{name.replace('_', '-')} must be from 0 to 1, not {value}")
    levels: tuple[int, ...] | None = None
    if args.levels is not None:
        try:
            levels = () if args.levels == "none" else tuple(int(x) for x in args.levels.split(","))
        except ValueError:
            raise CliError(
                f"--levels: expected numbers 1-8 separated by commas, got {args.levels!r}"
            ) from None
        if any(not 1 <= n <= 8 for n in levels):
            raise CliError(f"--levels: a level is 1 to 8, got {args.levels!r}")
    if args.pgn and args.database:
        raise CliError("give --pgn files or --database, not both")
    for path in args.pgn:
        if not Path(path).is_file():
            raise CliError(f"no such PGN file: {path}")
    return MiningSettings.for_game(
        args.variant,
        seed=args.seed,
        screen_nodes=args.screen_nodes,
        confirm_nodes=args.confirm_nodes,
        win_cp=args.win_cp,
        margin_cp=args.margin_cp,
        decisive_cp=args.decisive_cp,
        max_solver_moves=args.max_solver_moves,
        blunder_rate=args.blunder_rate,
        mistake_rate=args.mistake_rate,
        per_game=args.per_game,
        levels=levels,
        pgn=tuple(args.pgn) or None,
        database=args.database,
    )


def cmd_generate(args: argparse.Namespace) -> int:
    settings = _settings(args)
    output = Path(args.output) if args.output else puzzles_path(settings.game)
    if args.minutes is not None and args.minutes <= 0:
        raise CliError("--minutes must be more than 0")
    command = shlex.join(["exochess", *sys.argv[1:]]) if sys.argv[1:2] == ["puzzles"] else ""
    target = args.count or args.games
    show = not args.quiet and sys.stderr.isatty()

    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
    from rich.progress import Progress as Bar

    with Bar(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[note]}"),
        TimeElapsedColumn(),
        disable=not show,
        transient=False,
    ) as bar:
        label = "puzzles" if args.count else "games"
        task = bar.add_task(f"{settings.game} {label}", total=target, note="")

        def update(status: Progress) -> None:
            done = status.puzzles if args.count else status.tasks_done
            note = f"games {status.tasks_done}, +{status.added} puzzles, {status.stats.candidates} candidates"
            bar.update(task, completed=done, note=note)

        result = run(
            settings,
            output,
            jobs=args.jobs,
            count=args.count,
            games=args.games,
            minutes=args.minutes,
            fresh=args.fresh,
            command=command,
            progress=update,
        )
    status = result.progress
    cpu_min = status.cpu_seconds / 60
    rate = f"{status.added / cpu_min:.2f} per CPU-minute" if cpu_min > 0 else "-"
    print(
        f"{settings.game}: {status.puzzles} puzzles in {output} (+{status.added} from "
        f"{status.tasks_this_run} games, {status.stats.candidates} candidates, {rate}); "
        f"stopped by {result.stopped_by}; "
        f"settings in {settings_file(output)}"
    )
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    game = resolve_variant(args.variant).name
    if args.input:
        path = Path(args.input)
        if not path.is_file():
            raise CliError(f"no such file: {path}")
        puzzles = read_puzzles(game, path.read_text(encoding="utf-8").splitlines(), path.name)
    else:
        puzzles = load_puzzles(game)
    for number, puzzle in enumerate(puzzles, start=1):
        check_puzzle(puzzle, f"puzzle {number} ({puzzle.id})")
    print(f"{game}: {len(puzzles)} puzzles, all legal")
    return 0
