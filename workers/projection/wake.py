"""Hooking the jobs into the command service: a ``Wake``'s ``on_append`` is among the command
service's hooks in every process (API and worker: ``bootstrap``).

Every append marks its game changed (the store adds it to the ``changed`` set in the same atomic
step, ``services.eventstore.store``), and the first append after the read side last took that set
also sets the store's wake flag and is told so (``woke``). Only then does ``on_append`` enqueue a
``project_changed`` job (``workers.projection.jobs``), which clears the flag, takes the changed
games and projects them all. So one job serves every change made while it waited, in every game:
under load (or with the workers behind) many appends share one job and its dozen round trips of RQ
bookkeeping, and an append costs no round trip beyond its own. A change made after the job cleared
the flag sets it again and gets a job of its own.

An AI job (``workers.ai.ai_move``) projects its game after each of its moves and takes the
changed games at its end (``wake_deferred``): its own appends enqueue no job; a job is most of
what RQ writes to the store per move.

A seat taken is not an event: the service's ``notify`` marks the game the same way. A failed
enqueue clears the flag again, so the next change asks anew; a lost one (the process died
between its append and the enqueue) is repaired by the flag's expiry (``WAKE_TTL_MS``: the next
change after it wakes the read side) and by the catch-up, which follows the feed stream
(``workers.projection.catchup``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rq import Retry

from services.eventstore import keys, shards
from services.platform.config import Store
from workers.queues import PROJECTIONS, Queues

PROJECT_TIMEOUT = 300  # seconds: a job projects every game changed while it waited
PROJECT_ONE_TIMEOUT = 60  # seconds: one game's new events
PROJECT_RETRY = Retry(max=3, interval=[1, 5, 30])
# Nothing to keep (the read models are the result): RQ deletes a job with a result_ttl of 0 as
# it finishes (in the same transaction), instead of storing its result, adding it to the
# finished registry and letting both expire. Every byte RQ writes lands in the store's AOF,
# where its records were most of what the service wrote per move.
RESULT_TTL = 0
FAILURE_TTL = 7 * 24 * 3600


class Wake:
    """Wakes the read side of the store (``store``, where the wake flags are) through RQ's
    queues (``queues``)."""

    def __init__(self, store: Store, queues: Queues) -> None:
        self.store = store
        self.queues = queues
        self._deferred = threading.local()  # per thread: within ``deferred``

    def on_append(self, game_id: str, version: int, woke: bool) -> None:
        """The command service's hook."""
        if not woke:
            return
        if getattr(self._deferred, "active", False):
            self._deferred.owed.add(shards.of(game_id))
            return
        self.wake(shards.of(game_id))

    @contextmanager
    def deferred(self, wake_here: Callable[[int], object]) -> Iterator[None]:
        """Within, an append that sets its shard's wake flag enqueues no job: at the end,
        ``wake_here(shard)`` (``project_changed`` run in this job) does what that job would,
        for each such shard. Meanwhile the flag stays set, so other changes wait for it too; if
        this process dies first, the flag's expiry (and the catch-up) repairs it, as for a lost
        enqueue."""
        self._deferred.active, self._deferred.owed = True, set()
        try:
            yield
        finally:
            owed = sorted(self._deferred.owed)
            self._deferred.active, self._deferred.owed = False, set()
            for shard in owed:
                wake_here(shard)

    def wake(self, shard: int) -> None:
        """Enqueue a ``project_changed`` job for the shard (the caller set its wake flag)."""
        try:
            self._projection(
                "project_changed",
                (shard,),
                PROJECT_TIMEOUT,
                f"project the changed games of {shard}",
            )
        except BaseException:
            self.store.delete(keys.wake_key(shard))  # the flag is the store's
            raise

    def project_alone(self, game_id: str) -> None:
        """Enqueue a ``project`` job for this game only: for a game whose projection failed in
        a ``project_changed`` job, so its retries and its failure are its own."""
        self._projection("project", (game_id,), PROJECT_ONE_TIMEOUT, f"project {game_id}")

    def _projection(
        self, job: str, args: tuple[object, ...], timeout: int, description: str
    ) -> None:
        self.queues.enqueue(
            PROJECTIONS,
            f"workers.projection.jobs.{job}",
            args=args,
            timeout=timeout,
            result_ttl=RESULT_TTL,
            failure_ttl=FAILURE_TTL,
            retry=PROJECT_RETRY,
            description=description,
        )
