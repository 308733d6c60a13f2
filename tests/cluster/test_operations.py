"""Operations of issue 18 that need no cluster: shutdown, logs, the commands' clear refusals,
``serve --workers``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
import websockets

from tests.cluster.common import new_game, recv_until, ws_url
from tests.cluster.harness import Cluster, wait_ready
from tests.web.serverproc import Server, free_port, run_async


def exochess(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "exochess.cli.main", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


def test_commands_refuse_what_cannot_work() -> None:
    # issue 41: uvicorn's workers on one port are gone (its supervisor stalled when a worker died
    # while starting, and each process counted the limits alone): separate processes instead
    for redis in ("", "redis://127.0.0.1:9/0"):
        res = exochess(
            "serve", "--workers", "2", "--port", str(free_port()), env={"EXOCHESS_REDIS_URL": redis}
        )
        assert res.returncode == 2 and "exochess cluster --servers N" in res.stderr, res.stderr
    assert "Traceback" not in res.stderr
    res = exochess("worker", env={"EXOCHESS_REDIS_URL": "", "EXOCHESS_DATABASE_URL": ""})
    assert res.returncode == 2 and "needs --redis-url and --database-url" in res.stderr
    res = exochess("cluster", "--servers", "0")
    assert res.returncode == 2 and "--servers must be at least 1" in res.stderr


def test_shutdown_closes_websockets_with_a_reconnect_hint(tmp_path: Path) -> None:
    server = Server(tmp_path / "site.sqlite", log_level="info", env={"EXOCHESS_REDIS_URL": ""}).start()
    try:
        gid = new_game(server.url, opponent="friend")["id"]

        async def run() -> int | None:
            ws = await websockets.connect(ws_url(server.url, gid))
            await recv_until(ws, "state")
            assert server.proc is not None
            server.proc.send_signal(signal.SIGTERM)
            with pytest.raises(websockets.ConnectionClosed):
                while True:
                    await ws.recv()
            return ws.close_code

        assert run_async(run) == 1012  # "service restart": the game page reconnects
        # a clean stop (uvicorn ends by the signal it handled, after the shutdown ran)
        assert server.proc is not None and server.proc.wait(20) in (0, -signal.SIGTERM)
        assert "Traceback" not in server.log_text()
    finally:
        server.stop()


def test_json_logs_carry_the_request_id(tmp_path: Path) -> None:
    port = free_port()
    log = tmp_path / "serve.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "exochess.cli.main",
                "serve",
                "--port",
                str(port),
                "--database-url",
                f"sqlite:///{tmp_path / 'site.sqlite'}",
                "--engine-workers",
                "1",
                "--log-format",
                "json",
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, "EXOCHESS_REDIS_URL": ""},
            start_new_session=True,
        )
    try:
        wait_ready(f"http://127.0.0.1:{port}")
        res = httpx.get(f"http://127.0.0.1:{port}/api/games/nosuchgame", headers={"X-Request-ID": "abc-123"})
        assert res.status_code == 404 and res.headers["X-Request-ID"] == "abc-123"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(20)
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    access = [entry for entry in lines if entry.get("request_id") == "abc-123"]
    assert access and access[0]["status"] == 404 and access[0]["path"] == "/api/games/nosuchgame"


def test_a_server_stopped_in_the_cluster_hands_its_players_over(own_cluster: Cluster) -> None:
    """SIGTERM to one of two servers while a player's move is on its way: the websocket closes
    with 1012 (the page reconnects), a move it acknowledged is stored and reached the other
    server's watchers, and the game goes on through the other server."""
    import random

    from tests.cluster.common import a_move, game_state, seated

    a, b = own_cluster.servers
    game = new_game(a.url, opponent="friend")
    gid, seats = game["id"], {c: s["secret"] for c, s in game["seats"].items()}
    state = game_state(a.url, gid)
    move = a_move(state, random.Random(7))

    async def run() -> tuple[int | None, bool]:
        watcher = await seated(ws_url(b.url, gid), None)
        await recv_until(watcher, "state")
        player = await seated(ws_url(a.url, gid), seats["white"])
        await recv_until(player, "hello", lambda m: m["you"] == "white")
        await player.send(json.dumps({"type": "move", "move": move, "ply": 0, "ref": 1}))
        assert a.proc is not None
        a.proc.send_signal(signal.SIGTERM)
        acked = False
        with pytest.raises(websockets.ConnectionClosed):
            while True:
                message = json.loads(await player.recv())
                acked = acked or message["type"] == "ack"
        if acked:  # what was acknowledged reached the other server's watchers
            await recv_until(watcher, "state", lambda m: m["ply"] == 1)
        await watcher.close()
        return player.close_code, acked

    code, acked = run_async(run)
    assert code == 1012
    assert a.proc is not None and a.proc.wait(30) in (0, -signal.SIGTERM)
    assert "Traceback" not in a.log_text()
    after = game_state(b.url, gid)
    assert after["ply"] in ((1,) if acked else (0, 1))
    if after["ply"] == 1:
        assert after["moves"][0]["text"] == move
    # the player reconnects to the other server and plays on
    ply = after["ply"]
    color = "white" if ply == 0 else "black"
    res = httpx.post(
        f"{b.url}/api/games/{gid}/moves",
        timeout=30,
        json={"secret": seats[color], "move": a_move(after, random.Random(8)), "ply": ply},
    )
    assert res.status_code == 200, res.text
    assert game_state(b.url, gid)["ply"] == ply + 1


