"""Seat secrets (issue 17 #6): stored as digests only, older plain rows hashed on start and still
accepted, never taken from a websocket URL (see also test_web_ws.py)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import httpx

from exochess.web.domain import Color, PlayerKind
from exochess.web.game.service import GameService
from exochess.web.live.hub import Hub
from exochess.web.storage.store import SECRET_PREFIX, Storage, hash_secret, secret_matches
from tests.helpers import as_before_alembic
from tests.web.serverproc import Server, run_async


def stored_secrets(path: Path) -> dict[str, tuple[str, str]]:
    with sqlite3.connect(path) as db:
        return {gid: (w, b) for gid, w, b in db.execute("SELECT id, white_secret, black_secret FROM games")}


def test_secrets_are_stored_as_digests_only(tmp_path: Path) -> None:
    path = tmp_path / "hashed.sqlite"

    async def run() -> tuple[str, dict[Color, str], str, str]:
        svc = GameService(Storage(f"sqlite:///{path}"), None, Hub())
        try:
            live, seats, _you = await svc.create("fugue", "friend", None, "white", None)
            gid = live.row.id
            await svc.play(gid, seats[Color.WHITE], "d2-d3", 0)
            await svc.resign(gid, seats[Color.BLACK])
            rematch, _color, secret = await svc.rematch(gid, seats[Color.BLACK])
            assert secret is not None  # a seat proved by its secret keeps it in the rematch
            return gid, dict(seats), rematch.row.id, secret
        finally:
            svc.close()
            svc.storage.close()

    gid, seats, rematch_id, rematch_secret = run_async(run)
    stored = stored_secrets(path)
    assert stored[gid] == (hash_secret(seats[Color.WHITE]), hash_secret(seats[Color.BLACK]))
    assert all(v.startswith(SECRET_PREFIX) and len(v) <= 64 for pair in stored.values() for v in pair)
    # the plain secrets appear nowhere in the database files
    raw = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("hashed.sqlite"))
    assert all(s.encode() not in raw for s in seats.values())
    # the rematch swaps colours; each player keeps the secret they hold
    assert rematch_secret == seats[Color.BLACK] and stored[rematch_id] == tuple(reversed(stored[gid]))


def test_secret_matching() -> None:
    token = "q3Zp0p0JxY5m1R8c2nVb4w"
    assert secret_matches(token, hash_secret(token))
    assert not secret_matches(token + "x", hash_secret(token))
    assert secret_matches(token, token)  # a plain row of an older version
    assert not secret_matches("\ud800", hash_secret(token))  # a lone surrogate is no secret
    assert not secret_matches("é", "é")  # secrets are ASCII tokens


def test_plain_secrets_of_an_existing_database_are_hashed_on_start_and_keep_working(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    storage = Storage(f"sqlite:///{path}")
    storage.create_game(
        id="oldgame1",
        variant="fugue",
        start_fen="wlqksaui/pppppppp/8/8/8/8/PPPPPPPP/IUASKQLW w",
        white=PlayerKind.HUMAN,
        black=PlayerKind.HUMAN,
        level=None,
        white_secret="x",
        black_secret="y",
    )
    storage.close()
    white, black = "WhiteSecretFromBefore1", "BlackSecretFromBefore1"
    with sqlite3.connect(path) as db:  # what a version before 0.2 stored: the secrets themselves
        db.execute("UPDATE games SET white_secret = ?, black_secret = ?", (white, black))
        as_before_alembic(db.execute)  # and no Alembic yet
    srv = Server(path).start()
    try:
        assert stored_secrets(path)["oldgame1"] == (hash_secret(white), hash_secret(black))
        with httpx.Client(base_url=srv.url, timeout=30) as c:
            res = c.post("/api/games/oldgame1/moves", json={"move": "d2-d3", "secret": white, "ply": 0})
            assert res.status_code == 200, res.text
            res = c.post("/api/games/oldgame1/moves", json={"move": "e7-e6", "secret": black + "2", "ply": 1})
            assert res.status_code == 403
            res = c.post("/api/games/oldgame1/moves", json={"move": "e7-e6", "secret": black, "ply": 1})
            assert res.status_code == 200, res.text
    finally:
        srv.stop()
