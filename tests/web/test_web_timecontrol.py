"""Time controls: the text form, and a game created with one over the API keeps it."""

from __future__ import annotations

import httpx
import pytest

from exochess.web.game.timecontrol import NO_CLOCK, REALTIME_PRESETS, TimeControl, TimeControlKind
from tests.web.serverproc import create


@pytest.mark.parametrize("text", [*REALTIME_PRESETS, "0.25+0", "0+1", "180+180", "1d", "14d", "-"])
def test_text_form_round_trips(text: str) -> None:
    control = TimeControl.parse(text)
    assert control.text == text
    assert TimeControl.parse(control.text) == control


def test_values() -> None:
    assert TimeControl.parse("5+3") == TimeControl(
        TimeControlKind.REALTIME, base_ms=300_000, increment_ms=3_000
    )
    assert TimeControl.parse("7d") == TimeControl(TimeControlKind.CORRESPONDENCE, days=7)
    assert TimeControl.parse(" none ") is NO_CLOCK
    assert [TimeControl.parse(t).speed for t in ("0.25+0", "1+0", "3+2", "10+5", "30+20", "2d")] == [
        "ultrabullet",
        "bullet",
        "blitz",
        "rapid",
        "classical",
        "correspondence",
    ]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("0+0", "some time or an increment"),
        ("181+0", "at most 180 minutes"),
        ("1.3+0", "minutes must be whole"),
        ("3+181", "seconds of increment"),
        ("4d", "days per move must be one of"),
        ("3+²", "not understood"),
        ("fast", "not understood"),
        ("-3+2", "not understood"),
    ],
)
def test_bad_text_names_the_problem(text: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        TimeControl.parse(text)


def test_game_keeps_its_time_control(client: httpx.Client) -> None:
    data = create(client, variant="fugue", opponent="friend", time_control="3+2")
    assert data["state"]["time_control"]["text"] == "3+2"
    assert data["state"]["time_control"]["base_ms"] == 180_000
    game_id = data["id"]
    assert client.get(f"/api/games/{game_id}").json()["time_control"]["speed"] == "blitz"
    listed = client.get("/api/games", params={"ids": game_id}).json()["games"]
    assert listed[0]["time_control"] == "3+2"
    plain = create(client, variant="fugue", opponent="friend")
    assert plain["state"]["time_control"]["kind"] == "none"


def test_bad_time_control_is_refused_and_nothing_stored(client: httpx.Client) -> None:
    before = client.get("/api/games", params={"limit": 1}).json()["games"]
    res = client.post("/api/games", json={"variant": "fugue", "opponent": "friend", "time_control": "0+0"})
    assert res.status_code == 400
    assert "time control 0+0" in res.json()["error"]
    res = client.post("/api/games", json={"variant": "fugue", "opponent": "friend", "time_control": 3})
    assert res.status_code == 400
    assert "time_control" in res.json()["error"]
    assert client.get("/api/games", params={"limit": 1}).json()["games"] == before
