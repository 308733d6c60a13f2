"""Accounts, sessions, ratings, profiles and leaderboards: unit tests and the API on a real server."""

from __future__ import annotations

import itertools
import secrets
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import insert, select

from exochess.web.accounts.ratings import (
    Rating,
    aged,
    apply_game_result,
    glicko2_update,
    players_by_id,
    rated_pair,
)
from exochess.web.accounts.sessions import Sessions
from exochess.web.accounts.users import Accounts, hash_password, skeleton, verify_password
from exochess.web.domain import PlayerKind
from exochess.web.storage.store import Storage, rating_history, ratings
from tests.web.serverproc import Server, create

_count = itertools.count()


def fresh_name(prefix: str = "p") -> str:
    # unique per run and far from each other's skeletons (random letters)
    return f"{prefix}{secrets.token_hex(4)}x{next(_count)}"


# --- unit -----------------------------------------------------------------------------------


def test_glicko2_matches_the_papers_worked_example() -> None:
    player = Rating(1500, 200, 0.06)
    after = glicko2_update(
        player, [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)]
    )
    assert round(after.rating, 2) == 1464.05  # the paper rounds its intermediate values: 1464.06
    assert abs(after.rating - 1464.06) < 0.02
    assert round(after.rd, 2) == 151.52
    assert abs(after.volatility - 0.05999) < 0.00001  # the paper prints 0.05999 (0.059996)


def test_an_idle_rating_grows_less_sure() -> None:
    settled = Rating(1800, 50, 0.06)
    assert aged(settled, 0) == settled
    year = aged(settled, 365)
    assert year.rating == 1800 and 100 < year.rd < 110  # back to nearly provisional after a year
    assert aged(settled, 100_000).rd == 350


def test_password_hash_round_trip() -> None:
    stored = hash_password("correct horse battery")
    assert stored.startswith("$argon2id$")
    assert "correct horse" not in stored
    assert verify_password(stored, "correct horse battery")
    assert not verify_password(stored, "correct horse batterz")
    assert hash_password("correct horse battery") != stored  # salted
    assert not verify_password("not a hash", "x")


def test_look_alike_names_share_a_skeleton() -> None:
    assert skeleton("Paul_1") == skeleton("PAUL-l") == skeleton("PauI_I")
    assert skeleton("modern") == skeleton("rnodern")
    assert skeleton("alice") != skeleton("alicia")


def test_session_expires(tmp_path: Path) -> None:
    storage = Storage(f"sqlite:///{tmp_path / 's.sqlite'}")
    try:
        user = Accounts(storage.engine).create("expiry_test", "a long password")
        live = Sessions(storage.engine)
        token = live.create(user)
        assert live.user(token) == user
        expired = Sessions(storage.engine, days=-1)
        old = expired.create(user)
        assert expired.user(old) is None and live.user(old) is None
        live.revoke(token)
        assert live.user(token) is None
        assert live.user("forged" + token) is None
    finally:
        storage.close()


def test_the_mail_hook_hears_of_account_events(tmp_path: Path) -> None:
    storage = Storage(f"sqlite:///{tmp_path / 'm.sqlite'}")
    try:
        heard: list[tuple[str, str]] = []
        accounts = Accounts(storage.engine, notify=lambda event, user: heard.append((event, user.name)))
        user = accounts.create("Mailable", "a long password")
        accounts.change_password(user, "a long password", "another password")
        accounts.delete(user, "another password")
        assert heard == [("signed-up", "Mailable"), ("password-changed", "Mailable"), ("deleted", "Mailable")]
    finally:
        storage.close()


