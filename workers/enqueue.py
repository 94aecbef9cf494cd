"""Hooking the jobs into the command service: ``install()`` once per process (API and worker).

After every append the command service calls ``on_append(game_id, version)``, which asks for a
projection of the game. ``request_projection`` is also for changes that are not events: a seat
taken changes the lobby and the inboxes.

Coalescing: at most one ``project`` job per game waits in the queue. Asking sets the game's
pending flag (``workers.projection.pending_key``, ``SET NX``) and enqueues a job only if the flag
was not already set; the projection clears the flag before it reads anything, so a change made
after that clear sets it again and gets a job of its own, and a change made before it is read by
the waiting job. Under load (or with the workers behind) many appends share one job instead of
each paying for an enqueue and a projection. The flag expires after ``PENDING_TTL_MS`` (a job
waiting longer gets a harmless twin). A lost enqueue (the process dies between the flag and the
job, Redis refuses) is repaired by the catch-up, which follows the feed stream
(``workers.catchup``) and projects, which clears the flag.

A job that appends and projects the game itself right after (``ai_move``) appends inside
``projected_here()``: no job is enqueued for those appends (it would find nothing to do).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from rq import Retry

from services import commands
from workers import runtime
from workers.projection import pending_key

PROJECT_TIMEOUT = 60  # seconds: a projection folds at most one game's new events
PROJECT_RETRY = Retry(max=3, interval=[1, 5, 30])
PENDING_TTL_MS = 60_000
# Nothing to keep (the read model is the result), but RQ 3 handles a result_ttl of 0 by deleting
# the job from every registry, a dozen more round trips than letting it expire shortly.
PROJECT_RESULT_TTL = 10

_here = threading.local()


def install() -> None:
    if on_append not in commands.after_append:
        commands.after_append.append(on_append)


def on_append(game_id: str, version: int) -> None:
    if not getattr(_here, "active", False):
        request_projection(game_id)


@contextmanager
def projected_here() -> Iterator[None]:
    """Appends of this thread inside the block are projected by the caller, not by a job."""
    _here.active = True
    try:
        yield
    finally:
        _here.active = False


def request_projection(game_id: str) -> bool:
    """Enqueue a ``project`` job unless one is already waiting; whether one was enqueued."""
    client = runtime.queue(runtime.PROJECTIONS).connection
    flag = pending_key(game_id)
    if not client.set(flag, 1, nx=True, px=PENDING_TTL_MS):
        return False
    try:
        runtime.enqueue(
            runtime.PROJECTIONS,
            "workers.jobs.project",
            args=(game_id,),
            timeout=PROJECT_TIMEOUT,
            result_ttl=PROJECT_RESULT_TTL,
            failure_ttl=7 * 24 * 3600,
            retry=PROJECT_RETRY,
            description=f"project {game_id}",
        )
    except BaseException:
        client.delete(flag)  # no job waits: the next change asks again
        raise
    return True
