"""Texel tuning of a game's evaluation from self-play positions labelled with results.

    nice -n 19 python bench/tune.py generate fugue --games 400 --jobs 2 --out bench/data/fugue.jsonl
    python bench/tune.py tune fugue bench/data/fugue.jsonl --out bench/data/fugue-tuned.json
    nice -n 19 python bench/tune.py match fugue --a bench/data/fugue-tuned.json --b current \\
        --movetime 100 --games 60 --jobs 1
    python bench/tune.py write fugue bench/data/fugue-tuned.json    # into the game's evaluation.py

``generate``
    plays games between engine levels 5-8 at small node budgets (200-800 nodes a move) from
    random openings, and writes every *quiet* position (neither the move that led to it nor
    the move played from it captured anything: not in the middle of a capture sequence) with
    the game's result, one JSON object a line (``fen``, ``result``: 1 White won, 0 Black won).
    Games cut by the move limit are dropped.  Seeded: the same command writes the same file.
``tune``
    reads a data file, extracts each position's features once (for every piece, its type
    and its square folded to White's side and to files a-d: the evaluation's piece-square
    part is linear in the values and placement tables), keeps the rest of the evaluation
    (dynamic terms, tempo) as a fixed offset, fits the scaling ``K`` of
    ``P(White wins) = 1 / (1 + exp(-K * eval))`` on the current evaluation, then minimises the
    mean squared error of that prediction against the results by gradient descent (Adam)
    over material and placement, with an L2 pull towards the current values (sparse squares
    would otherwise take noise).  A tenth of the games (whole games, so that positions of one
    game never sit on both sides) are held out; the descent stops where their error is lowest.
``match``
    plays ``exochess_lab.match`` games between two tables: ``current`` (the game's
    evaluation as it stands) or a JSON file written by ``tune`` or ``dump``.
``dump``
    writes the game's current tables as JSON (to keep the old side of a match).
``write``
    replaces the tables block of ``src/exochess/variants/<game>/evaluation.py`` by a JSON file's.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from exochess import Board
from exochess.engine.evaluate import Evaluator, evaluator_class, evaluator_for
from exochess.engine.evaluate.base import placement_index
from exochess.engine.levels import level as get_level
from exochess.engine.limits import Limits
from exochess.engine.search import Searcher
from exochess.variant import resolve_variant
from exochess_lab.match import PlayerConfig, random_opening, run_match

ROOT = Path(__file__).resolve().parent.parent
Tables = dict[str, Any]
"""``{"values": {letter: cp}, "placement": {letter: [cp per folded square]}}``."""


# --- generate -----------------------------------------------------------------------------


def _pieces(board: Board) -> int:
    return sum(len(s) for s in board.piece_squares)


def play(task: tuple[str, int, int]) -> list[tuple[str, int]]:
    """One self-play game; its quiet positions with the result (empty if undecided)."""
    variant, seed, max_plies = task
    rng = random.Random(seed)
    board = Board(variant)
    for text in random_opening(variant, rng.randint(4, 10), rng):
        board.push_text(text)
    name = board.variant.name
    players = []
    for _ in range(2):
        lv = rng.choice((5, 6, 7, 8))
        players.append((get_level(lv, name).options(), rng.randint(200, 800), Searcher()))
    kept: list[str] = []
    last_captured = True  # the opening's last move is not looked at
    while board.outcome() is None and board.ply() < max_plies:
        options, nodes, searcher = players[board.ply() & 1]
        result = searcher.search(board, Limits(nodes=nodes), options=options, seed=seed * 7919 + board.ply())
        fen = board.fen()
        before = _pieces(board)
        board.push(result.best)
        captures = _pieces(board) < before
        if not last_captured and not captures:
            kept.append(fen)
        last_captured = captures
    outcome = board.outcome()
    if outcome is None:
        return []
    score = 1 if outcome.winner else 0
    return [(fen, score) for fen in kept]


def generate(args: argparse.Namespace) -> int:
    variant = resolve_variant(args.variant).name
    tasks = [(variant, args.seed * 1_000_003 + i, args.max_plies) for i in range(args.games)]
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    positions = decided = 0
    with out.open("w") as f, ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for i, game in enumerate(pool.map(play, tasks), 1):
            for fen, result in game:
                # Game numbers stay unique across seeds, so that files of several runs can be joined.
                game_id = args.seed * 1_000_000 + i
                f.write(json.dumps({"fen": fen, "result": result, "game": game_id}) + "\n")
            positions += len(game)
            decided += bool(game)
            if i % 10 == 0:
                f.flush()
                status = f"{i}/{args.games} games, {decided} decided, {positions} positions"
                print(status, file=sys.stderr, flush=True)
    print(f"{out}: {positions} positions from {decided} decided games of {args.games}")
    return 0


# --- features ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Layout:
    """Where each parameter sits in the vector: material per letter, then placement per letter."""

    letters: tuple[str, ...]
    squares: int
    """Folded squares per letter (own ranks x half the files)."""
    weights: tuple[str, ...]
    """The evaluator's linear weights (:attr:`Evaluator.TUNABLE`), after the tables."""

    def value(self, i: int) -> int:
        return i

    def cell(self, i: int, k: int) -> int:
        return len(self.letters) + i * self.squares + k

    def weight(self, i: int) -> int:
        return len(self.letters) * (1 + self.squares) + i

    @property
    def size(self) -> int:
        return len(self.letters) * (1 + self.squares) + len(self.weights)


