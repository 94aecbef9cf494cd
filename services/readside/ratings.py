"""The ratings' store: the ratings, their inputs and their history in the store, folded in one
game at a time (the workers) and read (the API). The arithmetic (who is rated, ranks, the fold,
the order of games) is ``services.readside.ratingmath``'s.

``Ratings.rate`` folds one game: at the end of the order incrementally; a game that finishes "in
the past" of what was folded (a late projection), or whose input changed (a seat taken after the
end), makes it fold every game again from the stored inputs (microseconds a game).
``Ratings.rebuild`` folds every finished game from the read models (an archived game's from its
archive), for ``omerta rebuild``: the same numbers. A fold of every game costs about 80
microseconds a game plus its writes (``README.md``); a service with millions of games would keep
snapshots of the ratings along the order and fold from the one before a late game.

Keys (all read models, ``rm:``, so ``omerta rebuild`` drops and recreates them), all under the
one hash tag ``{ratings}``, so the fold's transaction is in one slot on a Redis Cluster too (one
master holds the ratings: some bytes per finished game and per identity, written once a game)::

    rm:{ratings}:folded                    zset  game id -> finish time, every folded game
    rm:{ratings}:inputs                    hash  game id -> msgpack ``RatedGame`` (what it rated)
    rm:{ratings}:of:<game>                 hash  identity -> msgpack ``Rating``
    rm:{ratings}:leaderboard:<game>        zset  identity -> mu - 3 sigma (``Rating.ordinal``)
    rm:{ratings}:history:<identity>:<game> zset  msgpack [game id, mu, sigma] -> finish time

One writer at a time: a fold reads and writes in a transaction watching the folded set and the
inputs (two jobs racing: the loser folds again). The finished games it starts from are the read
models' status lists (every shard's), read apart from it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple, cast

import msgspec
import redis

from services.eventstore import keys, shards
from services.eventstore.archive import Archived
from services.eventstore.records import decode_meta
from services.eventstore.store import unavailable
from services.games.seats import read_seats
from services.platform.config import Store
from services.readside import readmodels as rm
from services.readside.ratingmath import RatedGame, Rating, fold, order, rated_game

TAG = "rm:{ratings}"
FOLDED = f"{TAG}:folded"
INPUTS = f"{TAG}:inputs"
CHUNK = 1000  # game ids asked about at once


def ratings_key(game: str) -> str:
    return f"{TAG}:of:{game}"


def leaderboard_key(game: str) -> str:
    return f"{TAG}:leaderboard:{game}"


def history_key(identity: str, game: str) -> str:
    return f"{TAG}:history:{identity}:{game}"


FINISHED_LISTS = [rm.FINISHED, *(rm.index_key(rm.FINISHED, s) for s in range(shards.SHARDS))]
"""Where the finished games are listed: the single list, and every shard's copy (the read
side moves to the shards' lists: ``services.readside.readmodels.index_key``)."""


class Point(NamedTuple):
    """A rating after one game."""

    time: int
    game_id: str
    rating: Rating


_encode = msgspec.msgpack.Encoder().encode
_rating = msgspec.msgpack.Decoder(Rating)
_rated = msgspec.msgpack.Decoder(RatedGame)
_point = msgspec.msgpack.Decoder(tuple[str, float, float])


# KEYS[1]: a leaderboard, KEYS[2]: its ratings. ARGV: the first and last place (from 0). The
# count, the names of those places best first and their ratings, read at one moment: a fold
# between reads would show ratings out of the order read (the fold writes both at once).
PAGE = """
local names = redis.call('ZREVRANGE', KEYS[1], ARGV[1], ARGV[2])
local stored = {}
for i, name in ipairs(names) do stored[i] = redis.call('HGET', KEYS[2], name) end
return {redis.call('ZCARD', KEYS[1]), names, stored}
"""


