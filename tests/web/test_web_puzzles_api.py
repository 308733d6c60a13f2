"""The puzzles' JSON API and pages (issue 44 item 3): a puzzle served near the player's puzzle
rating, the solution's line solving it with the replies played by the server, a wrong move
failing it, the ratings of the account and of the puzzle moved by the result (a guest's
computed, nothing stored), themes, the daily puzzle, streaks, the solution, the history on the
profile, and bad input refused with a clear 4xx."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from exochess.puzzles import THEMES, Puzzle, load_puzzles
from exochess.web.puzzles import catalogue
from exochess.web.puzzles.judge import CHECK, SOLVED, Verdict, judge
from exochess.web.puzzles.service import DECISIVE_CP, engine_accepts
from tests.web.puzzlehelp import GAMES, losing_move, puzzle_of, solver_moves
from tests.web.serverproc import Server
from tests.web.test_web_accounts import fresh_name

pytestmark = pytest.mark.skipif(not GAMES, reason="no game has puzzles")


@pytest.fixture()
def player(server: Server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=120.0, headers={"Origin": server.url}) as c:
        res = c.post(
            "/api/account/signup", json={"name": fresh_name("solver"), "password": "a long password"}
        )
        assert res.status_code == 201, res.text
        yield c


@pytest.fixture()
def guest(server: Server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=120.0, headers={"Origin": server.url}) as c:
        yield c


def attempt(c: httpx.Client, puzzle: Puzzle, moves: list[str], **extra: object) -> dict[str, Any]:
    res = c.post(f"/api/puzzles/{puzzle.variant}/{puzzle.id}/attempt", json={"moves": moves, **extra})
    assert res.status_code == 200, res.text
    return res.json()  # type: ignore[no-any-return]


def failable(c: httpx.Client, game: str) -> tuple[Puzzle, dict[str, Any], str]:
    """A puzzle served to ``c`` that has a move other than the solution's, with a losing one."""
    for _ in range(20):
        puzzle, data = served(c, game)
        wrong = losing_move(puzzle)
        if wrong is not None:
            return puzzle, data, wrong
    raise AssertionError("every puzzle served has a single legal move")


def served(c: httpx.Client, game: str, **params: str | int) -> tuple[Puzzle, dict[str, Any]]:
    res = c.get(f"/api/puzzles/{game}/next", params=params)
    assert res.status_code == 200, res.text
    data = res.json()
    return puzzle_of(game, data["id"]), data


# --- units --------------------------------------------------------------------------------------


def test_every_theme_has_a_name_on_the_site() -> None:
    assert set(THEMES) <= set(catalogue.THEME_NAMES), set(THEMES) - set(catalogue.THEME_NAMES)


def test_a_puzzle_is_picked_among_those_nearest_the_target() -> None:
    puzzles = [
        Puzzle(f"p{r}", "fugue", "8/8/8/8/8/8/8/8 w", ["a1-a2"], r, ["one-move"])
        for r in range(600, 2600, 50)
    ]
    rng = random.Random(1)
    for target in (400, 1500, 3000):
        picked = {catalogue.pick(puzzles, {}, target, rng=rng, nearest=3).rating for _ in range(40)}
        nearest = sorted(puzzles, key=lambda p: abs(p.rating - target))[:3]
        assert picked <= {p.rating for p in nearest}
    # the site's own ratings count, not the file's; played ones are left out while others remain
    assert catalogue.pick(puzzles, {"p600": 3000.0}, 3000, nearest=1).id == "p600"
    assert catalogue.pick(puzzles, {}, 600, exclude={"p600"}, nearest=1).id == "p650"
    assert catalogue.pick(puzzles[:1], {}, 600, exclude={"p600"}, nearest=1).id == "p600"
    day = dt.date(2026, 11, 29)
    assert catalogue.daily(puzzles, "fugue", day) == catalogue.daily(list(reversed(puzzles)), "fugue", day)
    assert catalogue.streak_target(0) < catalogue.streak_target(1) < catalogue.streak_target(10)


