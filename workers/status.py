"""What the workers' side of the store looks like now: the figures ``omerta status`` prints and
the web's ``/metrics`` exports as gauges (``workers.metrics.StoreCollector``), read at the
time they are asked for. Raises ``services.errors.Unavailable`` when the store does not answer.
"""

from __future__ import annotations

from services.eventstore.replication import replication
from services.eventstore.store import unavailable
from workers.context import Context
from workers.projection import catchup, leases
from workers.queues import QUEUES


def snapshot(context: Context) -> dict[str, object]:
    """The replication (shards refusing writes, masters without replicas), the queues' lengths
    and failed jobs, the workers alive, whether an AI worker is, the oldest owed AI move's age
    and the shard leases (see ``api.subcommands.status``)."""
    client = context.store
    queues = [context.queues.queue(name) for name in QUEUES]
    with unavailable():
        replicas = replication(client, context.settings.min_replicas)
        return {
            "replication": {
                "min_replicas": context.settings.min_replicas,
                "refused_shards": replicas.refused_shards,
                "masters_without_replicas": replicas.masters_without_replicas,
            },
            "queues": {q.name: q.count for q in queues},
            "failed": {q.name: q.failed_job_registry.count for q in queues},
            "workers": len(leases.alive(client)),
            "ai_worker_alive": leases.ai_worker_alive(client),
            "oldest_ai_due_ms": catchup.oldest_ai_due_ms(client),
            "shard_leases": leases.report(client),
        }
