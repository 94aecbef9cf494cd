"""The per-process state cache shared by the command service and the projector."""

from __future__ import annotations

from typing import NamedTuple

from services.games.statecache import StateCache


class At(NamedTuple):
    version: int


def test_the_newest_state_stays_and_the_least_recently_used_game_goes() -> None:
    cache: StateCache[At] = StateCache(size=2)
    assert cache.remember("a", At(3)) == At(3)
    cache.remember("a", At(2))  # an older state (a slower thread) does not replace it
    assert cache.get("a") == At(3)
    cache.remember("b", At(1))
    cache.remember("a", At(4))  # "a" used last: "b" is the least recently used
    cache.remember("c", At(1))
    assert (cache.get("a"), cache.get("b"), cache.get("c")) == (At(4), None, At(1))
