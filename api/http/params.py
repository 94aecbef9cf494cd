"""Query parameters and headers that carry numbers (versions)."""

from __future__ import annotations

from flask import request

from api.http.problems import ApiError

MAX_DIGITS = 12


def whole_number(name: str, raw: str) -> int:
    if not raw.isdigit() or len(raw) > MAX_DIGITS or not raw.isascii():
        raise ApiError(400, "bad_parameter", f"{name} must be a whole number >= 0", name=name)
    return int(raw)


def query_number(name: str, default: int) -> int:
    raw = request.args.get(name)
    return default if raw is None else whole_number(name, raw)


def header_number(name: str) -> int | None:
    raw = request.headers.get(name)
    return None if raw is None else whole_number(name, raw)