def test_the_judge_accepts_another_move_that_captures_the_royal_at_once() -> None:
    # the King and the Queen can both take the King: the solution names one, the other wins as
    # clearly; a quiet move is left for the engine to judge
    puzzle = Puzzle("two", "fugue", "3k4/4K3/8/8/8/8/8/3Q4 w", ["d1xd8"], 800, ["royal-capture-in-1"])
    assert judge(puzzle, ["d1xd8"])[0].status == SOLVED
    verdict, board = judge(puzzle, ["e7xd8"])
    assert verdict.status == SOLVED and verdict.alternative and board.outcome() is not None
    quiet = judge(puzzle, ["d1-a1"])[0]
    assert quiet.status == CHECK and quiet.ends_game and quiet.remaining == 0


def test_the_engine_accepts_a_move_that_wins_as_clearly() -> None:
    # the engine scores for the side to move, here the solver's opponent: mate -2 is a capture of
    # its royal two plies on, as after the first move of a royal capture in two
    mate_line = Verdict(CHECK, ["x"], departed=0, ends_game=True, remaining=2)
    assert engine_accepts(mate_line, {"mate": -2, "score_cp": -99998})
    assert not engine_accepts(mate_line, {"mate": -4, "score_cp": -99996})  # slower than the solution
    assert not engine_accepts(mate_line, {"mate": None, "score_cp": -900})  # only material
    assert not engine_accepts(
        Verdict(CHECK, ["x"], departed=2, ends_game=True), {"mate": 2, "score_cp": 99998}
    )
    material = Verdict(CHECK, ["x"], departed=0, ends_game=False, remaining=2)
    assert engine_accepts(material, {"mate": -6, "score_cp": -99994})  # a forced win beats material
    assert not engine_accepts(material, {"mate": None, "score_cp": -DECISIVE_CP + 1})
    assert engine_accepts(material, {"mate": None, "score_cp": -500}) is None  # compared with the solution's
    assert engine_accepts(material, {"mate": None, "score_cp": -500}, {"mate": None, "score_cp": -600})
    assert not engine_accepts(material, {"mate": None, "score_cp": -500}, {"mate": None, "score_cp": -900})
    assert not engine_accepts(material, {"mate": None, "score_cp": -500}, {"mate": -3, "score_cp": -99997})


# --- the API ------------------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_a_puzzle_is_served_near_the_guests_rating(guest: httpx.Client, game: str) -> None:
    if len(load_puzzles(game)) < 2 * catalogue.NEAREST:
        pytest.skip("too few puzzles to tell the ratings apart")
    low = [served(guest, game, rating=400)[1] for _ in range(4)]
    high = [served(guest, game, rating=3000)[1] for _ in range(4)]
    assert max(p["rating"] for p in low) <= min(p["rating"] for p in high)
    assert all(p["target"] == 400 for p in low) and all(p["target"] == 3000 for p in high)
    first = low[0]
    assert first["position"]["fen"] == first["fen"] and first["position"]["legal"]
    assert "solution" not in first and first["color"] in ("white", "black")
    # puzzles the guest played lately (sent by the browser) are not served again
    seen = {p["id"] for p in low}
    again = served(guest, game, rating=400, exclude=",".join(seen))[1]
    assert again["id"] not in seen


@pytest.mark.parametrize("game", GAMES)
def test_the_solutions_line_solves_and_the_replies_play_themselves(guest: httpx.Client, game: str) -> None:
    puzzle, _data = served(guest, game)
    mine = solver_moves(puzzle)
    for n in range(1, len(mine)):
        step = attempt(guest, puzzle, mine[:n])
        assert step["status"] == "playing"
        assert step["line"] == puzzle.solution[: 2 * n]  # the opponent's reply came with it
        assert step["position"]["legal"] and step["rating"] is None
    done = attempt(guest, puzzle, mine, guest={"rating": 1500, "rd": 300, "volatility": 0.06})
    assert done["status"] == "solved" and not done["alternative"]
    assert done["line"] == puzzle.solution and done["position"]["legal"] == []
    assert done["rated"] and done["rating"]["rating"] > 1500 and done["rating"]["diff"] > 0


def test_a_wrong_move_fails_and_a_guest_changes_nothing_stored(guest: httpx.Client) -> None:
    game = GAMES[0]
    puzzle, data, wrong = failable(guest, game)
    failed = attempt(guest, puzzle, [wrong], guest={"rating": 1500})
    assert failed["status"] == "failed" and failed["line"] == [wrong]
    assert failed["rating"]["rating"] < 1500 and failed["rating"]["diff"] < 0
    # no more moves after the end; the puzzle's rating did not move for a guest
    res = guest.post(f"/api/puzzles/{game}/{puzzle.id}/attempt", json={"moves": [wrong, puzzle.solution[0]]})
    assert res.status_code == 400 and "over" in res.json()["error"]
    assert guest.get(f"/api/puzzles/{game}/{puzzle.id}").json()["rating"] == data["rating"]
    assert guest.get("/api/puzzles/player").json() == {"signed_in": False, "games": {}}


