"""The site's analysis board without a ``variant`` shows the default game (one definition:
``exochess.variants.default_variant``); a wrong one is still a clear 400."""

from __future__ import annotations

import httpx

from exochess import Board
from exochess.variants import default_variant


def test_position_without_a_variant_is_the_default_game(client: httpx.Client) -> None:
    pos = client.post("/api/position", json={"moves": []}).json()
    assert pos["fen"] == Board(default_variant()).fen()
    res = client.post("/api/position", json={"variant": "nonsense"})
    assert res.status_code == 400 and "nonsense" in res.json()["error"]


def test_analysis_page_and_diagram_without_a_variant(client: httpx.Client) -> None:
    assert client.get("/analysis").status_code == 200
    svg = client.get("/analysis/diagram.svg")
    assert svg.status_code == 200 and svg.text.startswith("<svg")
    named = client.get("/analysis/diagram.svg", params={"variant": default_variant().name})
    assert named.text == svg.text
    assert client.get("/analysis/diagram.svg", params={"variant": "nonsense"}).status_code == 400
