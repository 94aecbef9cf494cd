"""The table's wire format: what a seat may do beside the game's own moves (concede, offer,
accept or decline a draw, undo), and the events of those and of a time-out.

JSON looks like ``{"type": "concede"}`` and ``{"type": "timed_out", "seat": 1, "forfeit": true}``.
An event that ends the game carries the game's ``secret`` (the reveal ``omerta verify`` checks,
as the games' own end events do); it is None when the game goes on.
"""

from __future__ import annotations

import typing

import msgspec

from domain.core import Secret


# Each subclass says frozen=True again: msgspec inherits it, but type checkers (PEP 681's
# dataclass_transform) do not, and mypy refuses a non-frozen subclass of a frozen one.
class _Message(msgspec.Struct, frozen=True, tag_field="type", forbid_unknown_fields=True):
    pass


# --- Commands (never in ``legal``: bots do not send them) -------------------------------------


class Concede(_Message, frozen=True, tag="concede"):
    """Give up: 2 players, the game ends as a loss; more, the seat is played by a bot, unrated."""


class OfferDraw(_Message, frozen=True, tag="offer_draw"):
    """2 players: offer the other player a draw."""


class AcceptDraw(_Message, frozen=True, tag="accept_draw"):
    """Accept the other player's standing draw offer: the game ends as a draw."""


class DeclineDraw(_Message, frozen=True, tag="decline_draw"):
    """Decline the other player's standing draw offer."""


class Undo(_Message, frozen=True, tag="undo"):
    """Take back one's moves since the undo point (the table's ``can_undo`` says when)."""


TableCommand = Concede | OfferDraw | AcceptDraw | DeclineDraw | Undo
COMMANDS: tuple[type[TableCommand], ...] = typing.get_args(TableCommand)


# --- Events ---------------------------------------------------------------------------------


class Conceded(_Message, frozen=True, tag="conceded"):
    seat: int
    secret: Secret | None = None


class TimedOut(_Message, frozen=True, tag="timed_out"):
    """The seat's time ran out (no client sends this: the deadline job does, via the service)."""

    seat: int
    forfeit: bool
    secret: Secret | None = None


class DrawOffered(_Message, frozen=True, tag="draw_offered"):
    seat: int


class DrawDeclined(_Message, frozen=True, tag="draw_declined"):
    """``seat`` declined the other seat's offer."""

    seat: int


class DrawAgreed(_Message, frozen=True, tag="draw_agreed"):
    secret: Secret | None = None


class Expired(_Message, frozen=True, tag="expired"):
    """Nobody joined the open game within ``days`` (the service's setting then): it is over,
    unrated, with no winner (no client sends this: the expiry job does, via the service)."""

    days: float
    secret: Secret | None = None


class Undone(_Message, frozen=True, tag="undone"):
    """``seat``'s moves since its undo point are taken back; they stay in the stream."""

    seat: int


TableEvent = Conceded | TimedOut | DrawOffered | DrawDeclined | DrawAgreed | Expired | Undone
EVENTS: tuple[type[TableEvent], ...] = typing.get_args(TableEvent)