def test_an_accounts_result_moves_its_rating_and_the_puzzles(player: httpx.Client) -> None:
    game = GAMES[0]
    start = player.get("/api/puzzles/player").json()["games"][game]
    assert start["rating"] == 1500 and start["plays"] == 0
    puzzle, data = served(player, game)
    solved = attempt(player, puzzle, solver_moves(puzzle))
    assert solved["status"] == "solved" and solved["rated"]
    assert solved["rating"]["before"] == 1500 and solved["rating"]["rating"] > 1500
    assert solved["puzzle_rating"] < data["rating"] or data["rating"] < 1000  # the puzzle lost
    after_win = player.get(f"/api/puzzles/{game}/{puzzle.id}").json()["rating"]
    assert after_win == solved["puzzle_rating"]
    # a replay of the same puzzle is kept but not rated
    again = attempt(player, puzzle, solver_moves(puzzle))
    assert not again["rated"] and again["rating"]["rating"] == solved["rating"]["rating"]
    # the next puzzle served is another one, and failing it costs rating and gives the puzzle some
    other, other_data, wrong = failable(player, game)
    assert other.id != puzzle.id
    failed = attempt(player, other, [wrong])
    assert failed["status"] == "failed" and failed["rated"]
    assert failed["rating"]["rating"] < solved["rating"]["rating"]
    assert failed["puzzle_rating"] > other_data["rating"]
    me = player.get("/api/puzzles/player").json()["games"][game]
    assert me["plays"] == 3 and me["rating"] == failed["rating"]["rating"]


def test_the_profile_lists_solved_and_failed_puzzles(player: httpx.Client) -> None:
    game = GAMES[0]
    name = player.get("/api/account").json()["name"]
    puzzle, _ = served(player, game)
    attempt(player, puzzle, solver_moves(puzzle))
    other, _ = served(player, game)
    res = player.post(f"/api/puzzles/{game}/{other.id}/solution", json={"moves": []})
    assert res.status_code == 200 and res.json()["recorded"]  # given up: a failure
    assert res.json()["solution"] == other.solution
    assert res.json()["position"]["fens"][0].split()[0] == other.fen.split()[0]
    profile = player.get(f"/api/users/{name}").json()["puzzles"]
    history = [(p["puzzle_id"], p["solved"]) for p in profile["history"]]
    assert history == [(other.id, False), (puzzle.id, True)]
    assert profile["ratings"][0]["variant"] == game and profile["ratings"][0]["plays"] == 2
    page = player.get(f"/@/{name}").text
    assert f'data-puzzle="{puzzle.id}" data-solved="true"' in page
    assert f'data-puzzle="{other.id}" data-solved="false"' in page


def test_a_players_puzzle_history_is_theirs_alone(player: httpx.Client, guest: httpx.Client) -> None:
    """Others see the puzzle rating on the profile, never which puzzles were failed."""
    game = GAMES[0]
    name = player.get("/api/account").json()["name"]
    puzzle, _ = served(player, game)
    attempt(player, puzzle, solver_moves(puzzle))
    assert player.get(f"/api/users/{name}").json()["puzzles"]["history"]
    seen = guest.get(f"/api/users/{name}").json()["puzzles"]
    assert seen["history"] is None and seen["ratings"][0]["plays"] == 1
    page = guest.get(f"/@/{name}").text
    assert 'id="puzzle-ratings"' in page and 'id="puzzle-history"' not in page
    assert puzzle.id not in page


def test_themes_filter_the_puzzles(guest: httpx.Client) -> None:
    game = GAMES[0]
    counts = catalogue.theme_counts(load_puzzles(game))
    theme = min(counts, key=lambda t: counts[t])  # the rarest: a real filter
    for _ in range(3):
        _puzzle, data = served(guest, game, theme=theme)
        assert theme in data["themes"]
    absent = [t for t in THEMES if t not in counts]
    if absent:
        res = guest.get(f"/api/puzzles/{game}/next", params={"theme": absent[0]})
        assert res.status_code == 404 and "theme" in res.json()["error"]
    res = guest.get(f"/api/puzzles/{game}/next", params={"theme": "no-such-theme"})
    assert res.status_code == 400 and "no-such-theme" in res.json()["error"]
    index = guest.get("/api/puzzles").json()
    assert index["games"][0]["themes"] == counts and set(index["themes"]) == set(THEMES)
    page = guest.get(f"/puzzles/{game}", params={"theme": theme})
    assert page.status_code == 200 and f'<option value="{theme}" selected>' in page.text


