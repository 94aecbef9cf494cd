"""Rematches: a finished game offers a new one with the same seats and creation settings, each
person's seat reserved for that same person.

The first seated player to ask makes it (``Rematches.offer``): the new game copies the old one's
``GameMeta`` (``CommandService.create_like``), keeps its AI seats at their levels and its
public/private setting, seats the asker at their old seat at once, and reserves every other
person's old seat for them. Asking again, or another player of the old game asking, answers the
same new game (and seats that player in their reserved seat): one rematch per game.

A seat nobody took in the old game is open in the new one, with an invite code nobody is told:
in a public rematch the lobby's join takes it, as in any public game.

A reserved seat is an open seat that only its player may take: it has no invite code (so no
invite and no lobby join reaches it) and the player takes it with ``Rematches.take`` (``POST
/games/{id}/join`` without an invite, or the rematch request itself). Taking it is naturally
idempotent: the same player gets the same seat again. The lobby lists a public rematch only for
its truly open seats (``workers.projection.projector`` reads the reservations as seat records).

Keys (``{...}`` are Redis Cluster hash tags: each key lives in its game's slot):

``game:{<new id>}:reserved``  hash    seat (decimal) -> player id, written at the rematch's
                                      creation and never changed (the seats hash says which
                                      reserved seats are taken)
``game:{<old id>}:rematch``   string  JSON ``Offer`` of the rematch made; ``pending`` (with an
                                      expiry, ``PENDING_MS``) while it is being made

Order of the writes, for a process lost midway: the new game is appended, then its reservations
and the asker's seat (one transaction on the new game's keys: a projection that sees the seat
sees the reservations), then the old game's pointer. Lost before the pointer, the pending mark
expires and the next request makes another game (the first one, without its pointer, is listed
nowhere but in the asker's game list at most).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any, cast

import msgspec
from redis.client import Pipeline

from services.errors import ServiceError
from services.eventstore.store import unavailable
from services.games.commands import CommandService
from services.games.seats import GameExpired, expired_key, queue_rematch_table, seat_map, seats_key
from services.identity.players import Players
from services.platform.config import Store

PENDING = b"pending"
PENDING_MS = 30_000  # far longer than a creation takes
WAIT_S = 10.0  # how long a request waits for a rematch another request is making
POLL_S = 0.05


def reserved_key(game_id: str) -> str:
    return f"game:{{{game_id}}}:reserved"


def rematch_key(game_id: str) -> str:
    return f"game:{{{game_id}}}:rematch"


def read_reserved(pipe: Pipeline, game_id: str) -> Callable[[Iterator[Any]], dict[int, str]]:
    """The seats reserved at the game's creation (seat -> player id), queued on the read side's
    pipeline (one round trip for all it reads): the function returned decodes them from the
    pipeline's answers, taking its own in order."""
    pipe.hgetall(reserved_key(game_id))
    return lambda found: seat_map(next(found))


class Offer(msgspec.Struct, frozen=True):
    """The rematch of a game: the new game's id and the player who asked for it."""

    game: str
    by: str


class GameNotOver(ServiceError):
    status = 409
    code = "game_not_over"


class RematchPending(ServiceError):
    """Another request is making the rematch and did not finish in time."""

    status = 409
    code = "rematch_pending"


class NotSeated(ServiceError):
    status = 403
    code = "not_seated"


# KEYS: seats, reserved, expired.  ARGV: player id.  Seats the player in the seat reserved for
# them (again: the same seat); returns the seat, false when no seat of this game is reserved for
# them, or -1 when the game expired (``Seats.close_unjoined``: in one script with its check).
TAKE = """
if redis.call('EXISTS', KEYS[3]) == 1 then return -1 end
local reserved = redis.call('HGETALL', KEYS[2])
for i = 1, #reserved, 2 do
  if reserved[i + 1] == ARGV[1] then
    local owner = redis.call('HGET', KEYS[1], reserved[i])
    if owner and owner ~= ARGV[1] then return false end
    redis.call('HSET', KEYS[1], reserved[i], ARGV[1])
    return tonumber(reserved[i])
  end
end
return false
"""

