"""The public API's shapes (issue 47), as lichess's bot and board APIs have them: a game's
``gameFull`` and ``gameState``, the ``gameStart``/``gameFinish`` events, a challenge.

Everything here is a pure function of the site's own data (a game's state as the websocket
sends it, a stored challenge), so the same text comes out on every server process.  Where
lichess has a field these games lack a meaning for, it is left out; where these games need one
lichess lacks, it is added under a name of our own (``termination``, ``reason``).

Moves are our canonical move text, separated by single spaces (a canonical move never holds
one); variant keys are our game names (``fugue``, ``interweave``, ``rebelfury``).
"""

from __future__ import annotations

import math
from typing import Any

from exochess.variants import find_variant
from exochess.web.game.timecontrol import TimeControlKind, stored_time_control
from exochess.web.storage.store import ChallengeRow

NO_CLOCK_MS = 2_147_483_647
"""wtime/btime of a game without a clock (lichess's value: the largest 32-bit integer)."""

STATUS = {
    "royal capture": "mate",
    "no legal moves": "variantEnd",
    "repetition": "variantEnd",
    "resignation": "resign",
    "time forfeit": "outoftime",
    "abandoned": "timeout",
    "aborted": "aborted",
}
"""lichess's status word for each of our terminations (a royal captured is our checkmate)."""


def variant_key(name: str) -> dict[str, str]:
    """A game as lichess names a variant: ``key`` (our game's name), ``name``, ``short``."""
    game = find_variant(name)
    title = game.title or game.name
    return {"key": game.name, "name": title, "short": title[:4]}


def speed_of(time_control: str | None) -> str:
    """lichess's speed word of a time control (``ultraBullet`` ... ``classical``,
    ``correspondence``; lichess files games without a clock under correspondence too)."""
    speed = stored_time_control(time_control).speed
    return {"ultrabullet": "ultraBullet", "unlimited": "correspondence"}.get(speed, speed)


def clock_json(time_control: str | None) -> dict[str, Any] | None:
    """A game's clock as lichess's ``gameFull`` writes it: ``initial`` and ``increment`` in ms
    (None without a real-time clock)."""
    control = stored_time_control(time_control)
    if control.kind != TimeControlKind.REALTIME:
        return None
    return {"initial": control.base_ms, "increment": control.increment_ms}


def challenge_time_control(time_control: str) -> dict[str, Any]:
    """A challenge's ``timeControl`` (lichess: ``clock`` with limit and increment in seconds,
    ``correspondence`` with days per turn, or ``unlimited``)."""
    control = stored_time_control(time_control)
    if control.kind == TimeControlKind.REALTIME:
        return {
            "type": "clock",
            "limit": control.base_ms // 1000,
            "increment": control.increment_ms // 1000,
            "show": control.text,
        }
    if control.kind == TimeControlKind.CORRESPONDENCE:
        return {"type": "correspondence", "daysPerTurn": control.days}
    return {"type": "unlimited"}


def account_json(
    name: str | None, title: str | None = None, rating: int | None = None, provisional: bool = False
) -> dict[str, Any]:
    """A player as lichess's API shows one: ``id`` (the name in lower case), ``name``,
    ``title`` (``BOT`` or None), ``rating``, ``provisional``."""
    return {
        "id": name.lower() if name else None,
        "name": name,
        "title": title,
        "rating": rating,
        "provisional": provisional,
    }


def seat_json(player: dict[str, Any]) -> dict[str, Any]:
    """One seat of a game's state (``players[color]``) as lichess's ``white``/``black``."""
    if player.get("kind") == "engine":
        return {"aiLevel": player.get("level")}
    user = player.get("user")
    if user:
        return account_json(
            user.get("name"), user.get("title"), user.get("rating"), bool(user.get("provisional"))
        )
    out = account_json(None)
    out["name"] = player.get("name")  # a guest: a display name, no account
    return out


def status_of(state: dict[str, Any]) -> str:
    """lichess's status of a game's state: ``started`` while it is played, else how it ended."""
    if state.get("status") == "active":
        return "started"
    if state.get("status") == "aborted":
        return "aborted"
    return STATUS.get(str(state.get("termination")), "unknownFinish")


def winner_of(result: str | None) -> str | None:
    return {"1-0": "white", "0-1": "black"}.get(result or "")