def layout_of(variant: str) -> Layout:
    v = resolve_variant(variant)
    geo = v.geometry
    return Layout(tuple(v.piece_letters), geo.height * ((geo.width + 1) // 2), evaluator_class(v).TUNABLE)


def current_tables(evaluator: Evaluator) -> Tables:
    """The values and folded placement tables an evaluator's piece-square table is built from."""
    v = evaluator.variant
    geo = v.geometry
    values = {**v.piece_values, **type(evaluator).values}
    lay = layout_of(v.name)
    out: Tables = {"values": {}, "placement": {}, "weights": {}}
    for name in lay.weights:
        out["weights"][name] = getattr(evaluator, name)
    for letter in lay.letters:
        default = 0 if letter == v.royal else evaluator.default_value
        out["values"][letter] = values.get(letter, default)
        cells = [0] * lay.squares
        for sq in geo.squares:
            cells[placement_index(geo, sq, True)] = evaluator.placement(letter, sq, True)
        out["placement"][letter] = cells
    return out


def to_vector(tables: Tables, lay: Layout) -> list[float]:
    theta = [0.0] * lay.size
    for i, letter in enumerate(lay.letters):
        theta[lay.value(i)] = float(tables["values"][letter])
        for k, x in enumerate(tables["placement"][letter]):
            theta[lay.cell(i, k)] = float(x)
    for i, name in enumerate(lay.weights):
        theta[lay.weight(i)] = float(tables["weights"][name])
    return theta


def from_vector(theta: Sequence[float], lay: Layout) -> Tables:
    out: Tables = {"values": {}, "placement": {}, "weights": {}}
    for i, letter in enumerate(lay.letters):
        out["values"][letter] = round(theta[lay.value(i)])
        out["placement"][letter] = [round(theta[lay.cell(i, k)]) for k in range(lay.squares)]
    for i, name in enumerate(lay.weights):
        out["weights"][name] = max(0, round(theta[lay.weight(i)]))
    return out


Sample = tuple[list[tuple[int, int]], float, float, int]
"""(sparse features as (index, count), fixed offset in cp, result, game)."""


def nudged(evaluator: Evaluator, lay: Layout) -> list[Evaluator]:
    """Per weight of the layout, the evaluator with that weight one higher."""
    cls = type(evaluator)
    return [
        type(f"Nudged{cls.__name__}", (cls,), {name: getattr(evaluator, name) + 1})(evaluator.variant)
        for name in lay.weights
    ]


def features(
    board: Board, evaluator: Evaluator, lay: Layout, nudges: Sequence[Evaluator] = ()
) -> tuple[list[tuple[int, int]], float]:
    """The position's parameter counts (White +1, Black -1) and the rest of its White-view score.

    A weight's feature is what one more unit of it adds to the dynamic term (exact for the
    weights that multiply a count, a close approximation where the term rounds); the offset
    keeps the evaluation exact at the current weights."""
    geo = board.geometry
    index = {letter: i for i, letter in enumerate(lay.letters)}
    counts: dict[int, int] = {}
    b = board.squares
    for sq in geo.squares:
        code = b[sq]
        if not code:
            continue
        white = code > 0
        i = index[board.variant.letters[code].upper()]
        sign = 1 if white else -1
        for j in (lay.value(i), lay.cell(i, placement_index(geo, sq, white))):
            counts[j] = counts.get(j, 0) + sign
    dynamic = evaluator.dynamic(board)
    offset = dynamic + board.side * evaluator.tempo
    for i, other in enumerate(nudges):
        n = other.dynamic(board) - dynamic
        if n:
            counts[lay.weight(i)] = n
            offset -= n * getattr(evaluator, lay.weights[i])
    return [(j, n) for j, n in counts.items() if n], float(offset)


def load(path: Path, variant: str, evaluator: Evaluator, lay: Layout) -> list[Sample]:
    samples: list[Sample] = []
    nudges = nudged(evaluator, lay)
    with path.open() as f:
        for line in f:
            row = json.loads(line)
            board = Board(variant, fen=row["fen"])
            x, offset = features(board, evaluator, lay, nudges)
            samples.append((x, offset, float(row["result"]), int(row["game"])))
    return samples


# --- tune --------------------------------------------------------------------------------


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, z))))


