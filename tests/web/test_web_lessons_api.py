"""The lessons' JSON API and pages: a learner's moves judged by the server, progress kept in the
account, the course's pages and the links to them (docs/lessons.md)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from exochess.lessons import course_path, load_course, solve
from exochess.variants import all_variants
from exochess.web.accounts.progress import progress_of, record_stars
from exochess.web.accounts.users import Accounts
from exochess.web.storage.store import Storage
from tests.web.serverproc import Server
from tests.web.test_web_accounts import fresh_name

GAMES = [v.name for v in all_variants() if course_path(v).is_file()]


@pytest.fixture()
def learner(server: Server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=30.0, headers={"Origin": server.url}) as c:
        res = c.post(
            "/api/account/signup", json={"name": fresh_name("learner"), "password": "a long password"}
        )
        assert res.status_code == 201, res.text
        yield c


@pytest.mark.parametrize("game", GAMES)
def test_the_server_judges_any_solving_line_and_a_wrong_move(client: httpx.Client, game: str) -> None:
    course = load_course(game)
    assert course is not None
    stage = course.stages[0]
    exercise = stage.exercises[0]
    line = solve(game, exercise)
    assert line
    url = f"/api/learn/{game}/{stage.id}/1"
    start = client.post(url, json={"moves": []}).json()
    assert start["status"] == "playing" and start["used"] == 0 and start["position"]["legal"]
    solved = client.post(url, json={"moves": line}).json()
    assert solved["status"] == "solved" and solved["stars"] == 3 and solved["position"]["legal"] == []
    # earlier failed attempts cost stars
    assert client.post(url, json={"moves": line, "spent": 1}).json()["stars"] == 2
    assert client.post(url, json={"moves": line, "spent": 9}).json()["stars"] == 1
    legal = [m for m in start["position"]["legal"]]
    assert legal


def test_a_wrong_move_fails_and_bad_input_is_refused(client: httpx.Client) -> None:
    url = "/api/learn/fugue/king/1"  # the King takes the pawn on d5
    failed = client.post(url, json={"moves": ["d4-e5"]}).json()
    assert failed["status"] == "failed" and failed["reason"] == "too many moves" and failed["stars"] == 0
    cases = [
        (client.post(url, json={"moves": ["d4-d9"]}), 422, "d9 is not on the 8x8 board"),
        (client.post(url, json={"moves": ["d4xd5", "h8-g8"]}), 400, "the exercise is over"),
        (client.post(url, json={"moves": "d4xd5"}), 400, "'moves'"),
        (client.post(url, json={"moves": ["d4xd5"] * 9}), 400, "'moves'"),
        (client.post("/api/learn/fugue/king/9", json={}), 404, "no such lesson"),
        (client.post("/api/learn/fugue/nothing/1", json={}), 404, "no such lesson"),
        (client.post("/api/learn/chess/king/1", json={}), 404, "no game of that name"),
    ]
    for res, status, words in cases:
        assert res.status_code == status, res.text
        assert words in res.json()["error"]


def test_an_interweave_chain_is_offered_action_by_action(client: httpx.Client) -> None:
    # chains stage, first exercise: the King's three-capture chain starts with d4xd6(d5)
    res = client.post("/api/learn/interweave/chains/1", json={"moves": [], "prefix": ["d4xd6(d5)"]}).json()
    assert sorted(a["text"] for a in res["position"]["legal"]) == ["d6xb6(c6)", "d6xd8(d7)", "d6xf6(e6)"]
    bad = client.post("/api/learn/interweave/chains/1", json={"moves": [], "prefix": ["a1-a2"]})
    assert bad.status_code in (400, 422) and "error" in bad.json()


def test_a_guest_keeps_progress_in_the_browser_only(client: httpx.Client, server: Server) -> None:
    assert client.get("/api/learn/progress").json() == {"signed_in": False, "progress": {}}
    with httpx.Client(base_url=server.url, headers={"Origin": server.url}) as c:
        res = c.post("/api/learn/progress", json={"variant": "fugue", "stage": "king", "stars": 3})
        assert res.json() == {"saved": False, "stars": 3}


def test_an_account_keeps_the_best_stars_of_each_stage(learner: httpx.Client) -> None:
    def save(stage: str, stars: int, variant: str = "rebelfury") -> httpx.Response:
        return learner.post("/api/learn/progress", json={"variant": variant, "stage": stage, "stars": stars})

    assert save("advancer", 2).json() == {"saved": True, "stars": 2}
    assert save("advancer", 1).json() == {"saved": True, "stars": 2}  # a worse replay keeps the best
    assert save("advancer", 3).json() == {"saved": True, "stars": 3}
    assert save("king", 1, "fugue").json()["saved"]
    assert learner.get("/api/learn/progress").json() == {
        "signed_in": True,
        "progress": {"rebelfury": {"advancer": 3}, "fugue": {"king": 1}},
    }
    for res, status in [
        (save("nothing", 3), 404),
        (save("advancer", 4), 400),
        (save("advancer", 0), 400),
        (save("advancer", 3, "chess"), 404),
    ]:
        assert res.status_code == status, res.text
        assert "error" in res.json()


def test_the_pages_and_the_links_to_them(client: httpx.Client) -> None:
    index = client.get("/learn").text
    home = client.get("/").text
    for game in GAMES:
        course = load_course(game)
        assert course is not None
        assert f'href="/learn/{game}"' in index and f'href="/learn/{game}"' in home
        page = client.get(f"/learn/{game}").text
        for stage in course.stages:
            assert f'href="/learn/{game}/{stage.id}"' in page
            assert client.get(f"/learn/{game}/{stage.id}").status_code == 200
        assert client.get(f"/practice/{game}").status_code == 200
        rules = client.get(f"/rules/{game}").text
        linked = {s.id for s in course.stages if f'href="/learn/{game}/{s.id}"' in rules}
        assert linked == {s.id for s in course.stages if s.rules_section}
        french = client.get(f"/rules/{game}", headers={"Cookie": "lang=fr"}).text
        assert "learn-link" in french and "Apprendre" in french
    assert client.get("/learn/chess").status_code == 404
    assert client.get("/learn/fugue/nothing").status_code == 404
    assert client.get("/practice/chess").status_code == 404


def test_the_practice_page_lists_wins_and_holds(client: httpx.Client) -> None:
    for game in GAMES:
        course = load_course(game)
        assert course is not None
        page = client.get(f"/practice/{game}").text
        for position in course.practice:
            assert f'data-id="{position.id}"' in page
        holds = [p for p in course.practice if p.goal == "hold"]
        assert page.count('data-goal="hold"') == len(holds) >= 2
        assert page.count('data-goal="win"') == len(course.practice) - len(holds)
        assert f"Hold: do not lose during your next {holds[0].moves} moves." in page
        french = client.get(f"/practice/{game}", headers={"Cookie": "lang=fr"}).text
        assert f"Tenir : ne perdez pas pendant vos {holds[0].moves} prochains coups." in french
        assert holds[0].hint.get("fr") in french.replace("&#39;", "'")


def test_closing_the_account_forgets_its_progress(tmp_path: Path) -> None:
    storage = Storage(f"sqlite:///{tmp_path / 'progress.sqlite'}")
    try:
        accounts = Accounts(storage.engine)
        leaver, stayer = (
            accounts.create("leaver", "a long password"),
            accounts.create("stayer", "a long password"),
        )
        for user in (leaver, stayer):
            assert record_stars(storage.engine, user.id, "fugue", "king", 2) == 2
        assert record_stars(storage.engine, leaver.id, "fugue", "king", 1) == 2  # the best stays
        accounts.delete(leaver, "a long password")
        assert progress_of(storage.engine, leaver.id) == {}
        assert progress_of(storage.engine, stayer.id) == {"fugue": {"king": 2}}
    finally:
        storage.close()
