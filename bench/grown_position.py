"""A live game that grows a huge position after its start, and what another game waits meanwhile.

A game may start only from a position with at most 1,000 legal moves, but a position's replies
can have far more: issue 17's Interweave position with Black to move has 5 moves, and after
``g2@(g3)`` White has 45,135 capture chains.  This starts a real server on SQLite (127.0.0.1,
rate limits off), sets that game up, plays Black's move and then White's longest chain, while
a Fugue game beside it plays a move every 0.3 s; it prints how long each heavy move took and
each of the other game's moves::

    PYTHONPATH=build/compiled .venv/bin/python bench/grown_position.py [--port 18765]

Without ``PYTHONPATH`` it measures the pure build.  On 26 Nov 2026 (compiled, load about 3;
docs/benchmarks.md): the heavy moves took 0.8-1.2 s each; the other game's moves during them
waited 40-322 ms before the move's one job (cluster4), 483-645 ms with a move read and stored in SQLite's
one database thread, and 9-88 ms once the chain listing gave the GIL up as it goes and SQLite
read moves in a game-views thread again.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

from exochess.board import Board

FEN = "4K2k/1p1r1r2/P1b5/2rrnp1r/1nn1rN2/r2brbB1/p3n1b1/kb6 b - 000000"
BLACK = "g2@(g3)"
OTHER_GAME = ["e2-e3", "e7-e6", "d2-d3", "d7-d6", "c2-c3", "c7-c6", "b2-b3", "b7-b6"]


def seats(game: dict[str, object]) -> dict[str, str]:
    return {color: seat["secret"] for color, seat in game["seats"].items()}  # type: ignore[attr-defined]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=18765)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp())
    env = dict(os.environ, EXOCHESS_RATE_LIMITS="off")
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "exochess.cli.serve",
            "--port",
            str(args.port),
            "--database-url",
            f"sqlite:///{folder / 'bench.sqlite'}",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=(folder / "log").open("w"),
    )
    base = f"http://127.0.0.1:{args.port}"
    try:
        for _ in range(300):
            try:
                httpx.get(base + "/healthz", timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.2)
        client = httpx.Client(base_url=base, timeout=120)
        setup = {"variant": "interweave", "fen": FEN, "opponent": "friend"}
        grown = client.post("/api/games", json=setup).json()
        other = client.post("/api/games", json={"variant": "fugue", "opponent": "friend"}).json()
        waits: list[tuple[float, float]] = []
        began = time.perf_counter()  # (set again when the other game starts)

        def play_other() -> None:
            for ply, text in enumerate(OTHER_GAME):
                start = time.perf_counter()
                res = client.post(
                    f"/api/games/{other['id']}/moves",
                    json={
                        "secret": seats(other)["white" if ply % 2 == 0 else "black"],
                        "move": text,
                        "ply": ply,
                    },
                )
                res.raise_for_status()
                waits.append((start - began, (time.perf_counter() - start) * 1000))
                time.sleep(0.3)

        # White's move is chosen before the other game starts: listing 45,135 chains here, in
        # this process, would hold this process's GIL and delay the other game's requests
        board = Board("interweave", fen=FEN)
        board.push(next(m for m in board.legal_moves if str(m) == BLACK))
        white = max((str(m) for m in board.legal_moves), key=len)
        print(f"White's moves after {BLACK}: {len(board.raw_moves()):,}")
        beside = threading.Thread(target=play_other)
        began = time.perf_counter()
        beside.start()
        for ply, (color, text) in enumerate([("black", BLACK), ("white", white)]):
            start = time.perf_counter()
            res = client.post(
                f"/api/games/{grown['id']}/moves",
                json={"secret": seats(grown)[color], "move": text, "ply": ply},
            )
            res.raise_for_status()
            took = (time.perf_counter() - start) * 1000
            print(f"{color}'s move: sent at {start - began:.2f} s, {took:.0f} ms")
        beside.join()
        print(
            "the other game's moves meanwhile (sent at, took):",
            ", ".join(f"{at:.2f} s {took:.0f} ms" for at, took in waits),
        )
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()
