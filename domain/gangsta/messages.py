"""Gangsta!'s wire format: commands (what a player asks) and events (what happened); the
options and shared value types are in wire.py, the resources module's messages in
resources/messages.py.

Cards are their ids in cards.json. JSON looks like ``{"type": "commit", "gangster": 124}``.
"""

from __future__ import annotations

from domain.core import Secret
from domain.gangsta.resources.messages import (
    Discharge,
    GangsterPeeked,
    Headquarters,
    HeadquartersUsed,
    HeistPeeked,
    HospitalDischarged,
    IgnoreSkill,
    KeepResource,
    MoneyPrinted,
    PrivateJet,
    PrivateJetUsed,
    ResourceActivated,
    ResourceDiscarded,
    ResourceKept,
    ResourcesDealt,
    ResourcesRevealed,
    SecretSociety,
    SecretSocietyUsed,
    SkillIgnored,
)
from domain.gangsta.wire import DiscardReason, EndReason, Options, Row
from domain.gangsta.wire import Message as _Message
from domain.gangsta.wire import Owed as Owed
from domain.gangsta.wire import Reward as Reward

# --- Commands -----------------------------------------------------------------------------


class Ready(_Message, frozen=True, tag="ready"):
    """Mobilisation: make one Engaged gangster of yours Available (free or $1)."""

    gangster: int


class Hire(_Message, frozen=True, tag="hire"):
    """Action: hire this market gangster (pay its cost)."""

    gangster: int


class ChooseHeist(_Message, frozen=True, tag="choose_heist"):
    """Action: start this heist from the row; commit gangsters next."""

    heist: int


class Commit(_Message, frozen=True, tag="commit"):
    """Commit one Available gangster to the chosen heist (another player's only on a
    cooperative heist, after your first)."""

    gangster: int


class CancelHeist(_Message, frozen=True, tag="cancel_heist"):
    """Put the chosen heist back before it is complete; your committed gangsters stay Available."""


class Pass(_Message, frozen=True, tag="pass"):
    """Action: pass and take the pass income."""


class DiscardRowCard(_Message, frozen=True, tag="discard_row_card"):
    """After a pass (option pass_discard): discard one card of either row."""

    card: int


class Skip(_Message, frozen=True, tag="skip"):
    """Decline the pass discard, or the current special reward (for a diversion: stop)."""


class FastRecruit(_Message, frozen=True, tag="fast_recruit"):
    gangster: int


class LearnSkill(_Message, frozen=True, tag="learn_skill"):
    gangster: int


class Theft(_Message, frozen=True, tag="theft"):
    target: int
    amount: int


class Diversion(_Message, frozen=True, tag="diversion"):
    """Engage one Available gangster of an opponent (repeat up to the card's N, or skip)."""

    gangster: int


class Assassination(_Message, frozen=True, tag="assassination"):
    target: int


class Discard(_Message, frozen=True, tag="discard"):
    """The discard you owe (or choose for your opponent after a double-Mercenary gang war)."""

    gangster: int


Command = (
    Ready
    | Hire
    | ChooseHeist
    | Commit
    | CancelHeist
    | Pass
    | DiscardRowCard
    | Skip
    | FastRecruit
    | LearnSkill
    | Theft
    | Diversion
    | Assassination
    | Discard
    | KeepResource
    | Headquarters
    | PrivateJet
    | IgnoreSkill
    | SecretSociety
    | Discharge
)


# --- Events -------------------------------------------------------------------------------


class GameStarted(_Message, frozen=True, tag="game_started"):
    seats: int
    options: Options
    commitment: str
    secret: Secret | None  # None in redacted copies: the seed stays secret until the end
    bosses: tuple[int, ...]  # per seat, dealt at random
    start_player: int
    money: tuple[int, ...]  # starting money per seat (Boss, plus catch-up cash)


class CardsDealt(_Message, frozen=True, tag="cards_dealt"):
    """Cards turned from the top of a deck into a row."""

    row: Row
    cards: tuple[int, ...]


class DeckReshuffled(_Message, frozen=True, tag="deck_reshuffled"):
    """An empty deck took its discard pile (``size`` cards), reshuffled."""

    row: Row
    size: int


class SnitchShuffledBack(_Message, frozen=True, tag="snitch_shuffled_back"):
    """A snitch drawn for a chapter's opening row goes back; the deck is reshuffled."""

    card: int


class SnitchRevealed(_Message, frozen=True, tag="snitch_revealed"):
    """Every player pays (``payments``); the seats in ``discards`` could not pay in full and
    owe a discard."""

    card: int
    informants: int
    payments: tuple[int, ...]
    discards: tuple[int, ...]


