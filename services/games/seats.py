"""Who sits in which seat of a game: opening a table (the creator's seat and an invite code for
every other open seat), joining it, the lobby's public flag, and the seats' look-ups.

A game's seats are taken by players (never given back), played by AI (the game's
``GameMeta.ai``), or open. Each open seat gets an invite code when the game is created (256 bits,
kept only as a hash too); joining with it takes that seat. A public game is also listed in the
lobby, and anybody may take its lowest open seat without an invite. A player holds at most one
seat per game, so "the caller's seat" is well defined.

Keys (read by the workers for inboxes and the lobby; ``{...}`` are Redis Cluster hash tags, so a
game's keys share its slot with its event stream, and a player's keys share one slot):

``player:{<player id>}:games``  zset    game id -> ms when the player took the seat
``game:{<game id>}:seats``      hash    seat number (decimal) -> player id, taken seats only
``game:{<game id>}:invites``    hash    sha256 hex of an invite code -> seat, open seats only
``game:{<game id>}:public``     string  ``1`` for a public game (listed in the lobby while a
                                        seat is open: ``services.readside.readmodels``, by the
                                        workers)
``game:{<game id>}:expired``    string  ``1`` once the game's expiry closed it (nobody joined
                                        in time, ``workers.clocks.expiry``): no seat is taken after

A game's keys and a player's are in different slots (``services.identity.players``): on a Redis
Cluster no script or transaction may span them, so each write below is a sequence of single-slot
steps, ordered so that losing the process between two of them loses nothing acknowledged and the
retry completes it:

* Opening a table: with a key, the request's final record first (on the creator's slot), then
  the seats, invites and public flag in one script on the game's keys (written only while the
  creator's seat is not: written once), then the creator's game list. A retry finds the record
  and runs the same two last steps again (``reopened_table``): a table lost midway is completed.
* Taking a seat is one Lua script on the game's keys (check the invite, refuse a second seat,
  record the seat, drop the invite, write the join's record); the player's game list is updated
  after it, idempotently (it lives in the player's slot). Losing the process between the two
  leaves a seat that ``games_of`` does not list yet; the retry, or the next ``join`` by that
  player for that game, repairs it.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple, cast

from redis.client import Pipeline
from redis.typing import EncodableT

from services.errors import ServiceError
from services.eventstore import idempotency, serversecret
from services.eventstore.idempotency import Record
from services.eventstore.serversecret import ServerSecret
from services.eventstore.store import unavailable
from services.identity.devices import digest
from services.platform.config import Store


def player_games_key(player_id: str) -> str:
    return f"player:{{{player_id}}}:games"


def seats_key(game_id: str) -> str:
    return f"game:{{{game_id}}}:seats"


def invites_key(game_id: str) -> str:
    return f"game:{{{game_id}}}:invites"


def public_key(game_id: str) -> str:
    return f"game:{{{game_id}}}:public"


def expired_key(game_id: str) -> str:
    return f"game:{{{game_id}}}:expired"


class Table(NamedTuple):
    """A game's seat records as the read side folds them in: who sits where, and whether the
    game is public."""

    owners: dict[int, str]
    public: bool


# The read side's reads of the seat records, each queued on the caller's pipeline so that one
# round trip reads all it needs; the function returned decodes the record from the pipeline's
# answers, taking its own in order.


def read_table(pipe: Pipeline, game_id: str) -> Callable[[Iterator[Any]], Table]:
    pipe.hgetall(seats_key(game_id))
    pipe.get(public_key(game_id))
    return lambda found: Table(seat_map(next(found)), next(found) == b"1")


def read_seats(pipe: Pipeline, game_id: str) -> Callable[[Iterator[Any]], dict[int, str]]:
    """The taken seats: seat -> player id."""
    pipe.hgetall(seats_key(game_id))
    return lambda found: seat_map(next(found))


def read_seat_count(pipe: Pipeline, game_id: str) -> Callable[[Iterator[Any]], int]:
    """How many seats are taken."""
    pipe.hlen(seats_key(game_id))
    return lambda found: int(next(found))


def read_seated_at(
    pipe: Pipeline, player_id: str, game_id: str
) -> Callable[[Iterator[Any]], int | None]:
    """When the player took their seat in the game (ms); None if they sit in it nowhere."""
    pipe.zscore(player_games_key(player_id), game_id)
    return lambda found: _millis(next(found))


def queue_rematch_table(
    pipe: Pipeline, game_id: str, seat: int, player_id: str, open_seats: list[int], public: bool
) -> None:
    """A rematch's table, queued on the rematch's transaction (with its reservations, so a
    projection that sees the asker's seat sees them): the asker's seat, an invite code nobody is
    told for each seat open in the old game (a public rematch's lobby join takes it), and the
    public flag."""
    if open_seats:
        codes: dict[EncodableT, EncodableT] = {
            digest(secrets.token_urlsafe(32)): open_seat for open_seat in open_seats
        }
        pipe.hset(invites_key(game_id), mapping=codes)
    pipe.hset(seats_key(game_id), str(seat), player_id)
    if public:
        pipe.set(public_key(game_id), "1")


def seat_map(rows: dict[bytes, bytes]) -> dict[int, str]:
    """A hash of seat -> player id as stored (the seats; a rematch's reserved seats too)."""
    return {int(s): p.decode() for s, p in rows.items()}


def _millis(score: float | None) -> int | None:
    return None if score is None else int(score)


class BadInvite(ServiceError):
    """An invite code that is not (or no longer) an open seat's of this game."""

    status = 403
    code = "bad_invite"


class SeatTaken(ServiceError):
    """Joining a game the player already sits in, or one without an open seat."""

    status = 409
    code = "no_open_seat"


class GameExpired(ServiceError):
    """Joining a game nobody joined in time: it expired (``close_unjoined``)."""

    status = 409
    code = "game_expired"

    def __init__(self) -> None:
        super().__init__("nobody joined this game in time: it expired")


# KEYS: seats, invites, public.  ARGV: the creator's seat, the creator, public ('1' or ''),
# then invite hash, seat pairs.  Seats the creator and offers the invites once: a retry after
# the creator's seat was written (and maybe invites taken since) changes nothing.
OPEN = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if #ARGV > 3 then redis.call('HSET', KEYS[2], unpack(ARGV, 4)) end
if ARGV[3] == '1' then redis.call('SET', KEYS[3], '1') end
return 1
"""

# KEYS: seats, invites, public, expired[, the request's record].  ARGV: player id, invite hash
# ('' = any open seat of a public game)[, fingerprint, TTL (ms)].  Returns {'ok', seat} |
# {'seated', seat} | {'bad_invite'} | {'full'} | {'expired'} | {'earlier', record}.
JOIN = """
if KEYS[5] then
  local earlier = redis.call('GET', KEYS[5])
  if earlier then return {'earlier', earlier} end
end
if redis.call('EXISTS', KEYS[4]) == 1 then return {'expired'} end
local seats = redis.call('HGETALL', KEYS[1])
for i = 1, #seats, 2 do
  if seats[i + 1] == ARGV[1] then return {'seated', seats[i]} end
end
local field = ARGV[2]
local seat
if field ~= '' then
  seat = redis.call('HGET', KEYS[2], field)
  if not seat then return {'bad_invite'} end
else
  if redis.call('GET', KEYS[3]) ~= '1' then return {'bad_invite'} end
  local open = redis.call('HGETALL', KEYS[2])
  for i = 1, #open, 2 do
    if not seat or tonumber(open[i + 1]) < tonumber(seat) then
      seat, field = open[i + 1], open[i]
    end
  end
  if not seat then return {'full'} end
end
redis.call('HDEL', KEYS[2], field)
redis.call('HSET', KEYS[1], seat, ARGV[1])
if KEYS[5] then
  local record = '{"fingerprint":"' .. ARGV[3] .. '","seat":' .. seat .. '}'
  redis.call('SET', KEYS[5], record, 'PX', ARGV[4])
end
return {'ok', seat}
"""

# KEYS: seats, invites, expired.  Closes the game against joins if nobody but its creator took a
# seat and one is open (or it is closed already: a retried expiry); 1 if closed. In one script
# with ``JOIN``'s check, so a join and an expiry never both win. The invites go: no seat is
# offered any more (the cap of open public games, ``api.http.limits``, counts them).
CLOSE = """
if redis.call('EXISTS', KEYS[3]) == 1 then return 1 end
if redis.call('HLEN', KEYS[1]) > 1 or redis.call('HLEN', KEYS[2]) == 0 then return 0 end
redis.call('SET', KEYS[3], '1')
redis.call('DEL', KEYS[2])
return 1
"""


class Seats:
    """The games' seats on one Redis client (``services.identity.players.Players`` is the one made).
    Thread-safe (gthread workers share it)."""

    def __init__(
        self,
        client: Store,
        clock: Callable[[], int],
        cache_size: int,
        secret: ServerSecret | None = None,
    ) -> None:
        self.redis = client
        # The process's (``bootstrap``); without one, the store's: no configured secret.
        self.secret = secret if secret is not None else ServerSecret(client)
        self.clock = clock
        self.cache_size = cache_size
        self._join = client.register_script(JOIN)
        self._open = client.register_script(OPEN)
        self._close = client.register_script(CLOSE)
        # A taken seat never changes once true.
        self._seats: dict[str, dict[int, str]] = {}
        self._lock = threading.Lock()  # Players' token cache takes it too

    def open_table(
        self,
        game_id: str,
        created: int,
        open_seats: Iterable[int],
        creator: str,
        creator_seat: int,
        public: bool,
        key: str | None = None,
        fingerprint: str = "",
        version: int = 0,
    ) -> dict[int, str]:
        """Seat the creator and make an invite code for every other open seat (returned once,
        seat -> code). A public game with an open seat goes into the lobby. With the
        idempotency key taken by ``begin_table``, the request's record is written too."""
        others = [seat for seat in open_seats if seat != creator_seat]
        invites = (
            self._invite_codes(creator, key, game_id, others)
            if key
            else {seat: secrets.token_urlsafe(32) for seat in others}
        )
        if key:
            made = Record(fingerprint, game=game_id, seat=creator_seat, version=version,
                          invited=sorted(invites), public=public)  # fmt: skip
            record = idempotency.games_key(creator, key)
            with unavailable():
                self.redis.set(record, idempotency.encode(made), px=idempotency.TTL_MS)
        self._seat_creator(game_id, creator, creator_seat, invites, public)
        self.seated(game_id, creator, created)
        return invites

    def reopened_table(self, creator: str, key: str, made: Record) -> dict[int, str]:
        """The invite codes of a keyed creation's first answer; its seats, invites and the
        creator's game list written now should the first request have stopped before them."""
        assert made.game is not None and made.seat is not None
        invites = self._invite_codes(creator, key, made.game, made.invited)
        self._seat_creator(made.game, creator, made.seat, invites, made.public)
        self.seated(made.game, creator, self.clock())
        return invites

    def _seat_creator(
        self, game_id: str, creator: str, seat: int, invites: dict[int, str], public: bool
    ) -> None:
        names = [seats_key(game_id), invites_key(game_id), public_key(game_id)]
        args: list[EncodableT] = [seat, creator, "1" if public else ""]
        for invited, code in sorted(invites.items()):
            args += [digest(code), invited]
        with unavailable():
            self._open(keys=names, args=args)

    def _invite_codes(
        self, creator: str, key: str, game_id: str, seats: Iterable[int]
    ) -> dict[int, str]:
        """A keyed creation's invite codes: made again by its retry, known to nobody without
        the key."""
        secret = self.secret.key()
        derive = serversecret.derive_token
        return {seat: derive(secret, "invite", creator, key, game_id, seat) for seat in seats}

    def join(
        self,
        game_id: str,
        player_id: str,
        invite: str | None,
        key: str | None = None,
        fingerprint: str = "",
    ) -> int:
        """Take the invite's seat (or, with no invite, the lowest open seat of a public game);
        with an idempotency key, the seat the key's first join took if there was one."""
        names = [
            seats_key(game_id),
            invites_key(game_id),
            public_key(game_id),
            expired_key(game_id),
        ]
        args: list[EncodableT] = [player_id, digest(invite) if invite else ""]
        if key:
            names.append(idempotency.join_key(game_id, player_id, key))
            args += [fingerprint, idempotency.TTL_MS]
        with unavailable():
            status, *value = self._join(keys=names, args=args)
        status = status.decode()
        if status == "earlier":
            seat = idempotency.replayed(value[0], fingerprint).seat
            assert seat is not None
            self.seated(game_id, player_id, self.clock())
            return seat
        if status == "bad_invite":
            raise BadInvite(
                "that invite is not for an open seat of this game"
                if invite
                else "this game is not public: joining needs an invite",
                params={"case": "wrong_invite" if invite else "not_public"},
            )
        if status == "expired":
            raise GameExpired()
        if status == "full":
            raise SeatTaken("this game has no open seat left", params={"case": "full"})
        seat = int(value[0])
        if status == "seated":
            raise SeatTaken(
                f"you already sit in this game, at seat {seat}",
                params={"case": "seated", "seat": seat},
            )
        self.seated(game_id, player_id, self.clock())
        return seat

    def close_unjoined(self, game_id: str) -> bool:
        """Close the game against joins if nobody joined it (its creator alone sits, a seat
        is open; closed already: again); whether it is closed, so its expiry may be appended."""
        names = [seats_key(game_id), invites_key(game_id), expired_key(game_id)]
        with unavailable():
            return bool(self._close(keys=names))

    def seated(self, game_id: str, player_id: str, when: int) -> None:
        """List the game in the player's games (again: nothing), as taking a seat does."""
        with unavailable():
            self.redis.zadd(player_games_key(player_id), {game_id: when}, nx=True)

    def seats(self, game_id: str) -> dict[int, str]:
        """Taken seats: seat -> player id."""
        with unavailable():
            taken = seat_map(cast(dict[bytes, bytes], self.redis.hgetall(seats_key(game_id))))
        with self._lock:
            self._seats[game_id] = taken
            if len(self._seats) > self.cache_size:
                self._seats.pop(next(iter(self._seats)))
        return taken

    def seat_of(self, game_id: str, player_id: str) -> int | None:
        """The player's seat in this game, None for a spectator. A cached hit needs no round
        trip: a taken seat is never given back."""
        with self._lock:
            cached = self._seats.get(game_id, {})
        seat = _owned(cached, player_id)
        return seat if seat is not None else _owned(self.seats(game_id), player_id)

    def games_of(self, player_id: str) -> list[str]:
        """The games the player sits in, newest first."""
        with unavailable():
            games = cast(list[bytes], self.redis.zrevrange(player_games_key(player_id), 0, -1))
            return [g.decode() for g in games]

    def is_public(self, game_id: str) -> bool:
        """Whether the game is listed in the lobby while a seat is open."""
        with unavailable():
            return self.redis.get(public_key(game_id)) == b"1"

    def open_public_games(self, player_id: str) -> int:
        """How many of the player's games are public and still have an open seat (in the
        lobby): the cap on a player's open games counts them."""
        games = self.games_of(player_id)
        pipe = self.redis.pipeline(transaction=False)
        for game_id in games:
            pipe.get(public_key(game_id))
            pipe.hlen(invites_key(game_id))
        with unavailable():
            found = pipe.execute()
        return sum(
            1
            for public, open_seats in zip(found[::2], found[1::2], strict=True)
            if public == b"1" and open_seats
        )


def _owned(taken: dict[int, str], player_id: str) -> int | None:
    return next((seat for seat, owner in taken.items() if owner == player_id), None)
