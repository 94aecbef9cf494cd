"""The composition root: every process's objects, made once and handed on.

``bootstrap()`` makes the ``Container`` of a process from its settings
(``services.platform.config``: read once, by the entry point, else here from the environment): the
store's client and RQ's (``services.platform.servers``: the same server unless ``RQ_REDIS_URL``),
the event store, the RQ queues (``workers.queues``), the game repository with its one hook
(``workers.projection.wake``: every append wakes the read side) and the command service whose parts
are given it, the projector with its listeners (notifications, deadlines, expiries, ratings,
reviews), the read models, the server's secret (``services.eventstore.serversecret``), the
feature services the entry points use (the tables, the reader of live events), and the process's
metrics (``services.platform.metrics``) on a registry of its own. The
entry points (``omerta serve``'s app, ``omerta worker``, the other ``omerta`` commands) call it once
and pass the container (or the workers' part of it, ``Container.context``) down; nothing else makes
these objects, reads the settings or keeps them in a module.

Tests make their own: ``bootstrap(settings, store=client)`` on their server (settings made with
``config.settings({...})`` rather than by editing the environment), with their own ``hooks`` or
``listeners`` where a test needs other ones.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

import redis
from prometheus_client import CollectorRegistry

from services.eventstore.archive import Archive, Archived, FileArchive
from services.eventstore.archive_s3 import S3Archive
from services.eventstore.serversecret import ServerSecret
from services.eventstore.store import EventStore
from services.games.chat import Chat
from services.games.commands import CommandService
from services.games.rematch import Rematches
from services.games.repository import AfterAppend, EventStoreRepository
from services.games.usecases import Tables
from services.identity.players import Players
from services.platform import config, servers
from services.platform.config import Settings, Store
from services.platform.metrics import Metrics
from services.readside.fanout import Fanout
from services.readside.readmodels import ReadModels
from workers.clocks.deadlines import Deadlines
from workers.clocks.expiry import Expiry
from workers.context import Context
from workers.notify.notices import Notifications
from workers.projection.projector import Listener, Projector
from workers.projection.ratings import Ratings
from workers.projection.wake import Wake
from workers.queues import Queues
from workers.review import Reviewing


@dataclass(frozen=True)
class Container:
    settings: Settings
    store: config.Store  # the store's client (a cluster client with REDIS_CLUSTER_URL)
    queues_client: redis.Redis  # RQ's server
    events: EventStore
    commands: CommandService
    queues: Queues
    projector: Projector
    read_models: ReadModels
    secret: ServerSecret  # what AI seeds, replayed creations' tokens and signatures derive from
    players: Players
    chat: Chat
    rematches: Rematches
    tables: Tables  # creating, joining and rematching games (the API's)
    fanout: Fanout  # the process's reader of live events (the API's streams)
    context: Context  # what the workers' jobs work with
    metrics: Metrics  # what this process measures (services.platform.metrics)
    registry: CollectorRegistry  # where they are registered (not prometheus_client's global)


def bootstrap(
    settings: Settings | None = None,
    *,
    store: config.Store | None = None,
    queues_client: redis.Redis | None = None,
    hooks: Sequence[AfterAppend] | None = None,
    listeners: Sequence[Listener] | None = None,
) -> Container:
    """The process's objects. ``store``/``queues_client``: clients to use instead of the
    configured ones; ``hooks``: the game repository's (default: the workers' wake);
    ``listeners``: the projector's (default: notifications, deadlines, expiries, ratings,
    reviews)."""
    settings = settings if settings is not None else config.settings(os.environ)
    store = store if store is not None else servers.connect(settings)
    queues_client = queues_client or servers.connect_queues(settings, store)
    registry = CollectorRegistry()
    metrics = Metrics(registry)
    archived = Archived(store, archive(settings))
    events = EventStore(
        store,
        min_replicas=settings.min_replicas,
        replica_timeout_ms=settings.replica_timeout_ms,
        metrics=metrics,
        archived=archived,
    )
    queues = Queues(queues_client)
    wake = Wake(store, queues)
    repository = EventStoreRepository(events, hooks=[wake.on_append] if hooks is None else hooks)
    commands = CommandService(
        repository, metrics=metrics, min_clock_seconds=settings.min_clock_seconds
    )
    if listeners is None:
        listeners = [
            Notifications(store, queues),
            Deadlines(queues),
            Expiry(queues, settings.open_game_days),
            Ratings(queues),
            Reviewing(store, queues, settings.review),
        ]
    projector = Projector(events, listeners=listeners)
    read_models = ReadModels(store, archived)
    secret = ServerSecret(store, settings.secret)
    players = Players(store, secret=secret)
    chat, rematches = Chat(store), Rematches(commands, players)
    context = Context(
        settings, store, commands, queues, wake, projector, read_models, secret, metrics
    )
    return Container(
        settings=settings,
        store=store,
        queues_client=queues_client,
        events=events,
        commands=commands,
        queues=queues,
        projector=projector,
        read_models=read_models,
        secret=secret,
        players=players,
        chat=chat,
        rematches=rematches,
        tables=tables(settings, store, secret, commands, players, rematches, chat),
        fanout=Fanout(store),
        context=context,
        metrics=metrics,
        registry=registry,
    )


def tables(
    settings: Settings,
    store: Store,
    secret: ServerSecret,
    commands: CommandService,
    players: Players,
    rematches: Rematches,
    chat: Chat,
) -> Tables:
    """The tables, capping a player's open public games unless the rate limits are off."""
    limits = settings.rate_limits
    return Tables(
        commands,
        players,
        rematches,
        chat,
        store,
        secret,
        open_games=limits.open_games if limits.enabled else 0,
    )


def archive(settings: Settings) -> Archive:
    """Where finished games go (``OMERTA_ARCHIVE_S3_URL``'s bucket, else files under the data
    directory)."""
    if settings.archive_s3_url:
        return S3Archive(settings.archive_s3_url)
    return FileArchive(settings.var / "archive")
