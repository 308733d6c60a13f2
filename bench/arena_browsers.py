"""An arena played in browsers (issue 46's "done when"): three signed-in players in Chromium
join a 10-minute arena from its page and play random legal moves through their game pages until
the arena is over; a fourth, signed-out context watches the event's page.

Starts its own server (one process, SQLite in a temporary directory, no engine worker, no
schedule) on 127.0.0.1.  The players never touch the API to play: they press "join" on the
event's page, are taken to each game by the page, type each move in the game page's move field
(a random legal move of the position the page shows, after a random "think" of
``--think``), and are brought back to the event by the game page when the game ends.  Screenshots
of the standings during play (the watcher's page, every ``--every`` seconds) and of the podium at
the end (1280 and 390 px wide) go to ``--shots``; the final table is printed.

    nice -n 10 .venv/bin/python bench/arena_browsers.py --shots /tmp/arena-shots
    .venv/bin/python bench/arena_browsers.py --shots /tmp/s --minutes 10 --clock 1+0 --players 3
"""

from __future__ import annotations

import argparse
import random
import re
import secrets
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.conftest import CHROMIUM, CHROMIUM_ARGS
from tests.web.serverproc import Server

from exochess.board import Board

PASSWORD = "a long password"
WAIT_MS = 120_000
"""Bound on any wait for one page state (a loaded machine is slow)."""
GAME_URL = re.compile(r"/game/([0-9A-Za-z_-]+)")


class Person:
    """A signed-in player's browser context and page, and what they are doing."""

    def __init__(self, browser: Any, url: str, rng: random.Random, think: tuple[float, float]) -> None:
        self.context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=url)
        self.page = self.context.new_page()
        self.page.set_default_timeout(WAIT_MS)
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(f"{self.page.url}: {e}"))
        self.name = f"b{secrets.token_hex(4)}"
        self.rng = rng
        self.think = think
        self.moves = 0
        self.games: list[str] = []
        self.ready_at = 0.0
        """When the move being thought about may be typed (monotonic)."""
        self.thinking_ply = -1
        self.ended_at: dict[str, float] = {}
        """Game id -> when this player first saw it over (to notice a page left on it)."""
        self.stuck: list[str] = []

    def sign_up(self) -> Person:
        self.page.goto("/signup")
        self.page.fill("#name", self.name)
        self.page.fill("#password", PASSWORD)
        self.page.click("#submit")
        self.page.wait_for_url("**/")
        return self

    def join(self, event: str) -> None:
        self.page.goto(f"/tournaments/{event}")
        self.page.wait_for_selector("#tournament[data-live='yes']")
        self.page.click("#tournament-join")
        self.page.wait_for_selector(f'#tournament-standings tr.me[data-player="{self.name}"]')

    def step(self) -> None:
        """Do what the page calls for now, without waiting: on a game page where it is this
        player's turn, think, then type a random legal move."""
        found = GAME_URL.search(self.page.url)
        if found is None:
            return
        game_id = found.group(1)
        if game_id not in self.games:
            self.games.append(game_id)
        res = self.page.request.get(f"/api/games/{game_id}")
        if not res.ok:
            return
        state = res.json()
        if state["status"] != "active":
            # the page's own code brings the player back to the event a few seconds after the end
            seen = self.ended_at.setdefault(game_id, time.monotonic())
            if time.monotonic() - seen > 60 and game_id not in self.stuck:
                self.stuck.append(game_id)
            return
        turn = state["turn"]
        if state["players"][turn]["name"] != self.name:
            return
        ply = int(state["ply"])
        shown = self.page.get_attribute("#game", "data-ply", timeout=2000)
        typed = self.page.locator("#typed")
        if shown != str(ply) or not typed.is_visible():
            return  # the page has not shown the position yet
        if self.thinking_ply != ply:
            self.thinking_ply = ply
            self.ready_at = time.monotonic() + self.rng.uniform(*self.think)
            return
        if time.monotonic() < self.ready_at:
            return
        board = Board(state["variant"]["name"], fen=state["fen"])
        moves = [str(m) for m in board.legal_moves]
        if not moves:
            return
        self.page.fill("#typed-move", self.rng.choice(moves))
        self.page.press("#typed-move", "Enter")
        self.moves += 1
        self.thinking_ply = -2  # think again at the next turn (and retry if this one was refused)

    def close(self) -> None:
        self.context.close()


def shoot(page: Any, folder: Path, name: str, widths: tuple[int, ...] = (1280,)) -> None:
    for width in widths:
        page.set_viewport_size({"width": width, "height": 900})
        path = folder / f"{name}-{width}.png"
        page.screenshot(path=str(path), full_page=True)
        print(f"  screenshot {path}", flush=True)
    page.set_viewport_size({"width": 1280, "height": 900})


def print_table(event: dict[str, Any]) -> None:
    print(f"\n{event['name']}: {event['status']}, {event['games']} games, podium {event['podium']}")
    print(f"{'rank':>4}  {'player':<12} {'rating':>6} {'score':>5}  sheet")
    for line in event["standings"]:
        sheet = "".join(str(x) for x in line["sheet"])
        print(f"{line['rank']:>4}  {line['name']:<12} {line['rating']:>6} {line['score']:>5}  {sheet}")


