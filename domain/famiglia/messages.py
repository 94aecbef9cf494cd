"""Famiglia's wire format: rule options, commands (what a player asks) and events (what happened).

Cards are compact strings (``"red-3"``, see cards.py). JSON looks like
``{"type": "recruit", "card": "red-3", "to_area": "red-2", "back_to_hand": "green-3"}``.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from domain.core import Secret
from domain.famiglia.cards import Card


class Options(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The rule options (the rules page, /rules/famiglia, "Options"). A game's creation also
    takes ``preset: "published"`` (GET /games lists the options each preset sets)."""

    # Two consecutive turns without a recruit end the game at once (FAMIGLIA.md, "The deck").
    double_pass_ends: bool = True
    # A Mercenary stands in for a lower card of another family only (the description's 別種);
    # true: also for a lower green card, as the published FAQ reads it (FAMIGLIA.md, action 4).
    mercenary_for_green: bool = False
    # Reserved by FAMIGLIA.md for an unexplained Japanese reading; not implemented, so
    # options() refuses it rather than silently playing the default rules.
    action1_strict_order: bool = False


# Each subclass says frozen=True again: msgspec inherits it, but type checkers (PEP 681's
# dataclass_transform) do not, and mypy refuses a non-frozen subclass of a frozen one.
class _Message(msgspec.Struct, frozen=True, tag_field="type", forbid_unknown_fields=True):
    pass


# --- Commands -----------------------------------------------------------------------------


class Refresh(_Message, frozen=True, tag="refresh"):
    """Action 1: discard this Street card; as many cards as its rank are revealed at once."""

    card: Card


class PlayAccountant(_Message, frozen=True, tag="play_accountant"):
    """Action 2: play a blue card of rank >= 1 from hand to the area; exchanges follow."""

    card: Card


class Swap(_Message, frozen=True, tag="swap"):
    """One Accountant exchange: this hand card goes to the area, this area card to hand."""

    hand_card: Card
    area_card: Card


class EndSwaps(_Message, frozen=True, tag="end_swaps"):
    """Stop exchanging before the Accountant's rank is used up."""


class PlayBrute(_Message, frozen=True, tag="play_brute"):
    """Action 3: play a yellow card of rank r >= 1, lowering ``target`` by ``amount`` (1..r)."""

    card: Card
    target: Card
    amount: int


class Recruit(_Message, frozen=True, tag="recruit"):
    """Action 4: take ``card`` from the Street. A card of (lowered) rank 0 is free (no shown
    cards); otherwise show two hand cards: ``to_area`` goes to the area, ``back_to_hand``
    returns to hand."""

    card: Card
    to_area: Card | None = None
    back_to_hand: Card | None = None


class Pass(_Message, frozen=True, tag="pass"):
    """Action 4 without a recruit: the turn ends."""


Command = Refresh | PlayAccountant | Swap | EndSwaps | PlayBrute | Recruit | Pass


# --- Events -------------------------------------------------------------------------------


class GameStarted(_Message, frozen=True, tag="game_started"):
    seats: int
    options: Options
    commitment: str
    secret: Secret | None  # None in redacted copies: the seed stays secret until the end
    start_player: int
    hands: tuple[tuple[Card, ...], ...]


class StreetRevealed(_Message, frozen=True, tag="street_revealed"):
    """Cards turned from the top of the deck onto the Street."""

    cards: tuple[Card, ...]


class DeckReshuffled(_Message, frozen=True, tag="deck_reshuffled"):
    """The deck ran out the first time: the discard pile (``size`` cards) is the new deck."""

    size: int


class DeckRanOut(_Message, frozen=True, tag="deck_ran_out"):
    """The deck ran out the second time: ``extra_turns`` turns follow the current one."""

    extra_turns: int


class TurnStarted(_Message, frozen=True, tag="turn_started"):
    seat: int
    turn: int


class StreetRefreshed(_Message, frozen=True, tag="street_refreshed"):
    """Action 1's discard; the reveal follows as StreetRevealed."""

    seat: int
    card: Card
    destination: Literal["discard", "deck_bottom"]


class AccountantPlayed(_Message, frozen=True, tag="accountant_played"):
    seat: int
    card: Card


class CardsSwapped(_Message, frozen=True, tag="cards_swapped"):
    seat: int
    hand_card: Card  # went from hand to area
    area_card: Card  # went from area to hand


class SwapsEnded(_Message, frozen=True, tag="swaps_ended"):
    seat: int


class BrutePlayed(_Message, frozen=True, tag="brute_played"):
    seat: int
    card: Card
    target: Card
    amount: int


class Recruited(_Message, frozen=True, tag="recruited"):
    seat: int
    card: Card
    rank: int  # the rank it was recruited at (lower than printed if a Brute lowered it)
    to_area: Card | None
    back_to_hand: Card | None


class Passed(_Message, frozen=True, tag="passed"):
    seat: int


class GameEnded(_Message, frozen=True, tag="game_ended"):
    reason: Literal["deck_exhausted", "double_pass"]
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    hands: tuple[tuple[Card, ...], ...]
    secret: Secret  # the reveal: anyone can now re-run the shuffles


Event = (
    GameStarted
    | StreetRevealed
    | DeckReshuffled
    | DeckRanOut
    | TurnStarted
    | StreetRefreshed
    | AccountantPlayed
    | CardsSwapped
    | SwapsEnded
    | BrutePlayed
    | Recruited
    | Passed
    | GameEnded
)
