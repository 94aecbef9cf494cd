"""The archiving pass of the projection workers: finished games older than
``OMERTA_ARCHIVE_DAYS`` move to the archive (``services.readside.archiving``), in the shards the
worker holds, at most once every ``EVERY`` seconds (a pass over the shards with nothing to move
costs one read per shard). A pass moves at most ``PER_PASS`` games, so that the worker's jobs
wait seconds, not hours, behind a backlog (the first pass after an upgrade); a pass that reached
it is followed by another at the next maintenance (5 s later) until the backlog is gone."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from services.eventstore.store import now_ms
from services.readside.archiving import Archiver, Passed
from workers.context import Context

log = logging.getLogger(__name__)

EVERY = 600.0  # seconds between two passes of a worker
PER_PASS = 200


class ArchivePass:
    def __init__(
        self, context: Context, every: float = EVERY, clock: Callable[[], int] = now_ms
    ) -> None:
        self.context = context
        self.every = every
        self.clock = clock
        self._last = float("-inf")

    def maybe_run(self, which: list[int]) -> Passed | None:
        """Run a pass over the shards ``which`` if one is due and archiving is on."""
        days = self.context.settings.archive_days
        if days <= 0 or not which or time.monotonic() - self._last < self.every:
            return None
        archiver = Archiver(self.context.commands.store)
        passed = archiver.archive_older(
            days, self.clock(), which, progress=_log_progress, limit=PER_PASS
        )
        if passed.archived < PER_PASS:
            self._last = time.monotonic()
        if any(passed):
            log.info("archive: %d games archived, %d waiting, %d failed", *passed)
        return passed


def _log_progress(shard: int, total: int, passed: Passed) -> None:
    if passed.archived:
        log.debug("archive: %d/%d shards, %d games archived", shard, total, passed.archived)