def test_the_daily_puzzle_is_the_same_all_day(guest: httpx.Client) -> None:
    for game in GAMES:
        first = guest.get(f"/api/puzzles/{game}/daily").json()
        second = guest.get(f"/api/puzzles/{game}/daily").json()
        day = dt.date.fromisoformat(first["day"])
        assert first["id"] == second["id"] == catalogue.daily(load_puzzles(game), game, day).id
    home = guest.get("/").text
    for game in GAMES:
        daily = catalogue.daily(load_puzzles(game), game, catalogue.today())
        assert f'data-puzzle="{daily.id}"' in home and f'href="/puzzles/{game}/daily"' in home


def test_a_streak_rises_in_difficulty_and_keeps_the_best(player: httpx.Client) -> None:
    game = GAMES[0]
    first, data = served(player, game, streak=0)
    assert data["target"] == catalogue.streak_target(0)
    solved = attempt(player, first, solver_moves(first), mode="streak", streak=0)
    assert solved["status"] == "solved" and not solved["rated"] and solved["best_streak"] == 1
    assert solved["rating"]["rating"] == 1500  # a streak is never rated
    _second, later = served(player, game, streak=5, exclude=first.id)
    assert later["target"] == catalogue.streak_target(5) > data["target"]
    assert player.get("/api/puzzles/player").json()["games"][game]["best_streak"] == 1


def test_puzzle_moves_are_rate_limited(tmp_path: Path) -> None:
    game = GAMES[0]
    puzzle = load_puzzles(game)[0]
    srv = Server(tmp_path / "limited.sqlite", env={"EXOCHESS_RATE_LIMITS": "puzzles=3/minute"}).start()
    try:
        with httpx.Client(base_url=srv.url, timeout=120.0, headers={"Origin": srv.url}) as c:
            url = f"/api/puzzles/{game}/{puzzle.id}/attempt"
            answers = [c.post(url, json={"moves": []}) for _ in range(4)]
            assert [a.status_code for a in answers] == [200, 200, 200, 429]
            assert "puzzle moves" in answers[-1].json()["error"] and answers[-1].headers["Retry-After"]
            assert c.get(f"/api/puzzles/{game}/next").status_code == 200  # serving is not limited
        assert "Traceback" not in srv.log_text()
    finally:
        srv.stop()


def test_bad_input_gets_a_clear_error(guest: httpx.Client) -> None:
    game = GAMES[0]
    puzzle, _ = served(guest, game)
    url = f"/api/puzzles/{game}/{puzzle.id}/attempt"
    cases = [
        (guest.post(url, json={"moves": "e2-e4"}), 400, "'moves'"),
        (guest.post(url, json={"moves": ["zz-top"]}), 422, "move 1"),
        (guest.post(url, json={"moves": [], "mode": "blitz"}), 400, "'mode'"),
        (guest.post(url, json={"moves": [], "guest": {"rating": -5}}), 400, "'guest.rating'"),
        (guest.post(url, json={"moves": [], "streak": -1}), 400, "'streak'"),
        (guest.post(url, json={"moves": ["a1-a2"] * 9}), 400, "'moves'"),
        (guest.post(f"/api/puzzles/{game}/nope/attempt", json={"moves": []}), 404, "no such puzzle"),
        (guest.post("/api/puzzles/nogame/x/attempt", json={"moves": []}), 404, "no game"),
        (guest.get(f"/api/puzzles/{game}/next", params={"rating": "high"}), 400, "'rating'"),
        (guest.get(f"/api/puzzles/{game}/next", params={"streak": 99999}), 400, "'streak'"),
        (guest.get("/api/puzzles/nogame/daily"), 404, "no game"),
    ]
    for res, status, words in cases:
        assert res.status_code == status, (res.status_code, res.text)
        assert words in res.json()["error"], res.text
    assert guest.get("/puzzles/nogame").status_code == 404
    assert guest.get(f"/puzzles/{game}/nope").status_code == 404
