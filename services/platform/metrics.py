"""The figures a process measures of itself, for Prometheus (``prometheus_client``).

One ``Metrics`` per process, made by the composition root (``bootstrap``) on the process's
registry and handed to what counts: the command service (commands accepted and refused, their
latency), the event store (append latency), the web app (503s, store errors, open streams), the
worker (jobs, AI moves, notices). Made without a registry (tests building a service alone), it
counts and exports nothing.

Under gunicorn with ``PROMETHEUS_MULTIPROC_DIR`` set (``omerta serve`` sets it) prometheus_client
keeps every value in a file per process, and the web's ``/metrics`` adds up the files of all its
processes (``api.http.metrics``); the gauges say how: ``livesum`` adds up the live processes'.
What is read from the store at scrape time (queues, leases, lag) is not here but in
``workers.metrics``.

No label carries a game, a player or anything hidden: codes, queues, channels, levels, shards.
"""

from __future__ import annotations

from collections.abc import Iterable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

# Seconds: a command or an append takes milliseconds; the tail is a store that stalls.
LATENCY = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
# An AI move: greedy in milliseconds, medium 0.1 s, expert 1 s (domain.bots.SEARCH_LEVELS).
AI_SECONDS = (0.001, 0.01, 0.05, 0.1, 0.2, 0.5, 1.0, 1.5, 2.0, 5.0, 10.0)
ITERATIONS = (10, 100, 300, 1000, 3000, 10_000, 30_000, 100_000)
# A post-game review: seconds to minutes (workers.review), beyond the jobs' LATENCY.
REVIEW_SECONDS = (1.0, 5.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0)


class Metrics:
    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        def counter(name: str, doc: str, labels: tuple[str, ...] = ()) -> Counter:
            return Counter(name, doc, labels, namespace="omerta", registry=registry)

        def histogram(
            name: str, doc: str, buckets: tuple[float, ...], labels: tuple[str, ...] = ()
        ) -> Histogram:
            return Histogram(
                name, doc, labels, namespace="omerta", registry=registry, buckets=buckets
            )

        self.commands_accepted = counter("commands_accepted", "Commands appended (or retried)")
        self.commands_refused = counter(
            "commands_refused", "Commands refused, by the refusal's code", ("code",)
        )
        self.command_seconds = histogram(
            "command_seconds", "Time to decide and append a command", LATENCY
        )
        self.append_seconds = histogram(
            "append_seconds", "Time of the event store's append (with its WAIT)", LATENCY
        )
        self.unavailable = counter(
            "http_unavailable", "Answers 503, by code (store_unavailable, ...)", ("code",)
        )
        self.store_errors = counter(
            "store_errors", "Store errors met by a request or a job", ("process",)
        )
        self.live_streams = Gauge(
            "live_streams",
            "Server-sent event streams open (game: a game's, player: a player's)",
            ("kind",),
            namespace="omerta",
            registry=registry,
            multiprocess_mode="livesum",
        )
        self.jobs_done = counter("jobs_done", "Jobs that ended well, by queue", ("queue",))
        self.jobs_failed = counter(
            "jobs_failed", "Jobs that failed for good (no retry left), by queue", ("queue",)
        )
        self.jobs_retried = counter(
            "jobs_retried", "Jobs that failed and will be tried again, by queue", ("queue",)
        )
        self.job_seconds = histogram("job_seconds", "Time a job ran, by queue", LATENCY, ("queue",))
        self.ai_move_seconds = histogram(
            "ai_move_seconds", "Time a bot took to choose a move, by level", AI_SECONDS, ("level",)
        )
        self.ai_iterations = histogram(
            "ai_search_iterations", "Iterations of a search level's move", ITERATIONS, ("level",)
        )
        self.review_seconds = histogram(
            "review_seconds", "Time a post-game review took, by game", REVIEW_SECONDS, ("game",)
        )
        self.notices_sent = counter("notices_sent", "Notices delivered, by channel", ("channel",))
        self.notices_failed = counter(
            "notices_failed", "Tries of a notice's delivery that failed, by channel", ("channel",)
        )


def at_zero(counter: Counter, values: Iterable[str]) -> None:
    """A sample at 0 for each of the label's known ``values``, from the process's start: a
    counter has none until its first event otherwise, and a dashboard's panel reads "No data"
    (in multiprocess mode the sample is in the process's file at once)."""
    for value in values:
        counter.labels(value)
