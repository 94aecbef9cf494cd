"""A per-process cache of the newest state seen of each game, for the game repository and the
projector: an LRU of ``size`` games, thread-safe. Holding states is safe because they are
immutable and streams are append-only: a state at version v stays the state at version v.

Unless the store itself goes back: restored from an older backup, or a replica that was behind
took over. Then the cached head is gone (perhaps replaced by other events at the same version);
the users of the cache check that the stream still holds the head they cached, and ``forget``
the state when it does not."""

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

    def forget(self, game_id: str, stale: S) -> None:
        """Drop ``stale`` (unless another thread has already replaced it)."""
        with self._lock:
            if self._states.get(game_id) is stale:
                del self._states[game_id]
