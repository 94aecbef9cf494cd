"""RQ's ``SimpleWorker`` for a test that runs the queued jobs in its own process, in burst mode
(``work(burst=True)``): without RQ's commands channel. Nobody sends commands to such a run, and
RQ's thread for them reads with a 60 s timeout that redis-py's ``stop`` now waits out: every
burst ended up to 60 s after its last job (the backup scenario's drains took 2 to 11 minutes).
``workers.worker.OmertaWorker`` keeps the channel, polled every second, for ``omerta worker``."""

from __future__ import annotations

from rq import SimpleWorker


class BurstWorker(SimpleWorker):
    def subscribe(self) -> None:
        """No commands channel: a burst in a test's process takes none."""

    def unsubscribe(self) -> None:
        """Nothing subscribed (``subscribe``)."""