def test_result_rates_a_game_exactly_once(tmp_path: Path) -> None:
    storage = Storage(f"sqlite:///{tmp_path / 'r.sqlite'}")
    storage.finish_hooks.append(apply_game_result)
    try:
        accounts = Accounts(storage.engine)
        a, b = accounts.create("once_a", "a long password"), accounts.create("once_b", "a long password")
        storage.create_game(
            id="g1",
            variant="fugue",
            start_fen="x",
            white=PlayerKind.HUMAN,
            black=PlayerKind.HUMAN,
            level=None,
            white_secret="s1",
            black_secret="s2",
            time_control="5+3",
            white_user=a.id,
            black_user=b.id,
            rated=True,
        )
        for ply, text in enumerate(("e2-e3", "d7-d6")):  # both sides moved: the result counts
            storage.add_move("g1", ply, text, None)
        storage.finish("g1", 2, {"result": "1-0", "termination": "resignation", "reason": "r"})
        with storage.engine.begin() as conn:  # a second server seeing the same result
            apply_game_result(conn, "g1")
        with storage.engine.connect() as conn:
            assert len(conn.execute(select(rating_history)).all()) == 2
            rows = {r.user_id: r for r in conn.execute(select(ratings))}
        expected_a, expected_b = rated_pair(Rating(), Rating(), 1.0)
        assert rows[a.id].rating == pytest.approx(expected_a.rating) and rows[a.id].games == 1
        assert rows[b.id].rating == pytest.approx(expected_b.rating)
        cards = players_by_id(storage.engine, {a.id, b.id}, "fugue")
        assert cards[a.id] == {
            "name": "once_a",
            "rating": round(expected_a.rating),
            "provisional": True,
            "diff": None,
            "title": None,
        }
    finally:
        storage.close()


def test_players_by_id_reads_any_number_of_accounts_in_two_statements(tmp_path: Path) -> None:
    """A tournament's standings read every player's rating at each change: one query per
    player made a 200-player arena's views take seconds."""
    from sqlalchemy import event

    storage = Storage(f"sqlite:///{tmp_path / 'r.sqlite'}")
    try:
        accounts = Accounts(storage.engine)
        made = [accounts.create(f"many_{i}", "a long password") for i in range(3)]
        statements: list[str] = []

        def count(*args: object) -> None:
            statements.append(str(args[2]))

        event.listen(storage.engine, "before_cursor_execute", count)
        cards = players_by_id(storage.engine, {u.id for u in made} | {999_999}, "fugue")
        event.remove(storage.engine, "before_cursor_execute", count)
        assert len(statements) == 2, statements
        assert {cards[u.id]["name"] for u in made} == {"many_0", "many_1", "many_2"}
        assert all(cards[u.id]["rating"] == 1500 and cards[u.id]["provisional"] for u in made)
        assert cards[999_999]["name"] is None  # no such account: shown as a deleted player
    finally:
        storage.close()


# --- API ------------------------------------------------------------------------------------


def signed_client(server: Server) -> httpx.Client:
    # a browser sends Origin with every POST; the site requires it of signed-in requests
    return httpx.Client(base_url=server.url, timeout=30.0, headers={"Origin": server.url})


@pytest.fixture()
def alice(server: Server) -> Iterator[tuple[httpx.Client, str]]:
    with signed_client(server) as c:
        name = fresh_name("alice")
        res = c.post("/api/account/signup", json={"name": name, "password": "a long password"})
        assert res.status_code == 201, res.text
        yield c, name


def test_sign_up_log_in_log_out(server: Server) -> None:
    name = fresh_name("Bob")
    with signed_client(server) as c:
        res = c.post("/api/account/signup", json={"name": name, "password": "bob's secret words"})
        assert res.status_code == 201, res.text
        cookie = res.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Secure" not in cookie
        assert c.get("/api/account").json() == {
            "name": name,
            "id": name.lower(),
            "username": name,
            "title": None,
        }
        assert name in c.get("/").text  # the header names the signed-in player
        assert c.get("/signup").status_code == 303 and c.get("/login").headers["location"] == "/"
        assert c.post("/api/account/logout", json={}).status_code == 204
        assert c.get("/api/account").status_code == 401
        res = c.post("/api/account/login", json={"name": name.upper(), "password": "bob's secret words"})
        assert res.status_code == 200 and res.json()["name"] == name
    with httpx.Client(base_url=server.url, headers={"X-Forwarded-Proto": "https", "Origin": server.url}) as c:
        res = c.post("/api/account/login", json={"name": name, "password": "bob's secret words"})
        assert "Secure" in res.headers["set-cookie"]


