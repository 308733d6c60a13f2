"""Issue 19 items 3, 7, 8, 9 in the browser: moves slide in and end on the server's position,
the last move's actions get arrows, sounds with a remembered off switch, the move list names
pieces and marks captures, the board played from the keyboard (a chain and a Remover fired in
place included), the analysis line in the address, the SVG diagram, and the listed bugs.

Real server on 127.0.0.1, Debian's Chromium through Playwright; EXOCHESS_SHOTS keeps screenshots.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlparse

import httpx

from tests.web.serverproc import Server, create
from tests.web.test_web_board_input import LEGAL, PIECES, tree
from tests.web.test_web_browser import OTHER_GAMES, click, new_game, shot, wait_ply

# Records every value the board's data-animating attribute takes (proof that a move slid in).
WATCH_ANIMATION = """() => {
  window.__animating = [];
  new MutationObserver((changes) => changes.forEach((c) => window.__animating.push(
    c.target.getAttribute('data-animating')))).observe(document.querySelector('#board svg.board'),
    {attributes: true, attributeFilter: ['data-animating']});
}"""

# square -> letter of the pieces drawn on the board
DRAWN = """() => Object.fromEntries([...document.querySelectorAll('#board g.piece[data-square]')]
  .map((g) => [g.dataset.square, g.dataset.piece]))"""


def placement(fen: str, height: int) -> dict[str, str]:
    out: dict[str, str] = {}
    for i, row in enumerate(fen.split()[0].split("/")):
        file, digits = 0, ""
        for ch in row + "/":
            if ch.isdigit():
                digits += ch
                continue
            file += int(digits or 0)
            digits = ""
            if ch != "/":
                out[f"{chr(97 + file)}{height - i}"] = ch
                file += 1
    return out


def settled(page: Any) -> None:
    page.wait_for_selector("#board svg.board:not([data-animating])")


def test_the_computer_reply_slides_in_with_arrows_sound_and_names(page: Any, server: Server) -> None:
    new_game(page)
    page.evaluate(WATCH_ANIMATION)
    click(page, "e2")
    click(page, "e3")
    wait_ply(page, 2)
    settled(page)
    state = httpx.get(f"{server.url}/api/games/{page.url.rsplit('/', 1)[1]}").json()
    # the reply was played out, and the board ends on the server's position
    assert "1" in page.evaluate("window.__animating")
    assert page.evaluate(DRAWN) == placement(state["fens"][2], 8)
    reply = state["moves"][1]
    assert page.locator(f'#board .arrow[data-arrow="{reply["from"]}-{reply["to"]}"]').count() == 1
    assert page.locator("#board .arrow").count() == 1
    assert page.evaluate("window.exochessGame.sound.played") == ["move", "move"]
    # the move list names the piece that moved (Fugue's Cannon Pawn) with its letter and a tooltip
    first = page.locator('#moves .mv[data-ply="1"]')
    assert first.inner_text().replace("\n", "") == "Pe2-e3"
    assert first.locator(".pc").get_attribute("title") == "Cannon Pawn"
    # and the reply is said in words in the live region
    page.wait_for_selector(f"#announce:has-text('2. Black Cannon Pawn {reply['from']}')")
    assert page.get_attribute("#announce", "aria-live") == "polite"
    shot(page, "motion-reply")


def test_sound_switch_is_remembered(page: Any, server: Server) -> None:
    with httpx.Client(base_url=server.url) as c:
        data = create(c, variant="fugue", opponent="friend", color="white")
    page.goto(data["seats"]["white"]["url"])
    page.wait_for_selector("#game[data-connected='1']")
    assert page.is_checked("#sound")
    page.uncheck("#sound")
    page.reload()
    page.wait_for_selector("#game[data-connected='1']")
    assert not page.is_checked("#sound")
    click(page, "d2")
    click(page, "d3")
    wait_ply(page, 1)
    assert page.evaluate("window.exochessGame.sound.played") == []
    page.check("#sound")  # on again: a sample plays, and the next page load remembers it
    assert page.evaluate("window.exochessGame.sound.played") == ["move"]
    page.goto("/analysis?variant=fugue")
    assert page.is_checked("#sound")


def test_a_capture_and_the_end_are_sounded_and_marked(page: Any) -> None:
    # Fugue: Black's King on a8 is frozen by White's Immobilizer on b7; White's King takes it
    new_game(page, fen="kK5p/1I6/8/8/8/8/8/8 w")
    click(page, "b8")
    click(page, "a8")
    page.wait_for_selector('#game[data-status="finished"]')
    assert page.evaluate("window.exochessGame.sound.played") == ["capture", "end"]
    mv = page.locator('#moves .mv[data-ply="1"]')
    assert "capture" in (mv.get_attribute("class") or "")
    assert mv.locator(".cap").inner_text() == "\u00d7"  # a multiplication sign
    assert mv.locator(".pc").get_attribute("title") == "King"


def test_keyboard_plays_a_chain_against_the_computer(page: Any, server: Server) -> None:
    fen, _clicks, text = OTHER_GAMES["interweave"]
    gid = new_game(page, fen=fen, variant="interweave")
    page.evaluate(WATCH_ANIMATION)
    # Tab reaches the board: the one square in the tab order is a piece that may move
    page.locator("#board rect.sq[tabindex='0']").focus()
    assert page.locator("#board rect.sq[tabindex='0']").count() == 1
    label = page.locator('#board rect.sq[data-square="a4"]').get_attribute("aria-label")
    assert label is not None and label.startswith("a4, White ")

    def go_to(square: str) -> None:
        # arrow keys from wherever the focus is, as a player would press them
        cur = page.evaluate("document.activeElement.dataset.square")
        df = ord(square[0]) - ord(cur[0])
        dr = int(square[1:]) - int(cur[1:])
        for _ in range(abs(df)):
            page.keyboard.press("ArrowRight" if df > 0 else "ArrowLeft")
        for _ in range(abs(dr)):
            page.keyboard.press("ArrowUp" if dr > 0 else "ArrowDown")
        assert page.evaluate("document.activeElement.dataset.square") == square

    go_to("a4")
    page.keyboard.press("Enter")
    assert "selected" in (page.locator('#board rect.sq[data-square="a4"]').get_attribute("aria-label") or "")
    go_to("a8")
    assert "capture here" in (
        page.locator('#board rect.sq[data-square="a8"]').get_attribute("aria-label") or ""
    ) or "move here" in (page.locator('#board rect.sq[data-square="a8"]').get_attribute("aria-label") or "")
    page.keyboard.press("Space")
    page.wait_for_selector(".chain-bar")
    go_to("c4")
    page.keyboard.press("Enter")
    wait_ply(page, 2)  # the chain was played, and the computer answered
    settled(page)
    state = httpx.get(f"{server.url}/api/games/{gid}").json()
    assert state["moves"][0]["text"] == text
    assert page.evaluate(DRAWN) == placement(state["fens"][2], 8)
    assert "1" in page.evaluate("window.__animating")
    # back on the chain: one arrow per action
    page.keyboard.press("Tab")  # the focus leaves the board; the page's arrow keys replay
    page.click('#moves .mv[data-ply="1"]')
    page.wait_for_selector('#game[data-shown-ply="1"]')
    settled(page)
    arrows = page.eval_on_selector_all("#board .arrow", "els => els.map((e) => e.dataset.arrow)")
    assert arrows == ["a4-a8", "a8-c4"]
    shot(page, "keyboard-chain")


KEYS_SETUP = """
async ([legal, pieces]) => {
  const m = await import('/static/board.js');
  const k = await import('/static/keyboard.js');
  document.body.innerHTML = '<div id="board"></div>';
  document.getElementById('board').style.width = '480px';
  window.__moves = [];
  const view = new m.BoardView(document.getElementById('board'),
    {width: 8, height: 8, pieceNames: {L: 'Long leaper', R: 'Remover', P: 'Pawn'},
     onMove: (t) => window.__moves.push(t)});
  view.setPosition(new Map(Object.entries(pieces)));
  view.setLegal(legal);
  new k.BoardKeys(view, {title: 'Test', piece_names: {L: 'Long leaper', R: 'Remover', P: 'Pawn'}});
}
"""


def test_keyboard_fires_a_remover_in_place(page: Any) -> None:
    page.goto("/new")
    page.evaluate(KEYS_SETUP, [tree(LEGAL), PIECES])
    e1 = page.locator('#board rect.sq[data-square="e1"]')
    assert e1.get_attribute("aria-label") == "e1, White Remover"
    assert page.locator('#board rect.sq[data-square="d1"]').get_attribute("aria-label") == "d1, Black Pawn"
    e1.focus()
    page.keyboard.press("Enter")  # select the Remover...
    assert "selected" in (e1.get_attribute("aria-label") or "")
    page.keyboard.press("Enter")  # ...and fire it where it stands, as a second click does
    assert page.evaluate("window.__moves") == ["e1@(d1,f1)"]


def test_motion_plays_a_chain_step_by_step_and_ends_on_the_position(page: Any) -> None:
    page.goto("/new")
    steps = page.evaluate("""async () => {
      const m = await import('/static/board.js');
      const mo = await import('/static/motion.js');
      document.body.innerHTML = '<div id="board"></div>';
      const view = new m.BoardView(document.getElementById('board'), {width: 8, height: 8});
      const motion = new mo.Motion(view);
      const seen = [];
      view.renderHooks.push((b) => seen.push([...b.pieces.keys()].sort().join(' ')));
      view.setFen('8/2p5/8/3p4/2p5/2L5/8/8 w');
      const move = {actions: [
        {from: 'c3', to: 'c5', kind: 'x', victims: ['c4']},
        {from: 'c5', to: 'e5', kind: 'x', victims: ['d5']}]};
      view.setFen('8/2p5/8/4L3/8/8/8/8 w');  // the board is set to the position after the move
      seen.length = 0;
      const ended = await motion.play('8/2p5/8/3p4/2p5/2L5/8/8 w', move);
      motion.setArrows(mo.moveArrows(move));
      return {ended, seen, arrows: [...document.querySelectorAll('.arrow')].map((a) => a.dataset.arrow),
              animating: view.svg.dataset.animating || null};
    }""")
    assert steps["ended"] is True and steps["animating"] is None
    # before, after the first action, after the second, then the server's position
    assert steps["seen"][0] == "c3 c4 c7 d5"
    assert "c5 c7 d5" in steps["seen"]
    assert steps["seen"][-1] == "c7 e5"
    assert steps["arrows"] == ["c3-c5", "c5-e5"]


def test_analysis_line_follows_the_moves_and_round_trips(page: Any) -> None:
    page.goto("/analysis?variant=fugue")
    page.wait_for_selector('#analysis[data-ply="0"]')
    click(page, "d2")
    click(page, "d3")
    page.wait_for_selector('#analysis[data-ply="1"]')
    click(page, "e7")
    click(page, "e6")
    page.wait_for_selector('#analysis[data-ply="2"]')
    query = parse_qs(urlparse(page.url).query)
    assert query["variant"] == ["fugue"] and query["moves"] == ["d2-d3 e7-e6"]
    fen = page.get_attribute("#analysis", "data-fen")
    assert page.input_value("#fen") == fen
    link = page.url
    page.goto("/")
    page.goto(link)  # the shared link restores the line
    page.wait_for_selector('#analysis[data-ply="2"]')
    assert page.get_attribute("#analysis", "data-fen") == fen
    assert page.locator("#moves .mv").count() == 2
    # a link with a line that does not replay says so and shows the start
    page.goto("/analysis?variant=fugue&moves=" + quote("d2-d3 d2-d4"))
    page.wait_for_selector("#error:has-text('could not be played')")
    assert page.get_attribute("#analysis", "data-ply") == "0"


def test_analyse_from_a_game_carries_the_whole_game(page: Any, server: Server) -> None:
    start = "kK5p/1I6/8/8/8/8/8/P7 w"
    with httpx.Client(base_url=server.url) as c:
        data = create(c, variant="fugue", opponent="friend", color="white", fen=start)
        gid, seats = data["id"], [data["seats"]["white"]["secret"], data["seats"]["black"]["secret"]]
        for i, t in enumerate(["a1-a2", "h8-h7", "a2-a3"]):
            assert (
                c.post(f"/api/games/{gid}/moves", json={"move": t, "secret": seats[i % 2]}).status_code == 200
            )
        # analysis after the game (issue 40): a game between people is analysed once it is over
        assert c.post(f"/api/games/{gid}/resign", json={"secret": seats[1]}).status_code == 200
    page.goto(f"/game/{gid}")
    page.wait_for_selector('#game[data-ply="3"]')
    page.click("#analyse")
    page.wait_for_url("**/analysis?*")
    page.wait_for_selector('#analysis[data-ply="3"]')
    query = parse_qs(urlparse(page.url).query)
    assert query["fen"] == [start] and query["moves"] == ["a1-a2 h8-h7 a2-a3"]
    assert page.locator("#moves .mv").count() == 3


def test_svg_diagram_download(page: Any) -> None:
    page.goto("/analysis?variant=rebelfury")
    page.wait_for_selector('#analysis[data-ply="0"]')
    with page.expect_download() as info:
        page.click("#diagram")
    assert info.value.suggested_filename == "exochess-rebelfury.svg"
    text = Path(info.value.path()).read_text()
    assert text.startswith("<svg") and "Rebel Fury" in text


def test_diagram_refuses_a_bad_fen_with_a_reason(client: httpx.Client) -> None:
    res = client.get("/analysis/diagram.svg", params={"variant": "fugue", "fen": "nonsense"})
    assert res.status_code == 400 and "FEN" in res.json()["error"]
    res = client.get("/analysis/diagram.svg", params={"variant": "nosuchgame"})
    assert res.status_code == 400
    res = client.get("/analysis/diagram.svg", params={"variant": "fugue", "flipped": "true"})
    assert res.status_code == 200 and res.headers["content-type"].startswith("image/svg+xml")


def test_typed_box_only_for_the_player_to_move(browser: Any, server: Server) -> None:
    with httpx.Client(base_url=server.url) as c:
        data = create(c, variant="fugue", opponent="friend", color="white")
    context = browser.new_context(viewport={"width": 1200, "height": 900}, base_url=server.url)
    try:
        white = context.new_page()
        white.goto(data["seats"]["white"]["url"])
        white.wait_for_selector("#game[data-connected='1']")
        assert white.locator("#typed").is_visible()
        other = browser.new_context(base_url=server.url).new_page()  # another browser watches
        other.goto(f"/game/{data['id']}")
        other.wait_for_selector("#game[data-connected='1']")
        assert not other.locator("#typed").is_visible()  # a spectator
        white.fill("#typed-move", "d2-d3")
        white.click("#typed button")
        wait_ply(white, 1)
        assert not white.locator("#typed").is_visible()  # the opponent's turn
        with httpx.Client(base_url=server.url) as c:
            c.post(f"/api/games/{data['id']}/resign", json={"secret": data["seats"]["black"]["secret"]})
        white.wait_for_selector('#game[data-status="finished"]')
        assert not white.locator("#typed").is_visible()  # the game is over
        other.context.close()
    finally:
        context.close()


def test_level_menu_inactive_for_friend_games(page: Any) -> None:
    page.goto("/new")
    assert page.is_enabled("#level")
    page.check('input[name=opponent][value="friend"]')
    assert page.is_disabled("#level")
    page.check('input[name=opponent][value="computer"]')
    assert page.is_enabled("#level")


def test_games_list_counts_moves(page: Any, server: Server) -> None:
    with httpx.Client(base_url=server.url) as c:
        data = create(c, variant="fugue", opponent="friend", color="white")
        gid, seats = data["id"], [data["seats"]["white"]["secret"], data["seats"]["black"]["secret"]]
        for i, t in enumerate(["d2-d3", "e7-e6", "a2-a3"]):
            assert (
                c.post(f"/api/games/{gid}/moves", json={"move": t, "secret": seats[i % 2]}).status_code == 200
            )
    page.goto("/games")
    row = page.locator(f'#recent tr[data-game="{gid}"]')
    row.wait_for()
    assert row.locator("td").nth(4).inner_text() == "2"  # three half-moves: White's second move is on
