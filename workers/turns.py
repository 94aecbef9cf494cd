"""A long job's turns on its worker (a review, ``workers.review``): between its steps it asks
whether to give the worker back (``over``), and it marks the steps a stop may cut short
(``interruptible``).

``over()`` is true once a job waits on another queue its worker serves (the worker's own
check, ``watch``: a default worker serves every queue, and a review must not hold up a
projection, an AI move or a notice; RQ takes the queues in order, the analysis queue last, so
the waiting job runs first and the long one goes on after it, as a job of its own), or once the
worker was asked to stop. A stop asked during an ``interruptible()`` step ends the step at once:
the signal handler raises ``Interrupted`` there. Only pure computation is marked so (a
decision's search, never a write to the store), and the step is all it loses: a worker stops
within a second or two of SIGTERM instead of after a review's minutes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager


class Interrupted(Exception):
    """The worker was asked to stop during an interruptible step."""


class Turns:
    """One worker's (a job run outside a worker: never over)."""

    def __init__(self) -> None:
        self._waiting: Callable[[], bool] = lambda: False
        self._stop = False
        self._in_step = False

    def watch(self, waiting: Callable[[], bool]) -> None:
        """``waiting()`` tells whether another job waits for the worker."""
        self._waiting = waiting

    def over(self) -> bool:
        """Whether the job is to give its worker back now."""
        return self._stop or self._waiting()

    def stop(self) -> None:
        """The worker was asked to stop (called by its signal handler)."""
        self._stop = True
        if self._in_step:
            self._in_step = False
            raise Interrupted

    @contextmanager
    def interruptible(self) -> Iterator[None]:
        """A step a stop ends at once (``Interrupted``, raised out of the block)."""
        if self._stop:
            raise Interrupted
        self._in_step = True
        try:
            yield
        finally:
            self._in_step = False