def test_bad_names_and_passwords(server: Server, alice: tuple[httpx.Client, str]) -> None:
    _, taken = alice
    with signed_client(server) as c:

        def signup(name: object, password: object = "a long password") -> httpx.Response:
            return c.post("/api/account/signup", json={"name": name, "password": password})

        look_alike = taken.replace("a", "A", 1).replace("l", "1", 1)
        carol = fresh_name("carol")
        cases = [
            (signup(taken), 409, "already taken"),
            (signup(taken.upper()), 409, "already taken"),
            (signup(look_alike), 409, "looks too much like"),
            (signup("Adm1n"), 409, "reserved"),
            (signup("\u0430lice" + fresh_name()[:5]), 400, "letters a-z"),  # a Cyrillic a
            (signup("ab"), 400, "3 to 20"),
            (signup("x" * 21), 400, "3 to 20"),
            (signup("x" * 5000), 400, "name"),
            (signup(fresh_name(), "short"), 400, "8 to 256"),
            (signup(fresh_name(), "p" * 257), 400, "password"),
            (signup(carol, "my name is " + carol.upper()), 400, "contain the username"),
            (signup(fresh_name(), "aaaaaaaaaa"), 400, "four different"),
            (signup(5), 400, "name"),
        ]
        for res, status, text in cases:
            assert res.status_code == status, (res.text, text)
            assert text in res.json()["error"], (res.text, text)
        assert c.get("/api/account").status_code == 401  # no failed sign-up signed anyone in


def test_wrong_passwords_are_slowed(server: Server, alice: tuple[httpx.Client, str]) -> None:
    _, name = alice
    with signed_client(server) as c:
        for _ in range(5):
            res = c.post("/api/account/login", json={"name": name, "password": "wrong password!"})
            assert res.status_code == 401 and res.json()["error"] == "wrong username or password"
        res = c.post("/api/account/login", json={"name": name, "password": "a long password"})
        assert res.status_code == 429 and int(res.headers["retry-after"]) >= 1
        assert "too many failed logins" in res.json()["error"]
        res = c.post("/api/account/login", json={"name": "nobody" + name, "password": "whatever123"})
        assert res.status_code == 401


def test_sign_ups_are_limited_per_address(tmp_path: Path) -> None:
    srv = Server(tmp_path / "limited.sqlite", env={"EXOCHESS_RATE_LIMITS": "signups=2/hour"}).start()
    try:
        # a sign-up hashes with argon2: on a loaded machine it can take longer than httpx's 5 s
        with httpx.Client(base_url=srv.url, timeout=60) as c:
            for _ in range(2):
                res = c.post(
                    "/api/account/signup", json={"name": fresh_name(), "password": "a long password"}
                )
                assert res.status_code == 201, res.text
                c.cookies.clear()
            res = c.post("/api/account/signup", json={"name": fresh_name(), "password": "a long password"})
            assert res.status_code == 429 and "accounts created" in res.json()["error"]
    finally:
        srv.stop()


def test_forged_and_stale_cookies(server: Server, alice: tuple[httpx.Client, str]) -> None:
    c, name = alice
    storage = Storage(server.database_url)
    try:  # a session that has expired, as stored by the server
        user = Accounts(storage.engine).by_name(name)
        assert user is not None
        expired = Sessions(storage.engine, days=-1).create(user)
    finally:
        storage.close()
    with httpx.Client(base_url=server.url, headers={"Origin": server.url}) as other:
        for value in ["forged", "x" * 500, c.cookies["exochess_session"] + "x", '"a;b"', expired]:
            other.cookies.set("exochess_session", value)
            res = other.get("/api/account")
            assert res.status_code == 401, value
            assert "not signed in" in res.json()["error"]


def test_cross_site_posts_are_refused(server: Server, alice: tuple[httpx.Client, str]) -> None:
    c, name = alice
    body = {"old": "a long password", "new": "another long one"}
    res = c.post("/api/account/password", json=body, headers={"Origin": "https://evil.example"})
    assert res.status_code == 403 and "cross-site" in res.json()["error"]
    c.headers.pop("Origin")
    res = c.post("/api/account/password", json=body)  # with the cookie and no Origin
    assert res.status_code == 403 and "Origin" in res.json()["error"]
    res = c.post("/api/account/password", json=body, headers={"Sec-Fetch-Site": "same-origin"})
    assert res.status_code == 200, res.text  # a browser that sent no Origin but says same-origin
    with signed_client(server) as fresh:
        res = fresh.post("/api/account/login", json={"name": name, "password": "another long one"})
        assert res.status_code == 200