def game_state(state: dict[str, Any], now_ms: int) -> dict[str, Any]:
    """A ``gameState`` line: the moves so far and the clocks at ``now_ms`` (ms since 1970).

    The site's state gives each side's time at ``since``; the side whose clock runs has spent
    the time since then.  Correspondence games give the time to the deadline for the side to
    move; games without a clock give :data:`NO_CLOCK_MS`.
    """
    clock = state.get("clock")
    control = state.get("time_control") or {}
    wtime = btime = NO_CLOCK_MS
    winc = binc = 0
    if clock is not None and control.get("kind") == "realtime":
        wtime, btime = int(clock["white_ms"]), int(clock["black_ms"])
        winc = binc = int(clock.get("increment_ms") or 0)
        # a seat that berserked has none (an arena game)
        winc = int(clock.get("white_increment_ms", winc))
        binc = int(clock.get("black_increment_ms", binc))
        running, since = clock.get("running"), clock.get("since")
        if running is not None and since is not None:
            spent = max(0, now_ms - int(since))
            if running == "white":
                wtime = max(0, wtime - spent)
            else:
                btime = max(0, btime - spent)
    elif clock is not None and clock.get("deadline") is not None:
        left = max(0, int(clock["deadline"]) - now_ms)
        if state.get("turn") == "white":
            wtime = left
        else:
            btime = left
    out: dict[str, Any] = {
        "type": "gameState",
        "moves": " ".join(m["text"] if isinstance(m, dict) else str(m) for m in state.get("moves") or []),
        "wtime": wtime,
        "btime": btime,
        "winc": winc,
        "binc": binc,
        "status": status_of(state),
    }
    offer = state.get("takeback_offer")
    out["wtakeback"], out["btakeback"] = offer == "white", offer == "black"
    winner = winner_of(state.get("result"))
    if winner is not None:
        out["winner"] = winner
    if state.get("status") != "active":
        out["termination"] = state.get("termination")
        out["reason"] = state.get("reason")
    return out


def game_full(state: dict[str, Any], now_ms: int, created_ms: int | None = None) -> dict[str, Any]:
    """The ``gameFull`` line that opens a game stream."""
    start = state.get("start_fen")
    variant = str(state["variant"]["name"])
    initial = find_variant(variant).starting_fen
    control = state.get("time_control") or {}
    text = control.get("text")
    return {
        "type": "gameFull",
        "id": state["id"],
        "variant": variant_key(variant),
        "clock": clock_json(text),
        "daysPerTurn": control.get("days") if control.get("kind") == "correspondence" else None,
        "speed": speed_of(text),
        "rated": bool(state.get("rated")),
        "createdAt": created_ms,
        "white": seat_json(state["players"]["white"]),
        "black": seat_json(state["players"]["black"]),
        "initialFen": "startpos" if start is None or start == initial else start,
        "state": game_state(state, now_ms),
    }


def chat_line(line: dict[str, Any]) -> dict[str, Any]:
    """A ``chatLine`` of a game stream (the players' chat is lichess's ``player`` room)."""
    return {
        "type": "chatLine",
        "room": "player",
        "username": line.get("name") or "",
        "text": line.get("text"),
    }


def challenge_json(
    row: ChallengeRow, challenger: dict[str, Any], dest: dict[str, Any], base_url: str = ""
) -> dict[str, Any]:
    """A direct challenge as lichess's ``challenge`` object (``challenger`` and ``dest`` from
    :func:`account_json`)."""
    return {
        "id": row.id,
        "url": f"{base_url}/api/challenge/{row.id}",
        "status": "created" if row.status == "open" else str(row.status),
        "challenger": challenger,
        "destUser": dest,
        "variant": variant_key(row.variant),
        "rated": row.rated,
        "speed": speed_of(row.time_control),
        "timeControl": challenge_time_control(row.time_control),
        "color": str(row.color),
        "finalColor": None,
    }


def opponent_gone(
    state: dict[str, Any],
    online: dict[str, bool],
    absent_since: dict[str, int | None],
    seat: str,
    now_ms: int,
) -> dict[str, Any] | None:
    """The ``opponentGone`` line for the player of ``seat``: whether the opponent has left and,
    if gone, the seconds until the win may be claimed (``POST .../claim-victory``); None where
    no claim can ever be made (no real-time clock, or the opponent is the engine).

    ``state`` gives the clock's absence limit and the seats' kinds; ``online`` and
    ``absent_since`` (ms since 1970) are the latest presence, from a state or a presence message.
    """
    clock = state.get("clock") or {}
    limit = clock.get("absence_ms")
    control = state.get("time_control") or {}
    other = "black" if seat == "white" else "white"
    kind = ((state.get("players") or {}).get(other) or {}).get("kind")
    if control.get("kind") != "realtime" or limit is None or kind != "human":
        return None
    if online.get(other, True):
        return {"type": "opponentGone", "gone": False}
    since = absent_since.get(other)
    waited = 0 if since is None else max(0, now_ms - int(since))
    seconds = max(0, math.ceil((int(limit) - waited) / 1000))
    return {"type": "opponentGone", "gone": True, "claimWinInSeconds": seconds}
