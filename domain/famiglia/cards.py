"""The 60 Famiglia cards as data (FAMIGLIA.md, "Cards").

A card is named by its compact string form ``"<family>-<rank>"`` (e.g. ``"red-3"``), the wire
form of every command, event and view. Cards of the same family and rank are identical, so the
name is also the card's id.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from domain.core import RuleViolation

RED, BLUE, YELLOW, GREEN = "red", "blue", "yellow", "green"
FAMILIES: tuple[str, ...] = (RED, BLUE, YELLOW, GREEN)
# English names of the families, for messages.
FAMILY_NAMES = {
    RED: "La Famiglia",
    BLUE: "Accountant",
    YELLOW: "Brute",
    GREEN: "Mercenary",
}

COPIES_BY_RANK = (5, 4, 3, 2, 1)  # rank 0 x5 ... rank 4 x1, in every family
POINTS_BY_RANK = {
    RED: (1, 3, 6, 10, 15),
    BLUE: (0, 1, 3, 6, 10),
    YELLOW: (0, 1, 3, 6, 10),
    GREEN: (0, 1, 3, 6, 10),
}

# The wire type: a pattern-checked string, so decoding already rejects malformed names.
Card = Annotated[str, msgspec.Meta(pattern=r"^(red|blue|yellow|green)-[0-4]$")]


def name(family: str, rank: int) -> str:
    return f"{family}-{rank}"


KINDS: tuple[str, ...] = tuple(name(f, r) for f in FAMILIES for r in range(5))
FAMILY: dict[str, str] = {name(f, r): f for f in FAMILIES for r in range(5)}
RANK: dict[str, int] = {name(f, r): r for f in FAMILIES for r in range(5)}
POINTS: dict[str, int] = {name(f, r): POINTS_BY_RANK[f][r] for f in FAMILIES for r in range(5)}
# Canonical order (family, then rank): hands, areas and reshuffle input are kept in this order.
ORDER: dict[str, int] = {card: i for i, card in enumerate(KINDS)}

FULL_DECK: tuple[str, ...] = tuple(
    name(f, r) for f in FAMILIES for r in range(5) for _ in range(COPIES_BY_RANK[r])
)
STARTING_HAND: tuple[str, ...] = tuple(name(f, 0) for f in FAMILIES)


def check(card: object) -> str:
    """The card name, or RuleViolation("unknown_card") if it names no Famiglia card."""
    if card not in FAMILY:
        raise RuleViolation(
            "unknown_card",
            f"{card!r} is not a Famiglia card (expected e.g. 'red-3')",
            card=str(card),
        )
    return card


def sort(cards: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    return tuple(sorted(cards, key=ORDER.__getitem__))