def _score(x: list[tuple[int, int]], offset: float, theta: Sequence[float]) -> float:
    return offset + sum(theta[j] * n for j, n in x)


def mse(samples: Sequence[Sample], theta: Sequence[float], k: float) -> float:
    total = 0.0
    for x, offset, y, _ in samples:
        total += (y - _sigmoid(k * _score(x, offset, theta))) ** 2
    return total / max(1, len(samples))


def fit_k(samples: Sequence[Sample], theta: Sequence[float]) -> float:
    """The scaling that makes the current evaluation predict the results best (golden section)."""
    scores = [(_score(x, offset, theta), y) for x, offset, y, _ in samples]

    def err(k: float) -> float:
        return sum((y - _sigmoid(k * s)) ** 2 for s, y in scores) / len(scores)

    lo, hi = 1e-5, 0.05
    g = (math.sqrt(5) - 1) / 2
    a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    for _ in range(60):
        if err(a) < err(b):
            hi = b
        else:
            lo = a
        a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    return (lo + hi) / 2


def descend(
    train: Sequence[Sample],
    held: Sequence[Sample],
    theta0: Sequence[float],
    k: float,
    *,
    epochs: int,
    rate: float,
    l2: float,
    frozen: set[int],
    l2_cells: Sequence[float] = (),
    weights: int = 0,
    last: bool = False,
    log: bool = True,
) -> tuple[list[float], float, int]:
    """Adam on the training MSE plus ``l2`` (``l2_cells[j]`` if given) * mean squared change
    from ``theta0`` (per parameter; the last ``weights`` parameters are the dynamic weights,
    moved with a finer step).  Returns the parameters of the epoch with the lowest held-out
    error (``last``: of the last epoch), that error, and the epoch."""
    theta = list(theta0)
    n = len(theta)
    m1 = [0.0] * n
    m2 = [0.0] * n
    beta1, beta2, eps = 0.9, 0.999, 1e-12
    best, best_err, best_epoch = list(theta), mse(held, theta, k), 0
    inv = 1.0 / len(train)
    # The dynamic weights are small numbers (a few cp a unit, each unit counted many times):
    # they move by a tenth of the tables' step.
    step = [0.1 if j >= len(theta) - weights else 1.0 for j in range(n)]
    for epoch in range(1, epochs + 1):
        grad = [0.0] * n
        for x, offset, y, _ in train:
            p = _sigmoid(k * _score(x, offset, theta))
            g = 2.0 * (p - y) * p * (1.0 - p) * k * inv
            for j, c in x:
                grad[j] += g * c
        for j in range(n):
            if j in frozen:
                continue
            gj = grad[j] + 2.0 * (l2_cells[j] if l2_cells else l2) * (theta[j] - theta0[j]) / n
            m1[j] = beta1 * m1[j] + (1 - beta1) * gj
            m2[j] = beta2 * m2[j] + (1 - beta2) * gj * gj
            mhat = m1[j] / (1 - beta1**epoch)
            vhat = m2[j] / (1 - beta2**epoch)
            theta[j] -= rate * step[j] * mhat / (math.sqrt(vhat) + eps)
        if epoch % 10 == 0 or epoch == epochs:
            err = mse(held, theta, k)
            if err < best_err or (last and epoch == epochs):
                best, best_err, best_epoch = list(theta), err, epoch
            if log:
                status = f"epoch {epoch}: train {mse(train, theta, k):.5f} held-out {err:.5f}"
                print(status, file=sys.stderr, flush=True)
    return best, best_err, best_epoch


