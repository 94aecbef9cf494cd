"""JSON in and out with msgspec: typed request bodies, encoded responses."""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec
from flask import Response, request

from api.problems import ApiError

T = TypeVar("T")

_encoder = msgspec.json.Encoder()
_decoders: dict[Any, msgspec.json.Decoder[Any]] = {}


def body(kind: type[T]) -> T:
    """The request body decoded and validated as ``kind`` (an empty body is ``{}``)."""
    decoder = _decoders.get(kind)
    if decoder is None:
        decoder = _decoders[kind] = msgspec.json.Decoder(kind)
    raw = request.get_data(cache=False) or b"{}"
    try:
        return decoder.decode(raw)
    except msgspec.ValidationError as exc:
        raise ApiError(
            400, "invalid_body", f"invalid request body: {exc}", error=str(exc)
        ) from None
    except msgspec.DecodeError as exc:
        raise ApiError(
            400, "malformed_json", f"the body is not valid JSON: {exc}", error=str(exc)
        ) from None


def reply(value: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(
        _encoder.encode(value), status=status, mimetype="application/json", headers=headers
    )


def encode(value: Any) -> bytes:
    return _encoder.encode(value)
