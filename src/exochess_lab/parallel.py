"""Run one task per fresh process, a few at once, and hand the results back in input order.

Matches use it so that every game starts from a clean interpreter (no table or cache
of one game reaches the next) while the results, and so an SPRT's stopping point, do
not depend on which game happens to end first.

Ctrl-C belongs to the parent: the workers are started with SIGINT ignored (which the
engines they start inherit too), so an interrupt never prints a worker's traceback; the
parent stops and terminates the running workers instead, as it does when the caller
stops iterating early.  SIGTERM, the way a script or a service manager stops a long
match, does the same while the parent runs in its main thread: without it the parent
died at once and its workers went on playing their games, unowned.
"""

from __future__ import annotations

import multiprocessing
import signal
import threading
from collections.abc import Callable, Iterable, Iterator
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Generic, TypeVar

from exochess.errors import ExochessError

T = TypeVar("T")
R = TypeVar("R")


class WorkerError(RuntimeError):
    """A task's process failed in a way that is not the user's input (a bug, a killed process)."""


def _worker(func: Callable[[T], R], item: T, conn: Connection) -> None:
    try:
        outcome: tuple[str, object] = ("ok", func(item))
    except ExochessError as exc:  # a clear message for the user, passed on as it is
        outcome = ("error", exc)
    except BaseException as exc:  # anything else is reported with its type
        outcome = ("crash", f"{type(exc).__name__}: {exc}")
    conn.send(outcome)
    conn.close()


class _Running(Generic[R]):
    def __init__(self, index: int, process: BaseProcess, conn: Connection) -> None:
        self.index = index
        self.process = process
        self.conn = conn

    def result(self) -> R:
        """The task's result (its pipe is ready); re-raises the task's error."""
        try:
            status, payload = self.conn.recv()
        except EOFError:
            self.process.join()
            raise WorkerError(
                f"task {self.index + 1}: its process ended without a result "
                f"(exit code {self.process.exitcode})"
            ) from None
        finally:
            self.conn.close()
        self.process.join()
        if status == "error":
            assert isinstance(payload, ExochessError)
            raise payload
        if status == "crash":
            raise WorkerError(f"task {self.index + 1} failed: {payload}")
        result: R = payload
        return result

    def stop(self) -> None:
        self.process.terminate()
        self.process.join()
        self.conn.close()


def _start(func: Callable[[T], R], item: T, index: int) -> _Running[R]:
    context = multiprocessing.get_context("spawn")
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=_worker, args=(func, item, sender), daemon=True)
    # An ignored signal stays ignored across exec, and Python then installs no handler of
    # its own; a blocked one would not do (the new interpreter starts with an empty mask).
    handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        process.start()
    finally:
        signal.signal(signal.SIGINT, handler)
    sender.close()  # the child holds its own copy; EOF then means the child is gone
    return _Running(index, process, receiver)


def _exit_on_term(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def map_in_processes(func: Callable[[T], R], items: Iterable[T], jobs: int) -> Iterator[R]:
    """``func(item)`` for each item, each in a fresh process, ``jobs`` at once, yielded in order.

    At most ``2 * jobs`` tasks run or wait ahead of the next result to yield.  Closing the
    iterator (or an exception, Ctrl-C included) terminates the running processes.  A task
    that raises :class:`~exochess.errors.ExochessError` re-raises it here; any other
    failure raises :class:`WorkerError`.  ``func`` must be a module-level function.
    """
    todo = iter(items)
    running: list[_Running[R]] = []
    finished: dict[int, R] = {}
    started = 0
    following = 0  # index of the next result to yield
    exhausted = False
    # SIGTERM becomes SystemExit, so the ``finally`` below terminates the workers (a handler
    # can only be set from the main thread; elsewhere the caller's own handling stands).
    previous_term = None
    if threading.current_thread() is threading.main_thread():
        previous_term = signal.signal(signal.SIGTERM, _exit_on_term)
    try:
        while True:
            while not exhausted and len(running) < jobs and started < following + 2 * jobs:
                try:
                    item = next(todo)
                except StopIteration:
                    exhausted = True
                    break
                task = _start(func, item, started)
                running.append(task)
                started += 1
            if following in finished:
                yield finished.pop(following)
                following += 1
                continue
            if not running:
                return
            ready = wait([task.conn for task in running])
            for task in [task for task in running if task.conn in ready]:
                running.remove(task)
                finished[task.index] = task.result()
    finally:
        for task in running:
            task.stop()
        if previous_term is not None:
            signal.signal(signal.SIGTERM, previous_term)