class Ratings:
    """The ratings on one Redis client: folding games in (the workers), reading (the API)."""

    def __init__(self, client: Store, archived: Archived | None = None) -> None:
        self.redis = client
        self.archived = archived  # an archived game's read model and metadata are there
        self._page = client.register_script(PAGE)

    # -- folding ------------------------------------------------------------------------------

    def input_of(self, game_id: str) -> RatedGame | None:
        """What the game rates, from its read model, metadata and seats; None while it is not
        finished (or not projected)."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.hmget(rm.game_key(game_id), ["summary", "progress"])
        pipe.get(keys.meta_key(game_id))
        read_owners = read_seats(pipe, game_id)
        with unavailable():
            found = iter(pipe.execute())
        fields, meta, owners = next(found), next(found), read_owners(found)
        if meta is None and self.archived is not None:
            bundle = self.archived.bundle(game_id)
            if bundle is not None:
                stored = bundle.hash(rm.game_key(game_id)) or {}
                fields = [stored.get(b"summary"), stored.get(b"progress")]
                meta = bundle.strings.get(keys.meta_key(game_id))
        summary = rm.joined(*fields)
        if summary is None or summary.result is None or meta is None:
            return None
        return rated_game(decode_meta(meta), owners, summary.result, summary.updated)

    def rate(self, game_id: str) -> str:
        """Fold the game in, once: ``rated`` (at the end of the order), ``refolded`` (every
        game folded again: it came late, or its input changed), ``unchanged`` (folded before)
        or ``not_finished``."""
        game = self.input_of(game_id)
        if game is None:
            return "not_finished"
        encoded = _encode(game)
        with unavailable(), self.redis.pipeline(transaction=True) as pipe:
            while True:
                try:
                    pipe.watch(FOLDED, INPUTS)
                    stored = pipe.hget(INPUTS, game_id)
                    if stored == encoded:
                        return "unchanged"
                    last = cast(
                        list[tuple[bytes, float]], pipe.zrevrange(FOLDED, 0, 0, withscores=True)
                    )
                    end = (int(last[0][1]), last[0][0].decode()) if last else None
                    late = end is not None and (game.time, game_id) < end
                    if stored is None and not late:
                        self._fold_one(pipe, game_id, game)
                        return "rated"
                    stored_all = cast(dict[bytes, bytes], pipe.hgetall(INPUTS)).items()
                    inputs = {g.decode(): _rated.decode(v) for g, v in stored_all}
                    previous = list(inputs.values())
                    inputs[game_id] = game
                    self._fold_all(pipe, inputs, previous)
                    return "refolded"
                except redis.WatchError:
                    continue

    def rebuild(self) -> int:
        """Fold every finished game again from the read models (``omerta rebuild``, after the
        games were projected again); how many games."""
        ids = self._finished()
        inputs = {}
        for game_id in ids:
            game = self.input_of(game_id)
            if game is not None:
                inputs[game_id] = game
        with unavailable(), self.redis.pipeline(transaction=True) as pipe:
            while True:
                try:
                    pipe.watch(FOLDED, INPUTS)
                    previous = [_rated.decode(v) for v in cast(list[bytes], pipe.hvals(INPUTS))]
                    self._fold_all(pipe, inputs, previous)
                    return len(inputs)
                except redis.WatchError:
                    continue

    def unfolded(self) -> list[str]:
        """Finished games not folded yet (a rating job lost with its worker): the catch-up's."""
        pipe = self.redis.pipeline(transaction=False)
        for name in FINISHED_LISTS:
            pipe.zcard(name)
        pipe.zcard(FOLDED)
        with unavailable():
            *finished, folded = pipe.execute()
        if sum(finished) == folded:  # folded games are finished games: the same set
            return []
        ids = self._finished()
        missing = []
        for start in range(0, len(ids), CHUNK):
            chunk = ids[start : start + CHUNK]
            with unavailable():
                scores = self.redis.zmscore(FOLDED, chunk)
            missing += [g for g, score in zip(chunk, scores, strict=True) if score is None]
        return missing

    def _finished(self) -> list[str]:
        """Every finished game, in no particular order."""
        pipe = self.redis.pipeline(transaction=False)
        for name in FINISHED_LISTS:
            pipe.zrange(name, 0, -1)
        with unavailable():
            found = pipe.execute()
        return sorted({g.decode() for listed in found for g in listed})

    def _fold_one(self, pipe: Any, game_id: str, game: RatedGame) -> None:
        names = sorted({identity for identity, _ in game.seats})
        stored = pipe.hmget(ratings_key(game.game), names) if names else []
        current = {n: _rating.decode(r) for n, r in zip(names, stored, strict=True) if r}
        new = fold(current, game)
        pipe.multi()
        pipe.zadd(FOLDED, {game_id: game.time})
        pipe.hset(INPUTS, game_id, _encode(game))
        _write(pipe, game.game, new, [(game_id, game.time, new)])
        pipe.execute()

    def _fold_all(
        self, pipe: Any, inputs: dict[str, RatedGame], previous: Iterable[RatedGame]
    ) -> None:
        """Replace every rating by the fold of ``inputs``; ``previous`` (the inputs folded so
        far) names the keys to drop."""
        ratings: dict[str, dict[str, Rating]] = {}
        steps: dict[str, list[Step]] = {}
        for game_id in order(inputs):
            game = inputs[game_id]
            kind = ratings.setdefault(game.game, {})
            new = fold(kind, game)
            kind.update(new)
            steps.setdefault(game.game, []).append((game_id, game.time, new))
        every = [*previous, *inputs.values()]
        stale = {ratings_key(g.game) for g in every} | {leaderboard_key(g.game) for g in every}
        stale |= {history_key(i, g.game) for g in every for i, _ in g.seats}
        pipe.multi()
        pipe.delete(FOLDED, INPUTS, *sorted(stale))
        if inputs:
            pipe.zadd(FOLDED, {game_id: game.time for game_id, game in inputs.items()})
            pipe.hset(INPUTS, mapping={g: _encode(game) for g, game in inputs.items()})
        for game_kind, kind_steps in steps.items():
            _write(pipe, game_kind, ratings[game_kind], kind_steps)
        pipe.execute()

    # -- reading ------------------------------------------------------------------------------

    def leaderboard(
        self, game: str, offset: int, limit: int
    ) -> tuple[int, list[tuple[str, Rating]]]:
        """(how many are rated, the identities from ``offset``, best first), read atomically
        (``PAGE``)."""
        with unavailable():
            total, names, stored = self._page(
                keys=[leaderboard_key(game), ratings_key(game)], args=[offset, offset + limit - 1]
            )
        rows = [(n.decode(), _rating.decode(r)) for n, r in zip(names, stored, strict=True) if r]
        return int(total), rows

    def of(self, identity: str, games: Iterable[str]) -> dict[str, tuple[Rating, int]]:
        """The identity's rating and place (1 is best) on each game's leaderboard it is on (one
        transaction: the place is the rating's)."""
        kinds = sorted(games)
        pipe = self.redis.pipeline(transaction=True)
        for kind in kinds:
            pipe.hget(ratings_key(kind), identity)
            pipe.zrevrank(leaderboard_key(kind), identity)
        with unavailable():
            found = pipe.execute()
        out = {}
        for i, kind in enumerate(kinds):
            raw, place = found[2 * i], found[2 * i + 1]
            if raw is not None and place is not None:
                out[kind] = (_rating.decode(raw), int(place) + 1)
        return out

    def history(self, identity: str, game: str, limit: int) -> list[Point]:
        """The identity's rating after each of its last ``limit`` rated games, oldest first."""
        with unavailable():
            rows = cast(
                list[tuple[bytes, float]],
                self.redis.zrange(history_key(identity, game), -limit, -1, withscores=True),
            )
        out = []
        for member, time in rows:
            game_id, mu, sigma = _point.decode(member)
            out.append(Point(int(time), game_id, Rating(mu, sigma, 0)))
        return out


Step = tuple[str, int, dict[str, Rating]]  # game id, finish time, the ratings it made


def _write(pipe: Any, game: str, ratings: dict[str, Rating], steps: list[Step]) -> None:
    """Queue the writes of ``ratings`` (identity -> rating now) and of the history points of
    ``steps``."""
    if ratings:
        pipe.hset(ratings_key(game), mapping={i: _encode(r) for i, r in ratings.items()})
        pipe.zadd(leaderboard_key(game), {i: r.ordinal for i, r in ratings.items()})
    points: dict[str, dict[bytes, int]] = {}
    for game_id, time, new in steps:
        for identity, rating in new.items():
            points.setdefault(identity, {})[_encode((game_id, rating.mu, rating.sigma))] = time
    for identity, members in points.items():
        pipe.zadd(history_key(identity, game), members)
