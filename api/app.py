"""The Flask app factory: JSON in and out, problem+json errors, the API's blueprints.

``create_app(container)`` serves the objects of the process's container (``bootstrap``: the
command service with the workers' follow-up hook, the players, ...) with its settings (the
container's: nothing here reads the environment); tests pass their own.
``omerta serve`` runs it under gunicorn (``deploy/``, ``api.serving.server.site``).
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

from flask import Flask

from api.context import Deps
from api.http import limits, metrics, problems, requestid, security
from api.live import capacity
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
    reviews,
    webhooks,
)
from services.platform import config

if TYPE_CHECKING:  # api is below the composition root: only its type
    from bootstrap import Container

MAX_BODY = 64 * 1024  # the largest command is a few hundred bytes
# A stream costs a greenlet while open, its start a few reads of the store: long streams make
# fewer starts (bench_streams: at 30 s, 10,000 open pages were 333 starts a second).
STREAM_SECONDS = 120.0


def create_app(container: Container, stream_seconds: float = STREAM_SECONDS) -> Flask:
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    settings = container.settings
    app.extensions["omerta"] = Deps(
        commands=container.commands, players=container.players, store=container.store,
        read_models=container.read_models, settings=settings, stream_seconds=stream_seconds,
        fanout=container.fanout, chat=container.chat, rematches=container.rematches,
        tables=container.tables, queues=container.queues, metrics=container.metrics,
        secret=container.secret,
    )  # fmt: skip
    app.config["OMERTA_PUBLIC_URL"] = config.public_url(settings)
    requestid.install(app)
    problems.install(app)
    security.install(app)
    metrics.install(app, container)
    blueprints = (games.bp, players.bp, devices.bp, passkeys.bp, mail.bp, events, presence)
    routes = (meta.bp, webhooks.bp, push.bp, clocks.bp, ratings.bp, rematch.bp, chat.bp, reviews.bp)
    for blueprint in (*blueprints, *routes):
        app.register_blueprint(blueprint)
    limits.install(app, container.store, settings.rate_limits)
    capacity.install(app, settings.web_streams)  # after: over the limits' wrapping
    app.wsgi_app = _BodyLimit(app.wsgi_app)  # type: ignore[method-assign]  # Flask's way to wrap it
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
