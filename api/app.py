"""The Flask app factory: JSON in and out, problem+json errors, the API's blueprints.

``create_app()`` with no arguments uses the process-wide command service
(``services.commands.service()``: ``REDIS_URL`` or the embedded server) with the workers'
follow-up hook installed (``workers.enqueue``), and players on the same Redis client; tests may
pass their own. ``omerta serve`` runs it under gunicorn (``deploy/``).
"""

from __future__ import annotations

import os

from flask import Flask

from api import limits, problems, security
from api.context import Deps
from api.routes import games, meta, players
from api.sse import bp as events
from services import config
from services.commands import CommandService, service
from services.fanout import Fanout
from services.players import Players
from workers import enqueue

MAX_BODY = 64 * 1024  # the largest command is a few hundred bytes
# A stream costs a greenlet while open, its start a few reads of the store: long streams make
# fewer starts (bench_streams: at 30 s, 10,000 open pages were 333 starts a second).
STREAM_SECONDS = 120.0


def create_app(
    commands: CommandService | None = None,
    people: Players | None = None,
    stream_seconds: float = STREAM_SECONDS,
    rate_limits: limits.RateLimits | None = None,
) -> Flask:
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    if commands is None:
        commands = service()
        enqueue.install()  # every append enqueues the workers' projection (and AI moves)
    people = people or Players(commands.store.redis)
    secure = config.settings().secure_cookies
    fanout = Fanout(commands.store.redis)  # one per app: per process under gunicorn
    app.extensions["omerta"] = Deps(commands, people, stream_seconds, secure, fanout=fanout)
    problems.install(app)
    security.install(app)
    for blueprint in (games.bp, players.bp, events, meta.bp):
        app.register_blueprint(blueprint)
    limits.install(app, commands.store.redis, rate_limits or limits.from_env(dict(os.environ)))
    return app
