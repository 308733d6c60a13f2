"""Memory of a long search under the ``Hash`` option, and the cost of ``ucinewgame`` (issue 48).

    python bench/memory.py [--variants NAME,...] [--hash 64,256] [--seconds 60]
                           [--build compiled|pure] [--compiled-path build/compiled] [--quick]

For each game and ``Hash`` value an ``exochess engine`` process is told ``setoption name Hash``,
then searches ``go infinite`` from the start for ``--seconds`` and is stopped.  Its resident
memory (``VmRSS`` of ``/proc``) is read before the search (the interpreter, the rules and the
evaluators: the overhead) and its peak (``VmHWM``) after.  Then ``ucinewgame`` and ``isready``
are sent together: the time to ``readyok`` is what clearing the tables costs an interface, and
a second ``isready`` after the background freeing has ended shows RSS then.  The defaults (six
60-second searches) take about 6.5 minutes; ``--quick`` searches 12 seconds each (about 1.5).
Figures only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from exochess.variants import all_variants

ROOT = Path(__file__).resolve().parent.parent


def status_kib(pid: int, field: str) -> int:
    """A ``/proc/<pid>/status`` field in KiB (VmRSS, VmHWM)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


def wait_for(proc: subprocess.Popen[str], prefix: str) -> str:
    assert proc.stdout is not None
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError("the engine ended")
        if line.startswith(prefix):
            return line.strip()


def run(variant: str, hash_mb: int, seconds: float, env: dict[str, str]) -> dict[str, float]:
    proc = subprocess.Popen(
        [str(Path(sys.executable).parent / "exochess"), "engine"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        bufsize=1,
        env=env,
    )
    assert proc.stdin is not None

    def send(line: str) -> float:
        assert proc.stdin is not None
        sent = time.perf_counter()
        proc.stdin.write(line + "\n")
        proc.stdin.flush()
        return sent

    send(f"setoption name Variant value {variant}")
    send(f"setoption name Hash value {hash_mb}")
    send("go depth 1")  # loads the game's move generator and evaluator
    wait_for(proc, "bestmove")
    send("isready")
    wait_for(proc, "readyok")
    base = status_kib(proc.pid, "VmRSS")
    send("position startpos")
    send("go infinite")
    time.sleep(seconds)
    send("stop")
    last_info = ""
    assert proc.stdout is not None
    while True:
        line = proc.stdout.readline().strip()
        if line.startswith("info depth"):
            last_info = line
        if line.startswith("bestmove"):
            break
    peak = status_kib(proc.pid, "VmHWM")
    sent = send("ucinewgame")
    send("isready")
    wait_for(proc, "readyok")
    clear_ms = (time.perf_counter() - sent) * 1000
    time.sleep(2.0)  # the background freeing
    after = status_kib(proc.pid, "VmRSS")
    send("quit")
    proc.wait(60)
    words = last_info.split()
    nodes = int(words[words.index("nodes") + 1]) if "nodes" in words else 0
    return {
        "base": base / 1024,
        "peak": peak / 1024,
        "clear_ms": clear_ms,
        "after": after / 1024,
        "nodes": nodes,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--variants", default=",".join(v.name for v in all_variants()))  # every game
    parser.add_argument("--hash", default="64,256", help="Hash values in MiB (64,256)")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--build", default="compiled", choices=("compiled", "pure"))
    parser.add_argument("--compiled-path", default=str(ROOT / "build" / "compiled"))
    parser.add_argument("--quick", action="store_true", help="12-second searches: about 1.5 minutes in all")
    args = parser.parse_args(argv)
    if args.quick:
        args.seconds = 12.0
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env.pop("EXOCHESS_PURE", None)
    if args.build == "pure":
        env["EXOCHESS_PURE"] = "1"
    else:
        env["PYTHONPATH"] = args.compiled_path
    print(f"memory ({args.build} build): go infinite for {args.seconds:.0f} s from the start; MiB")
    print()
    print(
        "| game | Hash | RSS before | peak RSS | peak - before | ucinewgame+isready ms | RSS 2 s later "
        "| nodes (last iteration) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for variant in args.variants.split(","):
        for hash_mb in (int(h) for h in args.hash.split(",")):
            r = run(variant, hash_mb, args.seconds, env)
            grown = r["peak"] - r["base"]
            print(
                f"| {variant} | {hash_mb} | {r['base']:.0f} | {r['peak']:.0f} | {grown:.0f} "
                f"| {r['clear_ms']:.1f} | {r['after']:.0f} | {r['nodes']:,} |"
            )
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