def split(samples: Sequence[Sample], seed: int) -> tuple[list[Sample], list[Sample]]:
    """Hold out a tenth of the games (all positions of a game on the same side)."""
    games = sorted({s[3] for s in samples})
    random.Random(seed).shuffle(games)
    held_games = set(games[: max(1, len(games) // 10)])
    return [s for s in samples if s[3] not in held_games], [s for s in samples if s[3] in held_games]


def tune(args: argparse.Namespace) -> int:
    variant = resolve_variant(args.variant).name
    evaluator = evaluator_for(resolve_variant(variant))
    lay = layout_of(variant)
    start = current_tables(evaluator)
    theta0 = to_vector(start, lay)
    samples = load(Path(args.data), variant, evaluator, lay)
    train, held = split(samples, args.seed)
    k = fit_k(train, theta0)
    before_train, before_held = mse(train, theta0, k), mse(held, theta0, k)
    print(f"{variant}: {len(train)} training and {len(held)} held-out positions; K = {k:.6f} per cp")
    print(f"current evaluation: MSE train {before_train:.5f}, held-out {before_held:.5f}")
    # The royal piece's count never changes in a game that goes on: its value is not a parameter.
    v = resolve_variant(variant)
    royal = [i for i, letter in enumerate(lay.letters) if letter == v.royal and start["values"][letter] == 0]
    frozen = {lay.value(i) for i in royal}
    groups = set(args.fit.split(","))
    if "values" not in groups:
        frozen |= {lay.value(i) for i in range(len(lay.letters))}
    if "placement" not in groups:
        frozen |= {lay.cell(i, k) for i in range(len(lay.letters)) for k in range(lay.squares)}
    if "weights" not in groups:
        frozen |= {lay.weight(i) for i in range(len(lay.weights))}
    # A placement cell is seen in few positions: it may get a stronger pull than the rest.
    cells = {lay.cell(i, k) for i in range(len(lay.letters)) for k in range(lay.squares)}
    l2_placement = args.l2 if args.l2_placement is None else args.l2_placement
    pull = [l2_placement if j in cells else args.l2 for j in range(lay.size)]
    theta, _, epoch = descend(
        train,
        held,
        theta0,
        k,
        epochs=args.epochs,
        rate=args.rate,
        l2=args.l2,
        frozen=frozen,
        weights=len(lay.weights),
        last=args.last,
        l2_cells=pull,
    )
    tuned = from_vector(theta, lay)
    rounded = to_vector(tuned, lay)
    after_train, after_held = mse(train, rounded, k), mse(held, rounded, k)
    print(f"tuned (epoch {epoch}): MSE train {after_train:.5f}, held-out {after_held:.5f}")
    for letter in lay.letters:
        print(f"  {letter}: {start['values'][letter]} -> {tuned['values'][letter]}")
    for name in lay.weights:
        print(f"  {name}: {start['weights'][name]} -> {tuned['weights'][name]}")
    tuned["meta"] = {
        "data": args.data,
        "positions": len(samples),
        "k": k,
        "epoch": epoch,
        "mse_held_before": before_held,
        "mse_held_after": after_held,
        "l2": args.l2,
        "l2_placement": l2_placement,
        "fit": args.fit,
    }
    out = Path(args.out)
    out.write_text(json.dumps(tuned, indent=1) + "\n")
    print(f"written to {out}")
    return 0


# --- match, dump, write --------------------------------------------------------------------


def read_tables(spec: str, variant: str) -> Tables | None:
    """None for ``current``, else the tables of a JSON file."""
    if spec == "current":
        return None
    tables: Tables = json.loads(Path(spec).read_text())
    lay = layout_of(variant)
    for letter in lay.letters:
        if letter not in tables["values"] or len(tables["placement"].get(letter, ())) != lay.squares:
            raise SystemExit(f"{spec}: no complete table for {letter!r} in {variant}")
    return tables


def evaluator_with(variant: str, tables: Tables | None) -> Evaluator:
    """The game's evaluator, with its values and placement replaced by ``tables``."""
    v = resolve_variant(variant)
    cls = evaluator_class(v)
    if tables is None:
        return cls(v)
    placement = {letter: tuple(cells) for letter, cells in tables["placement"].items()}
    changed = {"values": dict(tables["values"]), "PLACEMENT": placement, **tables.get("weights", {})}
    custom = type(f"Tabled{cls.__name__}", (cls,), changed)
    result: Evaluator = custom(v)
    return result


@dataclass(frozen=True)
class TablePlayer(PlayerConfig):
    """A level-8 match player whose evaluation reads its tables from a JSON file (or the game's own)."""

    tables: str = "current"

    def evaluator(self, board: Board) -> Evaluator:
        return evaluator_with(board.variant.name, read_tables(self.tables, board.variant.name))


def match(args: argparse.Namespace) -> int:
    variant = resolve_variant(args.variant).name
    a = TablePlayer(label=args.a, tables=args.a)
    b = TablePlayer(label=args.b, tables=args.b)
    for p in (a, b):
        read_tables(p.tables, variant)  # fail before the first game

    def progress(result: Any) -> None:
        n = len(result.games)
        if n % 10 == 0:
            print(f"{n} games: {result.wins}-{result.losses}-{result.draws}", file=sys.stderr, flush=True)

    result = run_match(
        variant, a, b, args.games, args.movetime, seed=args.seed, jobs=args.jobs, progress=progress
    )
    elo, lo, hi = result.elo()
    print(
        f"{variant}: A={args.a} vs B={args.b}, {len(result.games)} games at {args.movetime} ms: "
        f"+{result.wins} -{result.losses} ={result.draws}, score {result.score:g}, "
        f"Elo {elo:+.0f} [{lo:+.0f}, {hi:+.0f}]"
    )
    return 0


def dump(args: argparse.Namespace) -> int:
    variant = resolve_variant(args.variant).name
    tables = current_tables(evaluator_for(resolve_variant(variant)))
    Path(args.out).write_text(json.dumps(tables, indent=1) + "\n")
    return 0


BEGIN = "    # --- tables (bench/tune.py writes this block) ---\n"
END = "    # --- end of tables ---\n"


def source_block(variant: str, tables: Tables, note: str) -> str:
    """The Python text of a game's values and placement tables (rows of folded files)."""
    v = resolve_variant(variant)
    lay = layout_of(variant)
    half = (v.geometry.width + 1) // 2
    values = ", ".join(f'"{letter}": {tables["values"][letter]}' for letter in lay.letters)
    lines = [
        BEGIN,
        f"    # {note}.\n",
        "    # Placement rows: the owner's first rank first, files from the edge to the centre\n",
        "    # (mirrored for the other half of the board: base.placement_index).\n",
        "    values: ClassVar[dict[str, int]] = {\n",
        f"        {values},\n",
        "    }\n",
    ]
    lines.append("    PLACEMENT: ClassVar[dict[str, tuple[int, ...]]] = {\n")
    for letter in lay.letters:
        cells = tables["placement"][letter]
        lines.append(f'        "{letter}": (\n')
        for r in range(v.geometry.height):
            row = cells[r * half : (r + 1) * half]
            lines.append("            " + " ".join(f"{x:4d}," for x in row) + "\n")
        lines.append("        ),\n")
    lines.append("    }\n")
    lines.append(END)
    return "".join(lines)


def write(args: argparse.Namespace) -> int:
    variant = resolve_variant(args.variant).name
    tables = read_tables(args.tables, variant)
    if tables is None:
        tables = current_tables(evaluator_for(resolve_variant(variant)))
    path = ROOT / "src" / "exochess" / "variants" / variant / "evaluation.py"
    text = path.read_text()
    pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.S)
    if not pattern.search(text):
        raise SystemExit(f"{path}: no tables block to replace")
    text = pattern.sub(lambda _: source_block(variant, tables, args.note), text)
    for name, value in tables.get("weights", {}).items():
        # The weights stay where they are documented: only the number changes.
        text, n = re.subn(rf"^(    {name}: ClassVar\[int\] = )-?\d+$", rf"\g<1>{value}", text, flags=re.M)
        if n != 1:
            raise SystemExit(f"{path}: no single line setting {name}")
    path.write_text(text)
    print(f"{path}: tables written")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("generate", help="labelled quiet positions from self-play")
    p.add_argument("variant")
    p.add_argument("--games", type=int, default=300)
    p.add_argument("--max-plies", type=int, default=240)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", required=True)
    p.set_defaults(run=generate)
    p = sub.add_parser("tune", help="fit K, then values and placement")
    p.add_argument("variant")
    p.add_argument("data")
    p.add_argument("--epochs", type=int, default=300)
    p.add_argument("--rate", type=float, default=2.0, help="Adam step in centipawns")
    p.add_argument("--l2", type=float, default=1e-6, help="pull towards the current values")
    p.add_argument("--l2-placement", type=float, help="pull of the placement cells (default: --l2)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--last", action="store_true", help="keep the last epoch, not the best held-out one")
    p.add_argument("--fit", default="values,placement,weights", help="the groups of numbers to fit")
    p.add_argument("--out", required=True)
    p.set_defaults(run=tune)
    p = sub.add_parser("match", help="tables against tables, level 8")
    p.add_argument("variant")
    p.add_argument("--a", required=True, help="'current' or a JSON file of tables")
    p.add_argument("--b", default="current")
    p.add_argument("--games", type=int, default=60)
    p.add_argument("--movetime", type=int, default=100)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--seed", type=int, default=1)
    p.set_defaults(run=match)
    p = sub.add_parser("dump", help="the current tables as JSON")
    p.add_argument("variant")
    p.add_argument("--out", required=True)
    p.set_defaults(run=dump)
    p = sub.add_parser("write", help="a JSON file's tables into the game's evaluation.py")
    p.add_argument("variant")
    p.add_argument("tables")
    p.add_argument(
        "--note", default="Fitted by bench/tune.py, see docs/engine.md", help="the comment above the tables"
    )
    p.set_defaults(run=write)
    args = parser.parse_args(argv)
    result: int = args.run(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
