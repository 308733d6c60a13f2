"""The site in French and Spanish, and on a phone: Playwright driving Debian's Chromium against
a real server.  Set EXOCHESS_SHOTS=/some/dir to keep a screenshot of every page in every language
on a phone and on a desktop."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import websockets

from exochess.variants import all_variants
from exochess.web.accounts.sessions import COOKIE
from tests.web.serverproc import Server, create, recv_until, run_async
from tests.web.test_web_browser import shot
from tests.web.test_web_chat import lobby_game, seat

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
LANGS = ("en", "fr", "es")
VARIANTS = [v.name for v in all_variants()]
ACCOUNT = "Lucia"
PASSWORD = "seven-pawns-in-a-row"
# a chat line with a long unbroken word: it must wrap, not widen the page
LONG_LINE = "Bonne chance ! " + "Ajedrez" * 12


def context(browser: Any, server: Server, lang: str, viewport: dict[str, int]) -> Any:
    phone = viewport["width"] < 600
    return browser.new_context(
        viewport=viewport, base_url=server.url, locale=lang, is_mobile=phone, has_touch=phone
    )


@pytest.fixture(scope="module")
def games(server: Server) -> Iterator[dict[str, dict[str, Any]]]:
    """A friend game per variant with one move played, and its seats (the game pages show
    every control to a player)."""
    out: dict[str, dict[str, Any]] = {}
    with httpx.Client(base_url=server.url, timeout=30.0) as c:
        for name in VARIANTS:
            data = create(c, variant=name, opponent="friend", color="white")
            legal = c.get(f"/api/games/{data['id']}").json()["legal"]
            first = next(node for node in legal if node["end"])
            white = data["seats"]["white"]["secret"]
            assert (
                c.post(
                    f"/api/games/{data['id']}/moves", json={"move": first["text"], "secret": white}
                ).status_code
                == 200
            )
            out[name] = data
    yield out


@pytest.fixture(scope="module")
def lobby(server: Server) -> dict[str, str]:
    """A real-time game made in the lobby (clocks running: both sides have moved) with two chat
    lines, its White seat claimed by the account ACCOUNT; and that account's session cookie."""
    game, white, black = lobby_game(server)
    url = server.url.replace("http", "ws") + f"/ws/games/{game}"

    async def talk() -> None:
        async with await seat(url, white) as w, await seat(url, black) as b:
            for sock, text in ((w, LONG_LINE), (b, "¡Suerte!")):
                await sock.send(json.dumps({"type": "chat", "text": text, "ref": "hi"}))
                await recv_until(sock, "ack")

    run_async(talk)
    with httpx.Client(base_url=server.url, timeout=30.0) as c:
        for secret in (white, black):
            legal = c.get(f"/api/games/{game}").json()["legal"]
            move = next(node for node in legal if node["end"])["text"]
            assert (
                c.post(f"/api/games/{game}/moves", json={"move": move, "secret": secret}).status_code == 200
            )
        res = c.post(
            "/api/account/signup",
            json={"name": ACCOUNT, "password": PASSWORD, "claim": [{"game": game, "secret": white}]},
        )
        assert res.status_code == 201, res.text
        cookie = res.cookies[COOKIE]
    return {"game": game, "black": f"/game/{game}#seat=black&secret={black}", "cookie": cookie}


def sign_in(ctx: Any, server: Server, lobby: dict[str, str]) -> None:
    ctx.add_cookies([{"name": COOKIE, "value": lobby["cookie"], "url": server.url}])


def pages(games: dict[str, dict[str, Any]], lobby: dict[str, str]) -> list[tuple[str, str]]:
    """Every page of the site seen signed out: (name, URL)."""
    found = [
        ("home", "/"),
        ("new", "/new"),
        ("games", "/games"),
        ("missing", "/no-such-page"),
        ("lobby", "/lobby"),
        ("signup", "/signup"),
        ("login", "/login"),
        ("leaderboard", "/leaderboard"),
        ("profile", f"/@/{ACCOUNT}"),
        ("game-clock-chat", lobby["black"]),
    ]
    for name in VARIANTS:
        found += [
            (f"rules-{name}", f"/rules/{name}"),
            (f"analysis-{name}", f"/analysis?variant={name}"),
            (f"game-{name}", games[name]["seats"]["black"]["url"]),
        ]
    return found


SIGNED_IN_PAGES = [
    ("account", "/account"),
    ("home-signed-in", "/"),
    ("lobby-signed-in", "/lobby"),
    ("games-signed-in", "/games"),
]
"""The pages that change for a signed-in player (the header's account menu, the account page)."""


