"""The game state is the typed model OpenAPI documents (issue 39, item 6): every state the
service encodes, at every stage of a game and in each game, validates against
:class:`GameState` field for field (no field missing, none extra), and the API documents it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from exochess.board import Board
from exochess.variants import all_variants
from exochess.web.app import create_app
from exochess.web.domain import Color
from exochess.web.game.live import LiveGame
from exochess.web.game.service import GameService
from exochess.web.game.statemodel import GameState
from exochess.web.game.timecontrol import TimeControl
from exochess.web.live.hub import Hub
from exochess.web.storage.store import Storage
from tests.web.serverproc import run_async


def checked(svc: GameService, live: LiveGame) -> dict[str, Any]:
    """The encoded state, validated by the model, and the same once decoded by the stdlib."""
    text = svc.reader.state_text(live)
    GameState.model_validate_json(text, strict=False)
    state: dict[str, Any] = json.loads(text)
    assert list(state) == list(GameState.model_fields)  # the same fields, in the model's order
    return state


def test_every_state_of_a_game_is_the_documented_model(tmp_path: Path) -> None:
    async def run() -> None:
        svc = GameService(Storage(f"sqlite:///{tmp_path / 's.sqlite'}"), None, Hub())
        try:
            for variant in all_variants():
                live, seats, _you = await svc.create(
                    variant.name, "friend", None, "white", None, TimeControl.parse("3+2")
                )
                live = await svc.get(live.row.id)
                assert checked(svc, live)["clock"]["running"] is None
                board = Board(variant.name)
                for ply in range(4):
                    text = sorted(str(m) for m in board.legal_moves)[0]
                    board.push_text(text)
                    seat = seats[Color.WHITE if ply % 2 == 0 else Color.BLACK]
                    live = await svc.play(live.row.id, seat, text, ply)
                    state = checked(svc, live)
                    assert state["moves"][-1]["text"] == text and state["legal"]
                await svc.resign(live.row.id, seats[Color.BLACK])
                state = checked(svc, live)
                assert (
                    state["status"] == "finished"
                    and state["legal"] == []
                    and state["clock"]["deadline"] is None
                )
                new, _color, _secret = await svc.rematch(live.row.id, seats[Color.WHITE])
                assert checked(svc, live)["rematch_id"] == new.row.id
                free, free_seats, _you = await svc.create(variant.name, "friend", None, "white", None)
                text = sorted(str(m) for m in Board(variant.name).legal_moves)[0]
                await svc.play(free.row.id, free_seats[Color.WHITE], text, 0)
                await svc.takeback(free.row.id, free_seats[Color.WHITE], "offer")
                state = checked(svc, free)
                assert state["takeback_offer"] == "white" and state["clock"] is None
        finally:
            svc.close()
            svc.storage.close()

    run_async(run)


def test_the_api_documents_the_state(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'site.sqlite'}")
    with TestClient(app) as client:
        spec = client.get("/openapi.json").json()
        ref = spec["paths"]["/api/games/{game_id}"]["get"]["responses"]["200"]["content"]["application/json"][
            "schema"
        ]
        assert ref == {"$ref": "#/components/schemas/GameState"}
        assert set(spec["components"]["schemas"]["GameState"]["properties"]) == set(GameState.model_fields)
        made = client.post("/api/games", json={"variant": "fugue", "opponent": "friend"})
        assert made.status_code == 201, made.text
        GameState.model_validate_json(client.get(f"/api/games/{made.json()['id']}").text)
