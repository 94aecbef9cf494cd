"""What the jobs work with: one ``Context`` per process, built by the composition root
(``bootstrap``) and bound to the worker's jobs (``workers.queues.bound``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from services.eventstore.serversecret import ServerSecret
from services.games.commands import CommandService
from services.platform.config import Settings, Store
from services.platform.metrics import Metrics
from services.readside.readmodels import ReadModels
from workers.queues import Queues
from workers.turns import Turns

if TYPE_CHECKING:  # the projection's jobs take a Context: only the types, no cycle
    from workers.projection.projector import Projector
    from workers.projection.wake import Wake


@dataclass(frozen=True)
class Context:
    settings: Settings
    store: Store  # the store's client (RQ's server is ``queues.client``)
    commands: CommandService
    queues: Queues
    wake: Wake
    projector: Projector
    read_models: ReadModels
    secret: ServerSecret  # the process's (services.eventstore.serversecret): seeds, signatures
    metrics: Metrics  # the process's (services.platform.metrics): the worker's jobs count here
    # Off in a worker of the AI queue alone: its AI jobs then leave the changed games to the
    # projection workers (``workers.ai``).
    serves_projections: bool = True
    # The worker's answer to a long job asking whether to give it back (``workers.turns``):
    # each worker has its own (``workers.worker.make_worker``)
    turns: Turns = field(default_factory=Turns)
