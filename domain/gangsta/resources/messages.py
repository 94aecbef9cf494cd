"""The resources module's commands and events (option ``resources``; docs/gangsta.md,
"Resources module"). messages.py joins them into the game's Command and Event unions."""

from __future__ import annotations

from domain.gangsta.wire import Message as _Message

# Resources module (docs/gangsta.md): the optional abilities, one small step each.


class KeepResource(_Message, frozen=True, tag="keep_resource"):
    """Set-up: keep this one of your two resource cards (the other is discarded)."""

    card: int


class Headquarters(_Message, frozen=True, tag="headquarters"):
    """903 Headquarters, in mobilisation: pay $1 once to make your whole gang Available."""


class PrivateJet(_Message, frozen=True, tag="private_jet"):
    """905 Private jet, after a cooperative heist you took part in: this Engaged gangster of
    yours becomes Available (``skip`` declines)."""

    gangster: int


class IgnoreSkill(_Message, frozen=True, tag="ignore_skill"):
    """907 High tech equipment, during an Art theft or Hack attack: one required skill is
    ignored."""

    skill: str


class SecretSociety(_Message, frozen=True, tag="secret_society"):
    """908 Secret society, at the end of your turn: this Engaged Leader becomes Available
    (``skip`` declines)."""

    gangster: int


class Discharge(_Message, frozen=True, tag="discharge"):
    """911 Hospital, after a pass: take every gangster of your hospital back, Available
    (``skip`` declines)."""


# --- Resources module events (docs/gangsta.md) ------------------------------------------------


class ResourcesDealt(_Message, frozen=True, tag="resources_dealt"):
    """Each player got 2 resource cards (from the seed, label ``resources``) and now keeps one;
    which cards only each player sees in their own view."""


class ResourceKept(_Message, frozen=True, tag="resource_kept"):
    """``card`` is None in the copies of other seats and spectators (kept face down)."""

    seat: int
    card: int | None


class ResourcesRevealed(_Message, frozen=True, tag="resources_revealed"):
    """Every player has chosen: the kept cards, per seat, are turned face up."""

    cards: tuple[int, ...]


class ResourceActivated(_Message, frozen=True, tag="resource_activated"):
    seat: int
    card: int


class ResourceDiscarded(_Message, frozen=True, tag="resource_discarded"):
    """904 Counterfeit printing is discarded at the gang war (an active card keeps its
    influence)."""

    seat: int
    card: int


class MoneyPrinted(_Message, frozen=True, tag="money_printed"):
    """904 Counterfeit printing: money at the start of its owner's turn."""

    seat: int
    amount: int


class HeistPeeked(_Message, frozen=True, tag="heist_peeked"):
    """910 Bikers gang: the owner sees the top of the heist deck (None for everyone else)."""

    seat: int
    card: int | None


class GangsterPeeked(_Message, frozen=True, tag="gangster_peeked"):
    """912 Indicator network: the owner sees the top of the gangster deck (None for the rest)."""

    seat: int
    card: int | None


class HeadquartersUsed(_Message, frozen=True, tag="headquarters_used"):
    seat: int
    cost: int


class SkillIgnored(_Message, frozen=True, tag="skill_ignored"):
    """907 High tech equipment: one unit of this skill is no longer needed by the heist."""

    seat: int
    skill: str


class PrivateJetUsed(_Message, frozen=True, tag="private_jet_used"):
    """905 Private jet: ``gangster`` becomes Available (None: declined)."""

    seat: int
    gangster: int | None


class SecretSocietyUsed(_Message, frozen=True, tag="secret_society_used"):
    """908 Secret society: the Leader ``gangster`` becomes Available (None: declined)."""

    seat: int
    gangster: int | None


class HospitalDischarged(_Message, frozen=True, tag="hospital_discharged"):
    """911 Hospital: these gangsters rejoin the gang Available (empty: declined)."""

    seat: int
    gangsters: tuple[int, ...]


# The module's events, a part of messages.Event (resources/folds.py folds them).
ResourceEvent = (
    ResourcesDealt
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
