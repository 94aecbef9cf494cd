"""Operations: liveness, readiness (the event store answers, and takes writes to every shard),
the OpenAPI document, the API page.

``/readyz`` answers 503 ``store_unavailable`` when the store does not answer, and 503
``store_degraded`` when it answers but some shards refuse writes or some masters have no replica
(``services.eventstore.replication``; its params name them). ``?degraded=ok`` turns the latter into
a 200 whose ``status`` is ``degraded``: a proxy choosing among web processes asks so, since every
process sees the same store and taking them all out would refuse every request instead of some.
"""

from __future__ import annotations

from flask import Blueprint, Response, request

from api import openapi
from api.context import deps
from api.http import docs
from api.http.jsonio import encode, reply
from api.http.problems import ApiError
from api.schemas.meta import Health
from services.eventstore.replication import replication
from services.eventstore.store import unavailable

bp = Blueprint("meta", __name__)

_document = encode(openapi.document())
_page = docs.render(openapi.document())


@bp.get("/healthz")
def healthz() -> Response:
    return reply(Health("ok"))


@bp.get("/readyz")
def readyz() -> Response:
    tolerate = request.args.get("degraded")
    if tolerate not in (None, "ok"):
        raise ApiError(400, "bad_parameter", "degraded may only be ok", name="degraded")
    store = deps().commands.store
    with unavailable():  # a 503 problem when the store does not answer
        store.redis.ping()
        found = replication(store.redis, store.min_replicas)
    if not found.degraded:
        return reply(Health("ok"))
    if tolerate is None:
        raise ApiError(
            503,
            "store_degraded",
            f"shards {found.refused_shards} refuse writes; masters without replicas:"
            f" {found.masters_without_replicas}",
            refused_shards=found.refused_shards,
            masters_without_replicas=found.masters_without_replicas,
        )
    return reply(Health("degraded", found.refused_shards, found.masters_without_replicas))


@bp.get("/openapi.json")
def document() -> Response:
    return Response(_document, mimetype="application/json")


@bp.get("/docs")
def page() -> Response:
    return Response(_page, mimetype="text/html")