def test_second_client_sees_and_plays_the_players_games(
    server: Server, alice: tuple[httpx.Client, str]
) -> None:
    c, name = alice
    game = create(c, variant="fugue", opponent="friend", color="white")
    with signed_client(server) as other:
        assert (
            other.post("/api/account/login", json={"name": name, "password": "a long password"}).status_code
            == 200
        )
        profile = other.get(f"/api/users/{name}").json()
        assert game["id"] in [g["id"] for g in profile["games"]]
        # no seat secret in this client: the session proves the seat
        res = other.post(f"/api/games/{game['id']}/moves", json={"move": "d2-d3"})
        assert res.status_code == 200, res.text
        black = game["seats"]["black"]["secret"]  # the friend's secret link still works
        assert (
            c.post(f"/api/games/{game['id']}/moves", json={"move": "e7-e6", "secret": black}).status_code
            == 200
        )
        # the account holds White only: Black's move needs Black's secret
        res = other.post(f"/api/games/{game['id']}/moves", json={"move": "e2-e3"})
        assert res.status_code == 200
        assert other.post(f"/api/games/{game['id']}/moves", json={"move": "e6-e5"}).status_code == 409


def test_sign_up_claims_the_browsers_games(server: Server) -> None:
    with signed_client(server) as c:
        game = create(c, variant="interweave", opponent="friend", color="black")
        seat = game["seats"]["black"]["secret"]
        name = fresh_name("claim")
        claim = [{"game": game["id"], "secret": seat}, {"game": "nope", "secret": "x"}]
        res = c.post(
            "/api/account/signup", json={"name": name, "password": "a long password", "claim": claim}
        )
        assert res.status_code == 201 and res.json()["claimed"] == [game["id"]]
        profile = c.get(f"/api/users/{name}").json()
        assert [(g["id"], g["color"]) for g in profile["games"]] == [(game["id"], "black")]


def test_rated_game_between_two_accounts(server: Server) -> None:
    password = "a long password"
    with signed_client(server) as w, signed_client(server) as b:
        wn, bn = fresh_name("white"), fresh_name("black")
        assert w.post("/api/account/signup", json={"name": wn, "password": password}).status_code == 201
        assert b.post("/api/account/signup", json={"name": bn, "password": password}).status_code == 201
        storage = Storage(server.database_url)
        try:
            accounts = Accounts(storage.engine)
            wu, bu = accounts.by_name(wn), accounts.by_name(bn)
            assert wu is not None and bu is not None
            gid = "r" + secrets.token_hex(4)[:7]  # the shape of the site's ids (8 letters or digits)
            # as the lobby will: a game between two accounts, with a time control, rated
            storage.create_game(
                id=gid,
                variant="rebelfury",
                start_fen=_start("rebelfury", w),
                white=PlayerKind.HUMAN,
                black=PlayerKind.HUMAN,
                level=None,
                white_secret=secrets.token_urlsafe(16),
                black_secret=secrets.token_urlsafe(16),
                time_control="5+3",
                white_user=wu.id,
                black_user=bu.id,
                rated=True,
            )
        finally:
            storage.close()
        state = w.get(f"/api/games/{gid}").json()
        assert state["rated"] and state["players"]["white"]["user"] == {
            "name": wn,
            "rating": 1500,
            "provisional": True,
            "diff": None,
            "title": None,
        }
        # both sides move first: a game over before that changes no rating (issue 40)
        assert w.post(f"/api/games/{gid}/moves", json={"move": "a1~b1", "ply": 0}).status_code == 200
        assert b.post(f"/api/games/{gid}/moves", json={"move": "a11-a10", "ply": 1}).status_code == 200
        res = b.post(f"/api/games/{gid}/resign", json={})
        assert res.status_code == 200, res.text
        assert b.post(f"/api/games/{gid}/resign", json={}).status_code == 409  # once
        new_w, new_b = rated_pair(Rating(), Rating(), 1.0)
        state = res.json()
        assert state["players"]["white"]["user"]["rating"] == round(new_w.rating)
        assert state["players"]["white"]["user"]["diff"] == round(new_w.rating) - 1500
        assert state["players"]["black"]["user"]["rating"] == round(new_b.rating)
        for name, expected in ((wn, new_w), (bn, new_b)):
            line = w.get(f"/api/users/{name}").json()["ratings"][0]
            assert line["variant"] == "rebelfury" and line["rating"] == round(expected.rating)
            assert line["provisional"] and len(line["history"]) == 1
        assert w.get(f"/api/users/{wn}").json()["results"] == {"win": 1, "loss": 0, "draw": 0}
        page = w.get(f"/@/{wn}").text
        assert f"{round(new_w.rating)}?" in page and "<polyline" in page
        assert f'[Black "{bn}"]' in w.get(f"/api/games/{gid}/pgn").text
        pgn = w.get(f"/api/users/{bn}/games.pgn")
        assert pgn.status_code == 200 and f'[White "{wn}"]' in pgn.text and f'[Black "{bn}"]' in pgn.text


