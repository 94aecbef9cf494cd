"""Operations: liveness, readiness (the event store answers), the OpenAPI document, the API
page."""

from __future__ import annotations

from flask import Blueprint, Response

from api import docs, openapi
from api.context import deps
from api.jsonio import encode, reply
from api.schemas import Health
from services.store import unavailable

bp = Blueprint("meta", __name__)

_document = encode(openapi.document())
_page = docs.render(openapi.document())


@bp.get("/healthz")
def healthz() -> Response:
    return reply(Health("ok"))


@bp.get("/readyz")
def readyz() -> Response:
    with unavailable():  # a 503 problem when the store does not answer
        deps().service.store.redis.ping()
    return reply(Health("ok"))


@bp.get("/openapi.json")
def document() -> Response:
    return Response(_document, mimetype="application/json")


@bp.get("/docs")
def page() -> Response:
    return Response(_page, mimetype="text/html")
