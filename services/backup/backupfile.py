"""The backup file: a zstandard stream of length-prefixed MessagePack records.

A header (format, version, when, from where), one ``Key`` record per exported key with its
type, contents and absolute expiry, then a trailer with the counts and the SHA-256 of every
record before it. Contents per type:

* string: the bytes; list: the items; set: the members, sorted;
* hash: ``[field, value, ...]``; zset: ``[member, score, ...]`` (scores as the server prints
  them, so they round-trip exactly);
* stream: ``[[entry id, [field, value, ...]], ...]`` and its last generated id, so that XADD
  with explicit ids (then XSETID) restores it exactly.

``read`` checks everything a restore relies on while it reads: the header's format and version,
the zstandard frame's checksum, the records' framing, and at the end the trailer's digest and
counts. A file that is truncated, or altered anywhere, fails with ``BadBackup``. The digest
guards against damage, not against forgery: whoever may write the file may rewrite its trailer
(the file holds the server's secret and every game's seed: keep it as the AOF files are kept).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any, BinaryIO

import msgspec
import zstandard

FORMAT = "omerta-backup"
VERSION = 1
LEVEL = 3  # zstandard's default: most of the ratio at a fraction of the higher levels' time
LENGTH = 4  # bytes of a record's length prefix (big-endian)


class BadBackup(Exception):
    """The file is not a complete, intact backup of this format."""


class Header(msgspec.Struct, frozen=True, tag="header"):
    format: str
    version: int
    created: int  # ms since the epoch
    source: str  # the store it was taken from (no credentials)


class Key(msgspec.Struct, frozen=True, tag="key"):
    key: bytes
    kind: str  # string, hash, set, zset, list, stream
    value: Any
    expire_at: int = -1  # absolute expiry (ms since the epoch); -1: none
    last_id: bytes | None = None  # a stream's last generated id


class Trailer(msgspec.Struct, frozen=True, tag="trailer"):
    keys: int
    games: int
    families: dict[str, int]  # family name -> keys
    digest: bytes  # SHA-256 of every record's frame before the trailer


Record = Header | Key | Trailer
_encode = msgspec.msgpack.Encoder().encode
_decoder = msgspec.msgpack.Decoder(Record)


class Writer:
    """Writes a backup to ``out`` (a binary file); ``finish`` writes the trailer and flushes."""

    def __init__(self, out: BinaryIO, header: Header) -> None:
        compressor = zstandard.ZstdCompressor(level=LEVEL, write_checksum=True)
        self._out = compressor.stream_writer(out, closefd=False)
        self._digest = hashlib.sha256()
        self.keys = 0
        self.families: dict[str, int] = {}
        self._frame(header)

    def _frame(self, record: Record) -> None:
        payload = _encode(record)
        frame = len(payload).to_bytes(LENGTH, "big") + payload
        self._digest.update(frame)
        self._out.write(frame)

    def key(self, record: Key, family: str) -> None:
        self._frame(record)
        self.keys += 1
        self.families[family] = self.families.get(family, 0) + 1

    def finish(self, games: int) -> Trailer:
        trailer = Trailer(self.keys, games, self.families, self._digest.digest())
        payload = _encode(trailer)
        self._out.write(len(payload).to_bytes(LENGTH, "big") + payload)
        self._out.flush(zstandard.FLUSH_FRAME)
        self._out.close()
        return trailer


def read(source: BinaryIO) -> Iterator[Header | Key | Trailer]:
    """Every record of the backup in ``source``, the header first and the trailer last; raises
    ``BadBackup`` (possibly after some records: check a whole file before acting on it) for
    anything but a complete, intact backup."""
    stream = zstandard.ZstdDecompressor().stream_reader(source, read_across_frames=True)
    digest = hashlib.sha256()
    keys = 0
    first = True
    try:
        while True:
            prefix = _exactly(stream, LENGTH, allow_end=True)
            if not prefix:
                raise BadBackup("the file ends before its trailer (truncated?)")
            payload = _exactly(stream, int.from_bytes(prefix, "big"))
            try:
                record = _decoder.decode(payload)
            except msgspec.DecodeError as exc:
                raise BadBackup(f"an undecodable record: {exc}") from exc
            if first:
                _check_header(record)
                first = False
            elif isinstance(record, Header):
                raise BadBackup("a second header")
            if isinstance(record, Trailer):
                _check_trailer(record, keys, digest.digest())
                if stream.read(1):
                    raise BadBackup("data after the trailer")
                yield record
                return
            digest.update(prefix + payload)
            keys += isinstance(record, Key)
            yield record
    except zstandard.ZstdError as exc:
        raise BadBackup(f"the compressed stream is damaged: {exc}") from exc


def _exactly(stream: Any, size: int, allow_end: bool = False) -> bytes:
    data = b""
    while len(data) < size:
        chunk = stream.read(size - len(data))
        if not chunk:
            if allow_end and not data:
                return b""
            raise BadBackup("the file ends inside a record (truncated?)")
        data += chunk
    return data


def _check_header(record: Record) -> None:
    if not isinstance(record, Header) or record.format != FORMAT:
        raise BadBackup("not an Omerta backup (no header)")
    if record.version != VERSION:
        raise BadBackup(f"backup format version {record.version}; this omerta reads {VERSION}")


def _check_trailer(trailer: Trailer, keys: int, digest: bytes) -> None:
    if trailer.digest != digest:
        raise BadBackup("the digest does not match the content (the file was altered)")
    if trailer.keys != keys or sum(trailer.families.values()) != keys:
        raise BadBackup(f"the trailer counts {trailer.keys} keys, the file holds {keys}")