def settle(page: Any, url: str) -> None:
    page.goto(url)
    page.wait_for_load_state("networkidle")
    if "/game/" in url or "/analysis" in url:
        page.wait_for_selector("#board svg.board .piece", state="attached")
    if "/game/" in url:
        page.wait_for_selector("#game[data-connected='1']")
    if url == "/lobby":
        page.wait_for_selector("#lobby[data-connected='1']")


@pytest.mark.parametrize("lang", LANGS)
def test_every_page_fits_a_phone_in_every_language(
    browser: Any, server: Server, games: Any, lobby: Any, lang: str
) -> None:
    errors: list[str] = []
    for viewport, suffix in ((PHONE, "phone"), (DESKTOP, "desktop")):
        ctx = context(browser, server, lang, viewport)
        try:
            page = ctx.new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            visits = [(name, url, False) for name, url in pages(games, lobby)]
            visits += [(name, url, True) for name, url in SIGNED_IN_PAGES]
            for index, (name, url, signed_in) in enumerate(visits):
                if signed_in and not visits[index - 1][2]:
                    sign_in(ctx, server, lobby)
                settle(page, url)
                assert page.locator("html").get_attribute("lang") == lang, (name, lang)
                width = page.evaluate("document.documentElement.scrollWidth")
                assert width <= viewport["width"], f"{name} ({lang}, {suffix}) is {width} px wide"
                shot(page, f"{lang}-{suffix}-{name}")
            assert not errors, errors
        finally:
            ctx.close()


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_board_fills_a_phone_with_legible_coordinates(
    browser: Any, server: Server, games: Any, variant: str
) -> None:
    ctx = context(browser, server, "en", PHONE)
    try:
        page = ctx.new_page()
        for url in (games[variant]["seats"]["white"]["url"], f"/analysis?variant={variant}"):
            settle(page, url)
            board = page.locator("#board svg.board").bounding_box()
            assert board is not None and board["width"] >= PHONE["width"] - 2, (url, board)
            # the on-screen size of the coordinates: their font size in board units, scaled
            smallest = page.evaluate("""() => {
                const svg = document.querySelector('#board svg.board');
                const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
                return Math.min(...[...svg.querySelectorAll('.coord')].map(
                    (t) => parseFloat(getComputedStyle(t).fontSize) * scale));
            }""")
            assert smallest >= 10, (url, smallest)
    finally:
        ctx.close()


def test_accept_takeback_is_in_reach_on_a_phone(browser: Any, server: Server) -> None:
    with httpx.Client(base_url=server.url, timeout=30.0) as c:
        data = create(c, variant="rebelfury", opponent="friend", color="white")
        gid, white = data["id"], data["seats"]["white"]["secret"]
        legal = c.get(f"/api/games/{gid}").json()["legal"]
        move = next(node for node in legal if node["end"])["text"]
        assert c.post(f"/api/games/{gid}/moves", json={"move": move, "secret": white}).status_code == 200
        ctx = context(browser, server, "fr", PHONE)
        try:
            page = ctx.new_page()
            settle(page, data["seats"]["black"]["url"])
            res = c.post(f"/api/games/{gid}/takeback", json={"action": "offer", "secret": white})
            assert res.status_code == 200, res.text
            button = page.locator("#accept-takeback")
            button.wait_for(state="visible")
            assert button.inner_text() == "Accepter la reprise"
            assert page.evaluate("window.scrollY") == 0
            shot(page, "fr-phone-takeback-offer")
            box = button.bounding_box()
            assert box is not None and box["y"] + box["height"] <= PHONE["height"], box
            button.tap()
            page.wait_for_selector("#game[data-ply='0']")
        finally:
            ctx.close()


def test_switching_language_in_the_header_is_remembered(browser: Any, server: Server) -> None:
    ctx = context(browser, server, "fr", DESKTOP)
    try:
        page = ctx.new_page()
        settle(page, "/")
        assert page.locator("h1").inner_text() == "Trois variantes d'échecs de la famille Ultima"
        assert page.locator("header.top .langs a[aria-current]").inner_text() == "FR"
        page.click("header.top .langs a[data-lang='es']")
        page.wait_for_selector("html[lang='es']")
        assert page.url.rstrip("/") == server.url
        assert page.locator("h1").inner_text() == "Tres variantes de ajedrez de la familia Ultima"
        # the choice outlives the page, over the browser's French preference
        page.click("header.top a[href='/rules/interweave']")
        page.wait_for_selector("html[lang='es']")
        assert page.locator("main > h1").inner_text() == "Interweave — reglas"
        assert page.locator(".rules-body").get_attribute("lang") == "es"
        assert page.locator("#rules-fallback").count() == 0
        assert "Objetivo" in page.locator(".rules-body h2").first.inner_text()
        page.click("header.top .langs a[data-lang='en']")
        page.wait_for_selector("html[lang='en']")
        assert page.url.endswith("/rules/interweave")
        assert page.locator("main > h1").inner_text() == "Interweave — rules"
    finally:
        ctx.close()


