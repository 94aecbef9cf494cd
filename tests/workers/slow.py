"""A job that keeps a worker busy, so a test can kill the worker in the middle of a job."""

from __future__ import annotations

import time


def block(seconds: float) -> None:
    time.sleep(seconds)
