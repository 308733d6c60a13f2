"""What the watchers of a live game are sent (:class:`JsonView`): the game's state
(:class:`~exochess.web.game.statemodel.GameState`), kept encoded until the game changes, and
the small presence message.

The state is encoded by ``orjson``; its moves (encoded a ply at a time,
:class:`~exochess.web.game.history.HistoryJson`), legal-move tree and annotations (encoded
in the worker that lists the moves, :class:`~exochess.web.game.legalview.LegalView`) go in
as :class:`orjson.Fragment`, already encoded.  ``bench/state.py`` measures it against the
former string splicing (docs/benchmarks.md).

The legal-move view in a state is that of :meth:`JsonView.prepare`, computed off the event loop
before a state is sent, never on the loop while encoding.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, cast

import orjson

from exochess.web.domain import N_, Color, GameStatus, PlayerKind, PositionTooLarge, StalePosition
from exochess.web.game.analysis import tree_after
from exochess.web.game.clock import Timing, epoch_ms
from exochess.web.game.finisher import game_over
from exochess.web.game.legalview import EMPTY, LegalView
from exochess.web.game.live import LiveGame
from exochess.web.game.moves import view_of
from exochess.web.game.positions import variant_json
from exochess.web.game.timecontrol import stored_time_control
from exochess.web.storage.movestore import Runner
from exochess.web.storage.store import now as storage_now


class JsonView:
    """Encodes live games for their watchers.  Ports: the site's timing, ``online`` (which
    seats of a game are connected) and the pool that lists legal moves (``cpu``)."""

    def __init__(self, timing: Timing, online: Callable[[str], dict[Color, bool]], cpu: Runner) -> None:
        self.timing = timing
        self.online = online
        self.cpu = cpu

    async def prepare(self, live: LiveGame) -> None:
        """Compute the legal-move view of the game's position, if not done yet, off the loop.

        A position too large to list gets an empty view with an ``error`` (the game can still
        be resigned); the state carries it as ``legal_error``.
        """
        if live.legal_view is not None and live.legal_view[0] == live.legal_key():
            return
        async with live.legal_lock:
            # the game may move on while its view is computed: then compute again
            while True:
                key = live.legal_key()
                if live.legal_view is not None and live.legal_view[0] == key:
                    return
                view = EMPTY
                if live.row.status == GameStatus.ACTIVE:
                    # A copy: the worker thread must not share the board moves are played on
                    # (the copy shares only the listed moves, a list nobody changes).
                    board = live.board.copy()
                    try:
                        view = await self.cpu.run("listing its legal moves", view_of, board)
                    except PositionTooLarge as exc:
                        view = LegalView.too_large(str(exc))
                if live.legal_key() == key:
                    live.legal_view = (key, view)
                    live.state_cache = None

    @staticmethod
    def legal_now(live: LiveGame) -> LegalView:
        """The view the state carries: none for a finished game or one not prepared yet."""
        view = live.legal_view[1] if live.legal_view and live.legal_view[0] == live.legal_key() else None
        if view is None:
            return EMPTY
        if live.row.status != GameStatus.ACTIVE:
            return LegalView.too_large(view.error) if view.error else EMPTY
        return view

    async def legal_after(self, live: LiveGame, ply: int, prefix: list[str]) -> dict[str, Any]:
        """The legal-move tree after the first actions ``prefix`` of the move at ``ply`` (a
        player entering a move piece by piece)."""
        if not live.active:
            raise game_over(live)
        if ply != live.board.ply():
            raise StalePosition(
                N_("stale position: the game is at ply {now}, not {ply}"), now=live.board.ply(), ply=ply
            )
        return await self.cpu.run("listing its legal moves", tree_after, live.board.copy(), prefix)

    def state(self, live: LiveGame) -> dict[str, Any]:
        """The game's state as plain data (:meth:`state_text` decoded)."""
        return cast(dict[str, Any], orjson.loads(self.state_text(live)))

    def _fields(self, live: LiveGame) -> tuple[dict[str, Any], LegalView]:
        """The state without its history (``fens``, ``moves``, ``captured``), ``legal`` tree and
        ``annotations``, and the view the last two are in."""
        row, board = live.row, live.board
        view = self.legal_now(live)
        players = {}
        for color in Color:
            kind = live.kind_of(color)
            players[color.value] = {
                "kind": kind,
                "level": row.level if kind == PlayerKind.ENGINE else None,
                "name": row.name_of(color),
                "user": live.players.get(color),
            }
        return {
            "type": "state",
            "id": row.id,
            "variant": variant_json(board.variant),
            "start_fen": row.start_fen,
            "fen": board.fen(),
            "ply": board.ply(),
            "turn": live.to_move(),
            "status": row.status,
            "result": row.result,
            "termination": row.termination,
            "reason": row.reason,
            "players": players,
            "takeback_offer": row.takeback_offer,
            "rematch_id": row.rematch_id,
            "time_control": stored_time_control(row.time_control).to_json(),
            "clock": self.clock_json(live),
            "rated": row.rated,
            "imported": row.imported,
            "berserkable": row.berserkable,
            "berserk": {color.value: color in row.berserked for color in Color},
            "pgn_notes": row.pgn_notes,
            "online": {color.value: here for color, here in self.online(row.id).items()},
            "absent_since": self.absent_json(live),
            "legal_count": view.count,
            "legal_error": view.error,
        }, view

    def clock_json(self, live: LiveGame) -> dict[str, Any] | None:
        clock = live.clock(self.timing)
        if clock is None or live.row.status != GameStatus.ACTIVE:
            # a finished game shows its clocks at the end: those stored when it ended without a
            # move (a flag shows 0), else those after its last move (a royal capture's)
            if clock is None:
                return None
            row = live.row
            end = {"white_ms": row.end_white_ms, "black_ms": row.end_black_ms}
            if row.end_white_ms is None or row.end_black_ms is None:
                end = {}
            return {**clock.to_json(), **end, "running": None, "deadline": None}
        return clock.to_json()

    @staticmethod
    def absent_json(live: LiveGame) -> dict[str, int | None]:
        return {c.value: None if (t := live.absent_since.get(c)) is None else epoch_ms(t) for c in Color}

    def state_text(self, live: LiveGame) -> str:
        """The game's state as JSON text (cached until the game changes)."""
        if live.state_cache is None:
            state, view = self._fields(live)
            moves, captured = live.history.update(live.board, live.fens, live.row.moves)
            state["fens"] = live.fens
            state["moves"] = orjson.Fragment(moves)
            state["captured"] = captured
            state["legal"] = orjson.Fragment(view.actions)
            state["annotations"] = orjson.Fragment(view.annotations)
            live.state_cache = orjson.dumps(state).decode()
        return live.state_cache

    def presence(self, live: LiveGame) -> str:
        """Start or stop the seats' absence clocks from the site's presence; the message."""
        live.state_cache = None  # the state's "online" changed too
        online = self.online(live.row.id)
        moment = storage_now()
        for color in Color:
            if online[color]:
                live.absent_since[color] = None
            elif live.absent_since.get(color) is None:
                live.absent_since[color] = moment
        return json.dumps({"type": "presence", "online": online, "absent_since": self.absent_json(live)})
