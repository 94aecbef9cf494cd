"""``omerta export``: every key of an exported family (``services.backup.families``) into a backup
file (``services.backup.backupfile``), while the service runs.

Consistency: the keys that share a hash tag (a game's events, metadata, command records, seats
and chat; a player's records) are read together by one script, so a game is copied at one
version and with the records of exactly that version. Keys with no tag (credentials, owners of
addresses) are each read alone. The keys are listed first (a SCAN of every master), grouped by
tag, and the groups read in pipelines: what is created after the listing is not in the backup,
what is deleted meanwhile is left out.

Every game's hash chain is checked on the rows copied (``services.eventstore.audit.chain``); the
games that fail are reported, and the backup still holds them as they are.

Archived games (``services.eventstore.archive``) are in the backup too: their keys as they were
before the move (events with their entry ids, metadata, command records), read from the
archive. An import writes them back into the store, without their markers: the archiving pass
moves them out again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, BinaryIO, NamedTuple

from services.backup.backupfile import FORMAT, VERSION, Header, Key, Trailer, Writer
from services.backup.families import Fate, family_of, tag_of
from services.eventstore import audit, keys
from services.eventstore.archive import Archived, Bundle
from services.eventstore.store import now_ms, unavailable
from services.platform.config import Store

Progress = Callable[[int, int], None]  # groups done, groups in all
BATCH = 200  # groups (scripts) per pipeline

# KEYS: the keys of one tag (one slot). For each: its type, absolute expiry (ms, -1: none), its
# contents ('none': deleted since the listing) and, for a stream, its last generated id.
READ = """
local out = {}
for i, key in ipairs(KEYS) do
  local kind = redis.call('TYPE', key)['ok']
  local value, last = false, false
  if kind == 'string' then value = redis.call('GET', key)
  elseif kind == 'hash' then value = redis.call('HGETALL', key)
  elseif kind == 'set' then value = redis.call('SMEMBERS', key)
  elseif kind == 'zset' then value = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
  elseif kind == 'list' then value = redis.call('LRANGE', key, 0, -1)
  elseif kind == 'stream' then
    value = redis.call('XRANGE', key, '-', '+')
    local info = redis.call('XINFO', 'STREAM', key)
    for j = 1, #info, 2 do
      if info[j] == 'last-generated-id' then last = info[j + 1] end
    end
  end
  out[i] = {kind, redis.call('PEXPIRETIME', key), value, last}
end
return out
"""


class Exported(NamedTuple):
    trailer: Trailer
    problems: list[str]  # "<game id>: <problem>" for every game whose chain fails


def exported_groups(client: Store) -> list[list[bytes]]:
    """Every key of an exported family, grouped: the keys of one hash tag together, every
    untagged key alone; in a stable order."""
    tagged: dict[bytes, list[bytes]] = {}
    alone: list[list[bytes]] = []
    with unavailable():
        for key in client.scan_iter(count=1000):
            family = family_of(key)
            if family is None or family.fate is not Fate.EXPORTED:
                continue
            tag = tag_of(key)
            if tag is None:
                alone.append([key])
            else:
                tagged.setdefault(tag, []).append(key)
    return [sorted(tagged[tag]) for tag in sorted(tagged)] + sorted(alone)


def export(
    client: Store,
    out: BinaryIO,
    source: str,
    progress: Progress | None = None,
    archived: Archived | None = None,
) -> Exported:
    """The backup of ``client``'s store, and of the games ``archived`` holds."""
    groups = exported_groups(client)
    moved = sorted(archived.ids()) if archived is not None else []
    writer = Writer(out, Header(FORMAT, VERSION, now_ms(), source))
    games = 0
    problems: list[str] = []

    def write(record: Key) -> None:
        nonlocal games, problems
        family = family_of(record.key)
        assert family is not None and family.fate is Fate.EXPORTED
        writer.key(record, family.name)
        if family.name == "game events":
            games += 1
            problems += _chain_problems(record)

    total = len(groups) + len(moved)
    for start in range(0, len(groups), BATCH):
        batch = groups[start : start + BATCH]
        for records in _read(client, batch):
            for record in records:
                write(record)
        if progress is not None:
            progress(start + len(batch), total)
    for done, game_id in enumerate(moved, len(groups) + 1):
        assert archived is not None
        with unavailable():
            bundle = archived.load(game_id)
        for record in _unarchived(bundle):
            write(record)
        if progress is not None and (done % BATCH == 0 or done == total):
            progress(done, total)
    return Exported(writer.finish(games), problems)


def _unarchived(bundle: Bundle) -> Iterator[Key]:
    """An archived game's exported keys as they were in the store (its read model, rebuilt by
    the import, left out)."""
    events = keys.events_key(bundle.game_id)
    if bundle.rows:
        rows = [[entry_id, _flat(fields)] for entry_id, fields in bundle.rows]
        yield Key(events.encode(), "stream", rows, -1, bundle.rows[-1][0])
    for name, value in sorted(bundle.strings.items()):
        if _exported(name):
            yield Key(name.encode(), "string", value, -1, None)
    for name, pairs in sorted(bundle.hashes.items()):
        if _exported(name):
            yield Key(name.encode(), "hash", _flat(dict(pairs)), -1, None)


def _exported(name: str) -> bool:
    family = family_of(name.encode())
    return family is not None and family.fate is Fate.EXPORTED


def _flat(fields: dict[bytes, bytes]) -> list[bytes]:
    return [part for pair in sorted(fields.items()) for part in pair]


def _read(client: Store, groups: list[list[bytes]]) -> Iterator[list[Key]]:
    pipe = client.pipeline(transaction=False)
    for group in groups:
        # (a cluster's pipeline refuses .eval(), not the command: it routes EVAL by its keys)
        pipe.execute_command("EVAL", READ, len(group), *group)
    with unavailable():
        replies = pipe.execute()
    for group, reply in zip(groups, replies, strict=True):
        yield [
            _record(key, *row) for key, row in zip(group, reply, strict=True) if row[0] != b"none"
        ]


def _record(key: bytes, kind: bytes, expire_at: int, value: Any, last: bytes | None) -> Key:
    if kind == b"stream":
        value = [[entry_id, fields] for entry_id, fields in value]
    elif kind == b"set":
        value = sorted(value)  # SMEMBERS has no order: the same set, the same file
    return Key(key, kind.decode(), value, expire_at, last)


def _chain_problems(record: Key) -> list[str]:
    tag = tag_of(record.key)
    assert tag is not None  # game:{<id>}:events
    game_id = tag.decode()
    rows = [(entry_id, _pairs(fields)) for entry_id, fields in record.value]
    _, problems = audit.chain(rows, game_id)
    return [f"{game_id}: {problem}" for problem in problems]


def _pairs(flat: list[bytes]) -> dict[bytes, bytes]:
    return dict(zip(flat[::2], flat[1::2], strict=True))
