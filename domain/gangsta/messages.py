"""Gangsta!'s wire format: rule options, commands (what a player asks) and events (what happened).

Cards are their ids in cards.json. JSON looks like ``{"type": "commit", "gangster": 124}``.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from domain.core import Secret

Row = Literal["heists", "gangsters"]
Reward = Literal[
    "fast_recruit", "learn_skill", "theft", "diversion", "assassination", "rally", "play_again"
]
DiscardReason = Literal["snitch", "gang_war", "assassination"]
EndReason = Literal["nine_gangsters", "third_snitch"]

Money = Annotated[int, msgspec.Meta(ge=0, le=20)]


class Options(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The named rule options of GANGSTA.md; every default is the user's description.
    ``options()`` in rules.py also accepts ``preset: "published"`` (see docs/gangsta.md)."""

    domination_snitches: Annotated[tuple[Money, ...], msgspec.Meta(min_length=5, max_length=5)] = (
        2,
        3,
        3,
        4,
        4,
    )
    coop_reward_needs_partner: bool = False
    refill: Literal["full", "one_per_row"] = "full"
    pass_discard: bool = True
    public_heist_influence: bool = False
    min_pass_income: Money = 0
    catch_up_cash: bool = False
    clans: bool = False
    resources: bool = False  # the resources module (docs/gangsta.md, "Resources module")


class Owed(msgspec.Struct, frozen=True):
    """A discard ``seat`` owes; ``chooser`` picks the gangster (``seat`` itself, except for the
    2-player gang war won with double the Mercenaries)."""

    seat: int
    chooser: int
    reason: DiscardReason


class _Message(msgspec.Struct, frozen=True, tag_field="type", forbid_unknown_fields=True):
    pass


# --- Commands -----------------------------------------------------------------------------


class Ready(_Message, tag="ready"):
    """Mobilisation: make one Engaged gangster of yours Available (free or $1)."""

    gangster: int


class Hire(_Message, tag="hire"):
    """Action: hire this market gangster (pay its cost)."""

    gangster: int


class ChooseHeist(_Message, tag="choose_heist"):
    """Action: start this heist from the row; commit gangsters next."""

    heist: int


class Commit(_Message, tag="commit"):
    """Commit one Available gangster to the chosen heist (another player's only on a
    cooperative heist, after your first)."""

    gangster: int


class CancelHeist(_Message, tag="cancel_heist"):
    """Put the chosen heist back before it is complete; your committed gangsters stay Available."""


class Pass(_Message, tag="pass"):
    """Action: pass and take the pass income."""


class DiscardRowCard(_Message, tag="discard_row_card"):
    """After a pass (option pass_discard): discard one card of either row."""

    card: int


class Skip(_Message, tag="skip"):
    """Decline the pass discard, or the current special reward (for a diversion: stop)."""


class FastRecruit(_Message, tag="fast_recruit"):
    gangster: int


class LearnSkill(_Message, tag="learn_skill"):
    gangster: int


class Theft(_Message, tag="theft"):
    target: int
    amount: int


class Diversion(_Message, tag="diversion"):
    """Engage one Available gangster of an opponent (repeat up to the card's N, or skip)."""

    gangster: int


class Assassination(_Message, tag="assassination"):
    target: int


class Discard(_Message, tag="discard"):
    """The discard you owe (or choose for your opponent after a double-Mercenary gang war)."""

    gangster: int


# Resources module (docs/gangsta.md): the optional abilities, one small step each.


class KeepResource(_Message, tag="keep_resource"):
    """Set-up: keep this one of your two resource cards (the other is discarded)."""

    card: int


class Headquarters(_Message, tag="headquarters"):
    """903 Headquarters, in mobilisation: pay $1 once to make your whole gang Available."""


class PrivateJet(_Message, tag="private_jet"):
    """905 Private jet, after a cooperative heist you took part in: this Engaged gangster of
    yours becomes Available (``skip`` declines)."""

    gangster: int


class IgnoreSkill(_Message, tag="ignore_skill"):
    """907 High tech equipment, during an Art theft or Hack attack: one required skill is
    ignored."""

    skill: str


class SecretSociety(_Message, tag="secret_society"):
    """908 Secret society, at the end of your turn: this Engaged Leader becomes Available
    (``skip`` declines)."""

    gangster: int


class Discharge(_Message, tag="discharge"):
    """911 Hospital, after a pass: take every gangster of your hospital back, Available
    (``skip`` declines)."""


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


class GameStarted(_Message, tag="game_started"):
    seats: int
    options: Options
    commitment: str
    secret: Secret | None  # None in redacted copies: the seed stays secret until the end
    bosses: tuple[int, ...]  # per seat, dealt at random
    start_player: int
    money: tuple[int, ...]  # starting money per seat (Boss, plus catch-up cash)


class CardsDealt(_Message, tag="cards_dealt"):
    """Cards turned from the top of a deck into a row."""

    row: Row
    cards: tuple[int, ...]


class DeckReshuffled(_Message, tag="deck_reshuffled"):
    """An empty deck took its discard pile (``size`` cards), reshuffled."""

    row: Row
    size: int


class SnitchShuffledBack(_Message, tag="snitch_shuffled_back"):
    """A snitch drawn for a chapter's opening row goes back; the deck is reshuffled."""

    card: int


class SnitchRevealed(_Message, tag="snitch_revealed"):
    """Every player pays (``payments``); the seats in ``discards`` could not pay in full and
    owe a discard."""

    card: int
    informants: int
    payments: tuple[int, ...]
    discards: tuple[int, ...]


