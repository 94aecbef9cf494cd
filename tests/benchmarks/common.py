"""Helpers for benchmarks: timing and a median, printed plainly."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def timed(fn: Callable[[], object]) -> tuple[float, object]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def progress(i: int, n: int, label: str) -> None:
    print(f"\r  {label}: {i}/{n}", end="\n" if i == n else "", flush=True)