class TurnStarted(_Message, frozen=True, tag="turn_started"):
    seat: int
    extra: bool  # a turn from "play again"
    synchronised: bool  # every gangster was Engaged: all Available, no mobilisation
    free_readies: int


class GangsterReadied(_Message, frozen=True, tag="gangster_readied"):
    seat: int
    gangster: int
    cost: int


class GangsterHired(_Message, frozen=True, tag="gangster_hired"):
    seat: int
    gangster: int
    cost: int
    fast: bool = False  # by the fast recruitment reward
    from_deck: bool = False  # 912 Indicator network: the top of the gangster deck


class HeistChosen(_Message, frozen=True, tag="heist_chosen"):
    seat: int
    heist: int
    from_deck: bool = False  # 910 Bikers gang: the top of the heist deck, for $1


class HeistCancelled(_Message, frozen=True, tag="heist_cancelled"):
    seat: int
    heist: int


class GangsterCommitted(_Message, frozen=True, tag="gangster_committed"):
    seat: int
    gangster: int


class HeistCompleted(_Message, frozen=True, tag="heist_completed"):
    """``money`` goes to ``seat``; ``coop_money[s]`` to each seat s (cooperation reward)."""

    seat: int
    heist: int
    participants: tuple[int, ...]
    money: int
    coop_money: tuple[int, ...]


class SkillLearned(_Message, frozen=True, tag="skill_learned"):
    seat: int
    gangster: int
    skill: str


class MoneyStolen(_Message, frozen=True, tag="money_stolen"):
    seat: int
    target: int
    amount: int


class GangsterDiverted(_Message, frozen=True, tag="gangster_diverted"):
    seat: int
    gangster: int


class AssassinationOrdered(_Message, frozen=True, tag="assassination_ordered"):
    seat: int
    target: int


class GangRallied(_Message, frozen=True, tag="gang_rallied"):
    seat: int


class PlayAgain(_Message, frozen=True, tag="play_again"):
    seat: int
    granted: bool  # False when this turn was already an extra one (never twice in a row)


class RewardSkipped(_Message, frozen=True, tag="reward_skipped"):
    seat: int
    reward: Reward
    forced: bool  # nothing could be chosen


class Passed(_Message, frozen=True, tag="passed"):
    seat: int
    income: int


class RowCardDiscarded(_Message, frozen=True, tag="row_card_discarded"):
    seat: int
    row: Row
    card: int


class PassDiscardSkipped(_Message, frozen=True, tag="pass_discard_skipped"):
    seat: int


class GangsterDiscarded(_Message, frozen=True, tag="gangster_discarded"):
    seat: int  # whose gang loses it
    gangster: int
    reason: DiscardReason
    chosen_by: int
    hospital: bool = False  # 911 Hospital: to its owner's hospital instead of out of the game


class ChapterChanged(_Message, frozen=True, tag="chapter_changed"):
    """The row of the old chapter and its deck leave the game; ``income`` is the opportunity
    income (Genesis to Gang War; zeros otherwise)."""

    chapter: int
    income: tuple[int, ...]


class GangWar(_Message, frozen=True, tag="gang_war"):
    mercenaries: tuple[int, ...]
    losers: tuple[int, ...]  # seats owing a discard
    chooser: int | None  # the 2-player double-Mercenary leader, who picks the discard


class GameEnded(_Message, frozen=True, tag="game_ended"):
    reason: EndReason
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    gang_influence: tuple[int, ...]
    heist_influence: tuple[int, ...]
    money_bonus: tuple[int, ...]
    size_bonus: tuple[int, ...]  # most gangsters, or the clan majorities (option clans)
    secret: Secret  # the reveal: anyone can now re-run the shuffles
    resource_influence: tuple[int, ...] = ()  # option resources: each active card's influence


Event = (
    GameStarted
    | CardsDealt
    | DeckReshuffled
    | SnitchShuffledBack
    | SnitchRevealed
    | TurnStarted
    | GangsterReadied
    | GangsterHired
    | HeistChosen
    | HeistCancelled
    | GangsterCommitted
    | HeistCompleted
    | SkillLearned
    | MoneyStolen
    | GangsterDiverted
    | AssassinationOrdered
    | GangRallied
    | PlayAgain
    | RewardSkipped
    | Passed
    | RowCardDiscarded
    | PassDiscardSkipped
    | GangsterDiscarded
    | ChapterChanged
    | GangWar
    | GameEnded
    | ResourcesDealt
    | ResourceKept
    | ResourcesRevealed
    | ResourceActivated
    | ResourceDiscarded
    | MoneyPrinted
    | HeistPeeked
    | GangsterPeeked
    | HeadquartersUsed
    | SkillIgnored
    | PrivateJetUsed
    | SecretSocietyUsed
    | HospitalDischarged
)
