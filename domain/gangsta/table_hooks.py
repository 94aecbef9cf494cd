"""What the table (domain.table) needs of Gangsta!: which events reveal or shuffle, which are
automatic steps, the standing, and the view of a game the table ended (the undo policy:
docs/gangsta.md, "Undo")."""

from __future__ import annotations

from domain.gangsta.messages import (
    CardsDealt,
    ChapterChanged,
    DeckReshuffled,
    Event,
    GameEnded,
    GameStarted,
    GangRallied,
    GangsterHired,
    GangsterPeeked,
    GangWar,
    HeistChosen,
    HeistPeeked,
    MoneyPrinted,
    PlayAgain,
    ResourceDiscarded,
    ResourcesDealt,
    ResourcesRevealed,
    RewardSkipped,
    SnitchRevealed,
    SnitchShuffledBack,
    TurnStarted,
)
from domain.gangsta.scoring import final_scores
from domain.gangsta.state import State
from domain.gangsta.view import ended_view as ended_view

# Dealing (Bosses at the start, resource cards), cards turned up into a row, reshuffles, a
# snitch turned up or shuffled back, the kept resource cards turned face up, a private look at
# a deck's top (910, 912), and the end, which reveals the seed.
REVEALING: frozenset[type] = frozenset(
    {
        GameStarted,
        CardsDealt,
        DeckReshuffled,
        SnitchShuffledBack,
        SnitchRevealed,
        ResourcesDealt,
        ResourcesRevealed,
        HeistPeeked,
        GangsterPeeked,
        GameEnded,
    }
)
# Steps of the rules nobody chooses (flow.py: the automatic steps).
AUTOMATIC: frozenset[type] = frozenset(
    {TurnStarted, GangRallied, PlayAgain, ChapterChanged, GangWar, MoneyPrinted, ResourceDiscarded}
)


def reveals(event: Event) -> bool:
    """Also: a gangster hired or a heist chosen from the top of its deck (912 Indicator
    network, 910 Bikers gang) turns that card up for everyone."""
    if isinstance(event, GangsterHired | HeistChosen):
        return event.from_deck
    return type(event) in REVEALING


def automatic(event: Event) -> bool:
    """Also: a special reward skipped because nothing could be chosen."""
    if isinstance(event, RewardSkipped):
        return event.forced
    return type(event) in AUTOMATIC


def standing(state: State) -> list[int]:
    """The final scoring (GANGSTA.md, "End of the game") applied to the gangs as they are."""
    return list(final_scores(state, "nine_gangsters").scores)
