"""``omerta status``: what an operator checks first, as one JSON object on stdout: the queues'
lengths, the failed jobs, the workers alive (and whether an AI worker is: without one the
default workers make the AI moves), and how long the longest-owed AI move has waited
(``oldest_ai_due_ms``: a few seconds at most while workers run, see ``workers.catchup``)."""

from __future__ import annotations

import argparse
import json


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "status", help="queues, failed jobs, workers and the oldest owed AI move, as JSON"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from rq import Worker

    from services.commands import service
    from services.store import unavailable
    from workers import catchup, runtime, worker

    queues = [runtime.queue(name) for name in runtime.QUEUES]
    client = queues[0].connection
    with unavailable():
        status = {
            "queues": {q.name: q.count for q in queues},
            "failed": {q.name: q.failed_job_registry.count for q in queues},
            "workers": Worker.count(connection=client),
            "ai_worker_alive": worker.ai_worker_alive(client),
            "oldest_ai_due_ms": catchup.oldest_ai_due_ms(service().store.redis),
        }
    print(json.dumps(status, indent=2))
    return 0
