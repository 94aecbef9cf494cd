"""A per-process cache of the newest state seen of each game, for the command service and the
projector: an LRU of ``size`` games, thread-safe. Holding states is safe because they are
immutable and streams are append-only: a state at version v stays the state at version v."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, Protocol, TypeVar


class Versioned(Protocol):
    @property
    def version(self) -> int: ...


S = TypeVar("S", bound=Versioned)


class StateCache(Generic[S]):
    def __init__(self, size: int) -> None:
        self.size = size
        self._states: OrderedDict[str, S] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, game_id: str) -> S | None:
        with self._lock:
            return self._states.get(game_id)

    def remember(self, game_id: str, state: S) -> S:
        """Keep ``state`` unless a newer one is known (another thread got further first)."""
        with self._lock:
            known = self._states.get(game_id)
            if known is None or known.version < state.version:
                self._states[game_id] = state
            self._states.move_to_end(game_id)
            while len(self._states) > self.size:
                self._states.popitem(last=False)
        return state
