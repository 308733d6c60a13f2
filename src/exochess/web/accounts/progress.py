"""An account's progress through the lessons: the best stars of each stage it has completed.

A guest's progress lives in the browser (``localStorage``); a signed-in player's is kept here
too, so that it follows them to any browser.  Stars only ever go up: a replayed stage with fewer
stars keeps the better score.
"""

from __future__ import annotations

from sqlalchemy import Engine, and_, insert, select, update
from sqlalchemy.exc import IntegrityError

from exochess.web.storage.store import lesson_progress, now

Progress = dict[str, dict[str, int]]
"""Game name -> stage id -> stars (1 to 3)."""


def progress_of(engine: Engine, user_id: int) -> Progress:
    """Every stage the account has completed, with its best stars."""
    out: Progress = {}
    with engine.connect() as conn:
        rows = conn.execute(
            select(lesson_progress.c.variant, lesson_progress.c.stage, lesson_progress.c.stars).where(
                lesson_progress.c.user_id == user_id
            )
        )
        for variant, stage, stars in rows:
            out.setdefault(variant, {})[stage] = stars
    return out


def record_stars(engine: Engine, user_id: int, variant: str, stage: str, stars: int) -> int:
    """Keep ``stars`` for the stage if better than what the account has; returns the best."""
    key = and_(
        lesson_progress.c.user_id == user_id,
        lesson_progress.c.variant == variant,
        lesson_progress.c.stage == stage,
    )
    for _attempt in range(2):  # a concurrent first insert of the same stage: read it, then update
        try:
            with engine.begin() as conn:
                best = conn.execute(select(lesson_progress.c.stars).where(key)).scalar()
                if best is None:
                    conn.execute(
                        insert(lesson_progress).values(
                            user_id=user_id, variant=variant, stage=stage, stars=stars, updated=now()
                        )
                    )
                    return stars
                if stars > best:
                    conn.execute(update(lesson_progress).where(key).values(stars=stars, updated=now()))
                    return stars
                return int(best)
        except IntegrityError:
            continue
    return stars
