"""A short chat per game, kept with the game but outside its event stream: the
events, their hash chain and ``omerta verify`` never see it.

``game:{<id>}:chat`` is a capped stream (the last ``KEEP`` messages) in the game's slot; entry
``<n>-0`` is the game's n-th message, fields ``s`` (the writer's seat), ``t`` (the text) and
``at`` (ms since the epoch). Ids count the game's own messages only, so an id tells nothing of
other games (a stream's own ids would be times); the time a message was written is shown with
it anyway, as a move's is.

Who writes: a seated player (``api.routes.chat`` checks the seat), also a person whose seat a
bot now plays (conceded, timed out): they still sit at the table and may say "good game".
Spectators, and everyone who can see the game, read. Once the game is archived
(``services.readside.archiving``) its chat is read as before but takes no more messages.

Text: a string of 1 to ``MAX_TEXT`` characters once cleaned: line breaks and tabs become
spaces, other control and format characters (bidirectional overrides included) are dropped,
except the joiners that compose emoji; spaces at either end go. Pages show it as text, never
as HTML.

Every message also adds ``{game}`` to the side feed of the game's shard
(``keys.side_feed_key``, in the game's slot) in the same script, which wakes the game's live
streams (``services.readside.fanout``); a rematch offered adds one too (``signal``).
"""

from __future__ import annotations

import unicodedata
from typing import cast

import msgspec
from redis.typing import EncodableT

from services.errors import BadRequest, GameArchived
from services.eventstore import idempotency, keys, shards
from services.eventstore.store import now_ms, unavailable
from services.platform.config import Store

MAX_TEXT = 500
KEEP = 200  # messages kept per game
JOINERS = frozenset({"\u200c", "\u200d"})  # zero-width (non-)joiners: emoji and scripts need them

# KEYS: the chat, the side feed, the shard's archived games[, an Idempotency-Key's record].
# ARGV: seat, text, time, KEEP, SIDE_FEED_KEEP, game id, the body's fingerprint, the record's TTL
# in ms. Returns the record (``idempotency.Record``) of the message stored, or the key's earlier
# one; ``archived`` (nothing stored) once the game is archived: checked here, in the script, so
# that no message slips in beside the archiving's move (the same slot).
POST = """
if KEYS[4] then
  local earlier = redis.call('GET', KEYS[4])
  if earlier then return earlier end
end
if redis.call('HEXISTS', KEYS[3], ARGV[6]) == 1 then return 'archived' end
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local n = 1
if #last > 0 then n = tonumber(string.match(last[1][1], '^(%d+)')) + 1 end
redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[4], n .. '-0', 's', ARGV[1], 't', ARGV[2], 'at', ARGV[3])
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[5], '*', 'game', ARGV[6])
local record = cjson.encode({fingerprint = ARGV[7], message = n, time = tonumber(ARGV[3])})
if KEYS[4] then redis.call('SET', KEYS[4], record, 'PX', ARGV[8]) end
return record
"""


def chat_key(game_id: str) -> str:
    return f"game:{{{game_id}}}:chat"


class ChatMessage(msgspec.Struct, frozen=True):
    """One chat message: ``id`` its number in the game's chat (1, 2, ...), ``seat`` the
    writer's, ``time`` ms since the epoch."""

    id: int
    seat: int
    text: str
    time: int


def clean(text: object) -> str:
    """The text as stored (see the module docstring); ``bad_chat`` when none is left, too much
    is, or it is no string."""
    if not isinstance(text, str):
        raise BadRequest("a chat message is a string", code="bad_chat", params={"case": "not_text"})
    spaced = "".join(" " if ch in "\n\r\t" else ch for ch in text)
    kept = "".join(
        ch for ch in spaced if ch in JOINERS or unicodedata.category(ch) not in ("Cc", "Cf", "Cs")
    ).strip()
    if not kept:
        raise BadRequest(
            "a chat message needs some text", code="bad_chat", params={"case": "empty"}
        )
    if len(kept) > MAX_TEXT:
        raise BadRequest(
            f"a chat message has at most {MAX_TEXT} characters",
            code="bad_chat",
            params={"case": "length", "max": MAX_TEXT},
        )
    return kept


class Chat:
    def __init__(self, client: Store) -> None:
        self.redis = client
        self._post = client.register_script(POST)

    def post(
        self, game_id: str, seat: int, text: object, key: str | None = None, fingerprint: str = ""
    ) -> ChatMessage:
        """Store a message of ``seat`` (the caller checked it is the writer's); ``bad_chat``
        for a text ``clean`` refuses, ``game_archived`` for an archived game, and nothing is
        stored then. With an idempotency key, the key's first message again if there was one
        (the seat's keys are its own)."""
        kept = clean(text)
        shard = shards.of(game_id)
        names = [chat_key(game_id), keys.side_feed_key(shard), keys.archived_key(shard)]
        args: list[EncodableT] = [seat, kept, now_ms(), KEEP, keys.SIDE_FEED_KEEP, game_id]
        args += [fingerprint, idempotency.TTL_MS]
        if key is not None:
            names.append(idempotency.chat_key(game_id, seat, key))
        with unavailable():
            stored = self._post(keys=names, args=args)
        if stored == b"archived":
            raise GameArchived()
        record = idempotency.replayed(stored, fingerprint)
        assert record.message is not None and record.time is not None
        return ChatMessage(record.message, seat, kept, record.time)

    def read(self, game_id: str, after: int = 0) -> list[ChatMessage]:
        """The messages kept with a number after ``after``, oldest first."""
        with unavailable():
            rows = cast(
                list[tuple[bytes, dict[bytes, bytes]]],
                self.redis.xrange(chat_key(game_id), f"{after + 1}-0", "+"),
            )
        return [
            ChatMessage(
                int(entry_id.split(b"-")[0]),
                int(fields[b"s"]),
                fields[b"t"].decode(),
                int(fields[b"at"]),
            )
            for entry_id, fields in rows
        ]

    def last(self, game_id: str) -> int:
        """The number of the game's last message (0: none yet)."""
        with unavailable():
            rows = cast(
                list[tuple[bytes, dict[bytes, bytes]]],
                self.redis.xrevrange(chat_key(game_id), count=1),
            )
        return int(rows[0][0].split(b"-")[0]) if rows else 0

    def signal(self, game_id: str) -> None:
        """Wake the game's live streams for a change beside its events (a rematch offered)."""
        with unavailable():
            self.redis.xadd(
                keys.side_feed_key(shards.of(game_id)),
                {"game": game_id},
                maxlen=keys.SIDE_FEED_KEEP,
                approximate=True,
            )