def run(args: argparse.Namespace, url: str) -> int:
    from playwright.sync_api import sync_playwright

    shots = Path(args.shots)
    shots.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        people = [
            Person(browser, url, rng, (args.think_min, args.think_max)).sign_up() for _ in range(args.players)
        ]
        host = people[0]
        made = host.page.request.post(
            "/api/tournaments",
            data={
                "kind": "arena",
                "variant": args.variant,
                "time_control": args.clock,
                "minutes": args.minutes,
                "starts_in": 5,
                "name": "Browser arena",
            },
            headers={"Origin": url},
        )
        assert made.status == 201, made.text()
        event = made.json()["id"]
        for person in people:
            person.join(event)
        watcher_context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=url)
        watcher = watcher_context.new_page()
        watcher.set_default_timeout(WAIT_MS)
        watcher_errors: list[str] = []
        watcher.on("pageerror", lambda e: watcher_errors.append(f"{watcher.url}: {e}"))
        watcher.goto(f"/tournaments/{event}")
        watcher.wait_for_selector("#tournament[data-live='yes']")
        started = host.page.request.post(f"/api/tournaments/{event}/start", data={}, headers={"Origin": url})
        assert started.status == 204, started.text()
        began = time.monotonic()
        print(f"arena {event} started: {args.players} players, {args.minutes} min, {args.clock}", flush=True)
        next_shot = began + 20
        status = "started"
        last_look = 0.0
        bound = began + args.minutes * 60 + args.overtime
        while time.monotonic() < bound:
            for person in people:
                try:
                    person.step()
                except Exception as exc:  # a navigation in the middle of a look: look again
                    if "Target page, context or browser has been closed" in str(exc):
                        raise
            now = time.monotonic()
            if now >= next_shot:
                elapsed = int(now - began)
                shoot(watcher, shots, f"standings-{elapsed // 60:02d}m{elapsed % 60:02d}s")
                playing = [q for q in people if GAME_URL.search(q.page.url)]
                if playing and not any(f"game-{q.name}" in s.name for q in people for s in shots.iterdir()):
                    shoot(playing[0].page, shots, f"game-{playing[0].name}")
                next_shot = now + args.every
            if now - last_look > 2:
                last_look = now
                status = host.page.request.get(f"/api/tournaments/{event}").json()["status"]
                if status == "finished":
                    break
            time.sleep(0.1)
        took = time.monotonic() - began
        watcher.wait_for_selector("#tournament[data-status='finished']")
        watcher.wait_for_selector("#tournament-podium:not([hidden]) li")
        shoot(watcher, shots, "podium-watcher", (1280, 390))
        back = re.compile(rf"/tournaments/{event}(\?after=\w+)?$")  # see tournamentreturn.js
        for person in people:
            if GAME_URL.search(person.page.url):
                person.page.wait_for_url(back)
        people[0].page.wait_for_selector("#tournament-podium:not([hidden]) li")
        shoot(people[0].page, shots, f"podium-player-{people[0].name}")
        final = host.page.request.get(f"/api/tournaments/{event}").json()
        podium_shown = watcher.locator("#tournament-podium li").all_inner_texts()
        print_table(final)
        print(f"\nstatus {status} after {took:.0f} s; podium on the watcher's page: {podium_shown}")
        for person in people:
            print(
                f"{person.name}: {len(person.games)} games, {person.moves} moves typed, "
                f"pages left on an ended game over 60 s: {person.stuck or 'none'}, "
                f"page errors: {person.errors or 'none'}"
            )
        print(f"watcher's page errors: {watcher_errors or 'none'}")
        for person in people:
            person.close()
        watcher_context.close()
        browser.close()
    return 0 if status == "finished" else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--shots", required=True, help="directory for the screenshots")
    parser.add_argument("--players", type=int, default=3, help="players in browsers (default 3)")
    parser.add_argument(
        "--minutes",
        type=float,
        default=10,
        help="the arena's length (10, 20, 30...; a shorter trial runs the server with tiny clocks)",
    )
    parser.add_argument("--clock", default="1+0", help="the games' time control (default 1+0)")
    parser.add_argument("--variant", default="fugue")
    parser.add_argument("--think-min", type=float, default=0.3, help="shortest think before a move (s)")
    parser.add_argument("--think-max", type=float, default=1.5, help="longest think before a move (s)")
    parser.add_argument("--every", type=float, default=120.0, help="seconds between standings screenshots")
    parser.add_argument(
        "--overtime", type=float, default=300.0, help="seconds after the arena's end for its last games"
    )
    parser.add_argument("--seed", type=int, default=46)
    args = parser.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="arena-browsers-"))
    env = {"EXOCHESS_TOURNAMENT_SCHEDULE": ""}
    if args.minutes < 10:
        env["EXOCHESS_TEST_TINY_CLOCKS"] = "1"
    server = Server(root / "site.sqlite", engine_workers=0, env=env).start()
    try:
        return run(args, server.url)
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
