"""JSON in and out with msgspec: typed request bodies, encoded responses."""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec
from flask import Response, request

from api.http.problems import ApiError

T = TypeVar("T")

_encoder = msgspec.json.Encoder()

MAX_DEPTH = 32  # the deepest real body (options, a command) is three levels
INT64 = (-(2**63), 2**63 - 1)  # what the store's encoder (and every client) can carry


def _check(value: Any) -> None:
    """Refuse what msgspec decodes but nothing downstream can handle: very deep nesting and
    integers beyond 64 bits (walked without recursion, so depth itself cannot crash it)."""
    todo = [(value, 0)]
    while todo:
        item, depth = todo.pop()
        if depth > MAX_DEPTH:
            raise ApiError(
                400,
                "invalid_body",
                f"the body is nested deeper than {MAX_DEPTH} levels",
                error=f"nested deeper than {MAX_DEPTH} levels",
            )
        if isinstance(item, bool):
            continue
        if isinstance(item, int) and not INT64[0] <= item <= INT64[1]:
            raise ApiError(
                400,
                "invalid_body",
                "a number in the body is beyond 64 bits",
                error="a number beyond 64 bits",
            )
        if isinstance(item, msgspec.Struct):
            todo.extend((getattr(item, f), depth + 1) for f in item.__struct_fields__)
        elif isinstance(item, dict):
            todo.extend((v, depth + 1) for v in [*item.keys(), *item.values()])
        elif isinstance(item, list | tuple):
            todo.extend((v, depth + 1) for v in item)


_decoders: dict[Any, msgspec.json.Decoder[Any]] = {}


def body(kind: type[T]) -> T:
    """The request body decoded and validated as ``kind`` (an empty body is ``{}``)."""
    decoder = _decoders.get(kind)
    if decoder is None:
        decoder = _decoders[kind] = msgspec.json.Decoder(kind)
    raw = request.get_data(cache=False) or b"{}"
    try:
        decoded = decoder.decode(raw)
    except RecursionError:
        raise ApiError(
            400,
            "invalid_body",
            f"the body is nested deeper than {MAX_DEPTH} levels",
            error=f"nested deeper than {MAX_DEPTH} levels",
        ) from None
    except msgspec.ValidationError as exc:
        raise ApiError(
            400, "invalid_body", f"invalid request body: {exc}", error=str(exc)
        ) from None
    except msgspec.DecodeError as exc:
        raise ApiError(
            400, "malformed_json", f"the body is not valid JSON: {exc}", error=str(exc)
        ) from None
    _check(decoded)
    return decoded


def reply(value: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(
        _encoder.encode(value), status=status, mimetype="application/json", headers=headers
    )


def encode(value: Any) -> bytes:
    return _encoder.encode(value)
