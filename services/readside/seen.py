"""What each player has seen of each game: the last version their game page showed (any of
their devices), so that a page can mark what happened since they last looked.

``player:{<player id>}:seen``  hash  game id -> version (decimal), only ever raised

Not derived from events (not a read model: ``omerta rebuild`` leaves it alone).
"""

from __future__ import annotations

from services.eventstore.store import unavailable
from services.platform.config import Store


def seen_key(player_id: str) -> str:
    return f"player:{{{player_id}}}:seen"


# KEYS[1]: the player's seen hash; ARGV: game id, version. Keeps the larger; returns the old.
_KEEP_NEWER = """
local old = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if tonumber(ARGV[2]) > old then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
return old
"""


def record(client: Store, player_id: str, game_id: str, version: int) -> int:
    """Note that the player has seen the game at ``version`` (an older one than stored changes
    nothing, so a stale tab never moves it back); the version stored before (0: none)."""
    with unavailable():
        return int(client.eval(_KEEP_NEWER, 1, seen_key(player_id), game_id, version))
