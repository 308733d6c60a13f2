"""The site's settings: one pydantic-settings :class:`Settings`, read from ``EXOCHESS_*``
environment variables once, where a process starts (:func:`~exochess.web.app.create_app`,
``exochess serve``, ``exochess worker``, ``exochess cluster``), and passed down as arguments:
no other module reads the environment for a setting.

docs/settings.md tables every field; ``tests/web/test_web_settings.py`` checks the table
against this class.  A field's description is its line in that table.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from exochess.engine.tt import DEFAULT_HASH_MB, MAX_HASH_MB, MIN_HASH_MB
from exochess.web.game.clock import Timing
from exochess.web.game.reports import LEASE_S, REPORT_NODES
from exochess.web.limits import LIMITS, parse_rate_limits
from exochess.web.live.hub import PER_ADDRESS, PER_GAME
from exochess.web.social.lobby import GRACE_S
from exochess.web.social.schedule import DEFAULT_SCHEDULE, parse_schedule
from exochess.web.storage.threads import DB_THREADS

PREFIX = "EXOCHESS_"
# Redis mode's defaults, written here: their modules need the cluster extra (redis, arq), which a
# site on one process may not have; tests/web/test_web_settings.py checks they agree.
QUEUE_LIMIT = 200
"""``exochess.web.game.jobs.QUEUE_LIMIT``."""
SWEEP_EVERY_S = 5.0
"""``exochess.web.game.sweep.SWEEP_EVERY_S``."""
SWEEP_AFTER_S = 5.0
"""``exochess.web.game.sweep.SWEEP_AFTER_S``."""
REFRESH_S = 10.0
"""``exochess.web.live.presence.REFRESH_S``."""
DEFAULT_DB = "sqlite:///exochess.sqlite"


class SettingsError(ValueError):
    """A setting's value cannot be used: the message names the variable and the problem."""


