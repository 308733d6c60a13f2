"""Issue 18, throughput: a move stored by one process is played on the other processes' cached
game from its note (no database read), and anything that does not follow on falls back to a
reload.

The first tests run two game services on one SQLite file in one event loop, their hubs joined
by a recording bus (the envelopes are handed over by the test, so it can drop or alter them);
the last one runs the real thing: two server processes on PostgreSQL and Redis.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from pathlib import Path
from typing import Any

import httpx

from exochess.web.domain import Color, Stamp
from exochess.web.game.service import GameService
from exochess.web.game.timecontrol import TimeControl
from exochess.web.live.hub import Hub
from exochess.web.live.movenote import MoveNote
from exochess.web.storage.store import GameRow, Storage
from tests.cluster.common import a_move, new_game, recv_until, seated, ws_url
from tests.cluster.harness import Cluster
from tests.web.serverproc import run_async


class Recorder:
    """A bus that keeps what its hub publishes (the test delivers it, or not)."""

    def __init__(self, origin: str) -> None:
        self.origin = origin
        self.sent: list[dict[str, Any]] = []

    async def publish(self, envelope: dict[str, Any]) -> bool:
        self.post(envelope)
        return True

    def post(self, envelope: dict[str, Any]) -> None:
        self.sent.append({**envelope, "o": self.origin})


class Process:
    """One game service with its hub and bus, counting the games it reads from the database."""

    def __init__(self, url: str, name: str) -> None:
        self.bus = Recorder(name)
        self.hub = Hub()
        self.hub.attach(self.bus)
        self.service = GameService(Storage(url), None, self.hub)
        self.hub.on_remote = self.service.on_remote_change
        self.loads = 0
        load = self.service.storage.load_game

        def counted(game_id: str) -> GameRow | None:
            self.loads += 1
            return load(game_id)

        self.service.storage.load_game = counted  # type: ignore[method-assign]

    async def hand(self, other: Process) -> None:
        """Deliver to ``other`` what this process published since the last call."""
        sent, self.bus.sent = self.bus.sent, []
        for envelope in sent:
            await other.hub.receive(envelope)

    async def close(self) -> None:
        await self.hub.close()
        self.service.close()
        self.service.storage.close()


def _same_game(a: GameService, b: GameService, game_id: str) -> None:
    one, two = a.cache.games[game_id], b.cache.games[game_id]
    assert two.fens == one.fens and two.row.moves == one.row.moves
    assert two.row.stamps == one.row.stamps and two.row.ply == one.row.ply
    assert two.board.fen() == one.board.fen()
    assert b.view.clock_json(two) == a.view.clock_json(one)


def test_a_note_is_played_on_the_other_copy_without_reading_the_database(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'site.sqlite'}"
    rng = random.Random(18)

    async def run() -> None:
        a, b = Process(url, "a"), Process(url, "b")
        try:
            live, seats, _ = await a.service.create(
                "fugue", "friend", None, "white", None, TimeControl.parse("5+3")
            )
            gid = live.row.id
            await b.service.get(gid)
            assert b.loads == 1
            for ply in range(8):  # the players alternate between the two processes
                mover, other = (a, b) if ply % 2 == 0 else (b, a)
                game = await mover.service.get(gid)
                text = str(rng.choice(list(game.board.legal_moves)))
                await mover.service.play(gid, seats[game.to_move()], text, ply)
                await mover.hand(other)
                _same_game(mover.service, other.service, gid)
                assert not other.service.cache.games[gid].stale
            # after the first read, neither process read the game again
            assert (a.loads, b.loads) == (1, 1)
            # and what they hold is what is stored
            stored = a.service.storage.load_game(gid)
            assert stored is not None
            assert stored.moves == b.service.cache.games[gid].row.moves
            assert stored.stamps == b.service.cache.games[gid].row.stamps
        finally:
            await a.close()
            await b.close()

    run_async(run)


def test_a_missed_or_wrong_note_makes_the_copy_read_the_game_again(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'site.sqlite'}"

    async def run() -> None:
        a, b = Process(url, "a"), Process(url, "b")
        try:
            live, seats, _ = await a.service.create("fugue", "friend", None, "white", None)
            gid = live.row.id
            await b.service.get(gid)
            # a ply missed: the first move's envelope never reaches b
            await a.service.play(gid, seats[Color.WHITE], "d2-d3", 0)
            a.bus.sent.clear()
            await a.service.play(gid, seats[Color.BLACK], "e7-e6", 1)
            await a.hand(b)
            assert b.service.cache.games[gid].stale and b.service.cache.games[gid].board.ply() == 0
            assert (await b.service.get(gid)).row.moves == ["d2-d3", "e7-e6"]
            assert b.loads == 2
            # a note whose position does not match the copy's, then a malformed one, then one
            # that follows on
            await a.service.play(gid, seats[Color.WHITE], "c2-c3", 2)
            (envelope,) = a.bus.sent
            a.bus.sent.clear()
            wrong = {**envelope["a"], "f": "8/8/8/8/8/8/8/8 w - - 0 1"}
            for note, played in ((wrong, False), ({"p": "2"}, False), (envelope["a"], True)):
                b.service.cache.games[gid].stale = False  # as it was before the move (a test's shortcut)
                await b.hub.receive({**envelope, "a": note})
                copy = b.service.cache.games[gid]
                assert copy.stale is not played
                assert copy.board.ply() == (3 if played else 2) and len(copy.fens) == copy.board.ply() + 1
            _same_game(a.service, b.service, gid)
            assert b.loads == 2
        finally:
            await a.close()
            await b.close()

    run_async(run)


def test_move_note_reads_only_well_formed_notes() -> None:
    at = dt.datetime(2026, 11, 25, 18, 0, 0, 123456)
    note = MoveNote(4, "d2-d3", "some fen", Stamp(1000, None, at))
    assert MoveNote.from_json(note.to_json()) == note
    good = note.to_json()
    bads: list[object] = [
        None,
        [],
        {},
        {**good, "p": "4"},
        {**good, "mv": 3},
        {**good, "t": [1, 2]},
        {**good, "t": [True, None, at.isoformat()]},
        {**good, "t": [1, 2, "yesterday"]},
    ]
    for bad in bads:
        assert MoveNote.from_json(bad) is None


def _counter(metrics: str, name: str, label: str) -> float:
    found = re.search(rf'^{name}{{how="{label}"}} (\S+)$', metrics, re.M)
    return float(found.group(1)) if found else 0.0


def _peer_changes(metrics: str) -> float:
    found = re.search(r"^exochess_peer_changes_total (\S+)$", metrics, re.M)
    return float(found.group(1)) if found else 0.0


def _heard(before: str, after: str, name: str) -> tuple[float, float]:
    """(moves taken from their notes, games read again) between two scrapes of one server.

    A note that finds the copy in use (its lock held: a move, a clock check, a reload, on a
    loaded machine) or already to be read again (a change without a note came first) reads the
    game again, rightly ("busy", "stale"), as does one on a server that saw its
    peers change meanwhile (a heartbeat missed: see exochess.web.live.peers): then only the sum
    is owed. Otherwise every move comes from its note: none is "reloaded"."""

    def delta(label: str) -> float:
        return _counter(after, name, label) - _counter(before, name, label)

    taken = delta("applied") + delta("known")
    reloaded, busy = delta("reloaded"), delta("busy") + delta("stale")
    if _peer_changes(after) == _peer_changes(before):
        assert reloaded == 0
        return taken + busy, busy
    return taken + busy + reloaded, busy + reloaded


def test_two_servers_play_each_others_moves_from_the_notes(cluster: Cluster) -> None:
    a, b = (s.url for s in cluster.servers)
    game = new_game(a, opponent="friend", time_control="5+3")
    gid, seats = game["id"], {c: s["secret"] for c, s in game["seats"].items()}
    rng = random.Random(5)
    before = {u: httpx.get(u + "/metrics").text for u in (a, b)}

    async def run() -> None:
        white = await seated(ws_url(a, gid), seats["white"])
        black = await seated(ws_url(b, gid), seats["black"])
        sockets = {"white": white, "black": black}
        state = await recv_until(white, "state")
        await recv_until(black, "state")
        for ply in range(10):
            mover = sockets[state["turn"]]
            await mover.send(f'{{"type": "move", "move": "{a_move(state, rng)}", "ply": {ply}}}')
            for ws in sockets.values():
                state = await recv_until(ws, "state", lambda m, p=ply: m["ply"] == p + 1)
        await white.close()
        await black.close()

    run_async(run)
    views = [httpx.get(f"{u}/api/games/{gid}").json() for u in (a, b)]
    assert views[0]["fens"] == views[1]["fens"] and len(views[0]["moves"]) == 10
    assert views[0]["clock"]["white_ms"] == views[1]["clock"]["white_ms"]
    name = "exochess_remote_moves_total"
    for u in (a, b):  # each server heard of the other's five moves and played them from the notes
        heard, _ = _heard(before[u], httpx.get(u + "/metrics").text, name)
        assert heard >= 5


def test_the_engine_workers_moves_come_with_notes(cluster: Cluster) -> None:
    """An engine worker stores the computer's move and announces it with a note: both servers
    play it on their cached game (none reads the game again) and send it to their watchers."""
    a, b = (s.url for s in cluster.servers)
    game = new_game(a, opponent="computer", level=1, color="white", time_control="5+3")
    gid, secret = game["id"], game["seats"]["white"]["secret"]
    rng = random.Random(8)
    before = {u: httpx.get(u + "/metrics").text for u in (a, b)}

    async def run() -> None:
        player = await seated(ws_url(a, gid), secret)
        watcher = await seated(ws_url(b, gid), None)  # server b holds the game too
        state = await recv_until(player, "state")
        await recv_until(watcher, "state")
        for ply in range(0, 8, 2):  # four moves each: the player's on a, the computer's by the worker
            await player.send(f'{{"type": "move", "move": "{a_move(state, rng)}", "ply": {ply}}}')
            for ws in (player, watcher):
                state = await recv_until(ws, "state", lambda m, p=ply: m["ply"] == p + 2)
        await player.close()
        await watcher.close()

    run_async(run)
    views = [httpx.get(f"{u}/api/games/{gid}").json() for u in (a, b)]
    assert views[0]["fens"] == views[1]["fens"] and len(views[0]["moves"]) == 8
    assert views[0]["clock"]["black_ms"] == views[1]["clock"]["black_ms"]
    name = "exochess_remote_moves_total"
    applied = {}
    for u in (a, b):
        applied[u], _ = _heard(before[u], httpx.get(u + "/metrics").text, name)
    # a heard of the computer's four moves, b of those and of the player's four
    assert applied[a] >= 4 and applied[b] >= 8
