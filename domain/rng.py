"""The domain's own seeded, version-stable pseudo-random generator.

Algorithm (version 1), so that anyone can re-run a game's shuffles from its revealed seed:

* A stream is named by a label (for example ``b"deck"`` or ``b"reshuffle-1"``).
* Block ``i`` of a stream is ``SHA-256(seed || 0x00 || label || 0x00 || i as 8 bytes big-endian)``;
  each 32-byte block yields four unsigned 64-bit integers (big-endian), in order.
* ``below(n)`` draws 64-bit integers and rejects those ``>= 2**64 - (2**64 % n)``, then returns
  the draw modulo ``n`` (no modulo bias).
* ``shuffle(items)`` is Fisher-Yates from the last position down: for ``i = len-1 .. 1`` swap
  ``items[i]`` with ``items[below(i + 1)]``. It returns a new list.

Python's ``random`` is never used: its algorithms are not promised to stay the same across versions.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

ALGORITHM = "sha256-ctr-v1"
_SPAN = 1 << 64


class Rng:
    def __init__(self, seed: bytes, label: bytes) -> None:
        self._prefix = seed + b"\x00" + label + b"\x00"
        self._block = 0
        self._pending: list[int] = []

    def _next64(self) -> int:
        if not self._pending:
            digest = hashlib.sha256(self._prefix + self._block.to_bytes(8, "big")).digest()
            self._block += 1
            self._pending = [int.from_bytes(digest[k : k + 8], "big") for k in range(24, -1, -8)]
        return self._pending.pop()

    def below(self, n: int) -> int:
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        limit = _SPAN - (_SPAN % n)
        while True:
            x = self._next64()
            if x < limit:
                return x % n

    def shuffle(self, items: Sequence[T]) -> list[T]:
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return out


def shuffled(seed: bytes, label: str, items: Sequence[T]) -> list[T]:
    return Rng(seed, label.encode()).shuffle(items)


def choice_index(seed: bytes, label: str, n: int) -> int:
    return Rng(seed, label.encode()).below(n)
