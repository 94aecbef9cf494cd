"""Players, their secret tokens, who sits in which seat, invites and the lobby.

A player is a display name and a secret token. The token (``secrets.token_urlsafe(32)``: 256
random bits) is returned once, at creation; the server keeps only its SHA-256, so a copy of the
database does not let anyone act as a player. Every later request presents the token, or the
token of a device session the player signed in with elsewhere (``services.devices``).

Seats: a game's seats are taken by players (never given back), played by AI (the game's
``GameMeta.ai``), or open. Each open seat gets an invite code when the game is created (256 bits,
kept only as a hash too); joining with it takes that seat. A public game is also listed in the
lobby, and anybody may take its lowest open seat without an invite. A player holds at most one
seat per game, so "the caller's seat" is well defined.

Keys (read by the workers for inboxes and the lobby; ``{...}`` are Redis Cluster hash tags, so a
game's keys share its slot with its event stream, and a player's keys share one slot):

``player:{<player id>}``        hash    ``name`` (UTF-8), ``created`` (ms since the epoch)
``player:{<player id>}:games``  zset    game id -> ms when the player took the seat
``token:<sha256 hex>``          string  player id of the token whose SHA-256 this is
``game:{<game id>}:seats``      hash    seat number (decimal) -> player id, taken seats only
``game:{<game id>}:invites``    hash    sha256 hex of an invite code -> seat, open seats only
``game:{<game id>}:public``     string  ``1`` for a public game (listed in the lobby while a
                                        seat is open: ``services.readmodels``, by the workers)

Player ids are drawn by ``shards.new_id`` (``services.shards``): a player's keys share one slot
with their shard's keys. The index keys (``token:``, ``idem:players:``) hash on their whole name,
anywhere; a game's keys on the game's id. On a Redis Cluster no script or transaction may span
two of them, so each write below is a sequence of single-slot steps, ordered so that losing the
process between two of them loses nothing acknowledged and the retry completes it:

* Creating a player: its hash (only if absent), then its token. A token is written last, so no
  token ever names a player that is not there. With an ``Idempotency-Key``
  (``services.idempotency``) the key's record is claimed first (``SET NX`` naming the new
  player id): a retry that finds it writes the same player (only if absent) and the same token
  (derived from the key and the player id) again and answers them, so a creation lost midway is
  completed by its retry, and a twin request racing the first answers the same player.
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
import unicodedata
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import msgspec
import redis

from services import idempotency, serversecret, shards
from services.devices import FIRST, TOUCH_MS, Devices, digest, token_key
from services.errors import ServiceError
from services.idempotency import Record
from services.store import now_ms, unavailable

MAX_NAME = 40
RECHECK_MS = 2000  # how long a signed-out device's token may still work in another process


def player_key(player_id: str) -> str:
    return f"player:{{{player_id}}}"


def player_games_key(player_id: str) -> str:
    return f"player:{{{player_id}}}:games"


def seats_key(game_id: str) -> str:
    return f"game:{{{game_id}}}:seats"


def invites_key(game_id: str) -> str:
    return f"game:{{{game_id}}}:invites"


def public_key(game_id: str) -> str:
    return f"game:{{{game_id}}}:public"


class Player(msgspec.Struct, frozen=True):
    id: str
    name: str
    created: int


@dataclass(frozen=True)
class _Session:
    player: Player
    device: str
    checked: int  # ms when the store last said the token is valid
    touched: int  # ms when its last use was last written


class Unauthorized(ServiceError):
    """No token, or a token that belongs to nobody."""

    status = 401
    code = "bad_token"


class BadName(ServiceError):
    status = 400
    code = "bad_name"


class BadInvite(ServiceError):
    """An invite code that is not (or no longer) an open seat's of this game."""

    status = 403
    code = "bad_invite"


class SeatTaken(ServiceError):
    """Joining a game the player already sits in, or one without an open seat."""

    status = 409
    code = "no_open_seat"