class TurnStarted(_Message, tag="turn_started"):
    seat: int
    extra: bool  # a turn from "play again"
    synchronised: bool  # every gangster was Engaged: all Available, no mobilisation
    free_readies: int


class GangsterReadied(_Message, tag="gangster_readied"):
    seat: int
    gangster: int
    cost: int


class GangsterHired(_Message, tag="gangster_hired"):
    seat: int
    gangster: int
    cost: int
    fast: bool = False  # by the fast recruitment reward
    from_deck: bool = False  # 912 Indicator network: the top of the gangster deck


class HeistChosen(_Message, tag="heist_chosen"):
    seat: int
    heist: int
    from_deck: bool = False  # 910 Bikers gang: the top of the heist deck, for $1


class HeistCancelled(_Message, tag="heist_cancelled"):
    seat: int
    heist: int


class GangsterCommitted(_Message, tag="gangster_committed"):
    seat: int
    gangster: int


class HeistCompleted(_Message, tag="heist_completed"):
    """``money`` goes to ``seat``; ``coop_money[s]`` to each seat s (cooperation reward)."""

    seat: int
    heist: int
    participants: tuple[int, ...]
    money: int
    coop_money: tuple[int, ...]


class SkillLearned(_Message, tag="skill_learned"):
    seat: int
    gangster: int
    skill: str


class MoneyStolen(_Message, tag="money_stolen"):
    seat: int
    target: int
    amount: int


class GangsterDiverted(_Message, tag="gangster_diverted"):
    seat: int
    gangster: int


class AssassinationOrdered(_Message, tag="assassination_ordered"):
    seat: int
    target: int


class GangRallied(_Message, tag="gang_rallied"):
    seat: int


class PlayAgain(_Message, tag="play_again"):
    seat: int
    granted: bool  # False when this turn was already an extra one (never twice in a row)


class RewardSkipped(_Message, tag="reward_skipped"):
    seat: int
    reward: Reward
    forced: bool  # nothing could be chosen


class Passed(_Message, tag="passed"):
    seat: int
    income: int


class RowCardDiscarded(_Message, tag="row_card_discarded"):
    seat: int
    row: Row
    card: int


class PassDiscardSkipped(_Message, tag="pass_discard_skipped"):
    seat: int


class GangsterDiscarded(_Message, tag="gangster_discarded"):
    seat: int  # whose gang loses it
    gangster: int
    reason: DiscardReason
    chosen_by: int
    hospital: bool = False  # 911 Hospital: to its owner's hospital instead of out of the game


class ChapterChanged(_Message, tag="chapter_changed"):
    """The row of the old chapter and its deck leave the game; ``income`` is the opportunity
    income (Genesis to Gang War; zeros otherwise)."""

    chapter: int
    income: tuple[int, ...]


class GangWar(_Message, tag="gang_war"):
    mercenaries: tuple[int, ...]
    losers: tuple[int, ...]  # seats owing a discard
    chooser: int | None  # the 2-player double-Mercenary leader, who picks the discard


class GameEnded(_Message, tag="game_ended"):
    reason: EndReason
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    gang_influence: tuple[int, ...]
    heist_influence: tuple[int, ...]
    money_bonus: tuple[int, ...]
    size_bonus: tuple[int, ...]  # most gangsters, or the clan majorities (option clans)
    secret: Secret  # the reveal: anyone can now re-run the shuffles
    resource_influence: tuple[int, ...] = ()  # option resources: each active card's influence


# --- Resources module events (docs/gangsta.md) ------------------------------------------------


class ResourcesDealt(_Message, tag="resources_dealt"):
    """Each player got 2 resource cards (from the seed, label ``resources``) and now keeps one;
    which cards only each player sees in their own view."""


class ResourceKept(_Message, tag="resource_kept"):
    """``card`` is None in the copies of other seats and spectators (kept face down)."""

    seat: int
    card: int | None


class ResourcesRevealed(_Message, tag="resources_revealed"):
    """Every player has chosen: the kept cards, per seat, are turned face up."""

    cards: tuple[int, ...]


class ResourceActivated(_Message, tag="resource_activated"):
    seat: int
    card: int


class ResourceDiscarded(_Message, tag="resource_discarded"):
    """904 Counterfeit printing is discarded at the gang war (an active card keeps its
    influence)."""

    seat: int
    card: int


class MoneyPrinted(_Message, tag="money_printed"):
    """904 Counterfeit printing: money at the start of its owner's turn."""

    seat: int
    amount: int


class HeistPeeked(_Message, tag="heist_peeked"):
    """910 Bikers gang: the owner sees the top of the heist deck (None for everyone else)."""

    seat: int
    card: int | None


class GangsterPeeked(_Message, tag="gangster_peeked"):
    """912 Indicator network: the owner sees the top of the gangster deck (None for the rest)."""

    seat: int
    card: int | None


class HeadquartersUsed(_Message, tag="headquarters_used"):
    seat: int
    cost: int


class SkillIgnored(_Message, tag="skill_ignored"):
    """907 High tech equipment: one unit of this skill is no longer needed by the heist."""

    seat: int
    skill: str


class PrivateJetUsed(_Message, tag="private_jet_used"):
    """905 Private jet: ``gangster`` becomes Available (None: declined)."""

    seat: int
    gangster: int | None


class SecretSocietyUsed(_Message, tag="secret_society_used"):
    """908 Secret society: the Leader ``gangster`` becomes Available (None: declined)."""

    seat: int
    gangster: int | None


class HospitalDischarged(_Message, tag="hospital_discharged"):
    """911 Hospital: these gangsters rejoin the gang Available (empty: declined)."""

    seat: int
    gangsters: tuple[int, ...]


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