class Settings(BaseSettings):
    """Every setting of the site (environment variable: ``EXOCHESS_`` + the field's name in
    capitals)."""

    model_config = SettingsConfigDict(env_prefix=PREFIX, extra="ignore", frozen=True)

    database_url: str = Field(
        DEFAULT_DB, description="SQLAlchemy URL of the database (SQLite or PostgreSQL)."
    )
    redis_url: str | None = Field(
        None, description="Redis for Redis mode (many processes); empty or unset: one process on its own."
    )
    engine_workers: int = Field(
        2, ge=0, description="Engine processes of a server on its own (not Redis mode)."
    )
    engine_queue_limit: int = Field(
        QUEUE_LIMIT,
        ge=1,
        description="Engine jobs waiting in Redis mode's queue before new ones are refused.",
    )
    engine_sweep_s: float = Field(
        SWEEP_EVERY_S,
        gt=0,
        description="Redis mode: how often a server looks for computer games left unanswered.",
    )
    engine_sweep_after_s: float = Field(
        SWEEP_AFTER_S, gt=0, description="Redis mode: a computer game unchanged this long is queued again."
    )
    rate_limits: str = Field(
        "",
        description="Rate limits: 'off', or ';'-separated name=rate entries such as "
        "games=30/minute (the names below); the limits not named keep their defaults.",
    )
    db_threads: int = Field(
        DB_THREADS,
        ge=1,
        description="Database threads (and pooled connections) of a server on PostgreSQL (SQLite: one).",
    )
    ws_per_game: int = Field(PER_GAME, ge=1, description="Websocket connections a game accepts.")
    ws_per_address: int = Field(
        PER_ADDRESS, ge=1, description="Websocket connections one client address may hold."
    )
    lobby_grace_s: float = Field(
        GRACE_S, gt=0, description="Seconds a real-time challenge outlives its poster's last lobby socket."
    )
    presence_refresh_s: float = Field(
        REFRESH_S, gt=0, description="Redis mode: how often a server rewrites its shared connection counts."
    )
    engine_hash_mb: int = Field(
        DEFAULT_HASH_MB,
        ge=MIN_HASH_MB,
        le=MAX_HASH_MB,
        description="MiB of tables each engine search may hold (UCI's Hash): bounds a worker's memory.",
    )
    position_time_limit_s: float = Field(
        15.0, gt=0, description="Wall-clock bound in seconds on serving a free position (analysis board)."
    )
    tournament_schedule: str = Field(
        DEFAULT_SCHEDULE,
        description="The site's own tournaments, ';'-separated entries "
        "'<game> arena|swiss <time control> <minutes|rounds> hourly[:MM]|daily HH:MM|weekly <day> HH:MM"
        " [bots]' "
        "(UTC; empty: none; 'bots': open to bot accounts). See docs/tournaments.md.",
    )
    report_nodes: int = Field(
        REPORT_NODES,
        ge=1,
        le=10_000_000,
        description="Nodes the engine searches in each position of a game report (its fixed budget).",
    )
    report_auto: bool = Field(
        True, description="Queue a report for every finished rated game, run while the engine is idle."
    )
    report_lease_s: float = Field(
        LEASE_S,
        gt=0,
        description="Redis mode: a report whose server stopped renewing it this long is resumed by another.",
    )
    test_timing: int | None = Field(
        None,
        gt=0,
        description="Tests only: milliseconds replacing the first-move limit, the absence "
        "limits and a correspondence day.",
    )
    house_bots: bool = Field(
        True,
        description="The computer's seats at levels 1 to 8 are held by the bot accounts ExoBot-L1 to "
        "ExoBot-L8, which people challenge like any bot (off: anonymous computer seats, no house bots).",
    )
    test_tiny_clocks: bool = Field(
        False, description="Tests only: accept any minutes with two decimals as a time control ('0.05+0')."
    )

    @field_validator("redis_url")
    @classmethod
    def _no_empty_redis(cls, value: str | None) -> str | None:
        return value or None

    @field_validator("tournament_schedule")
    @classmethod
    def _readable_schedule(cls, value: str) -> str:
        parse_schedule(value)  # a ValueError names the entry and what is wrong with it
        return value

    @field_validator("rate_limits")
    @classmethod
    def _readable_limits(cls, value: str) -> str:
        parse_rate_limits(value)  # RateLimitSettingError (a ValueError) names the problem
        return value

    @field_validator("test_timing", mode="before")
    @classmethod
    def _unset_when_empty(cls, value: Any) -> Any:
        return None if value == "" else value

    def timing(self) -> Timing:
        """The rules' durations (shortened by :attr:`test_timing`)."""
        ms = self.test_timing
        if ms is None:
            return Timing()
        return Timing(first_move_ms=ms, day_ms=ms, absence_fast_ms=ms, absence_slow_ms=ms)


def load_settings(**overrides: Any) -> Settings:
    """The settings from the environment, with ``overrides`` (command-line options) on top;
    :class:`SettingsError` naming each variable that cannot be read."""
    given = {k: v for k, v in overrides.items() if v is not None}
    try:
        return Settings(**given)
    except ValidationError as exc:
        problems = "; ".join(
            f"{PREFIX}{'.'.join(str(p) for p in e['loc']).upper()}: {e['msg']}" for e in exc.errors()
        )
        raise SettingsError(problems) from None


def settings_table() -> str:
    """The Markdown table of every setting (docs/settings.md holds it; a test keeps it true)."""
    lines = ["| Variable | Default | Meaning |", "| --- | --- | --- |"]
    for name, field in Settings.model_fields.items():
        default = field.default
        if name == "rate_limits":
            shown = "(each limit's default)"
        elif default is None or default == "":
            shown = "(none)"
        else:
            shown = f"`{str(default).lower() if isinstance(default, bool) else default}`"
        lines.append(f"| `{PREFIX}{name.upper()}` | {shown} | {field.description} |")
    return "\n".join(lines) + "\n"


def limits_table() -> str:
    """The Markdown table of every declared rate limit (docs/settings.md holds it too)."""
    lines = ["| Limit | Default | Counted per |", "| --- | --- | --- |"]
    lines += [f"| `{limit.name}` | `{limit.default}` | {limit.key} |" for limit in LIMITS]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(settings_table() + "\n" + limits_table(), end="")
