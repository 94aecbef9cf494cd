"""The passes a worker of the projections runs at each maintenance (``workers.worker``): the
read side's catch-up (``workers.projection.catchup``), the deadlines', the notifications', the
reviews' (``workers.review``), then the archiving of long-finished games
(``workers.projection.archive``), over the shards the worker holds. A pass that fails is logged
and tried again at the next maintenance: the worker keeps working."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TypeVar

from rq.exceptions import StopRequested

from services.eventstore import shards
from workers import review
from workers.clocks import deadlines
from workers.context import Context
from workers.notify import notices as notify
from workers.projection import catchup
from workers.projection.archive import ArchivePass

T = TypeVar("T")

log = logging.getLogger(__name__)

AI_GRACE_MS = 5_000  # an AI move overdue this long (after the first pass) lost its job
SETTLE_MS = 2_000  # feed entries younger than this still have their projection job running


class Maintenance:
    def __init__(self, context: Context) -> None:
        self.context = context
        self.archive_pass = ArchivePass(context)

    def run(self, first: bool, held: list[int]) -> None:
        """One round of passes; ``first``: the worker's first, which repairs at once (no grace)
        and looks at every shard when the worker holds none yet."""
        which = held or (list(range(shards.SHARDS)) if first else [])
        done = _pass(
            "catch-up pass",
            lambda: catchup.catch_up(
                self.context,
                settle_ms=0 if first else SETTLE_MS,
                ai_grace_ms=0 if first else AI_GRACE_MS,
                revive_failed=first,
                which=which,
            ),
        )
        if done is None:
            return
        store, queues, settings = self.context.store, self.context.queues, self.context.settings
        _pass("deadlines' catch-up pass", lambda: deadlines.catch_up(store, queues, which))
        revived = _pass(
            "notifications' catch-up pass",
            lambda: notify.catch_up(store, queues, settings, self.context.secret, which),
        )
        if revived:
            log.warning("catch-up: %d notifications re-enqueued", revived)
        _pass(
            "reviews' catch-up pass",
            lambda: review.catch_up(self.context, which, revive_failed=first),
        )
        _pass("archiving pass", lambda: self.archive_pass.maybe_run(held))
        if done.projected or done.ai_jobs or done.rated or done.settled:  # jobs lost (or late)
            log.warning(
                "catch-up: %d feed entries, %d games projected, %d AI moves re-enqueued, "
                "%d games rated, %d failed projection jobs settled",
                *done,
            )


def _pass(what: str, run: Callable[[], T]) -> T | None:
    """A pass's result; None when it failed (logged: the next pass tries again, the worker
    keeps working). A SIGTERM while the worker is idle makes RQ's signal handler raise
    ``StopRequested`` wherever the worker is, inside a pass too: that goes through."""
    try:
        return run()
    except StopRequested:
        raise
    except Exception:
        log.exception("%s failed", what)
        return None
