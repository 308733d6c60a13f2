"""Reading the legal-move tree the site sends (see ``exochess.web.game.positions.legal_tree``)."""

from __future__ import annotations

from typing import Any


def whole_moves(nodes: list[dict[str, Any]], done: tuple[dict[str, Any], ...] = ()) -> list[dict[str, Any]]:
    """Every legal move of an uncut tree, written out whole: ``text``, ``from``, ``to``,
    ``victims`` and its ``actions`` (the tree's nodes along its path)."""
    out = []
    for node in nodes:
        path = (*done, node)
        if node["end"]:
            out.append(
                {
                    "text": ",".join(a["text"] for a in path),
                    "from": path[0]["from"],
                    "to": path[-1]["to"],
                    "victims": [v for a in path for v in a["victims"]],
                    "actions": list(path),
                }
            )
        if node["next"] is None:
            raise AssertionError(f"the tree is cut after {node['text']}")
        out.extend(whole_moves(node["next"], path))
    return out


def node_count(nodes: list[dict[str, Any]] | None) -> int:
    """Nodes of a (possibly cut) tree."""
    return sum(1 + node_count(n["next"]) for n in nodes or [])
