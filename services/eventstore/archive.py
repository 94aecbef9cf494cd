"""The archive: where a finished game's keys go once it has been over for ``OMERTA_ARCHIVE_DAYS``.

A game's archive is one object, its ``Bundle``: the game's keys as they were in the store (the
events stream with its entry ids, so its hash chain; the metadata string; the command records'
hashes; its read model's hash), MessagePack compressed with zstd. It is written once and never
changed, to one of two places (``Archive``): a file per game under ``<OMERTA_VAR>/archive/``
(``FileArchive``, written atomically) or an S3-compatible bucket
(``services.eventstore.archive_s3``). The move itself is ``services.readside.archiving``.

What stays in the store is the marker: a field of the shard's hash ``archived:{<tag>}``, game id
-> MessagePack ``[version, head]`` (the chain's last hash, 32 bytes): the store still knows the
game, its final version and its chain head. ``Archived`` reads through the marker: the event
store and the read models fall back to it when a game's keys are gone, so every reader sees an
archived game as before. Bundles are kept in a small in-process cache (an archived game never
changes again).
"""

from __future__ import annotations

import os
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol, cast

import msgspec
import zstandard

from services.errors import Unavailable
from services.eventstore import keys, shards
from services.eventstore.records import GENESIS, chain_hash, decode_envelope
from services.platform.config import Store

Row = tuple[bytes, dict[bytes, bytes]]


class Bundle(msgspec.Struct, frozen=True, array_like=True):
    """One game's keys as they were: ``rows`` the events stream (``XRANGE``), ``strings`` and
    ``hashes`` by key name (a hash's fields sorted, as pairs)."""

    game_id: str
    version: int
    head: bytes  # the chain's last hash (``GENESIS`` for a game without events)
    rows: list[Row]
    strings: dict[str, bytes]
    hashes: dict[str, list[tuple[bytes, bytes]]]

    def hash(self, key: str) -> dict[bytes, bytes] | None:
        fields = self.hashes.get(key)
        return dict(fields) if fields is not None else None


class Marker(msgspec.Struct, frozen=True, array_like=True):
    version: int
    head: bytes


_bundle = msgspec.msgpack.Decoder(Bundle)
_marker = msgspec.msgpack.Decoder(Marker)
_encoder = msgspec.msgpack.Encoder()


def pack(bundle: Bundle) -> bytes:
    return zstandard.ZstdCompressor(level=9).compress(_encoder.encode(bundle))


def unpack(data: bytes) -> Bundle:
    return _bundle.decode(zstandard.ZstdDecompressor().decompress(data))


def encode_marker(marker: Marker) -> bytes:
    return _encoder.encode(marker)


def problems(bundle: Bundle, game_id: str) -> list[str]:
    """What is wrong with ``bundle`` as the archive of ``game_id`` (empty: nothing): its entry
    ids, its count and its hash chain from the first event to its head."""
    found = []
    if bundle.game_id != game_id:
        found.append(f"the archive is of game {bundle.game_id}")
    if len(bundle.rows) != bundle.version:
        found.append(f"{len(bundle.rows)} events for version {bundle.version}")
    prev = GENESIS
    for number, (entry_id, fields) in enumerate(bundle.rows, 1):
        raw = fields.get(b"e", b"")
        if entry_id != f"{number}-0".encode():
            found.append(f"version {number}: entry id {entry_id.decode()}")
        if decode_envelope(raw).prev != prev:
            found.append(f"version {number}: hash chain broken")
        prev = chain_hash(raw)
    if prev != bundle.head:
        found.append("the chain does not end at the head")
    return found


class Archive(Protocol):
    """Where bundles are kept: one object per game, written once."""

    def put(self, game_id: str, data: bytes) -> None: ...

    def get(self, game_id: str) -> bytes | None: ...


class FileArchive:
    """One file per game, ``<root>/<shard tag>/<game id>.zst``, written atomically (a temporary
    file, fsync, rename, fsync of the directory): a crash leaves the whole file or none."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, game_id: str) -> Path:
        return self.root / shards.TAGS[shards.of(game_id)] / f"{game_id}.zst"

    def put(self, game_id: str, data: bytes) -> None:
        path = self.path(game_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        directory = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)

    def get(self, game_id: str) -> bytes | None:
        try:
            return self.path(game_id).read_bytes()
        except FileNotFoundError:
            return None


class Archived:
    """The archived games of a store: their markers, and their bundles (through a bounded
    cache of ``cache_size`` games)."""

    def __init__(self, client: Store, archive: Archive, cache_size: int = 64) -> None:
        self.redis = client
        self.archive = archive
        self.cache_size = cache_size
        self._cache: OrderedDict[str, Bundle] = OrderedDict()
        self._lock = threading.Lock()

    def marker(self, game_id: str) -> Marker | None:
        raw = cast(bytes | None, self.redis.hget(keys.archived_key(shards.of(game_id)), game_id))
        return _marker.decode(raw) if raw is not None else None

    def bundle(self, game_id: str) -> Bundle | None:
        """The game's bundle if it is archived (its marker recorded), else None."""
        cached = self._cached(game_id)
        if cached is not None:
            return cached
        if self.marker(game_id) is None:
            return None
        return self.load(game_id)

    def load(self, game_id: str) -> Bundle:
        """The bundle of a game whose marker is known to be recorded."""
        cached = self._cached(game_id)
        if cached is not None:
            return cached
        data = self.archive.get(game_id)
        if data is None:  # lost with a backup restored without it (docs/operators.md)
            raise Unavailable(f"game {game_id} is archived, but its archive is missing")
        bundle = unpack(data)
        with self._lock:
            self._cache[game_id] = bundle
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return bundle

    def _cached(self, game_id: str) -> Bundle | None:
        with self._lock:
            if game_id in self._cache:
                self._cache.move_to_end(game_id)
                return self._cache[game_id]
        return None

    def ids(self) -> Iterator[str]:
        """Every archived game's id (one ``HSCAN`` per shard)."""
        for shard in range(shards.SHARDS):
            for game_id in self.redis.hscan_iter(keys.archived_key(shard), no_values=True):
                yield game_id.decode()
