"""FAMIGLIA.md action 4, "Recruit or pass": which two shown cards recruit a Street card.

A card of effective rank k >= 1 is recruited with two cards of its family at rank k-1, or one of
them and a Mercenary (green) of a higher rank standing in for the other; a Mercenary stands in
for another family only, unless option ``mercenary_for_green``.
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.core import RuleViolation
from domain.famiglia import cards
from domain.famiglia.cards import FAMILY, GREEN, RANK
from domain.famiglia.messages import Options, Recruit


def pair_rank(opts: Options, target: str, a: str, b: str, ranks: set[int]) -> int:
    """The rank the pair recruits ``target`` at: one card of the target's family with rank
    k-1, the other the same or a Mercenary (green) of a higher rank standing in for it; for a
    green target only with option mercenary_for_green."""
    rank = min(RANK[a], RANK[b]) + 1
    if rank not in ranks:
        if ranks == {0}:
            raise RuleViolation(
                "bad_pair",
                f"{target} has rank 0 now: it is free, show nothing",
                case="free",
                card=target,
            )
        allowed = " or ".join(str(k) for k in sorted(ranks))
        raise RuleViolation(
            "bad_pair",
            f"{a} and {b} would recruit a rank-{rank} card; {target} has rank {allowed} now",
            case="wrong_rank",
            a=a,
            b=b,
            rank=rank,
            card=target,
            ranks=[str(k) for k in sorted(ranks)],
        )
    family = FAMILY[target]
    real = cards.name(family, rank - 1)
    other = b if a == real else a if b == real else None
    if other is None:
        raise RuleViolation(
            "bad_pair",
            f"Recruiting {target} at rank {rank} needs a {real}",
            case="needs_card",
            card=target,
            rank=rank,
            needed=real,
        )
    if other != real and not stands_in(opts, other, real):
        if FAMILY[other] == GREEN and RANK[other] > rank - 1:
            raise RuleViolation(
                "mercenary_not_for_green",
                f"A Mercenary stands in for another family only: {other} cannot stand in for "
                f"{real} to recruit {target}",
                card=target,
                mercenary=other,
                real=real,
            )
        raise RuleViolation(
            "bad_pair",
            f"The second card must be another {real} or a green card above rank {rank - 1}",
            case="second_card",
            needed=real,
            rank=rank - 1,
        )
    return rank


def stands_in(opts: Options, other: str, real: str) -> bool:
    """Whether the Mercenary ``other`` may stand in for ``real`` (FAMIGLIA.md, action 4)."""
    return (
        FAMILY[other] == GREEN
        and RANK[other] > RANK[real]
        and (FAMILY[real] != GREEN or opts.mercenary_for_green)
    )


# The card a pair must include to recruit (card, at rank k >= 1): its family's at rank k-1.
_NEEDED = {(c, k): cards.name(FAMILY[c], k - 1) for c in cards.KINDS for k in range(1, 5)}
# Street entries (card, rank this turn) in canonical order, then by rank.
_STREET_ORDER = {(c, k): cards.ORDER[c] * 5 + k for c in cards.KINDS for k in range(5)}
_GREENS = tuple(c for c in cards.KINDS if FAMILY[c] == GREEN)  # in canonical order
# stands_in(opts, other, real) for every Mercenary and card, by mercenary_for_green.
_STANDS_IN = {
    mfg: frozenset(
        (other, real)
        for other in _GREENS
        for real in cards.KINDS
        if stands_in(Options(mercenary_for_green=mfg), other, real)
    )
    for mfg in (False, True)
}
# Every recruit command, built once: commands are frozen, so legal lists can share them.
_RECRUITS: dict[tuple[str, str | None, str | None], Recruit] = {
    (c, a, b): Recruit(card=c, to_area=a, back_to_hand=b)
    for c in cards.KINDS
    for a in (None, *cards.KINDS)
    for b in (None, *cards.KINDS)
    if (a is None) == (b is None)
}


def recruits(street: list[tuple[str, int]], hand: Sequence[str], opts: Options) -> list[Recruit]:
    """The recruits ``hand`` can make on a Street of (card, rank this turn): action 4. Also
    the bot's, for the Street and hand a Brute or an exchange would leave."""
    out = []
    # Only a Mercenary stands in (stands_in): the other cards of the hand need not be tried.
    mercenaries = [c for c in _GREENS if c in hand]
    allowed = _STANDS_IN[opts.mercenary_for_green]
    for entry in sorted(set(street), key=_STREET_ORDER.__getitem__):
        card, rank = entry
        if rank == 0:
            out.append(_RECRUITS[card, None, None])
            continue
        real = _NEEDED[entry]
        count = hand.count(real)
        if count == 0:
            continue
        if count >= 2:
            out.append(_RECRUITS[card, real, real])
        for other in mercenaries:
            if (other, real) in allowed:
                out.append(_RECRUITS[card, real, other])
                out.append(_RECRUITS[card, other, real])
    return out
