"""The board's input logic on synthetic legal-move trees: chains one action at a time (Interweave),
a move whose piece stays on its square (Interweave's Remover), ending a chain early, cancelling,
and a cut tree whose next actions the board fetches.

The board is generic: it only follows the server's tree of legal actions with their changes,
so these trees (built here from whole moves) exercise the client without any game's rules.
"""

from __future__ import annotations

from typing import Any

from tests.web.serverproc import Server


def act(frm: str, to: str, kind: str, victims: list[str], piece: str) -> dict[str, Any]:
    changes = [[frm, ""], *[[v, ""] for v in victims], [to, piece]]
    text = (
        f"{frm}@({','.join(victims)})"
        if kind == "@"
        else (f"{frm}{kind}{to}" + (f"({','.join(victims)})" if victims and victims != [to] else ""))
    )
    return {
        "text": text,
        "from": frm,
        "to": to,
        "kind": kind,
        "victims": victims,
        "promotion": None,
        "changes": changes,
    }


def tree(moves: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The legal-move tree of whole moves, as the server sends it (shared prefixes merged)."""
    roots: list[dict[str, Any]] = []
    for m in moves:
        level = roots
        for i, a in enumerate(m["actions"]):
            node = next((n for n in level if n["text"] == a["text"]), None)
            if node is None:
                node = {**a, "end": False, "next": []}
                level.append(node)
            if i == len(m["actions"]) - 1:
                node["end"] = True
            level = node["next"]
    return roots


def move(*actions: dict[str, Any]) -> dict[str, Any]:
    return {
        "text": ",".join(a["text"] for a in actions),
        "from": actions[0]["from"],
        "to": actions[-1]["to"],
        "victims": [v for a in actions for v in a["victims"]],
        "actions": list(actions),
    }


FIRST = act("c3", "c5", "x", ["c4"], "L")
LEGAL = [
    move(FIRST, act("c5", "e5", "x", ["d5"], "L")),
    move(FIRST, act("c5", "c7", "x", ["c6"], "L")),
    move(act("c3", "a3", "x", ["b3"], "L")),
    move(act("e1", "e1", "@", ["d1", "f1"], "R")),
]
PIECES = {"c3": "L", "c4": "p", "d5": "p", "c6": "p", "b3": "p", "e1": "R", "d1": "p", "f1": "p"}

SETUP = """
async ([legal, pieces, more]) => {
  const m = await import('/static/board.js');
  document.body.innerHTML = '<div id="board"></div>';
  document.getElementById('board').style.width = '480px';  // CSSOM: the page's CSP allows no inline style
  window.__moves = [];
  window.__fetched = [];
  const view = new m.BoardView(document.getElementById('board'),
    {width: 8, height: 8, onMove: (t) => window.__moves.push(t),
     fetchNext: async (prefix) => { window.__fetched.push(prefix); return more[prefix.join(',')]; }});
  view.setPosition(new Map(Object.entries(pieces)));
  view.setLegal(legal);
  window.__view = view;
}
"""


def click(page: Any, square: str) -> None:
    box = page.locator(f'#board rect.sq[data-square="{square}"]').bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def dests(page: Any) -> set[str]:
    return set(page.eval_on_selector_all("#board [data-dest]", "els => els.map(e => e.dataset.dest)"))


def setup(page: Any, moves: list[dict[str, Any]], more: dict[str, Any] | None = None) -> None:
    page.goto("/static/favicon.svg")
    page.goto("/new")
    page.evaluate(SETUP, [tree(moves), PIECES, more or {}])


def test_chain_one_action_at_a_time(page: Any, server: Server) -> None:
    setup(page, LEGAL)
    click(page, "c3")
    assert dests(page) == {"c5", "a3"}
    click(page, "c5")
    page.wait_for_selector(".chain-bar")
    assert "c3xc5(c4)" in page.locator(".chain-bar").inner_text()
    assert page.locator('#board .piece[data-square="c4"]').count() == 0  # first victim gone already
    assert page.locator('#board .piece[data-square="c5"]').count() == 1
    assert dests(page) == {"e5", "c7"}
    assert page.locator(".chain-bar .end-turn").count() == 0  # the chain must go on
    click(page, "e5")
    assert page.evaluate("window.__moves") == ["c3xc5(c4),c5xe5(d5)"]
    assert page.locator(".chain-bar").count() == 0


def test_cancel_and_remover_on_its_own_square(page: Any, server: Server) -> None:
    setup(page, LEGAL)
    click(page, "c3")
    click(page, "c5")
    page.click(".chain-bar .cancel-chain")
    assert page.locator('#board .piece[data-square="c4"]').count() == 1
    click(page, "e1")
    assert "e1" in dests(page)
    click(page, "e1")
    assert page.evaluate("window.__moves") == ["e1@(d1,f1)"]


def test_chain_that_may_stop(page: Any, server: Server) -> None:
    legal = [move(FIRST), *LEGAL[:2]]
    setup(page, legal)
    click(page, "c3")
    click(page, "c5")
    page.click(".chain-bar .end-turn")
    assert page.evaluate("window.__moves") == ["c3xc5(c4)"]


def test_cut_tree_fetches_the_next_actions(page: Any, server: Server) -> None:
    """A large tree arrives cut (``"next": null``): the board asks for what follows the actions
    entered so far, then goes on as with a whole tree."""
    page.goto("/new")
    cut = tree(LEGAL)
    first = next(n for n in cut if n["text"] == FIRST["text"])
    rest = first["next"]
    first["next"] = None
    page.evaluate(SETUP, [cut, PIECES, {FIRST["text"]: rest}])
    click(page, "c3")
    click(page, "c5")
    page.wait_for_selector(".chain-bar")
    assert page.evaluate("window.__fetched") == [[FIRST["text"]]]
    assert dests(page) == {"e5", "c7"}
    click(page, "c7")
    assert page.evaluate("window.__moves") == ["c3xc5(c4),c5xc7(c6)"]