def test_the_cluster_command_starts_and_stops_everything(tmp_path: Path) -> None:
    """``exochess cluster`` (what ``make cluster`` runs): PostgreSQL, Redis, two servers and a
    worker come up, a computer game gets its move, and SIGINT (Ctrl-C) stops all of them."""
    import re
    import socket
    import time

    from tests.cluster.harness import missing_programs

    why = missing_programs()
    if why is not None:
        pytest.skip(why)
    if os.geteuid() == 0:  # pytest's temporary directories are closed to PostgreSQL's user
        res = exochess("cluster", "--dir", str(tmp_path / "refused"))
        assert res.returncode == 2 and "cannot pass through" in res.stderr and "Traceback" not in res.stderr
    port = free_port_pair()  # the servers take consecutive ports
    import tempfile

    root = Path(tempfile.mkdtemp(prefix="exochess-cluster-cmd-"))
    out = tmp_path / "cluster.out"
    with open(out, "wb") as sink:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "exochess.cli.main",
                "cluster",
                "--servers",
                "2",
                "--workers",
                "1",
                "--port",
                str(port),
                "--metrics-port",
                str(free_port()),
                "--dir",
                str(root),
                "--log-level",
                "warning",
            ],
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 120
        while "Ctrl-C stops everything" not in out.read_text():
            assert proc.poll() is None, out.read_text()
            assert time.monotonic() < deadline, out.read_text()
            time.sleep(0.2)
        urls = [f"http://127.0.0.1:{port}", f"http://127.0.0.1:{port + 1}"]
        for url in urls:
            wait_ready(url)
        game = new_game(urls[0], opponent="computer", level=1, color="black")
        deadline = time.monotonic() + 60
        while httpx.get(f"{urls[1]}/api/games/{game['id']}", timeout=30).json()["ply"] == 0:
            assert time.monotonic() < deadline, "the worker never answered"
            time.sleep(0.2)
    finally:
        proc.send_signal(signal.SIGINT)
        code = proc.wait(90)
    text = out.read_text()
    assert code == 0 and "Traceback" not in text, text
    redis_port = int(re.search(r"redis\s+redis://127\.0\.0\.1:(\d+)/", text).group(1))  # type: ignore[union-attr]
    for stopped in (port, port + 1, redis_port):  # nothing listens any more
        with pytest.raises(OSError), socket.create_connection(("127.0.0.1", stopped), timeout=2):
            pass
    assert not (root / "postgres" / "data" / "postmaster.pid").exists()
    assert (root / "logs" / f"server-{port}.log").exists() and (root / "logs" / "worker-1.log").exists()
    import shutil

    shutil.rmtree(root, ignore_errors=True)


def free_port_pair() -> int:
    """A port that is free, with the next one free too (``exochess cluster --servers 2``).

    Taken below the kernel's ephemeral range (32768 and up here): a port from there, free when
    checked, can become the local port of any outgoing connection before the server binds it."""
    import random
    import socket

    rng = random.Random()
    for _ in range(200):
        port = rng.randrange(20000, 30000)
        try:
            with socket.socket() as first, socket.socket() as second:
                first.bind(("127.0.0.1", port))
                second.bind(("127.0.0.1", port + 1))
        except OSError:
            continue
        return port
    raise AssertionError("no two consecutive free ports")


def test_the_cluster_command_names_a_server_that_cannot_start() -> None:
    """A server that cannot bind its port (here the second one's, held by another program)
    stops ``exochess cluster`` at once with that server's error, not after a 60 s wait, and
    everything started before it is stopped."""
    import socket
    import tempfile
    import time

    from tests.cluster.harness import missing_programs

    why = missing_programs()
    if why is not None:
        pytest.skip(why)
    port = free_port_pair()
    root = Path(tempfile.mkdtemp(prefix="exochess-cluster-busy-"))
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", port + 1))  # bound, not listening: a bind there fails
        start = time.monotonic()
        res = subprocess.run(
            [
                sys.executable,
                "-m",
                "exochess.cli.main",
                "cluster",
                "--servers",
                "2",
                "--workers",
                "0",
                "--port",
                str(port),
                "--dir",
                str(root),
                "--log-level",
                "warning",
            ],
            capture_output=True,
            text=True,
            timeout=180,
        )
        took = time.monotonic() - start
    text = res.stdout + res.stderr
    assert res.returncode == 2 and "Traceback" not in text, text
    assert f"port {port + 1} exited" in text and "address already in use" in text, text
    assert took < 60, f"waited {took:.0f} s for a server that had already stopped"
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port), timeout=2):
        pass  # the first server was stopped too
    assert not (root / "postgres" / "data" / "postmaster.pid").exists()
    import shutil

    shutil.rmtree(root, ignore_errors=True)
