"""A resumable puzzle-mining run: tasks in worker processes, results appended to the collection.

``exochess puzzles generate`` calls :func:`run`.  The games to mine are a numbered sequence
(:func:`exochess_lab.puzzlegen.tasks`); each is mined in a fresh process
(:func:`exochess_lab.parallel.map_in_processes`, results in task order) and its puzzles are
appended to the output file at once.  The settings file beside the output
(``puzzles.settings.json`` for ``puzzles.jsonl``) records the mining settings, how many tasks
are done, every run's command line and the counts; a later run with the same settings goes on
from the next task, so a run can be stopped at any moment and resumed (a task cut short is
mined again; its puzzles already in the file are skipped by id).
"""

from __future__ import annotations

import itertools
import json
import os
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import MISSING, dataclass, field, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from exochess import BUILD
from exochess.errors import ExochessError
from exochess.puzzles import read_puzzles
from exochess_lab.parallel import map_in_processes
from exochess_lab.puzzlegen import MiningSettings, Stats, Task, TaskResult, mine, rating_histogram, tasks

FORMAT = 1
"""The settings file's format version."""


class RunError(ExochessError):
    """A run that cannot start: settings that differ from the collection's, an unreadable file."""


def settings_file(output: Path) -> Path:
    """The settings file beside ``output`` (``puzzles.jsonl`` -> ``puzzles.settings.json``)."""
    return output.with_name(output.stem + ".settings.json")


@dataclass
class Progress:
    """Where a run stands, handed to the progress callback after each task."""

    tasks_done: int
    """Tasks done in the collection (all runs)."""
    tasks_this_run: int
    puzzles: int
    """Puzzles in the file."""
    added: int
    """Puzzles this run added."""
    stats: Stats = field(default_factory=Stats)
    """This run's counts."""
    cpu_seconds: float = 0.0
    """CPU time of this run's tasks (the workers')."""


@dataclass
class RunResult:
    """The end of a run."""

    progress: Progress
    stopped_by: str
    """``count``, ``games``, ``minutes`` or ``tasks`` (the PGN games ran out)."""


def new_puzzles(found: list[dict[str, Any]], seen: set[str]) -> list[dict[str, Any]]:
    """The puzzles of ``found`` whose id is not in ``seen`` (added to it), each once: a game
    can reach one position twice, and a run's file must never hold an id twice.

    >>> seen = {"a"}
    >>> [p["id"] for p in new_puzzles([{"id": "a"}, {"id": "b"}, {"id": "b"}], seen)], sorted(seen)
    (['b'], ['a', 'b'])
    """
    fresh = []
    for puzzle in found:
        if puzzle["id"] not in seen:
            seen.add(puzzle["id"])
            fresh.append(puzzle)
    return fresh


def _mine_timed(task: Task) -> tuple[TaskResult, float]:
    start = time.process_time()
    result = mine(task)
    return result, time.process_time() - start


def _read_state(output: Path, settings: MiningSettings, fresh: bool) -> dict[str, Any]:
    path = settings_file(output)
    blank: dict[str, Any] = {
        "format": FORMAT,
        "game": settings.game,
        "settings": settings.to_json(),
        "tasks_done": 0,
        "stats": Stats().to_json(),
        "cpu_seconds": 0.0,
        "runs": [],
    }
    if fresh:
        output.write_text("", encoding="utf-8")
        return blank
    has_puzzles = output.is_file() and output.read_text(encoding="utf-8").strip() != ""
    if not path.is_file():
        if has_puzzles:
            raise RunError(f"{output} has puzzles but no {path.name} beside it: use --fresh to start over")
        return blank
    try:
        state: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise RunError(f"cannot read {path}: {exc}") from exc
    # A setting added since the file was written is recorded as its default (the files of an
    # older generator stay resumable).
    recorded = {**_default_json(), **state.get("settings", {})}
    wanted = settings.to_json()
    differ = sorted(k for k in set(recorded) | set(wanted) if recorded.get(k) != wanted.get(k))
    if differ:
        raise RunError(
            f"the settings differ from those of {path} ({', '.join(differ)}): give the same ones to go on, "
            "or --fresh to start the collection over"
        )
    state["settings"] = wanted
    return state


def _default_json() -> dict[str, Any]:
    """Each setting's default value, as the settings file writes it (the game left out)."""
    defaults = {f.name: f.default for f in fields(MiningSettings) if f.default is not MISSING}
    return {k: list(v) if isinstance(v, tuple) else v for k, v in defaults.items()}


