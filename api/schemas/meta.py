"""The service itself: its health."""

from __future__ import annotations

from typing import Literal

import msgspec


class Health(msgspec.Struct, frozen=True, omit_defaults=True):
    """``degraded`` (asked for with ``?degraded=ok``): the store answers but some shards refuse
    writes, or some masters have no replica."""

    status: Literal["ok", "degraded"]
    refused_shards: list[int] = []
    masters_without_replicas: list[str] = []
