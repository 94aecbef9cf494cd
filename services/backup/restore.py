"""``omerta import``: a backup file (``services.backup.backupfile``) back into an empty store.

Nothing is written before the whole file has been read and found intact (``check``: framing,
checksum, digest, counts, every key of an exported family), nor into a store that holds a key
of an exported family already (``occupied``). Then the keys are written in pipelines, each key's
commands its own (one key, one slot: on a cluster the client sends each to its master), with
their absolute expiry (a key that expired since the export is left out). The read models are
rebuilt afterwards by the caller (``omerta import``: ``omerta rebuild``'s projection).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from services.backup.backupfile import BadBackup, Header, Key, Trailer, read
from services.backup.families import Fate, family_of
from services.eventstore.store import now_ms, unavailable
from services.platform.config import Store

Progress = Callable[[int, int], None]  # keys written, keys in all
BATCH = 500  # keys per pipeline
KINDS = frozenset({"string", "hash", "set", "zset", "list", "stream"})


class NotEmpty(Exception):
    """The store holds keys of exported families already: an import would mix two stores."""


def check(path: Path) -> tuple[Header, Trailer]:
    """Read the whole backup at ``path``; its header and trailer, or ``BadBackup``."""
    header: Header | None = None
    for record in _records(path):
        if isinstance(record, Header):
            header = record
        elif isinstance(record, Trailer):
            assert header is not None  # read() starts with the header
            return header, record
    raise BadBackup("no trailer")  # read() ends with one or raises: never reached


def occupied(client: Store, enough: int = 5) -> list[bytes]:
    """Some keys (up to ``enough``) of exported families in the store: none, or it is not empty."""
    found: list[bytes] = []
    with unavailable():
        for key in client.scan_iter(count=1000):
            family = family_of(key)
            if family is not None and family.fate is Fate.EXPORTED:
                found.append(key)
                if len(found) == enough:
                    break
    return found


def restore(client: Store, path: Path, progress: Progress | None = None) -> Trailer:
    """Check ``path``, check the store is empty of exported families (``NotEmpty``), write every
    key; the backup's trailer."""
    _, trailer = check(path)
    found = occupied(client)
    if found:
        named = ", ".join(key.decode(errors="replace") for key in found)
        raise NotEmpty(f"the store is not empty: it holds {named}...")
    written = 0
    pipe = client.pipeline(transaction=False)
    for record in _records(path):
        if not isinstance(record, Key):
            continue
        _write(pipe, record, now_ms())
        written += 1
        if written % BATCH == 0:
            _execute(pipe)
            if progress is not None:
                progress(written, trailer.keys)
    _execute(pipe)
    if progress is not None:
        progress(written, trailer.keys)
    return trailer


def _records(path: Path) -> Iterator[Header | Key | Trailer]:
    with path.open("rb") as source:
        for record in read(source):
            if isinstance(record, Key):
                family = family_of(record.key)
                if family is None or family.fate is not Fate.EXPORTED:
                    raise BadBackup(f"a key of no exported family: {record.key!r}")
                if record.kind not in KINDS:
                    raise BadBackup(f"{record.key!r}: unknown type {record.kind!r}")
            yield record


def _execute(pipe: Any) -> None:
    with unavailable():
        pipe.execute()


def _write(pipe: Any, record: Key, now: int) -> None:
    key, value = record.key, record.value
    if record.expire_at != -1 and record.expire_at <= now:
        return  # expired since the export, as it would have in the store
    if record.kind == "string":
        pipe.set(key, value)
    elif record.kind == "hash":
        pipe.hset(key, items=value)
    elif record.kind == "set":
        pipe.sadd(key, *value)
    elif record.kind == "zset":
        pipe.zadd(key, {member: float(score) for member, score in _pairs(value)})
    elif record.kind == "list":
        pipe.rpush(key, *value)
    else:  # a stream (``_records`` let no other type through)
        for entry_id, fields in value:
            pipe.xadd(key, dict(_pairs(fields)), id=entry_id)
        if not value:  # a stream with no entries left: made, then emptied, at its last id
            pipe.xadd(key, {b"_": b""}, id=record.last_id, maxlen=0)
        pipe.execute_command("XSETID", key, record.last_id)  # redis-py has no xsetid
    if record.expire_at != -1:
        pipe.pexpireat(key, record.expire_at)


def _pairs(flat: list[Any]) -> Iterator[tuple[Any, Any]]:
    return zip(flat[::2], flat[1::2], strict=True)
