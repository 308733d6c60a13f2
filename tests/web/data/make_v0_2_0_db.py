"""The recipe of ``v0_2_0.sqlite``: a small database as exochess 0.2.0 (the last release before
Alembic) writes it, for ``tests/web/test_web_migrations.py``.

Run it with the 0.2.0 code, from a checkout of commit c90a1da ("CHANGELOG: wave 2 released as
0.2.0"), never with later code (which would write the newer schema)::

    git worktree add /tmp/exochess-0.2.0 c90a1da
    cd /tmp/exochess-0.2.0 && make .venv/.installed
    .venv/bin/python /path/to/tests/web/data/make_v0_2_0_db.py tests/web/data/v0_2_0.sqlite

It plays through the site's own API (a real app, its lifespan, its storage): two accounts, a
rated lobby game between them ended by resignation (ratings and their history), a clocked game
and an unclocked one in progress in two other games, a game vs the computer, an aborted game, a
chat line and open challenges.  It prints the listed games' moves; the test reads the file's
rows itself before upgrading a copy and compares them after.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from fastapi.testclient import TestClient

from exochess.board import Board
from exochess.web import create_app


def _play(client: TestClient, gid: str, secrets: dict[str, str], plies: int) -> None:
    board = Board(client.get(f"/api/games/{gid}").json()["variant"]["name"])
    for ply in range(plies):
        color = "white" if ply % 2 == 0 else "black"
        text = sorted(str(m) for m in board.legal_moves)[ply % 3]
        board.push_text(text)
        res = client.post(
            f"/api/games/{gid}/moves", json={"secret": secrets[color], "move": text, "ply": ply}
        )
        assert res.status_code == 200, res.text


def main(out: Path) -> None:
    out.unlink(missing_ok=True)
    app = create_app(f"sqlite:///{out}", use_engine_pool=False, rate_limits={})
    site = {"Origin": "http://testserver"}  # signed-in changes come from the site's pages
    with TestClient(app, headers=site) as alice, TestClient(app, headers=site) as bob:
        for client, name in ((alice, "alice"), (bob, "Bob")):
            res = client.post("/api/account/signup", json={"name": name, "password": "correct horse 42"})
            assert res.status_code == 201, res.text
        # a rated lobby game, resigned after four plies
        posted = alice.post(
            "/api/challenges",
            json={"variant": "fugue", "time_control": "5+3", "color": "white", "rated": True},
        ).json()
        cid = posted["challenge"]["id"]
        accepted = bob.post(f"/api/challenges/{cid}/accept", json={}).json()
        gid = accepted["game"]
        secrets = {"white": posted["secret"], "black": accepted["secret"]}
        _play(alice, gid, secrets, 4)
        assert bob.post(f"/api/games/{gid}/resign", json={"secret": secrets["black"]}).status_code == 200
        # games in progress: a clocked one between friends, an unclocked one
        for variant, control, plies in (("fugue", "10+0", 6), ("fugue", "-", 5), ("rebelfury", "3+2", 3)):
            made = alice.post(
                "/api/games", json={"variant": variant, "opponent": "friend", "time_control": control}
            ).json()
            seats = {c: s["secret"] for c, s in made["seats"].items()}
            _play(alice, made["id"], seats, plies)
            if control == "10+0":
                with alice.websocket_connect(f"/ws/games/{made['id']}") as ws:
                    ws.send_json({"type": "auth", "secret": seats["white"], "ref": 1})
                    ws.send_json({"type": "chat", "text": "gl hf", "ref": 2})
                    while ws.receive_json().get("ref") != 2:
                        pass
        # a game against the computer (no engine here: it stays at the human's first move)
        made = alice.post("/api/games", json={"variant": "fugue", "opponent": "computer", "level": 2}).json()
        # an aborted game
        made = bob.post("/api/games", json={"variant": "interweave", "opponent": "friend"}).json()
        seats = {c: s["secret"] for c, s in made["seats"].items()}
        assert bob.post(f"/api/games/{made['id']}/abort", json={"secret": seats["white"]}).status_code == 200
        # an open challenge
        bob.post("/api/challenges", json={"variant": "rebelfury", "time_control": "-", "name": "Bob"})
        games = alice.get("/api/games?limit=100").json()["games"]
        expected = {
            g["id"]: [m["text"] for m in alice.get(f"/api/games/{g['id']}").json()["moves"]] for g in games
        }
    print(json.dumps(expected, indent=1, sort_keys=True))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
