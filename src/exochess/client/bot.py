"""A whole bot over the API (``exochess bot``): it listens to its account's events, accepts the
challenges its :class:`Rules` allow (declining the others with lichess's reason), and plays
each game in a thread of its own with an engine process, on the game's clock.

Dropped connections are expected: the event stream and each game stream are opened again after
a short, growing delay.  On reopening, the event stream lists the games being played (each
thread still running keeps its game), and a game stream starts with the whole game; a move is
sent with the ply it answers (``?ply=``), so a move whose answer was lost is refused when sent
again rather than played twice, and a move is never lost: the bot moves whenever a state shows
its turn.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

from exochess.client import ApiError, Client, GameState, StreamDropped, moves_of, side_to_move
from exochess.client.engine import EngineError, ProtocolEngine

log = logging.getLogger("exochess.bot")

RETRY_S = (0.5, 1.0, 2.0, 5.0, 10.0, 20.0)
"""Delays before opening a dropped stream again (the last one repeats)."""
CLAIM_RETRY_S = 2.0
"""A refused claim (a moment early, or the opponent back) is tried again after this."""


class Engine(Protocol):
    """What the bot needs of an engine (:class:`~exochess.client.engine.ProtocolEngine`)."""

    def best_move(
        self, initial_fen: str, moves: list[str], wtime: int, btime: int, winc: int, binc: int, white: bool
    ) -> str: ...

    def close(self) -> None: ...


EngineFactory = Callable[[str], Engine]
"""Makes an engine for a game (its argument: the game's name)."""


@dataclass(frozen=True)
class Rules:
    """Which challenges the bot accepts."""

    variants: frozenset[str] | None = None
    """The games it plays (None: all)."""
    speeds: frozenset[str] = frozenset({"clock", "correspondence", "unlimited"})
    """The kinds of time control: ``clock`` (real time), ``correspondence``, ``unlimited``."""
    min_limit_s: int = 0
    max_limit_s: int = 3 * 3600
    """The real-time clocks' initial time it accepts (seconds)."""
    rated: bool | None = None
    """Only rated (True), only casual (False), or both (None)."""
    max_games: int = 4
    """Games at once; more challenges are declined ``later``."""

    def refusal(self, challenge: dict[str, Any], playing: int) -> str | None:
        """The decline reason for ``challenge`` (lichess's key), or None to accept it."""
        variant = challenge.get("variant", {}).get("key")
        if self.variants is not None and variant not in self.variants:
            return "variant"
        control = challenge.get("timeControl", {})
        kind = control.get("type")
        if kind not in self.speeds:
            return "timeControl"
        if kind == "clock":
            limit = int(control.get("limit", 0))
            if limit < self.min_limit_s:
                return "tooFast"
            if limit > self.max_limit_s:
                return "tooSlow"
        if self.rated is True and not challenge.get("rated"):
            return "rated"
        if self.rated is False and challenge.get("rated"):
            return "casual"
        if playing >= self.max_games:
            return "later"
        return None


@dataclass
class Bot:
    """A bot account's program: :meth:`run` until ``stop`` is set (or ``games`` are over)."""

    client: Client
    engine_factory: EngineFactory
    rules: Rules = field(default_factory=Rules)
    games: int | None = None
    """Stop after this many games have finished (None: never)."""
    stop: threading.Event = field(default_factory=threading.Event)
    name: str = ""
    threads: dict[str, threading.Thread] = field(default_factory=dict)
    finished: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def run(self) -> None:
        """Listen to the account's events until stopped, opening the stream again after drops."""
        self.name = str(self.client.account().get("username") or "")
        failures = 0
        while not self.stop.is_set():
            try:
                for event in self.client.stream_events(keepalives=True):
                    failures = 0
                    self.handle(event)
                    if self.stop.is_set():
                        break
                else:
                    raise StreamDropped("the event stream ended")
            except (StreamDropped, ApiError) as exc:
                if isinstance(exc, ApiError) and exc.status in (401, 403):
                    raise  # a wrong or revoked token, or not a bot: trying again cannot help
                log.warning("event stream: %s; opening it again", exc)
                self.stop.wait(RETRY_S[min(failures, len(RETRY_S) - 1)])
                failures += 1
        for thread in list(self.threads.values()):
            thread.join(timeout=5)

    def playing(self) -> int:
        with self.lock:
            return sum(1 for t in self.threads.values() if t.is_alive())

    def handle(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "challenge":
            self.answer(event["challenge"])
        elif kind == "gameStart":
            self.start_game(str(event["game"]["gameId"]))

    def answer(self, challenge: dict[str, Any]) -> None:
        """Accept or decline a challenge sent to this bot (its own challenges are left alone)."""
        dest = (challenge.get("destUser") or {}).get("id")
        if dest != self.name.lower():
            return
        reason = self.rules.refusal(challenge, self.playing())
        try:
            if reason is None:
                log.info("accepting challenge %s", challenge["id"])
                self.client.accept(challenge["id"])
            else:
                log.info("declining challenge %s (%s)", challenge["id"], reason)
                self.client.decline(challenge["id"], reason)
        except ApiError as exc:  # cancelled meanwhile, or taken by another copy of the bot
            log.warning("challenge %s: %s", challenge["id"], exc.message)

    def start_game(self, game_id: str) -> None:
        with self.lock:
            running = self.threads.get(game_id)
            if running is not None and running.is_alive():
                return  # a reopened event stream lists the games being played again
            thread = threading.Thread(target=self.play, args=(game_id,), name=f"game-{game_id}", daemon=True)
            self.threads[game_id] = thread
        thread.start()

    def play(self, game_id: str) -> None:
        """Play one game to its end (opening its stream again after drops)."""
        game = GamePlayer(self.client, game_id, self.name.lower(), self.engine_factory)
        try:
            game.run(self.stop)
        except Exception:
            log.exception("game %s: the bot failed", game_id)
        finally:
            game.close()
            with self.lock:
                self.finished += 1
                if self.games is not None and self.finished >= self.games:
                    self.stop.set()
            log.info("game %s over: %s", game_id, game.status)


@dataclass
class GamePlayer:
    """One game of the bot."""

    client: Client
    game_id: str
    me: str
    engine_factory: EngineFactory
    engine: Engine | None = None
    color: str | None = None
    initial_fen: str = "startpos"
    variant: str = ""
    status: str = "started"
    claim_at: float | None = None
    """When (time.monotonic) to claim the win over an opponent who left (None: none left)."""

    def run(self, stop: threading.Event) -> None:
        failures = 0
        while not stop.is_set() and self.status == "started":
            try:
                for event in self.client.stream_game(self.game_id, keepalives=True):
                    failures = 0
                    self.handle(event)
                    if self.status != "started" or stop.is_set():
                        return
                    self.claim_if_due()  # a keep-alive line comes every few seconds
                if self.status == "started":
                    raise StreamDropped("the game stream ended before the game")
            except (StreamDropped, ApiError) as exc:
                if isinstance(exc, ApiError) and exc.status in (401, 403, 404):
                    raise
                log.warning("game %s: %s; opening its stream again", self.game_id, exc)
                stop.wait(RETRY_S[min(failures, len(RETRY_S) - 1)])
                failures += 1

    def handle(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "gameFull":
            self.variant = event["variant"]["key"]
            self.initial_fen = event.get("initialFen") or "startpos"
            white = event.get("white") or {}
            self.color = "white" if white.get("id") == self.me else "black"
            self.on_state(event["state"])
        elif kind == "gameState":
            self.on_state(cast(GameState, event))
        elif kind == "opponentGone":
            gone, seconds = event.get("gone"), event.get("claimWinInSeconds")
            self.claim_at = time.monotonic() + float(seconds) if gone and seconds is not None else None

    def claim_if_due(self) -> None:
        """Claim the win once the opponent has been gone long enough (as lichess-bot does)."""
        if self.claim_at is None or time.monotonic() < self.claim_at:
            return
        try:
            self.client.claim_victory(self.game_id)
            log.info("game %s: the opponent left; win claimed", self.game_id)
            self.claim_at = None
        except ApiError as exc:  # back meanwhile, or a moment early: the stream will say
            log.info("game %s: claim refused: %s", self.game_id, exc.message)
            self.claim_at = time.monotonic() + CLAIM_RETRY_S

    def on_state(self, state: GameState) -> None:
        self.status = state.get("status", "started")
        if self.status != "started" or self.color is None:
            return
        moves = moves_of(state)
        if side_to_move(self.initial_fen, len(moves)) != self.color:
            return
        if self.engine is None:
            self.engine = self.engine_factory(self.variant)
        try:
            move = self.engine.best_move(
                self.initial_fen,
                moves,
                int(state.get("wtime", 0)),
                int(state.get("btime", 0)),
                int(state.get("winc", 0)),
                int(state.get("binc", 0)),
                self.color == "white",
            )
        except EngineError as exc:
            log.error("game %s: %s; resigning", self.game_id, exc)
            self.client.resign(self.game_id)
            return
        try:
            self.client.move(self.game_id, move, ply=len(moves))
        except ApiError as exc:
            if exc.status == 409:  # the game moved on meanwhile (a state will say how)
                log.info("game %s: move %s not played: %s", self.game_id, move, exc.message)
            elif exc.status == 422:
                log.error(
                    "game %s: the engine's move %s was refused (%s); resigning",
                    self.game_id,
                    move,
                    exc.message,
                )
                self.client.resign(self.game_id)
            else:
                raise StreamDropped(f"move not sent: {exc.message}") from exc

    def close(self) -> None:
        if self.engine is not None:
            self.engine.close()


def protocol_engines(command: str | list[str], level: int | None) -> EngineFactory:
    """Engines of ``command`` (a protocol engine program) at ``level``, one per game."""

    def make(variant: str) -> Engine:
        return ProtocolEngine(command, variant, level)

    return make
