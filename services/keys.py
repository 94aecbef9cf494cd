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
``feed``                  stream, one entry ``{game, version}`` per append, in commit order
``inbox-feed``            stream, one entry ``{game, version, players}`` per read-model write of a
                          game with seated players (``workers.projection``, trimmed to about
                          its ``INBOX_FEED_KEEP`` entries): whose inboxes may have changed
``side-feed``             stream, one entry ``{game}`` per change kept beside a game's events
                          (a chat message, a rematch offered: ``services.chat``), trimmed to
                          about ``SIDE_FEED_KEEP`` entries: the live streams' wake-up for them
``changed``               set, games appended to since the read side last took them
``changed:wake``          string, set (with a short expiry) by the first append after the read
                          side last took the changed games: the appender wakes the read side

The feed under Redis Cluster: a script may only touch keys of one slot, so a single global feed
cannot be written in the same atomic step as a game's stream (nor can ``changed``: the same
applies to it). There the feed becomes one stream
per slot: ``feed_key`` returns ``feed:{<t>}`` with ``<t>`` a fixed string that hashes to the
game's slot (a 16384-entry table computed once from CRC16), and a projector follows the feeds of
the slots each node owns (``XREAD`` over them). On a single server (this deployment: embedded or
``REDIS_URL``) every game shares the one ``feed`` key; ``feed_key`` is the one place to change.
"""

from __future__ import annotations

FEED = "feed"
INBOX_FEED = "inbox-feed"
SIDE_FEED = "side-feed"
SIDE_FEED_KEEP = 10_000
CHANGED = "changed"
CHANGED_WAKE = "changed:wake"


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
    return FEED


META_PATTERN = "game:{*}:meta"


def game_id_of_meta_key(key: str) -> str:
    return key[len("game:{") : -len("}:meta")]
