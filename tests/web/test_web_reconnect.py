"""Issue 19 item 5: a dropped connection is shown ("reconnecting…", grey presence dots, inputs
off), recovery clears the error left from before, and a move is never lost nor played twice
when the connection drops in the middle of it (the move carries its ply).

The page's websocket goes through Playwright's routing to the real server on 127.0.0.1, so a
test can cut it, refuse new ones, or cut it between a move and its answer.
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from tests.web.serverproc import Server, create
from tests.web.test_web_browser import click, wait_ply

SOCKET = "**/ws/games/*"


class Relay:
    """Every page socket relayed to the server; records the moves the page sends, can refuse new
    sockets, and can cut a socket once at the page's next move (before or after forwarding it)."""

    def __init__(self) -> None:
        self.open = True
        self.cut_at_move: str | None = None  # "before": the move is lost; "after": its answer is
        self.moves: list[dict[str, Any]] = []
        self.links: list[tuple[Any, Any]] = []

    def __call__(self, ws: Any) -> None:
        if not self.open:
            ws.close()
            return
        server = ws.connect_to_server()
        self.links.append((ws, server))

        def from_page(message: str | bytes) -> None:
            data = json.loads(message)
            if data.get("type") == "move":
                self.moves.append(data)
                if self.cut_at_move is not None:
                    when, self.cut_at_move = self.cut_at_move, None
                    if when == "after":
                        server.send(message)
                    ws.close()
                    server.close()
                    return
            server.send(message)

        ws.on_message(from_page)
        server.on_message(lambda message: ws.send(message))

    def drop_all(self) -> None:
        for ws, server in self.links:
            ws.close()
            server.close()
        self.links.clear()


def friend_game(page: Any, server: Server) -> tuple[dict[str, Any], Relay]:
    with httpx.Client(base_url=server.url) as c:
        data = create(c, variant="fugue", opponent="friend", color="white")
    relay = Relay()
    page.route_web_socket(SOCKET, relay)
    page.goto(data["seats"]["white"]["url"])
    page.wait_for_selector("#game[data-link='online']")
    return data, relay


def test_offline_state_and_recovery(page: Any, server: Server) -> None:
    _data, relay = friend_game(page, server)
    page.fill("#typed-move", "d2-d9")  # an error from before the drop
    page.click("#typed button")
    page.wait_for_selector("#error:not(:empty)")
    assert page.locator("#players .dot.on").count() == 1  # White (this page); Black has not come
    relay.open = False
    relay.drop_all()
    page.wait_for_selector("#game[data-link='reconnecting']")
    assert page.locator("#connection").is_visible()
    assert "reconnecting" in page.locator("#status").inner_text()
    assert page.locator("#players .dot.on").count() == 0  # presence is unknown while offline
    # no input while offline: no piece to pick, no box to type in, no button that needs the server
    click(page, "d2")
    assert page.locator("#board [data-dest]").count() == 0
    assert not page.locator("#typed").is_visible()
    assert page.is_disabled("#resign") and page.is_disabled("#takeback")
    relay.open = True
    page.wait_for_selector("#game[data-link='online']", timeout=20000)
    assert page.locator("#error").inner_text() == ""  # recovery clears the error
    assert not page.locator("#connection").is_visible()
    assert page.locator("#players .dot.on").count() == 1
    assert page.locator("#status").inner_text() == "Your move"
    click(page, "d2")
    click(page, "d3")
    wait_ply(page, 1)


def test_a_move_whose_answer_is_lost_is_not_played_twice(page: Any, server: Server) -> None:
    data, relay = friend_game(page, server)
    relay.cut_at_move = "after"  # the server gets the move, the page never hears back
    click(page, "d2")
    click(page, "d3")
    wait_ply(page, 1)  # after reconnecting, the state shows the move stored
    page.wait_for_selector("#game[data-link='online']")
    state = httpx.get(f"{server.url}/api/games/{data['id']}").json()
    assert [m["text"] for m in state["moves"]] == ["d2-d3"]
    assert [m["move"] for m in relay.moves] == ["d2-d3"]  # and the page did not send it again
    assert relay.moves[0]["ply"] == 0
    assert page.locator("#error").inner_text() == ""


def test_a_move_lost_on_the_way_is_sent_again_once(page: Any, server: Server) -> None:
    data, relay = friend_game(page, server)
    relay.cut_at_move = "before"  # the connection drops before the move reaches the server
    click(page, "d2")
    click(page, "d3")
    wait_ply(page, 1)  # sent again on reconnecting, for the same ply
    state = httpx.get(f"{server.url}/api/games/{data['id']}").json()
    assert [m["text"] for m in state["moves"]] == ["d2-d3"]
    assert [(m["move"], m["ply"]) for m in relay.moves] == [("d2-d3", 0), ("d2-d3", 0)]
    assert page.locator("#error").inner_text() == ""
    page.wait_for_selector("#game[data-link='online']")
    assert "waiting" in page.locator("#status").inner_text()
