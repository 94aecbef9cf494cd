"""The workers' side of the metrics (``services.platform.metrics``): what a job run counts, and
the figures read from the store when Prometheus asks.

``record``: the worker (``workers.worker.OmertaWorker.perform_job``) measures every job it runs:
its time and outcome by queue (done, failed for good, failed to be retried), and for the jobs that
deliver notices (``workers.notify.notices.DELIVERIES``) the channel's sent and failed tries.

``StoreCollector``: a collector (prometheus_client's protocol) whose figures are read from the
store at each scrape, the same ones ``omerta status`` prints (``workers.status``), plus each
shard's projection lag: how long the oldest append its catch-up cursor has not passed has waited
(``workers.projection.catchup``; the cursor moves every catch-up pass, 5 s, past entries older
than 2 s, so a few seconds is normal and a growing figure means no projection worker follows the
shard). The web's ``/metrics`` serves it (``api.http.metrics``): one reading per scrape.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

from prometheus_client.core import GaugeMetricFamily, Metric
from rq.job import Job

from services.errors import Unavailable
from services.eventstore import keys, shards
from services.eventstore.store import now_ms, unavailable
from services.games.handling import REFUSALS
from services.platform.metrics import Metrics, at_zero
from workers.context import Context
from workers.notify.notices import DELIVERIES
from workers.projection.catchup import cursor_key
from workers.queues import current_name
from workers.status import snapshot


class JobRun(NamedTuple):
    queue: str
    seconds: float
    done: bool
    will_retry: bool  # had it failed, RQ would try again


def record(metrics: Metrics, job: Job, run: JobRun) -> None:
    metrics.job_seconds.labels(run.queue).observe(run.seconds)
    if run.done:
        metrics.jobs_done.labels(run.queue).inc()
    else:
        failed = metrics.jobs_retried if run.will_retry else metrics.jobs_failed
        failed.labels(run.queue).inc()
    channel = DELIVERIES.get(current_name(job.func_name))
    if channel is None:
        return
    # RQ keeps no result (result_ttl 0): the outcome is read from the job as it ended.
    outcome = job._result if run.done else None
    if outcome == "sent":
        metrics.notices_sent.labels(channel).inc()
    elif not run.done or outcome == "given_up":
        metrics.notices_failed.labels(channel).inc()


def start_at_zero(metrics: Metrics, queues: Iterable[str]) -> None:
    """The worker's counters with known label values at 0 from its start (a dashboard reads 0,
    not "No data"): its queues' jobs, the channels' notices, its store errors, the command
    service's own refusals (an AI worker's commands)."""
    names = list(queues)
    for jobs in (metrics.jobs_done, metrics.jobs_failed, metrics.jobs_retried):
        at_zero(jobs, names)
    for notices in (metrics.notices_sent, metrics.notices_failed):
        at_zero(notices, sorted(set(DELIVERIES.values())))
    at_zero(metrics.store_errors, ["worker"])
    at_zero(metrics.commands_refused, REFUSALS)


def projection_lag_ms(context: Context) -> list[int]:
    """Per shard, ms since the oldest feed entry its catch-up cursor has not passed (0: none)."""
    client = context.store
    with unavailable():
        pipe = client.pipeline(transaction=False)
        for shard in range(shards.SHARDS):
            pipe.get(cursor_key(shard))
        cursors = pipe.execute()
        pipe = client.pipeline(transaction=False)
        for shard, cursor in enumerate(cursors):
            start = f"({(cursor or b'0-0').decode()}"
            pipe.xrange(keys.shard_feed_key(shard), start, "+", count=1)
        oldest = pipe.execute()
    now = now_ms()
    return [max(0, now - int(rows[0][0].split(b"-")[0])) if rows else 0 for rows in oldest]


class StoreCollector:
    """The store's figures as gauges, read at each scrape; ``omerta_store_up`` 0 and nothing
    else when the store does not answer."""

    def __init__(self, context: Context) -> None:
        self.context = context

    def collect(self) -> Iterator[Metric]:
        up = GaugeMetricFamily("omerta_store_up", "1: the store answered the scrape's reads")
        try:
            status = snapshot(self.context)
            lag = projection_lag_ms(self.context)
        except Unavailable:
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        yield from _gauges(status, lag)


def _gauge(name: str, doc: str, value: float) -> GaugeMetricFamily:
    return GaugeMetricFamily(f"omerta_{name}", doc, value=value)


def _labelled(name: str, doc: str, label: str, values: dict[str, Any]) -> GaugeMetricFamily:
    family = GaugeMetricFamily(f"omerta_{name}", doc, labels=[label])
    for key, value in values.items():
        family.add_metric([key], value)
    return family


def _gauges(status: dict[str, Any], lag: list[int]) -> Iterator[Metric]:
    replication, held = status["replication"], status["shard_leases"]
    oldest = status["oldest_ai_due_ms"]
    yield _labelled("queue_jobs", "Jobs waiting in each queue", "queue", status["queues"])
    yield _labelled("queue_failed_jobs", "Failed jobs kept by RQ", "queue", status["failed"])
    yield _gauge("workers_alive", "Workers announced alive", status["workers"])
    yield _gauge("ai_worker_alive", "1: an AI worker is alive", int(status["ai_worker_alive"]))
    yield _gauge(
        "oldest_ai_due_seconds",
        "How long the longest-owed AI move has waited (0: none owed)",
        (oldest or 0) / 1000,
    )
    yield _labelled(
        "shard_leases", "Shards each projection worker holds", "worker", held["holders"]
    )
    yield _gauge("shards_unleased", "Shards no projection worker holds", len(held["unheld"]))
    yield _gauge(
        "shards_refusing_writes",
        "Shards whose appends are refused for want of replicas",
        len(replication["refused_shards"]),
    )
    yield _gauge(
        "masters_without_replicas",
        "Store masters with no replica online",
        len(replication["masters_without_replicas"]),
    )
    yield _labelled(
        "projection_lag_seconds",
        "Per shard, the age of the oldest append the catch-up has not passed",
        "shard",
        {f"{shard:02d}": ms / 1000 for shard, ms in enumerate(lag)},
    )
