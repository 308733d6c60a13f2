"""The websocket hub in-process: presence counting, caps, and states coalesced for slow watchers."""

from __future__ import annotations

import asyncio

from exochess.web.domain import Color
from exochess.web.live.hub import Hub
from tests.web.serverproc import run_async


class SlowSocket:
    """A socket whose sends wait until the test lets them through (a slow client)."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.gate = asyncio.Event()

    async def send_text(self, data: str) -> None:
        await self.gate.wait()
        self.sent.append(data)

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        pass


def test_states_waiting_for_a_slow_watcher_are_coalesced() -> None:
    async def run() -> list[str]:
        hub = Hub(per_game=10, per_address=10)
        sock = SlowSocket()
        hub.join("g", sock, None, "1.2.3.4")
        await hub.broadcast("g", "state 1", coalesce=True)
        await asyncio.sleep(0)  # the writer takes "state 1" and waits in send_text
        for n in range(2, 50):
            await hub.broadcast("g", f"state {n}", coalesce=True)
        await hub.broadcast("g", "presence")
        await hub.broadcast("g", "state 50", coalesce=True)
        sock.gate.set()
        for _ in range(100):  # bounded: a few loop turns are enough
            await asyncio.sleep(0)
        hub.leave("g", sock)
        return sock.sent

    # the one waiting state is sent as the newest one, in its place in the queue (a newer state
    # ahead of an older presence message is harmless: presence messages keep their order)
    assert run_async(run) == ["state 1", "state 50", "presence"]


def test_presence_changes_and_caps() -> None:
    async def run() -> None:
        hub = Hub(per_game=3, per_address=2)
        a, b, c = SlowSocket(), SlowSocket(), SlowSocket()
        conn = hub.join("g", a, None, "10.0.0.1")
        assert hub.online("g") == {Color.WHITE: False, Color.BLACK: False}
        assert hub.set_seat("g", conn, Color.WHITE)  # first connection of the seat
        other = hub.join("g", b, None, "10.0.0.1")
        assert not hub.set_seat("g", other, Color.WHITE)  # a second tab: no change
        assert hub.refusal("h", "10.0.0.1") is not None  # two from this address already
        assert hub.refusal("g", "10.0.0.2") is None
        hub.join("g", c, None, "10.0.0.2")
        assert "this game" in (hub.refusal("g", "10.0.0.3") or "")
        assert not hub.leave("g", a)  # White still has the other tab
        assert hub.leave("g", b)  # now White is offline
        assert hub.online("g") == {Color.WHITE: False, Color.BLACK: False}
        assert hub.refusal("h", "10.0.0.1") is None
        hub.leave("g", c)
        assert hub.watchers("g") == 0

    run_async(run)


class FastSocket:
    """A socket that takes every message at once; remembers how it was closed."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.closed: tuple[int, str | None] | None = None

    async def send_text(self, data: str) -> None:
        self.sent.append(data)

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        self.closed = (code, reason)


class StuckSocket(SlowSocket):
    """A slow socket never let through (a client that stopped reading); remembers its closing."""

    def __init__(self) -> None:
        super().__init__()
        self.closed: tuple[int, str | None] | None = None

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        self.closed = (code, reason)


def test_a_stuck_watcher_delays_nobody_and_is_dropped_when_too_far_behind() -> None:
    async def run() -> tuple[list[FastSocket], StuckSocket, bool]:
        hub = Hub(per_game=10, per_address=10)
        fast = [FastSocket() for _ in range(3)]
        stuck = StuckSocket()
        hub.join("lobby", stuck, None, "1.2.3.4")
        for sock in fast:
            hub.join("lobby", sock, None, "1.2.3.4")
        for n in range(100):  # each message once through every writer before the next
            await hub.broadcast("lobby", f"m{n}")
            await asyncio.sleep(0)
        for _ in range(10):
            await asyncio.sleep(0)
        return fast, stuck, hub.watchers("lobby") == len(fast)

    fast, stuck, only_fast_left = run_async(run)
    for sock in fast:
        assert sock.sent == [f"m{n}" for n in range(100)]
    # its queue (64 messages) overflowed: it was dropped, and told why
    assert stuck.sent == [] and only_fast_left and stuck.closed == (1013, "too slow")


class RecordingBus:
    """The part of the Redis bus the hub posts to, keeping what it was given."""

    def __init__(self) -> None:
        self.posted: list[dict[str, object]] = []

    def post(self, envelope: dict[str, object]) -> None:
        self.posted.append(envelope)

    async def publish(self, envelope: dict[str, object]) -> bool:
        self.posted.append(envelope)
        return True


def test_a_poke_reaches_the_other_processes_listeners_and_nothing_else() -> None:
    """A tournament's change is announced without its view: each server reads the event again
    for its own watchers (no view from another process races with its own)."""

    async def run() -> None:
        sender, receiver = Hub(), Hub()
        bus = RecordingBus()
        sender.bus = bus  # type: ignore[assignment]
        sender.poke("tournament:ab12cd34")
        assert bus.posted == [{"k": "tournament:ab12cd34", "p": 1}]
        heard: list[str] = []
        remote: list[str] = []

        async def on_remote(key: str, *_rest: object) -> None:
            remote.append(key)

        receiver.poke_listeners.append(heard.append)
        receiver.on_remote = on_remote
        sock = SlowSocket()
        sock.gate.set()
        receiver.join("tournament:ab12cd34", sock, None, "10.0.0.1")
        await receiver.receive({**bus.posted[0], "o": "other"})
        for _ in range(10):
            await asyncio.sleep(0)
        assert heard == ["tournament:ab12cd34"]
        assert remote == [] and sock.sent == []  # not a game's envelope, no message to deliver
        Hub().poke("tournament:x")  # no bus (one process): nothing to tell, no error

    run_async(run)