# KEYS: the player.  ARGV: name, created.  Writes the player unless it is there (a retry
# completing a creation never changes a player made before).
CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'name', ARGV[1], 'created', ARGV[2])
return 1
"""

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

# KEYS: seats, invites, public[, the request's record].  ARGV: player id, invite hash ('' = any
# open seat of a public game)[, fingerprint, TTL (ms)].  Returns {'ok', seat} |
# {'seated', seat} | {'bad_invite'} | {'full'} | {'earlier', record}.
JOIN = """
if KEYS[4] then
  local earlier = redis.call('GET', KEYS[4])
  if earlier then return {'earlier', earlier} end
end
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
if KEYS[4] then
  local record = '{"fingerprint":"' .. ARGV[3] .. '","seat":' .. seat .. '}'
  redis.call('SET', KEYS[4], record, 'PX', ARGV[4])
end
return {'ok', seat}
"""


class Players:
    """Player identity and seats on one Redis client. Thread-safe (gthread workers share it)."""

    def __init__(
        self, client: redis.Redis, clock: Callable[[], int] = now_ms, cache_size: int = 65536
    ) -> None:
        self.redis = client
        self.clock = clock
        self.cache_size = cache_size
        self._join = client.register_script(JOIN)
        self._create = client.register_script(CREATE)
        self._open = client.register_script(OPEN)
        self.devices = Devices(client)
        # A taken seat never changes once true; a token's session is checked again now and then.
        self._tokens: OrderedDict[str, _Session] = OrderedDict()
        self._seats: dict[str, dict[int, str]] = {}
        self._lock = threading.Lock()

    # -- identity ---------------------------------------------------------------------------

    def create(
        self, name: object, key: str | None = None, fingerprint: str = ""
    ) -> tuple[Player, str]:
        """A new player and their secret token (shown once: only its hash is kept); with an
        idempotency key, the key's first player and token again if there was one."""
        player = Player(id=shards.new_id(12), name=_clean_name(name), created=self.clock())
        if key is None:
            token = secrets.token_urlsafe(32)
            self._write(player, token)
            return player, token
        record = idempotency.encode(Record(fingerprint, player=player.id))
        with unavailable():
            earlier = self.redis.set(
                idempotency.players_key(key), record, nx=True, px=idempotency.TTL_MS, get=True
            )
        if earlier is not None:  # a retry (or its twin): the key's player, completed if need be
            first = idempotency.replayed(earlier, fingerprint).player
            assert first is not None
            player = msgspec.structs.replace(player, id=first)
        token = self._keyed_token(key, player.id)
        self._write(player, token)
        made = self.get(player.id)
        assert made is not None
        return made, token

    def _write(self, player: Player, token: str) -> None:
        """The player (unless there) and then its token (see the module docstring)."""
        with unavailable():
            self._create(keys=[player_key(player.id)], args=[player.name, player.created])
            self.redis.set(token_key(digest(token)), player.id)

    def _keyed_token(self, key: str, player_id: str) -> str:
        """A keyed creation's token: made again by its retry, known to nobody without the key;
        of this player only (a key used again once its record expired makes another token)."""
        secret = serversecret.load(self.redis)
        return serversecret.derive_token(secret, "player-token", key, player_id)

    def get(self, player_id: str) -> Player | None:
        with unavailable():
            fields = self.redis.hgetall(player_key(player_id))
        if not fields:
            return None
        return Player(player_id, fields[b"name"].decode(), int(fields[b"created"]))

    def authenticate(self, token: str | None, label: str = "") -> Player:
        """The player whose token this is; ``Unauthorized`` otherwise (nothing says why)."""
        return self.session(token, label)[0]

    def session(self, token: str | None, label: str = "") -> tuple[Player, str]:
        """The player and the device (``services.devices``) of a token: the player token, or a
        device session's. ``label`` names the device the first time the player token is used.
        A cached answer is checked again after ``RECHECK_MS``, so a device signed out in
        another process stops working within that time; its last use is written then, at most
        once a minute."""
        if not token:
            raise Unauthorized(
                "this needs your player token: 'Authorization: Bearer <token>'",
                code="missing_token",
            )
        hashed = digest(token)
        now = self.clock()
        with self._lock:
            cached = self._tokens.get(hashed)
        if cached is not None and now - cached.checked < RECHECK_MS:
            return cached.player, cached.device
        with unavailable():
            player_id = self.redis.get(token_key(hashed))
        found = (player_id.decode(), FIRST) if player_id is not None else None
        found = found or self.devices.find(hashed)
        player = None
        if found is not None:
            same = cached is not None and cached.player.id == found[0]
            player = cached.player if cached is not None and same else self.get(found[0])
        if found is None or player is None:
            self.forget([hashed])
            raise Unauthorized("that token belongs to no player")
        device = found[1]
        touched = cached.touched if cached is not None else 0
        if now - touched >= TOUCH_MS:
            if device == FIRST:
                self.devices.record_first(player.id, hashed, label, player.created)
            self.devices.touch(player.id, device, now)
            touched = now
        with self._lock:
            self._tokens[hashed] = _Session(player, device, now, touched)
            while len(self._tokens) > self.cache_size:
                self._tokens.popitem(last=False)
        return player, device

    def forget(self, token_hashes: Iterable[str]) -> None:
        """Drop signed-out tokens from this process's cache at once."""
        with self._lock:
            for hashed in token_hashes:
                self._tokens.pop(hashed, None)

    def names(self, player_ids: Iterable[str]) -> dict[str, str]:
        ids = sorted(set(player_ids))
        pipe = self.redis.pipeline(transaction=False)
        for player_id in ids:
            pipe.hget(player_key(player_id), "name")
        with unavailable():
            found = pipe.execute()
        return {i: n.decode() for i, n in zip(ids, found, strict=True) if n is not None}

    # -- seats ------------------------------------------------------------------------------

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
        args: list[object] = [seat, creator, "1" if public else ""]
        for invited, code in sorted(invites.items()):
            args += [digest(code), invited]
        with unavailable():
            self._open(keys=names, args=args)

    def _invite_codes(
        self, creator: str, key: str, game_id: str, seats: Iterable[int]
    ) -> dict[int, str]:
        """A keyed creation's invite codes: made again by its retry, known to nobody without
        the key."""
        secret = serversecret.load(self.redis)
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
        names = [seats_key(game_id), invites_key(game_id), public_key(game_id)]
        args: list[object] = [player_id, digest(invite) if invite else ""]
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

    def seated(self, game_id: str, player_id: str, when: int) -> None:
        """List the game in the player's games (again: nothing), as taking a seat does."""
        with unavailable():
            self.redis.zadd(player_games_key(player_id), {game_id: when}, nx=True)

    def seats(self, game_id: str) -> dict[int, str]:
        """Taken seats: seat -> player id."""
        with unavailable():
            rows = self.redis.hgetall(seats_key(game_id))
        taken = {int(s): p.decode() for s, p in rows.items()}
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
            return [g.decode() for g in self.redis.zrevrange(player_games_key(player_id), 0, -1)]


def _owned(taken: dict[int, str], player_id: str) -> int | None:
    return next((seat for seat, owner in taken.items() if owner == player_id), None)


def _clean_name(name: object) -> str:
    if not isinstance(name, str):
        raise BadName("a name is a string", params={"case": "not_text"})
    cleaned = " ".join(name.split())
    if not 1 <= len(cleaned) <= MAX_NAME:
        raise BadName(
            f"a name has 1 to {MAX_NAME} characters", params={"case": "length", "max": MAX_NAME}
        )
    if any(unicodedata.category(ch).startswith("C") for ch in cleaned):
        raise BadName("a name may not contain control characters", params={"case": "control"})
    return cleaned