EXPIRED = -1  # TAKE's answer for an expired game

_offer = msgspec.json.Decoder(Offer)


class Rematches:
    def __init__(self, commands: CommandService, players: Players) -> None:
        self.commands = commands
        self.players = players
        self.redis: Store = players.redis
        self._take = self.redis.register_script(TAKE)

    def of(self, game_id: str) -> Offer | None:
        """The rematch made of this game, if any (None also while it is being made)."""
        with unavailable():
            raw = self.redis.get(rematch_key(game_id))
        return None if raw is None or raw == PENDING else _offer.decode(raw)

    def reserved(self, game_id: str) -> dict[int, str]:
        """The seats reserved at the game's creation: seat -> player id (taken ones too)."""
        with unavailable():
            return seat_map(cast(dict[bytes, bytes], self.redis.hgetall(reserved_key(game_id))))

    def take(self, game_id: str, player_id: str) -> int | None:
        """Seat the player in the seat reserved for them (again: the same seat); None when this
        game reserves no seat for them; ``GameExpired`` when the game expired."""
        names = [seats_key(game_id), reserved_key(game_id), expired_key(game_id)]
        with unavailable():
            seat = self._take(keys=names, args=[player_id])
        if seat is None:
            return None
        if seat == EXPIRED:
            raise GameExpired()
        self.players.seated(game_id, player_id, self.players.clock())
        return int(seat)

    def offer(self, game_id: str, player_id: str) -> tuple[Offer, int]:
        """The rematch of a finished game the player sat in, made now if it was not yet, and the
        player's seat in it (taken now if it was reserved)."""
        loaded = self.commands.load(game_id)
        if loaded.game.result(loaded.state) is None:
            raise GameNotOver("the game is not over yet: a rematch follows a finished game")
        taken = self.players.seats(game_id)
        mine = next((s for s, p in taken.items() if p == player_id), None)
        if mine is None:
            raise NotSeated("you have no seat in this game")
        deadline = time.monotonic() + WAIT_S
        while True:
            made = self.of(game_id)
            if made is not None:
                seat = self.take(made.game, player_id)
                if seat is None:  # (the asker's seat is no reservation: taken at once)
                    seat = self.players.seat_of(made.game, player_id)
                if seat is not None:
                    return made, seat
                # Every person of the old game sits in or is invited to its rematch, unless the
                # store came back older than the rematch (a backup): then it is made again.
                with unavailable():
                    self.redis.delete(rematch_key(game_id))
                continue
            with unavailable():
                if self.redis.set(rematch_key(game_id), PENDING, nx=True, px=PENDING_MS):
                    break
            if time.monotonic() > deadline:
                raise RematchPending("the rematch is being made: try again in a moment")
            time.sleep(POLL_S)
        try:
            new_id = self.commands.create_like(loaded.meta)
        except BaseException:
            with unavailable():
                self.redis.delete(rematch_key(game_id))
            raise
        others = {seat: p for seat, p in taken.items() if seat != mine}
        free = [s for s in range(loaded.meta.seats) if s not in taken and s not in loaded.meta.ai]
        public = self.players.is_public(game_id)
        pipe = self.redis.pipeline(transaction=True)
        if others:
            pipe.hset(reserved_key(new_id), mapping={str(s): p for s, p in others.items()})
        queue_rematch_table(pipe, new_id, mine, player_id, free, public)
        with unavailable():
            pipe.execute()
        made = Offer(new_id, player_id)
        with unavailable():
            self.redis.set(rematch_key(game_id), msgspec.json.encode(made))
        self.players.seated(new_id, player_id, self.players.clock())
        version = self.commands.load(new_id).version
        self.commands.notify(new_id, version)  # read models show the seats
        self.commands.notify(game_id, loaded.version)  # and the old game's pages the offer
        return made, mine
