"""Hooking the jobs into the command service: ``install()`` once per process (API and worker).

After every append the command service calls ``on_append(game_id, version)``, which enqueues a
``project`` job. A lost enqueue (the process dies first, Redis refuses) is repaired by the
catch-up, which follows the feed stream (``workers.catchup``). ``request_projection`` is for
changes that are not events: a seat taken changes the lobby and the inboxes.

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

PROJECT_TIMEOUT = 60  # seconds: a projection folds at most one game's new events
PROJECT_RETRY = Retry(max=3, interval=[1, 5, 30])

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


def request_projection(game_id: str) -> None:
    runtime.queue(runtime.PROJECTIONS).enqueue_call(
        "workers.jobs.project",
        args=(game_id,),
        timeout=PROJECT_TIMEOUT,
        result_ttl=0,  # nothing to keep: the read model is the result
        failure_ttl=7 * 24 * 3600,
        retry=PROJECT_RETRY,
        description=f"project {game_id}",
    )
