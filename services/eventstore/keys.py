"""Redis key names. Every key of a game carries the game id as a Redis Cluster hash tag
(``{<id>}``), so a game's stream, metadata and command records live in one slot and one
script may touch them together.

``game:{<id>}:events``    stream, one entry per event, entry id ``<version>-0``, never trimmed
``game:{<id>}:meta``      string, the MessagePack ``GameMeta`` record
``game:{<id>}:commands:<seat>``  hash, command id -> MessagePack ``CommandRecord``: the
                          idempotency records of one seat's commands (ids are scoped by seat:
                          one seat's id never blocks another's)
``game:{<id>}:commands``  hash, the creation's record (id ``""``); in games stored before ids
                          were scoped by seat also every command's record (still honoured: an
                          id recorded there is used for every seat of that game)
The structures that span games are one per shard (``services.eventstore.shards``: 64 of them, each
key ``<name>:{<shard tag>}``, in the slot a game of that shard hashes to), so an append writes the
game's stream, its shard's feed and its shard's changed set in one script, on a cluster too:

``feed:{<tag>}``          stream, one entry ``{game, version}`` per append to a game of the shard,
                          in commit order (``feed_key``)
``inbox-feed:{<tag>}``    stream, one entry ``{game, version, players}`` per read-model write of a
                          game with seated players (``workers.projection.projector``, trimmed to
                          about its ``INBOX_FEED_KEEP`` entries): whose inboxes may have changed
``side-feed:{<tag>}``     stream, one entry ``{game}`` per change kept beside a game's events
                          (a chat message, a rematch offered: ``services.games.chat``), trimmed to
                          about ``SIDE_FEED_KEEP`` entries: the live streams' wake-up for them
``changed:{<tag>}``       set, the shard's games appended to since the read side last took them
``archived:{<tag>}``     hash, game id -> MessagePack ``[version, head]``: the shard's games moved
                          to the archive (``services.eventstore.archive``), whose keys are gone
``changed:wake:{<tag>}``  string, set (with a short expiry) by the first append after the read
                          side last took the shard's changed games: the appender wakes the read
                          side (a job for that shard)

The projectors' catch-up reads the shards its worker holds (``workers.projection.leases``: one
holder per shard, ``workers:lease:{<tag>}``); the live streams follow, on a cluster, each watched
shard's three feeds with one ``XREAD`` (one slot), on one server every shard's in one
(``services.readside.fanout``).
"""

from __future__ import annotations

from services.eventstore import shards

FEED = "feed"
INBOX_FEED = "inbox-feed"
SIDE_FEED = "side-feed"
SIDE_FEED_KEEP = 10_000
CHANGED = "changed"
CHANGED_WAKE = "changed:wake"
ARCHIVED = "archived"


def events_key(game_id: str) -> str:
    return f"game:{{{game_id}}}:events"


def meta_key(game_id: str) -> str:
    return f"game:{{{game_id}}}:meta"


def commands_key(game_id: str, seat: int | None = None) -> str:
    """The idempotency records of ``seat``'s commands; with no seat, the unscoped hash (the
    creation, and every command of a game stored before scoping)."""
    base = f"game:{{{game_id}}}:commands"
    return base if seat is None else f"{base}:{seat}"


def feed_key(game_id: str) -> str:
    """The feed of the game's shard."""
    return shards.key(FEED, shards.of(game_id))


def shard_feed_key(shard: int) -> str:
    return shards.key(FEED, shard)


def changed_key(shard: int) -> str:
    return shards.key(CHANGED, shard)


def wake_key(shard: int) -> str:
    return shards.key(CHANGED_WAKE, shard)


def archived_key(shard: int) -> str:
    return shards.key(ARCHIVED, shard)


def inbox_feed_key(shard: int) -> str:
    return shards.key(INBOX_FEED, shard)


def side_feed_key(shard: int) -> str:
    return shards.key(SIDE_FEED, shard)


META_PATTERN = "game:{*}:meta"


def game_id_of_meta_key(key: str) -> str:
    return key[len("game:{") : -len("}:meta")]
