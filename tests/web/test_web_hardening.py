"""Issue 17, findings 5, 7 and 8 against a real server: bad input is a 4xx with no traceback in the
log, every response carries the security headers, state-changing requests must be same-origin JSON,
and game creation, analyses and websocket connects are rate-limited per client address."""

from __future__ import annotations

import json
import re
import socket
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import websockets

from tests.web.serverproc import Server, create, run_async

DEEP_ARRAY = "[" * 1000 + "]" * 1000
DEEP_OBJECT = '{"a":' * 1000 + "1" + "}" * 1000


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server of its own, logging at info level, whose log only these tests write to."""
    srv = Server(tmp_path_factory.mktemp("guard") / "guard.sqlite", log_level="info").start()
    yield srv
    srv.stop()


@pytest.fixture()
def gclient(guarded: Server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=guarded.url, timeout=30.0) as c:
        yield c


def assert_clean_log(server: Server) -> None:
    text = server.log_text()
    assert "Traceback" not in text, text[-3000:]
    assert "internal error" not in text.lower(), text[-3000:]
    assert " 500 " not in text, text[-3000:]


def post_paths(client: httpx.Client, game_id: str) -> list[str]:
    """Every POST endpoint of the OpenAPI schema, with a real game id filled in."""
    spec = client.get("/openapi.json").json()
    paths = [p.replace("{game_id}", game_id) for p, ops in spec["paths"].items() if "post" in ops]
    assert len(paths) >= 8, paths
    return paths


def post_raw(client: httpx.Client, path: str, text: str) -> httpx.Response:
    return client.post(path, content=text.encode("utf-8"), headers={"Content-Type": "application/json"})


# --- finding 5: bad input ---------------------------------------------------------------------------


@pytest.mark.parametrize("body", [DEEP_ARRAY, DEEP_OBJECT, '{"secret": ' + DEEP_ARRAY + "}"])
def test_deeply_nested_json_is_a_400_on_every_post_endpoint(
    guarded: Server, gclient: httpx.Client, body: str
) -> None:
    assert len(body.encode()) < 16 * 1024
    game_id = create(gclient, variant="fugue", opponent="friend")["id"]
    for path in post_paths(gclient, game_id):
        res = post_raw(gclient, path, body)
        assert res.status_code == 400, (path, res.status_code, res.text)
        assert "nested" in res.json()["error"], res.text
    assert_clean_log(guarded)


def test_lone_surrogates_in_secret_or_move_are_a_400(guarded: Server, gclient: httpx.Client) -> None:
    game = create(gclient, variant="fugue", opponent="friend")
    gid, secret = game["id"], game["seats"]["white"]["secret"]
    bodies = {
        f"/api/games/{gid}/moves": [
            '{"secret": "\\ud800", "move": "e2-e3"}',
            '{"secret": "' + secret + '", "move": "e2-e3\\udfff"}',
        ],
        f"/api/games/{gid}/resign": ['{"secret": "\\ud800"}'],
        f"/api/games/{gid}/takeback": ['{"secret": "\\udc00x", "action": "offer"}'],
        f"/api/games/{gid}/rematch": ['{"secret": "\\ud800"}'],
        "/api/position": ['{"variant": "fugue", "moves": ["e2-e3\\ud800"]}'],
        "/api/games": ['{"variant": "fugue\\ud800", "opponent": "friend"}'],
    }
    for path, texts in bodies.items():
        for text in texts:
            res = post_raw(gclient, path, text)
            assert res.status_code == 400, (path, text, res.text)
            assert "surrogate" in res.json()["error"], res.text
    # a surrogate pair is one valid character (here an emoji): no complaint about the text itself
    res = post_raw(
        gclient, f"/api/games/{gid}/moves", '{"secret": "' + secret + '", "move": "\\ud83d\\ude00"}'
    )
    assert res.status_code in (400, 422) and "surrogate" not in res.text, res.text
    # the game is still playable
    res = gclient.post(f"/api/games/{gid}/moves", json={"secret": secret, "move": "e2-e3", "ply": 0})
    assert res.status_code == 200, res.text
    assert_clean_log(guarded)


def test_body_that_is_not_utf8_is_a_400(guarded: Server, gclient: httpx.Client) -> None:
    res = gclient.post(
        "/api/position", content=b'{"variant": "fugue\xff"}', headers={"Content-Type": "application/json"}
    )
    assert res.status_code == 400 and "UTF-8" in res.json()["error"], res.text
    assert_clean_log(guarded)


@pytest.mark.parametrize(
    ("variant", "fen"),
    [
        ("fugue", "8/8/8/8/8/8/8/K²5 w"),
        ("rebelfury", "12/12/12/12/12/12/12/12/12/12/12/K¹¹ w"),
        ("interweave", "4K2k/8/8/8/8/8/8/8 w - 00000²"),
    ],
)
def test_unicode_digits_in_a_fen_are_a_clear_fen_error(
    guarded: Server, gclient: httpx.Client, variant: str, fen: str
) -> None:
    for path, body in (
        ("/api/games", {"variant": variant, "opponent": "friend", "fen": fen}),
        ("/api/position", {"variant": variant, "fen": fen}),
        ("/api/analyse", {"variant": variant, "fen": fen, "movetime_ms": 50}),
    ):
        res = gclient.post(path, json=body)
        assert res.status_code == 400, (path, res.text)
        assert "bad FEN" in res.json()["error"] and "ASCII" in res.json()["error"], res.text
    assert_clean_log(guarded)


def test_client_hanging_up_mid_upload_is_logged_as_a_disconnect(guarded: Server) -> None:
    for _ in range(5):
        with socket.create_connection(("127.0.0.1", guarded.port), timeout=10) as s:
            s.sendall(
                b"POST /api/position HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b"Content-Length: 4000\r\n\r\n" + b'{"variant": "fugue", "moves": [' + b'"e2-e3",' * 20
            )
    # the server notices each hang-up soon after it; wait for that (bounded), not for a time
    for _ in range(100):
        if guarded.log_text().count("client disconnected") >= 5:
            break
        time.sleep(0.1)
    text = guarded.log_text()
    assert text.count("client disconnected") >= 5, text[-2000:]
    assert_clean_log(guarded)


def test_websocket_bad_messages_get_error_replies(guarded: Server, gclient: httpx.Client) -> None:
    game = create(gclient, variant="fugue", opponent="friend")
    url = guarded.url.replace("http", "ws") + f"/ws/games/{game['id']}"

    async def run() -> list[dict[str, Any]]:
        replies = []
        async with websockets.connect(url) as ws:
            for text in (
                DEEP_ARRAY,
                '{"type": "auth", "secret": "\\ud800", "ref": 1}',
                '{"type": "move", "move": "e2\\udfff", "ref": 2}',
                '{"type": "ping", "ref": 3}',
            ):
                await ws.send(text)
                while True:
                    msg = json.loads(await ws.recv())
                    if msg["type"] in ("error", "pong"):
                        replies.append(msg)
                        break
        return replies

    replies = run_async(run)
    assert [r["type"] for r in replies] == ["error", "error", "error", "pong"], replies
    assert "nested" in replies[0]["error"]
    assert "surrogate" in replies[1]["error"] and "surrogate" in replies[2]["error"]
    assert_clean_log(guarded)


# --- finding 7: headers, JSON only, same origin -----------------------------------------------------


def page_paths(client: httpx.Client) -> list[str]:
    gid = create(client, variant="fugue", opponent="friend")["id"]
    return [
        "/",
        "/rules/fugue",
        "/rules/interweave",
        "/rules/rebelfury",
        "/new",
        "/games",
        "/analysis",
        f"/game/{gid}",
        "/game/nonexistent",
        "/no/such/page",
    ]


def test_security_headers_on_every_page_and_response(gclient: httpx.Client) -> None:
    gid = create(gclient, variant="fugue", opponent="friend")["id"]
    others = [
        "/api/variants",
        f"/api/games/{gid}",
        f"/api/games/{gid}/pgn",
        "/api/games/nope",
        "/static/game.js",
        "/static/style.css",
        "/openapi.json",
    ]
    for path in page_paths(gclient) + others:
        res = gclient.get(path)
        assert res.status_code in (200, 404), (path, res.status_code)
        csp = res.headers.get("content-security-policy", "")
        assert "frame-ancestors 'none'" in csp, (path, csp)
        script_src = re.search(r"script-src ([^;]*)", csp)
        assert script_src is not None and "unsafe-inline" not in script_src.group(1), (path, csp)
        assert res.headers.get("x-content-type-options") == "nosniff", path
        assert res.headers.get("referrer-policy"), path
        assert res.headers.get("x-frame-options") == "DENY", path
    res = gclient.post("/api/position", json={"variant": "nope"})
    assert res.status_code == 400 and res.headers.get("x-content-type-options") == "nosniff"


def test_pages_have_no_inline_script(gclient: httpx.Client) -> None:
    for path in page_paths(gclient):
        html = gclient.get(path).text
        for attrs, body in re.findall(r"<script([^>]*)>(.*?)</script>", html, flags=re.S):
            if "src=" in attrs:
                assert not body.strip(), (path, attrs)
            else:  # data only: the browser never runs it
                assert 'type="application/json"' in attrs, (path, attrs, body[:80])
                json.loads(body)
        assert not re.search(r"\son[a-z]+=", html), path  # no inline event handlers either


@pytest.mark.parametrize(
    "ctype", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", None]
)
def test_state_changing_endpoints_accept_only_json(gclient: httpx.Client, ctype: str | None) -> None:
    game = create(gclient, variant="fugue", opponent="friend")
    gid, secret = game["id"], game["seats"]["white"]["secret"]
    headers = {"Content-Type": ctype} if ctype else {}
    for path in post_paths(gclient, gid):
        res = gclient.post(path, content=json.dumps({"secret": secret}).encode(), headers=headers)
        assert res.status_code == 415, (path, res.status_code, res.text)
        assert "application/json" in res.json()["error"]
    state = gclient.get(f"/api/games/{gid}").json()
    assert state["status"] == "active" and state["ply"] == 0  # nothing happened


def test_foreign_origin_is_refused_and_same_origin_accepted(guarded: Server, gclient: httpx.Client) -> None:
    game = create(gclient, variant="fugue", opponent="friend")
    gid, secret = game["id"], game["seats"]["white"]["secret"]
    for origin in ("https://evil.example", "null", f"http://127.0.0.1:{guarded.port + 1}"):
        res = gclient.post(f"/api/games/{gid}/resign", json={"secret": secret}, headers={"Origin": origin})
        assert res.status_code == 403, (origin, res.text)
        assert "origin" in res.json()["error"].lower()
    assert gclient.get(f"/api/games/{gid}").json()["status"] == "active"
    res = gclient.post(
        f"/api/games/{gid}/moves", json={"secret": secret, "move": "e2-e3"}, headers={"Origin": guarded.url}
    )
    assert res.status_code == 200, res.text
    res = gclient.post(
        "/api/games",
        json={"variant": "fugue", "opponent": "friend"},
        headers={"Origin": guarded.url.replace("127.0.0.1", "localhost")},
    )
    assert res.status_code == 403  # localhost is another origin than 127.0.0.1


# --- finding 8: rate limits --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    limits = "games=3/minute;analyses=2/minute;sockets=4/minute"
    srv = Server(
        tmp_path_factory.mktemp("limited") / "limited.sqlite",
        log_level="info",
        env={"EXOCHESS_RATE_LIMITS": limits},
    ).start()
    yield srv
    srv.stop()


def assert_429(res: httpx.Response, words: str) -> None:
    assert res.status_code == 429, res.text
    assert words in res.json()["error"], res.text
    assert 1 <= int(res.headers["retry-after"]) <= 60


def test_game_creation_is_rate_limited_per_address(limited: Server) -> None:
    with httpx.Client(base_url=limited.url, timeout=30.0) as c:
        made = [c.post("/api/games", json={"variant": "fugue", "opponent": "friend"}) for _ in range(3)]
        assert [r.status_code for r in made] == [201, 201, 201]
        assert_429(c.post("/api/games", json={"variant": "fugue", "opponent": "friend"}), "games")
        # nor can a chain of resignations and rematches create games beyond the limit
        first = made[0].json()
        secret = first["seats"]["white"]["secret"]
        assert c.post(f"/api/games/{first['id']}/resign", json={"secret": secret}).status_code == 200
        assert_429(c.post(f"/api/games/{first['id']}/rematch", json={"secret": secret}), "games")
        # other requests from the same address are not limited
        gid = made[0].json()["id"]
        assert c.get(f"/api/games/{gid}").status_code == 200
        assert c.post("/api/position", json={"variant": "fugue"}).status_code == 200
    assert_clean_log(limited)


def test_analyses_are_rate_limited_per_address(limited: Server) -> None:
    with httpx.Client(base_url=limited.url, timeout=60.0) as c:
        statuses = []
        for _ in range(2):
            res = c.post("/api/analyse", json={"variant": "fugue", "movetime_ms": 50})
            statuses.append(res.status_code)
        assert all(s != 429 for s in statuses), statuses
        assert_429(c.post("/api/analyse", json={"variant": "fugue", "movetime_ms": 50}), "analyses")
        gid = c.get("/api/games").json()["games"]
        path = f"/api/games/{gid[0]['id']}/evaluate" if gid else "/api/games/x/evaluate"
        assert_429(c.post(path, json={}), "analyses")  # the same budget
    assert_clean_log(limited)


def test_websocket_connects_are_rate_limited_per_address(limited: Server) -> None:
    with httpx.Client(base_url=limited.url, timeout=30.0) as c:
        gid = c.get("/api/games").json()["games"][0]["id"]
    url = limited.url.replace("http", "ws") + f"/ws/games/{gid}"

    async def run() -> tuple[int, int | None, dict[str, str]]:
        opened = 0
        for _ in range(4):
            async with websockets.connect(url) as ws:
                hello = json.loads(await ws.recv())
                assert hello["type"] == "hello"
                opened += 1
        try:
            async with websockets.connect(url):
                pass
        except websockets.InvalidStatus as exc:
            headers = {k.lower(): v for k, v in exc.response.headers.raw_items()}
            body = json.loads(exc.response.body or b"{}").get("error", "")
            return opened, exc.response.status_code, {**headers, "error": body}
        return opened, None, {}

    opened, status, info = run_async(run)
    assert opened == 4
    assert status == 429, info
    assert "connections" in info["error"] and 1 <= int(info["retry-after"]) <= 60
    assert_clean_log(limited)


def test_rate_limit_setting_is_read_or_refused_clearly() -> None:
    from exochess.web.limits import RateLimitSettingError, parse_rate_limits

    assert parse_rate_limits("off") == {}
    parsed = parse_rate_limits("games=5/minute;sockets=10/second;chat=off")
    assert (parsed["games"][0].amount, parsed["sockets"][0].amount) == (5, 10) and "chat" not in parsed
    assert [i.amount for i in parse_rate_limits("login-account=3/minute,9/hour")["login-account"]] == [3, 9]
    assert str(parsed["analyses"]) == str(parse_rate_limits(None)["analyses"])  # the default
    for bad in ("games=lots", "gamez=5/minute", "games"):
        with pytest.raises(RateLimitSettingError, match="EXOCHESS_RATE_LIMITS"):
            parse_rate_limits(bad)


# --- finding 7 in the browser: the pages work under their CSP -------------------------------------


def test_pages_run_under_the_csp_and_it_refuses_inline_script(browser: Any, server: Server) -> None:
    context = browser.new_context(base_url=server.url)
    pg = context.new_page()
    console: list[str] = []
    pg.on("console", lambda m: console.append(m.text))
    try:
        with httpx.Client(base_url=server.url) as c:
            game = create(c, variant="fugue", opponent="friend")
        for path in ("/", "/rules/interweave", "/new", "/games", "/analysis?variant=rebelfury"):
            pg.goto(path)
            pg.wait_for_load_state("networkidle")
        assert pg.locator("#board svg, #board rect").count() > 0  # the analysis module ran
        pg.goto(game["seats"]["white"]["url"])
        pg.wait_for_selector("#game[data-connected='1']")  # module ran, websocket allowed
        pg.locator("#board").wait_for()
        res = pg.evaluate(
            "() => fetch('/api/games/" + game["id"] + "/evaluate', {method: 'POST'}).then((r) => r.status)"
        )
        assert res == 415  # a body-less POST (what a cross-site form or beacon could send)
        assert not [m for m in console if "Content Security Policy" in m], console
        # the policy is in force: an injected inline script is refused, and reported
        pg.evaluate("""() => { const s = document.createElement('script');
                              s.textContent = 'window.__injected = 1'; document.body.appendChild(s); }""")
        assert pg.evaluate("() => window.__injected") is None
        assert [m for m in console if "Content Security Policy" in m], console
    finally:
        context.close()


def test_websocket_from_a_foreign_origin_is_refused(guarded: Server, gclient: httpx.Client) -> None:
    gid = create(gclient, variant="fugue", opponent="friend")["id"]
    url = guarded.url.replace("http", "ws") + f"/ws/games/{gid}"

    async def run() -> tuple[int | None, str]:
        async with websockets.connect(url, origin=websockets.Origin(guarded.url)) as ws:  # same site: fine
            assert json.loads(await ws.recv())["type"] == "hello"
        try:
            async with websockets.connect(url, origin=websockets.Origin("https://evil.example")):
                pass
        except websockets.InvalidStatus as exc:
            return exc.response.status_code, json.loads(exc.response.body or b"{}").get("error", "")
        return None, ""

    status, error = run_async(run)
    assert status == 403 and "cross-site" in error
    assert_clean_log(guarded)


def test_rate_limits_count_an_ipv6_client_by_its_64_network() -> None:
    from exochess.web.limits import client_key

    assert client_key("203.0.113.7") == "203.0.113.7"
    assert client_key("2001:db8:1:2:aaaa::1") == client_key("2001:db8:1:2:ffff::9") == "2001:db8:1:2::/64"
    assert client_key("2001:db8:1:3::1") != client_key("2001:db8:1:2::1")
    assert client_key("::ffff:203.0.113.7") == "203.0.113.7"
    assert client_key(None) == "?"
