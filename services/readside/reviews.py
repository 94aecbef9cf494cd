"""Post-game reviews in the store: what is owed, a running review's progress, the reviews done.

``review:{<id>}``           string, the finished game's review (``domain.review.Review``,
                            msgspec JSON, zstd-compressed: a tenth of its 30 to 150 KB), written
                            once by its job (``workers.review``); a rerun writes the same bytes
                            (iteration-bounded, seeded)
``review:{<id>}:progress``  string ``<done>/<total>`` decisions, while a job works on it: it
                            expires ``RUNNING_MS`` after the job's last report, so a job killed
                            with its worker stops counting as running
``review:{<id>}:decisions`` hash, the decisions analysed so far (a job's progress, kept across
                            jobs): field ``<index>`` -> that decision (msgspec JSON),
                            ``iterations`` -> the budget they were analysed with, ``seconds`` ->
                            the analysis time so far; a job goes on from there (a review is
                            resumable from its last decision), and the review's write deletes it
``reviews:owed:{<tag>}``    sorted set per shard, game id -> when its review was asked for (ms):
                            the reviews queued or running; the catch-up enqueues again those whose
                            job is gone

A review is derived: the events, the iteration budget and the server's secret make it again.
Only finished games are reviewed: a review of a running game would tell a player what the
search thinks of their hidden position (``finished``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, cast

import zstandard

from services.errors import ServiceError
from services.eventstore import shards
from services.eventstore.archive import Archived
from services.eventstore.store import EventStore, now_ms, unavailable
from services.games.reading import Loaded
from services.platform.config import Store

OWED = "reviews:owed"
# A job reports after each decision; this long without a report, it is presumed dead. A decision
# analysed more slowly lets a copy start, which costs time only: it writes the same bytes.
RUNNING_MS = 10_000
_BOOKKEEPING = ("iterations", "seconds")  # the decisions hash's fields that are no decision
LEVEL = 9  # zstd's: a review is written once and read many times


def review_key(game_id: str) -> str:
    return f"review:{{{game_id}}}"


def progress_key(game_id: str) -> str:
    return f"review:{{{game_id}}}:progress"


def decisions_key(game_id: str) -> str:
    return f"review:{{{game_id}}}:decisions"


def owed_key(shard: int) -> str:
    return shards.key(OWED, shard)


@dataclass(frozen=True)
class Status:
    """Where a game's review is: ``none``, ``queued``, ``running`` (``done``/``total`` once the
    job counted the decisions) or ``done`` (``review``: its stored bytes)."""

    state: Literal["none", "queued", "running", "done"]
    done: int = 0
    total: int = 0
    review: bytes | None = None  # its JSON


class GameRunning(ServiceError):
    status = 409
    code = "game_running"


def finished(loaded: Loaded) -> None:
    """Refuse (409 ``game_running``) a game that is not over."""
    if loaded.game.result(loaded.state) is None:
        raise GameRunning("a game is reviewed once it is over")


# Owed unless already done; 1 when it became owed now (its job is to be enqueued).
_OWE = """if redis.call('exists', KEYS[1]) == 1 then return 0 end
return redis.call('zadd', KEYS[2], 'NX', ARGV[1], ARGV[2])"""

# The review, and nothing owed, running or half-done any more, in one step.
_WRITE = """redis.call('set', KEYS[1], ARGV[1])
redis.call('zrem', KEYS[2], ARGV[2])
redis.call('del', KEYS[3], KEYS[4])
return 1"""


class Reviews:
    """The reviews of a store's games; an archived game's review moved with it (``archived``:
    read from there)."""

    def __init__(self, client: Store, archived: Archived | None = None) -> None:
        self.redis = client
        self.archived = archived
        self._owe = client.register_script(_OWE)
        self._write = client.register_script(_WRITE)

    @classmethod
    def of(cls, store: EventStore) -> Reviews:
        return cls(store.redis, store.archived)

    def owe(self, game_id: str) -> bool:
        """Record the game's review as owed; False when it already was, or is done."""
        keys = [review_key(game_id), owed_key(shards.of(game_id))]
        with unavailable():
            return bool(self._owe(keys=keys, args=[now_ms(), game_id]))

    def progress(self, game_id: str, done: int, total: int) -> None:
        """A running job's report (and its sign of life)."""
        with unavailable():
            self.redis.set(progress_key(game_id), f"{done}/{total}", px=RUNNING_MS)

    def decided(
        self, game_id: str, index: int, encoded: bytes, iterations: int, seconds: float
    ) -> int:
        """Keep the decision at ``index`` (its JSON), analysed with ``iterations`` in
        ``seconds``; how many are kept now."""
        key = decisions_key(game_id)
        pipe = self.redis.pipeline(transaction=False)
        pipe.hset(key, mapping={str(index): encoded, "iterations": iterations})
        pipe.hincrbyfloat(key, "seconds", seconds)
        pipe.hlen(key)
        with unavailable():
            return int(pipe.execute()[-1]) - len(_BOOKKEEPING)

    def decisions(self, game_id: str, iterations: int) -> dict[int, bytes]:
        """The decisions kept (index -> JSON), if analysed with ``iterations``: those of
        another budget are dropped (a review is one budget's)."""
        with unavailable():
            found = cast(dict[bytes, bytes], self.redis.hgetall(decisions_key(game_id)))
            if found and found.get(b"iterations") != str(iterations).encode():
                self.redis.delete(decisions_key(game_id))
                return {}
        return {int(k): v for k, v in found.items() if k.decode() not in _BOOKKEEPING}

    def seconds(self, game_id: str) -> float:
        """The analysis time of the decisions kept."""
        with unavailable():
            return float(
                cast(bytes | None, self.redis.hget(decisions_key(game_id), "seconds")) or 0
            )

    def kept(self, game_id: str) -> int:
        """How many decisions are kept."""
        with unavailable():
            return max(0, int(self.redis.hlen(decisions_key(game_id))) - len(_BOOKKEEPING))

    def paused(self, game_id: str) -> None:
        """The job working on it stopped: not running any more (queued again, or for the
        catch-up to enqueue)."""
        with unavailable():
            self.redis.delete(progress_key(game_id))

    def write(self, game_id: str, encoded: bytes) -> None:
        """Store the review (its JSON); nothing is owed, running or kept any more."""
        keys = [
            review_key(game_id),
            owed_key(shards.of(game_id)),
            progress_key(game_id),
            decisions_key(game_id),
        ]
        packed = zstandard.ZstdCompressor(level=LEVEL).compress(encoded)
        with unavailable():
            self._write(keys=keys, args=[packed, game_id])

    def read(self, game_id: str) -> bytes | None:
        """The review's JSON, if done."""
        with unavailable():
            packed = cast(bytes | None, self.redis.get(review_key(game_id)))
        packed = packed if packed is not None else self._archived(game_id)
        return None if packed is None else _unpack(packed)

    def _archived(self, game_id: str) -> bytes | None:
        with unavailable():
            bundle = self.archived.bundle(game_id) if self.archived is not None else None
        return bundle.strings.get(review_key(game_id)) if bundle is not None else None

    def status(self, game_id: str) -> Status:
        pipe = self.redis.pipeline(transaction=False)
        pipe.get(review_key(game_id))
        pipe.get(progress_key(game_id))
        pipe.zscore(owed_key(shards.of(game_id)), game_id)
        with unavailable():
            review, progress, owed = pipe.execute()
        if progress is not None:
            done, total = (int(n) for n in progress.split(b"/"))
            return Status("running", done, total)
        if owed is not None:
            return Status("queued")
        review = review if review is not None else self._archived(game_id)
        return Status("done", review=_unpack(review)) if review is not None else Status("none")

    def running(self, game_id: str) -> bool:
        with unavailable():
            return bool(self.redis.exists(progress_key(game_id)))

    def owed(self, which: Iterable[int]) -> list[str]:
        """The games of shards ``which`` whose review is queued or running, oldest first."""
        pipe = self.redis.pipeline(transaction=False)
        for shard in which:
            pipe.zrange(owed_key(shard), 0, -1)
        with unavailable():
            return [g.decode() for found in pipe.execute() for g in found]


def _unpack(packed: bytes) -> bytes:
    return zstandard.ZstdDecompressor().decompress(packed)
