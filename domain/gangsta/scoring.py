"""Gangsta!'s final scoring (GANGSTA.md, Scoring; the clans option; the resources module)."""

from __future__ import annotations

from domain.gangsta import cards, resources
from domain.gangsta.messages import GameEnded
from domain.gangsta.state import State
from domain.gangsta.wire import EndReason


def _majority_bonus(values: list[int]) -> list[int]:
    """2 to the single highest, 1 to each tied highest (GANGSTA.md, Scoring)."""
    top = max(values)
    holders = [i for i, v in enumerate(values) if v == top]
    bonus = 2 if len(holders) == 1 else 1
    return [bonus if v == top else 0 for v in values]


def _clan_bonus(state: State) -> list[int]:
    """Option clans: each clan's majority (Boss included, at least one gangster) scores like
    "most gangsters" does: 2, or 1 each on a tie."""
    total = [0] * state.seats
    for clan in cards.CLANS:
        counts = [
            sum(1 for m in p.gang if cards.GANGSTERS[m.card].clan == clan) for p in state.players
        ]
        if max(counts) > 0:
            total = [t + b for t, b in zip(total, _majority_bonus(counts), strict=True)]
    return total


def final_scores(state: State, reason: EndReason) -> GameEnded:
    """Gangsters still in the gang (a hospital's are not), completed heists, most money, most
    gangsters (or clan majorities) and, with the resources module, each activated card."""
    players = state.players
    gang_influence = tuple(sum(cards.GANGSTERS[m.card].influence for m in p.gang) for p in players)
    heist_influence = tuple(sum(cards.HEISTS[h].influence for h in p.heists) for p in players)
    money_bonus = tuple(_majority_bonus([p.money for p in players]))
    sizes = [len(p.gang) for p in players]
    size_bonus = tuple(_clan_bonus(state) if state.options.clans else _majority_bonus(sizes))
    resource_influence = (
        tuple(resources.influence(p) for p in players) if state.options.resources else ()
    )
    scores = tuple(
        sum(parts)
        for parts in zip(gang_influence, heist_influence, money_bonus, size_bonus, strict=True)
    )
    if resource_influence:
        scores = tuple(s + r for s, r in zip(scores, resource_influence, strict=True))
    best = max(scores)
    tied = [i for i in range(len(players)) if scores[i] == best]
    most = max(sizes[i] for i in tied)
    winners = tuple(i for i in tied if sizes[i] == most)
    return GameEnded(
        reason=reason,
        scores=scores,
        winners=winners,
        gang_influence=gang_influence,
        heist_influence=heist_influence,
        money_bonus=money_bonus,
        size_bonus=size_bonus,
        resource_influence=resource_influence,
        secret=state.secret,
    )
