"""The Flask app factory: JSON in and out, problem+json errors, the API's blueprints.

``create_app()`` with no arguments uses the process-wide command service
(``services.games.commands.service()``: ``REDIS_URL`` or the embedded server) with the workers'
follow-up hook installed (``workers.projection.wake``), and players on the same Redis client; tests
may
pass their own. ``omerta serve`` runs it under gunicorn (``deploy/``).
"""

from __future__ import annotations

import io
import os
from typing import Any

from flask import Flask

from api.context import Deps
from api.http import limits, problems, security
from api.live.presence import bp as presence
from api.live.sse import bp as events
from api.routes import (
    chat,
    clocks,
    devices,
    games,
    mail,
    meta,
    passkeys,
    players,
    push,
    ratings,
    rematch,
    webhooks,
)
from services.games.chat import Chat
from services.games.commands import CommandService, service
from services.games.rematch import Rematches
from services.games.usecases import Tables
from services.identity.players import Players
from services.platform import config
from services.readside.fanout import Fanout
from workers.projection import wake as enqueue

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
    game_chat, rematches = Chat(commands.store.redis), Rematches(commands, people)
    settings = rate_limits or limits.from_env(dict(os.environ))
    cap = settings.open_games if settings.enabled else 0
    app.extensions["omerta"] = Deps(
        commands, people, stream_seconds, secure, fanout=fanout, chat=game_chat,
        rematches=rematches, tables=Tables(commands, people, rematches, game_chat, open_games=cap),
    )  # fmt: skip
    app.config["OMERTA_PUBLIC_URL"] = config.public_url()
    problems.install(app)
    security.install(app)
    blueprints = (games.bp, players.bp, devices.bp, passkeys.bp, mail.bp, events, presence)
    routes = (meta.bp, webhooks.bp, push.bp, clocks.bp, ratings.bp, rematch.bp, chat.bp)
    for blueprint in (*blueprints, *routes):
        app.register_blueprint(blueprint)
    limits.install(app, commands.store.redis, settings)
    app.wsgi_app = _BodyLimit(app.wsgi_app)
    return app


class _BodyLimit:
    """A body without Content-Length (chunked) is read here, at most one byte past the limit,
    and handed on with the length it has: werkzeug checks the limit only against a declared
    length, and would otherwise cut a longer stream at the limit and let it be parsed."""

    def __init__(self, wsgi_app: Any) -> None:
        self.wsgi_app = wsgi_app

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        if not environ.get("CONTENT_LENGTH") and environ.get("wsgi.input_terminated"):
            data = environ["wsgi.input"].read(MAX_BODY + 1)
            environ["wsgi.input"] = io.BytesIO(data)  # over the limit: werkzeug refuses it
            environ["CONTENT_LENGTH"] = str(len(data))
            environ.pop("HTTP_TRANSFER_ENCODING", None)  # de-chunked: the length is the truth
        return self.wsgi_app(environ, start_response)
