"""Premoves on the board alone (synthetic legal-move trees, as in test_web_board_input.py): a
move queued while the other side is to move, by clicks or a drag, taken back by a click, a
right click or Escape, and tried when the turn comes: sent when it is one whole legal move,
entered as a chain's first action when the move must go on, dropped when it is not legal."""

from __future__ import annotations

from typing import Any

from tests.web.serverproc import Server
from tests.web.test_web_board_input import FIRST, LEGAL, PIECES, click, dests, move, tree
from tests.web.test_web_browser import drag

SETUP = """
async ([pieces]) => {
  const m = await import('/static/board.js');
  document.body.innerHTML = '<div id="board"></div>';
  document.getElementById('board').style.width = '480px';
  window.__moves = [];
  window.__premoves = [];
  const view = new m.BoardView(document.getElementById('board'),
    {width: 8, height: 8, onMove: (t) => window.__moves.push(t),
     onPremove: (p) => window.__premoves.push(p)});
  view.setPosition(new Map(Object.entries(pieces)));
  view.setLegal([]);
  view.setPremoveSide('white');
  window.__view = view;
}
"""

TURN = "([legal]) => { window.__view.setPremoveSide(null); window.__view.setLegal(legal); return window.__view.playPremove(); }"


def setup(page: Any) -> None:
    page.goto("/new")
    page.evaluate(SETUP, [PIECES])


def premove_squares(page: Any) -> list[str]:
    return list(page.eval_on_selector_all("#board [data-premove]", "els => els.map(e => e.dataset.premove)"))


def turn_comes(page: Any, moves: list[dict[str, Any]]) -> bool:
    return bool(page.evaluate(TURN, [tree(moves)]))


def test_premove_by_clicks_is_sent_when_it_is_a_whole_legal_move(page: Any, server: Server) -> None:
    setup(page)
    click(page, "c4")  # not one's own piece (Black's pawn): nothing happens
    assert page.locator("#board rect.selected").count() == 0
    click(page, "c3")
    assert page.locator("#board rect.selected[x]").count() == 1
    assert dests(page) == set()  # no destinations are known before the turn comes
    click(page, "a3")
    assert premove_squares(page) == ["c3", "a3"]
    assert page.evaluate("window.__premoves") == [{"from": "c3", "to": "a3"}]
    assert page.evaluate("window.__moves") == []
    assert turn_comes(page, LEGAL)
    assert page.evaluate("window.__moves") == ["c3xa3(b3)"]
    assert premove_squares(page) == []


def test_premove_that_must_go_on_opens_the_chain(page: Any, server: Server) -> None:
    setup(page)
    drag(page, "c3", "c5")
    assert premove_squares(page) == ["c3", "c5"]
    assert turn_comes(page, LEGAL)
    page.wait_for_selector(".chain-bar")
    assert page.evaluate("window.__moves") == []  # the player chooses how the chain goes on
    assert dests(page) == {"e5", "c7"}
    click(page, "c7")
    assert page.evaluate("window.__moves") == ["c3xc5(c4),c5xc7(c6)"]


def test_premove_that_may_stop_is_played_as_it_stands(page: Any, server: Server) -> None:
    setup(page)
    click(page, "c3")
    click(page, "c5")
    assert turn_comes(page, [move(FIRST), *LEGAL[:2]])
    assert page.evaluate("window.__moves") == ["c3xc5(c4)"]
    assert page.locator(".chain-bar").count() == 0


def test_premove_not_legal_when_the_turn_comes_is_dropped(page: Any, server: Server) -> None:
    setup(page)
    click(page, "e1")
    click(page, "e8")
    assert premove_squares(page) == ["e1", "e8"]
    assert not turn_comes(page, LEGAL)
    assert page.evaluate("window.__moves") == []
    assert premove_squares(page) == []
    # the player moves by hand as usual
    click(page, "e1")
    assert dests(page) == {"e1"}


def test_premove_taken_back(page: Any, server: Server) -> None:
    setup(page)
    click(page, "c3")
    click(page, "a3")
    click(page, "h8")  # a click anywhere takes it back
    assert premove_squares(page) == []
    click(page, "c3")
    click(page, "a3")
    box = page.locator('#board rect.sq[data-square="d4"]').bounding_box()
    page.mouse.click(box["x"] + 10, box["y"] + 10, button="right")
    assert premove_squares(page) == []
    click(page, "c3")
    click(page, "a3")
    click(page, "e1")  # on one's own piece: taken back, and that piece picked
    assert premove_squares(page) == []
    click(page, "e8")
    assert premove_squares(page) == ["e1", "e8"]
    page.evaluate("window.__view.cancelInput()")  # what Escape does
    assert premove_squares(page) == []
    assert page.evaluate("window.__premoves").count(None) == 4
    assert not turn_comes(page, LEGAL)
    assert page.evaluate("window.__moves") == []


def test_no_premove_without_a_side(page: Any, server: Server) -> None:
    setup(page)
    page.evaluate("window.__view.setPremoveSide(null)")
    click(page, "c3")
    click(page, "a3")
    assert premove_squares(page) == []
    assert page.locator("#board rect.selected").count() == 0
    # a Black premove picks Black's pieces only
    page.evaluate("window.__view.setPremoveSide('black')")
    click(page, "c3")
    assert page.locator("#board rect.selected").count() == 0
    click(page, "c4")
    click(page, "c2")
    assert premove_squares(page) == ["c4", "c2"]
