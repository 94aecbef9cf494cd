"""The table's use cases: creating a game, joining it, asking for its rematch, each one call.

A route parses the request (the caller, the body, the ``Idempotency-Key`` header as sent) and
encodes the answer; everything between is here, in the order that decides which refusal a bad
request gets: the cap on open public games, the creator's seat, the key, the keyed creation
(``services.eventstore.idempotency``: the derived game id, the pending record and its release),
the opening of the table with its invites (``services.games.seats``), and telling the workers
that the seats changed (``CommandService.notify``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import msgspec

from services.errors import BadRequest, ServiceError
from services.eventstore import idempotency
from services.eventstore.serversecret import ServerSecret
from services.games.chat import Chat
from services.games.commands import CommandService
from services.games.rematch import Offer, Rematches
from services.identity.players import Players
from services.platform.config import Store


class CreateRequest(Protocol):
    """A game's creation as the client sent it (the API's ``NewGame``): its encoding is the
    fingerprint a retry is told from another request by, so the body itself comes here."""

    @property
    def game(self) -> str: ...
    @property
    def seats(self) -> int: ...
    @property
    def ai(self) -> Mapping[int, int | str]: ...
    @property
    def options(self) -> dict[str, Any]: ...
    @property
    def seat(self) -> int | None: ...
    @property
    def public(self) -> bool: ...
    @property
    def clock(self) -> Any: ...  # a time control (msgspec structs), None for none
    @property
    def on_timeout(self) -> Any: ...


class JoinRequest(Protocol):
    """A join as the client sent it (the API's ``JoinGame``): with an invite, or none."""

    @property
    def invite(self) -> str | None: ...


@dataclass(frozen=True)
class Opened:
    """A game as its creation answers it: the creator's seat, the version the answer names and
    the invite codes of the other open seats (seat -> code: given only here)."""

    game_id: str
    seat: int
    version: int
    invites: dict[int, str]


class TooManyOpenGames(ServiceError):
    """A public game asked for by a player who already sits in the cap's number of public
    games with an open seat (the lobby is not one player's)."""

    status = 409
    code = "too_many_open_games"


class Tables:
    """Creating, joining and rematching games. ``client``: the store's client, which keeps the
    keyed creations' records (``services.eventstore.idempotency``); ``secret``: the server's, which
    their games' ids derive from. ``open_games`` caps a player's public games with an open seat
    when they create another public one (0: no cap)."""

    def __init__(
        self,
        commands: CommandService,
        players: Players,
        rematches: Rematches,
        chat: Chat,
        client: Store,
        secret: ServerSecret,
        open_games: int = 0,
    ) -> None:
        self.commands = commands
        self.players = players
        self.rematches = rematches
        self.chat = chat
        self.client = client
        self.secret = secret
        self.open_games = open_games

    def create_game(self, creator: str, new: CreateRequest, key: str | None) -> Opened:
        """Make the game, seat ``creator`` and offer the other seats that no AI plays; with a
        ``key`` (the header as sent), a retry answers the first creation again."""
        self._check_cap(creator, new.public)
        humans = [s for s in range(new.seats) if s not in new.ai]
        seat = new.seat if new.seat is not None else (humans[0] if humans else None)
        if seat is None or seat not in humans:
            raise BadRequest(
                "the creator needs a seat that is not played by AI",
                code="bad_seats",
                params={"case": "creator"},
            )
        key = idempotency.check_key(key)
        fingerprint = idempotency.fingerprint(new)
        if key:
            made = idempotency.begin_game(self.client, creator, key, fingerprint)
            if made is not None:  # a retry: the first answer again
                assert made.game is not None and made.seat is not None
                assert made.version is not None
                codes = self.players.reopened_table(creator, key, made)
                self.commands.notify(made.game, made.version)
                return Opened(made.game, made.seat, made.version, codes)
        try:
            derived = (
                idempotency.game_id(self.secret.key(), creator, key, fingerprint) if key else None
            )
            game_id = self.commands.create_game(
                new.game,
                new.seats,
                new.options,
                new.ai,
                clock=msgspec.to_builtins(new.clock) if new.clock is not None else None,
                on_timeout=msgspec.to_builtins(new.on_timeout) if new.on_timeout else None,
                game_id=derived,
            )
            loaded = self.commands.load(game_id)
            codes = self.players.open_table(
                game_id, loaded.meta.created, humans, creator, seat, new.public,
                key=key, fingerprint=fingerprint, version=loaded.version,
            )  # fmt: skip
        except BaseException:
            if key:  # its retry makes the game, or finds and completes the one made here
                idempotency.release_game(self.client, creator, key, fingerprint)
            raise
        self.commands.notify(game_id, loaded.version)  # read models show the seats
        return Opened(game_id, seat, loaded.version, codes)

    def _check_cap(self, creator: str, public: bool) -> None:
        most = self.open_games
        if most and public and self.players.open_public_games(creator) >= most:
            raise TooManyOpenGames(
                f"you already sit in {most} public games with an open seat: "
                "wait for them to fill before opening another",
                params={"max": most},
            )

    def join_game(self, game_id: str, player_id: str, sent: JoinRequest, key: str | None) -> int:
        """Seat the player (the invite's seat, the seat a rematch reserved for them, or a
        public game's lowest open seat) and return the seat; with a ``key`` (the header as
        sent), a retry gets the first join's seat."""
        key = idempotency.check_key(key)
        loaded = self.commands.load(game_id)  # an unknown game is refused before any write
        seat = None if sent.invite else self.rematches.take(game_id, player_id)
        if seat is None:
            fingerprint = idempotency.fingerprint(sent)
            seat = self.players.join(game_id, player_id, sent.invite, key, fingerprint)
        self.commands.notify(game_id, loaded.version)  # read models show the seats
        return seat

    def rematch(self, game_id: str, player_id: str) -> tuple[Offer, int]:
        """The finished game's rematch (made now if it was not) and the player's seat in it;
        the old game's open pages are told of the offer (again: harmless)."""
        made, seat = self.rematches.offer(game_id, player_id)
        self.chat.signal(game_id)
        return made, seat
