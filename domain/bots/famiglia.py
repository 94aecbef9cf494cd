"""The greedy Famiglia bot: one-move lookahead on the seat's view (FAMIGLIA.md).

Every legal command is scored by the best position it leads to this turn:

* a recruit is worth the recruited card's points (hand and area both score) plus the "outlook"
  of the hand it leaves: each hand card is worth part of the card it helps recruit next (a
  ``red-2`` helps take a ``red-3``; a Mercenary helps any family below its rank). So the bot
  prefers the highest-value card it can reach, and of the two shown cards it sends to the area
  the one less useful in hand;
* a Brute is worth the best recruit once its target is lowered (minus the Brute from hand);
* an Accountant is worth the best recruit after one exchange; each exchange likewise;
* passing keeps the hand's outlook; a refresh is only tried when nothing can be recruited.
"""

from __future__ import annotations

from domain.bots.scoring import best
from domain.famiglia.cards import POINTS, RANK
from domain.famiglia.messages import (
    Command,
    EndSwaps,
    Options,
    Pass,
    PlayAccountant,
    PlayBrute,
    Recruit,
    Refresh,
    Swap,
)
from domain.famiglia.playout import POTENTIAL
from domain.famiglia.recruit import recruits
from domain.famiglia.view import View
from domain.rng import Rng

COST_OF_POWER = 0.01  # a Brute or Accountant that gains nothing is not played
NOTHING = -1e9

Street = list[tuple[str, int]]  # (card, this turn's rank)


def greedy(view: View, legal: list[Command], rng: Rng) -> Command:
    assert view.hand is not None, "a bot plays a seat"
    hand = list(view.hand)
    street = [(s.card, s.rank) for s in view.street]
    area = list(view.areas[view.seat]) if view.seat is not None else []
    opts = view.options
    nothing_to_recruit = not recruits(street, hand, opts)

    def score(command: Command) -> float:
        if isinstance(command, Recruit):
            return recruit_value(command, hand)
        if isinstance(command, Pass):
            return potential(hand)
        if isinstance(command, EndSwaps):
            return outlook(street, hand, opts)
        if isinstance(command, PlayBrute):
            lowered = _lower(street, command.target, command.amount)
            return outlook(lowered, _without(hand, command.card), opts) - COST_OF_POWER
        if isinstance(command, PlayAccountant):
            after = _without(hand, command.card)
            return (
                max(
                    [outlook(street, after, opts)]
                    + [
                        outlook(street, _swap(after, h, a), opts)
                        for h in set(after)
                        for a in set(area)
                    ]
                )
                - COST_OF_POWER
            )
        if isinstance(command, Swap):
            return outlook(street, _swap(hand, command.hand_card, command.area_card), opts)
        if isinstance(command, Refresh):
            # Worth a try only when nothing can be taken: a higher rank reveals more cards.
            if not nothing_to_recruit:
                return NOTHING
            return potential(hand) + 0.01 * (1 + RANK[command.card])
        return NOTHING

    return best(legal, score, rng)


def potential(hand: list[str]) -> float:
    """What the hand may recruit later (``POTENTIAL`` of each card, shared with the search's
    rollout policy)."""
    return sum(POTENTIAL[card] for card in hand)


def recruit_value(command: Recruit, hand: list[str]) -> float:
    after = [*hand, command.card]
    if command.to_area is not None:
        after = _without(after, command.to_area)
    return POINTS[command.card] + potential(after)


def outlook(street: Street, hand: list[str], opts: Options) -> float:
    """The best this hand can do on this Street now: recruit the best card, or keep it."""
    return max([potential(hand)] + [recruit_value(r, hand) for r in recruits(street, hand, opts)])


def _without(hand: list[str], card: str) -> list[str]:
    out = list(hand)
    out.remove(card)
    return out


def _swap(hand: list[str], hand_card: str, area_card: str) -> list[str]:
    return [*_without(hand, hand_card), area_card]


def _lower(street: Street, target: str, amount: int) -> Street:
    out = list(street)
    for i, (card, rank) in enumerate(out):
        if card == target and rank >= amount:
            out[i] = (card, rank - amount)
            break
    return out
