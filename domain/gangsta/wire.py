"""What Gangsta!'s wire format is built from: the rule options, the base of every command and
event (tagged by ``type``), and the small value types they share (messages.py)."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

Row = Literal["heists", "gangsters"]
Reward = Literal[
    "fast_recruit", "learn_skill", "theft", "diversion", "assassination", "rally", "play_again"
]
DiscardReason = Literal["snitch", "gang_war", "assassination"]
EndReason = Literal["nine_gangsters", "third_snitch"]

Money = Annotated[int, msgspec.Meta(ge=0, le=20)]


class Options(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The named rule options of the rules page (/rules/gangsta); every default is the
    description's. A game's creation also takes ``preset: "published"`` (GET /games lists the
    options each preset sets)."""

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


# Each subclass says frozen=True again: msgspec inherits it, but type checkers (PEP 681's
# dataclass_transform) do not, and mypy refuses a non-frozen subclass of a frozen one.
class Message(msgspec.Struct, frozen=True, tag_field="type", forbid_unknown_fields=True):
    pass