def _start(variant: str, c: httpx.Client) -> str:
    for v in c.get("/api/variants").json()["variants"]:
        if v["name"] == variant:
            return str(v["starting_fen"])
    raise AssertionError(variant)


def test_leaderboard_lists_only_established_players(server: Server, alice: tuple[httpx.Client, str]) -> None:
    c, name = alice
    storage = Storage(server.database_url)
    try:
        user = Accounts(storage.engine).by_name(name)
        assert user is not None
        with storage.engine.begin() as conn:
            conn.execute(
                insert(ratings).values(
                    user_id=user.id,
                    variant="fugue",
                    rating=2999.4,
                    rd=60.0,
                    volatility=0.06,
                    games=40,
                    updated=conn.execute(select(1)).scalar() and __import__("datetime").datetime(2026, 1, 1),
                )
            )
    finally:
        storage.close()
    boards = c.get("/api/leaderboard").json()["leaderboards"]
    fugue = next(b for b in boards if b["variant"] == "fugue")
    assert fugue["players"][0] == {"name": name, "rating": 2999, "games": 40, "bot": False}
    assert all(p["name"] != name for b in boards if b["variant"] != "fugue" for p in b["players"])
    assert c.get("/api/leaderboard?variant=chess").status_code == 404
    assert name in c.get("/leaderboard").text


def test_change_password_logs_out_everywhere_and_delete_keeps_games(server: Server) -> None:
    name = fresh_name("dora")
    with signed_client(server) as one, signed_client(server) as two:
        assert (
            one.post("/api/account/signup", json={"name": name, "password": "first password"}).status_code
            == 201
        )
        assert (
            two.post("/api/account/login", json={"name": name, "password": "first password"}).status_code
            == 200
        )
        game = create(one, variant="fugue", opponent="friend", color="white")
        res = one.post("/api/account/password", json={"old": "wrong password", "new": "second password"})
        assert res.status_code == 401
        res = one.post("/api/account/password", json={"old": "first password", "new": "second password"})
        assert res.status_code == 200
        assert one.get("/api/account").status_code == 200  # this browser got a new session
        assert two.get("/api/account").status_code == 401  # the other was signed out
        assert one.post("/api/account/delete", json={"password": "first password"}).status_code == 401
        assert one.post("/api/account/delete", json={"password": "second password"}).status_code == 204
        assert one.get("/api/account").status_code == 401
        assert one.get(f"/api/users/{name}").status_code == 404
        state = one.get(f"/api/games/{game['id']}").json()
        assert state["players"]["white"]["user"]["name"] is None  # "deleted player"
        res = one.post("/api/account/login", json={"name": name, "password": "second password"})
        assert res.status_code == 401
        res = one.post("/api/account/signup", json={"name": name, "password": "third password"})
        assert res.status_code == 409


def test_passwords_and_tokens_never_reach_the_log(tmp_path: Path) -> None:
    srv = Server(tmp_path / "log.sqlite", log_level="debug").start()
    try:
        password = "Sup3r-Secret-Passphrase"
        name = fresh_name("logged")
        with signed_client(srv) as c:
            c.post("/api/account/signup", json={"name": name, "password": password})
            c.post("/api/account/login", json={"name": name, "password": "wrong " + password})
            c.post("/api/account/login", json={"name": name, "password": password})
            token = c.cookies["exochess_session"]
            c.post("/api/account/password", json={"old": password, "new": password + "2"})
            c.get("/api/account")
        text = srv.log_text()
        assert "POST /api/account/login" in text  # the access log is on
        assert password not in text and token not in text
    finally:
        srv.stop()
