"""The public API's streams in Redis mode (issue 47): a bot's event and game streams open on one
server hear what a person does through the other (challenges, the game's start, moves, chat,
the end), and the bot's moves made through the first reach the person's stream on the second."""

from __future__ import annotations

from exochess.board import Board
from tests.cluster.harness import Cluster
from tests.web.apiclients import Stream, bearer, make_token, move_path, signup


def test_streams_on_one_server_hear_the_other(cluster: Cluster) -> None:
    a, b = (s.url for s in cluster.servers)
    bot_session = signup(a, "clusterbot")
    bot = bearer(a, make_token(bot_session, "bot:play"))
    assert bot.post("/api/bot/account/upgrade").status_code == 200
    person = signup(b, "clusterperson")
    human = bearer(b, make_token(person, "board:play", "challenge:write"))
    bot_events = Stream(bot, "/api/stream/event")  # on server A
    assert bot_events.next(blanks=True) == {}
    # online on every server (shared counts)
    assert "clusterbot" in bearer(b, "x").get("/api/bot/online").text
    sent = human.post("/api/challenge/clusterbot", data={"variant": "fugue", "color": "white"}).json()
    assert bot_events.until("challenge")["challenge"]["id"] == sent["id"]
    game_id = bot.post(f"/api/challenge/{sent['id']}/accept").json()["game"]
    assert bot_events.until("gameStart")["game"]["gameId"] == game_id
    bot_game = Stream(bot, f"/api/bot/game/stream/{game_id}")  # on A
    human_game = Stream(human, f"/api/board/game/stream/{game_id}")  # on B
    assert bot_game.until("gameFull")["state"]["moves"] == ""
    assert human_game.until("gameFull")["id"] == game_id
    assert human.post(move_path("board", game_id, "b2-a3", ply=0)).status_code == 200  # through B
    assert bot_game.until("gameState")["moves"] == "b2-a3"  # heard on A
    board = Board("fugue")
    board.push_text("b2-a3")
    reply = str(next(iter(board.legal_moves)))
    assert bot.post(move_path("bot", game_id, reply, ply=1)).status_code == 200  # through A
    while (state := human_game.until("gameState"))["moves"] != f"b2-a3 {reply}":
        pass
    assert human.post(f"/api/board/game/{game_id}/chat", data={"text": "hello"}).status_code == 200
    assert bot_game.until("chatLine")["text"] == "hello"
    assert human.post(f"/api/board/game/{game_id}/resign").status_code == 200
    assert bot_game.until("gameState")["status"] == "resign"
    assert bot_events.until("gameFinish")["game"]["gameId"] == game_id
    assert state["status"] == "started"