def test_a_french_game_page_speaks_french_from_its_scripts(browser: Any, server: Server) -> None:
    with httpx.Client(base_url=server.url, timeout=30.0) as c:
        data = create(c, variant="fugue", opponent="friend", color="white")
    ctx = context(browser, server, "fr", DESKTOP)
    try:
        page = ctx.new_page()
        settle(page, data["seats"]["white"]["url"])
        assert page.locator("#status").inner_text() == "À vous de jouer"
        assert page.locator("#moves").inner_text() == "Aucun coup pour l'instant."
        assert page.locator("#players").inner_text().splitlines()[0].startswith("Blancs")
        # the piece's name, then what the rules say of it now (the library's words, in English)
        assert (
            page.locator('#board g.piece[data-square="e1"] title').text_content().splitlines()[0]
            == "Roi blanc"
        )
        assert page.title() == "Partie de Fugue · exochess"
        # resigning (two clicks) and the end of the game, in words the server stored in English
        page.click("#resign")
        assert page.locator("#resign").inner_text() == "Vraiment abandonner ?"
        page.click("#resign")
        page.wait_for_selector("#game[data-status='finished']")
        assert page.locator("#banner").inner_text() == "0-1 · Les Noirs gagnent : les Blancs ont abandonné"
        assert page.locator("#status").inner_text() == "Partie terminée (0-1)"
    finally:
        ctx.close()


def test_a_spanish_rules_page_and_the_english_fallback(client: httpx.Client) -> None:
    for name in VARIANTS:
        es = client.get(f"/rules/{name}", headers={"Accept-Language": "es"})
        assert es.status_code == 200 and '<html lang="es">' in es.text
        assert 'class="rules-body" lang="es"' in es.text and "rules-fallback" not in es.text
        assert es.headers["content-language"] == "es" and "Accept-Language" in es.headers["vary"]
    de = client.get("/rules/fugue", headers={"Accept-Language": "de"})
    assert '<html lang="en">' in de.text and 'class="rules-body" lang="en"' in de.text


def test_the_language_switch_only_goes_back_to_this_site(client: httpx.Client) -> None:
    res = client.get("/lang/es", params={"next": "/games?x=1"}, follow_redirects=False)
    assert res.status_code == 303 and res.headers["location"] == "/games?x=1"
    assert "lang=es" in res.headers["set-cookie"]
    for hostile in ("//evil.example/", "https://evil.example/", "/\\evil.example", "javascript:alert(1)"):
        res = client.get("/lang/fr", params={"next": hostile}, follow_redirects=False)
        assert res.headers["location"] == "/", hostile
    missing = client.get("/lang/xx", headers={"Accept-Language": "fr"})
    assert missing.status_code == 404 and "Ce site n&#39;a pas cette langue." in missing.text


def test_server_messages_come_in_the_page_language(
    browser: Any, server: Server, client: httpx.Client
) -> None:
    data = create(client, variant="interweave", opponent="friend", color="white")
    gid, white = data["id"], data["seats"]["white"]["secret"]
    res = client.post(
        f"/api/games/{gid}/takeback",
        json={"action": "accept", "secret": white},
        headers={"Accept-Language": "es"},
    )
    assert res.status_code == 409 and res.json()["error"] == "no hay ninguna petición de deshacer que aceptar"
    res = client.post(
        f"/api/games/{gid}/moves",
        json={"move": "b7-a6", "secret": data["seats"]["black"]["secret"]},
        headers={"Accept-Language": "fr"},
    )
    assert res.json()["error"] == "ce n'est pas votre tour : trait aux Blancs"
    res = client.get("/api/games/nope", headers={"Cookie": "lang=fr"})
    assert res.status_code == 404 and res.json()["error"] == "identifiant de partie inconnu 'nope'"
    # no evaluation while a game between people is on (issue 40): the page says so in French,
    # and so does the API's refusal
    res = client.post(f"/api/games/{gid}/evaluate", json={}, headers={"Accept-Language": "fr"})
    assert res.status_code == 403
    assert res.json()["error"] == "analyse après la partie : pas de moteur pendant une partie entre personnes"
    ctx = context(browser, server, "fr", DESKTOP)
    try:
        page = ctx.new_page()
        settle(page, f"/game/{gid}")
        assert page.locator("#evaluate").is_hidden()
        assert page.locator("#analysis-later").inner_text().startswith("Analyse après la partie")
    finally:
        ctx.close()