def _write_state(output: Path, state: dict[str, Any]) -> None:
    path = settings_file(output)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(state, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(temporary, path)


def _summary(game: str, output: Path) -> dict[str, Any]:
    """Counts of the collection as it is on disk: puzzles, themes, rating bands."""
    puzzles = read_puzzles(game, output.read_text(encoding="utf-8").splitlines(), output.name)
    themes: Counter[str] = Counter(t for p in puzzles for t in p.themes)
    return {
        "puzzles": len(puzzles),
        "themes": dict(themes.most_common()),
        "ratings": rating_histogram(p.rating for p in puzzles),
    }


def run(
    settings: MiningSettings,
    output: Path,
    *,
    jobs: int = 1,
    count: int | None = None,
    games: int | None = None,
    minutes: float | None = None,
    fresh: bool = False,
    command: str = "",
    progress: Callable[[Progress], None] | None = None,
) -> RunResult:
    """Mine until the file holds ``count`` puzzles, ``games`` tasks are done (all runs
    together), ``minutes`` have passed or the tasks run out, whichever comes first.  When the
    minutes are up no task starts, and the running ones finish.

    Raises :class:`RunError` when the settings differ from those recorded beside ``output``
    (unless ``fresh``: the file is emptied and the collection starts over).
    """
    if not (settings.pgn or settings.database) and count is None and games is None and minutes is None:
        raise RunError("an engine-game run needs a bound: --count, --games or --minutes")
    output.parent.mkdir(parents=True, exist_ok=True)
    state = _read_state(output, settings, fresh)
    existing = (
        read_puzzles(settings.game, output.read_text(encoding="utf-8").splitlines(), output.name)
        if output.is_file()
        else []
    )
    seen = {p.id for p in existing}
    first_task = int(state["tasks_done"])
    status = Progress(tasks_done=first_task, tasks_this_run=0, puzzles=len(existing), added=0)
    started = time.monotonic()
    record: dict[str, Any] = {
        "command": command,
        "started": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "build": BUILD,
        "jobs": jobs,
        "first_task": first_task,
    }
    state["runs"].append(record)
    total_stats = Stats()
    total_stats.add(_stats_from_json(state["stats"]))

    def done(*, finishing: bool = False) -> str | None:
        if count is not None and status.puzzles >= count:
            return "count"
        if games is not None and status.tasks_done >= games:
            return "games"
        if minutes is not None and time.monotonic() - started >= minutes * 60:
            # the tasks already running are waited for: their results are kept
            return None if finishing else "minutes"
        return None

    stopped_by = done() or "tasks"
    if stopped_by == "tasks":
        todo: Iterator[Task] = tasks(settings, first_task)
        if games is not None:
            todo = itertools.islice(todo, max(0, games - first_task))
        if minutes is not None:
            # No task starts after the time is up; the running ones finish (none is wasted).
            todo = itertools.takewhile(lambda _: time.monotonic() - started < minutes * 60, todo)
        results: Iterator[tuple[TaskResult, float]] = map_in_processes(_mine_timed, todo, jobs)
        try:
            with output.open("a", encoding="utf-8") as out:
                for result, cpu in results:
                    fresh_puzzles = new_puzzles(result.puzzles, seen)
                    for p in fresh_puzzles:
                        out.write(json.dumps(p, ensure_ascii=False, separators=(",", ":")) + "\n")
                    out.flush()
                    status.tasks_done += 1
                    status.tasks_this_run += 1
                    status.puzzles += len(fresh_puzzles)
                    status.added += len(fresh_puzzles)
                    status.stats.add(result.stats)
                    status.cpu_seconds += cpu
                    total_stats.add(result.stats)
                    state["tasks_done"] = status.tasks_done
                    state["stats"] = total_stats.to_json()
                    state["cpu_seconds"] = round(float(state["cpu_seconds"]) + cpu, 1)
                    record.update(_record_counts(status, started))
                    _write_state(output, state)
                    if progress is not None:
                        progress(status)
                    reason = done(finishing=True)
                    if reason is not None:
                        stopped_by = reason
                        break
        finally:
            close = getattr(results, "close", None)
            if close is not None:
                close()  # terminates the tasks still running
    if stopped_by == "tasks" and minutes is not None and time.monotonic() - started >= minutes * 60:
        stopped_by = "minutes"
    record.update(_record_counts(status, started))
    record["stopped_by"] = stopped_by
    state.update(_summary(settings.game, output))
    _write_state(output, state)
    return RunResult(status, stopped_by)


def _record_counts(status: Progress, started: float) -> dict[str, Any]:
    return {
        "tasks": status.tasks_this_run,
        "added": status.added,
        "wall_seconds": round(time.monotonic() - started, 1),
        "cpu_seconds": round(status.cpu_seconds, 1),
        "stats": status.stats.to_json(),
    }


def _stats_from_json(data: dict[str, Any]) -> Stats:
    stats = Stats(
        positions=int(data.get("positions", 0)),
        candidates=int(data.get("candidates", 0)),
        kept=int(data.get("kept", 0)),
    )
    stats.rejected.update({str(k): int(v) for k, v in data.get("rejected", {}).items()})
    return stats