# what each new page says in French and Spanish (a few words each, from the catalogues)
NEW_PAGE_WORDS = {
    "fr": {
        "lobby": "Salon",
        "signup": "Créer un compte",
        "leaderboard": "Classement",
        "white": "Blancs",
        "black": "Noirs",
        "mute": "Masquer l'adversaire",
        "king": "Avance d'une case dans tous les sens",
        "password": "le mot de passe ne doit pas contenir le nom d'utilisateur",
        "login": "nom d'utilisateur ou mot de passe incorrect",
        "nobody": "aucun joueur ne s'appelle 'nobody'",
        "challenge": "identifiant de défi inconnu 'nope' (annulé, expiré ou jamais publié)",
        "account": "Changer de mot de passe",
    },
    "es": {
        "lobby": "Sala",
        "signup": "Registrarse",
        "leaderboard": "Clasificación",
        "white": "Blancas",
        "black": "Negras",
        "mute": "Silenciar al rival",
        "king": "Avanza una casilla en cualquier dirección",
        "password": "la contraseña no debe contener el nombre de usuario",
        "login": "nombre de usuario o contraseña incorrectos",
        "nobody": "ningún jugador se llama 'nobody'",
        "challenge": "identificador de desafío desconocido 'nope' (cancelado, caducado o nunca publicado)",
        "account": "Cambiar la contraseña",
    },
}


@pytest.mark.parametrize("lang", ["fr", "es"])
def test_the_lobby_accounts_and_a_clock_game_speak_the_page_language(
    browser: Any, server: Server, lobby: Any, lang: str
) -> None:
    words = NEW_PAGE_WORDS[lang]
    ctx = context(browser, server, lang, PHONE)
    try:
        page = ctx.new_page()
        settle(page, "/lobby")
        assert page.locator("main h1").inner_text() == words["lobby"]
        assert page.title() == f"{words['lobby']} · exochess"
        # the server's refusals come in the page's language, over HTTP and on the lobby's socket
        settle(page, "/signup")
        assert page.locator("main h1").inner_text() == words["signup"]
        page.fill("#name", "marta")
        page.fill("#password", "marta-plays-well")
        page.click("#submit")
        page.wait_for_selector(f'#error:has-text("{words["password"]}")')
        settle(page, "/login")
        page.fill("#name", ACCOUNT)
        page.fill("#password", "not-the-password")
        page.click("#submit")
        page.wait_for_selector(f'#error:has-text("{words["login"]}")')
        settle(page, "/leaderboard")
        assert page.locator("main h1").inner_text() == words["leaderboard"]
        settle(page, f"/@/{ACCOUNT}")
        assert page.locator("#profile-games tbody td").nth(1).inner_text() == words["white"]
        missing = page.goto("/@/nobody")
        assert missing is not None and missing.status == 404
        assert words["nobody"] in page.locator("main").inner_text()
        # a game with clocks and chat: the clocks' names, the chat's button, the legend's words
        settle(page, lobby["black"])
        assert page.locator("#clocks .clock.top .clock-name").inner_text() == words["white"]
        assert page.locator("#clocks .clock.bottom .clock-name").inner_text() == words["black"]
        assert page.locator("#chat-mute").inner_text() == words["mute"]
        assert words["king"] in page.locator("#legend-list li").first.inner_text()
        sign_in(ctx, server, lobby)
        settle(page, "/account")
        assert page.locator("main h2").first.inner_text() == words["account"]
    finally:
        ctx.close()
    cookie = {"Cookie": f"lang={lang}"}
    res = httpx.post(
        f"{server.url}/api/challenges/nope/accept", headers=cookie, json={"player": "p" * 20, "name": "Ana"}
    )
    assert res.status_code == 404 and res.json()["error"] == words["challenge"]

    async def on_the_socket() -> None:
        url = server.url.replace("http", "ws") + "/ws/lobby"
        async with websockets.connect(url, additional_headers=cookie) as ws:
            await ws.send(
                json.dumps({"type": "accept", "id": "nope", "name": "Ana", "player": "p" * 20, "ref": "a"})
            )
            assert (await recv_until(ws, "error"))["error"] == words["challenge"]

    run_async(on_the_socket)
