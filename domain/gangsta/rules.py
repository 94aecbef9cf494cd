"""Gangsta!'s rules: options, start, decide, legal, to_act and result (GANGSTA.md).

``decide`` validates a command and returns its events followed by every automatic step that
follows, up to the next decision (flow.py). The queries and checks it shares with the views and
the resources module are in queries.py; ``legal`` in choices.py; the special rewards' decisions
in rewards/commands.py, the resources module's in resources/commands.py.
"""

from __future__ import annotations

import typing
from typing import Any, assert_never

from domain.core import Result, RuleViolation, preset_options
from domain.gangsta import cards, resources
from domain.gangsta.choices import legal
from domain.gangsta.flow import MAX_SEATS, MIN_SEATS, Out, advance, start
from domain.gangsta.messages import (
    Assassination,
    CancelHeist,
    ChooseHeist,
    Command,
    Commit,
    Discard,
    DiscardRowCard,
    Discharge,
    Diversion,
    Event,
    FastRecruit,
    GangsterCommitted,
    GangsterDiscarded,
    GangsterReadied,
    Headquarters,
    HeistCancelled,
    HeistChosen,
    HeistCompleted,
    Hire,
    IgnoreSkill,
    KeepResource,
    LearnSkill,
    Options,
    Pass,
    PassDiscardSkipped,
    Passed,
    PrivateJet,
    Ready,
    RewardSkipped,
    RowCardDiscarded,
    SecretSociety,
    SkillIgnored,
    Skip,
    Theft,
)
from domain.gangsta.queries import (
    check_stage,
    committed,
    current_heist,
    discard_choices,
    doable_top,
    heist_possible,
    needed,
    own_member,
    owner_member,
    pay,
    supplies,
    to_act,
)
from domain.gangsta.resources import commands as resource_commands
from domain.gangsta.rewards.commands import (
    assassination,
    diversion,
    fast_recruit,
    learn_skill,
    market_hire,
    theft,
)
from domain.gangsta.scoring import final_scores
from domain.gangsta.state import GANGSTERS_ROW, HEISTS_ROW, State, skill_count

# The game's protocol (GamePackage) takes start, legal, to_act and the seat range from here.
__all__ = [
    "MAX_SEATS",
    "MIN_SEATS",
    "decide",
    "final_scores",
    "legal",
    "options",
    "play",
    "result",
    "start",
    "to_act",
]

# The option values of the published game (GANGSTA.md, table of options).
PUBLISHED: dict[str, Any] = {
    "domination_snitches": [3, 3, 3, 4, 4],
    "coop_reward_needs_partner": True,
    "refill": "one_per_row",
    "pass_discard": True,
    "public_heist_influence": False,
    "min_pass_income": 0,
    "catch_up_cash": False,
    "clans": False,
}
PRESETS: dict[str, dict[str, Any]] = {"description": {}, "published": PUBLISHED}


def options(raw: dict[str, Any] | None) -> Options:
    """Validated options. ``preset`` ("description", the default, or "published") sets every
    option first; options named beside it override the preset."""
    return preset_options(raw, PRESETS, Options)


def result(state: State) -> Result | None:
    return state.result


# --- decide ----------------------------------------------------------------------------------


def _ready(s: State, seat: int, c: Ready, out: Out) -> None:
    check_stage(s, "turn")
    if not own_member(s, seat, c.gangster).engaged:
        raise RuleViolation(
            "not_engaged", f"Gangster {c.gangster} is already Available.", gangster=c.gangster
        )
    cost = 0 if s.free_readies > 0 else 1
    pay(s, seat, cost)
    out.emit(GangsterReadied(seat=seat, gangster=c.gangster, cost=cost))


def _hire(s: State, seat: int, c: Hire, out: Out) -> None:
    check_stage(s, "turn")
    market_hire(s, seat, c.gangster, False, out)


def _choose_heist(s: State, seat: int, c: ChooseHeist, out: Out) -> None:
    check_stage(s, "turn")
    from_deck = c.heist not in s.heist_row
    if from_deck and c.heist != doable_top(s, seat):
        raise RuleViolation("not_in_row", f"Heist {c.heist} is not in the row.", heist=c.heist)
    if from_deck:
        pay(s, seat, resources.BIKERS_COST)
    if not heist_possible(s, seat, cards.HEISTS[c.heist]):
        raise RuleViolation(
            "heist_not_possible",
            "Your Available gangsters cannot cover this heist's skills.",
            heist=c.heist,
        )
    out.emit(HeistChosen(seat=seat, heist=c.heist, from_deck=from_deck))


def _complete_if_covered(s: State, seat: int, out: Out) -> None:
    if any(needed(s)):
        return
    heist = current_heist(s)
    coop = [0] * s.seats
    if heist.cooperative:
        taking_part = {owner for owner, _ in committed(s)}
        if len(taking_part) > 1 or not s.options.coop_reward_needs_partner:
            for x in taking_part:
                coop[x] = heist.coop_money
    out.emit(
        HeistCompleted(
            seat=seat,
            heist=heist.id,
            participants=s.committed,
            money=heist.money,
            coop_money=tuple(coop),
        )
    )


def _commit(s: State, seat: int, c: Commit, out: Out) -> None:
    check_stage(s, "heist")
    found = owner_member(s, c.gangster)
    g = c.gangster
    if found is None:
        raise RuleViolation("unknown_gangster", f"Gangster {g} is in no gang.", gangster=g)
    owner, member = found
    heist = current_heist(s)
    if owner != seat and not heist.cooperative:
        raise RuleViolation(
            "not_your_gangster",
            "Only your own gangsters take part in this heist.",
            case="not_cooperative",
            gangster=c.gangster,
        )
    if owner != seat and not s.committed:
        raise RuleViolation(
            "not_your_gangster",
            "The first gangster committed must be your own.",
            case="first_own",
            gangster=c.gangster,
        )
    if g in s.committed:
        raise RuleViolation("already_committed", f"Gangster {g} is already committed.", gangster=g)
    if member.engaged:
        raise RuleViolation("not_available", f"Gangster {g} is Engaged.", gangster=g)
    if not supplies(member, needed(s)):
        raise RuleViolation(
            "skill_not_needed", f"Gangster {g} adds no skill still needed.", gangster=g
        )
    out.emit(GangsterCommitted(seat=seat, gangster=g))
    _complete_if_covered(out.state, seat, out)


def _ignore_skill(s: State, seat: int, c: IgnoreSkill, out: Out) -> None:
    resource_commands.check_ignore(s, seat, c)
    out.emit(SkillIgnored(seat=seat, skill=c.skill))
    _complete_if_covered(out.state, seat, out)


def _cancel_heist(s: State, seat: int, out: Out) -> None:
    check_stage(s, "heist")
    if s.from_deck:
        raise RuleViolation(
            "wrong_phase",
            "A heist taken from the deck cannot be put back.",
            case="from_deck",
            heist=s.heist,
        )
    out.emit(HeistCancelled(seat=seat, heist=current_heist(s).id))


def _pass(s: State, seat: int, out: Out) -> None:
    check_stage(s, "turn")
    leaders = skill_count(s.players[seat].gang, cards.LEADER)
    income = max(leaders, s.options.min_pass_income) + resources.pass_bonus(s, seat)
    out.emit(Passed(seat=seat, income=income))


def _discard_row_card(s: State, seat: int, c: DiscardRowCard, out: Out) -> None:
    check_stage(s, "pass_discard")
    if c.card in s.heist_row:
        out.emit(RowCardDiscarded(seat=seat, row=HEISTS_ROW, card=c.card))
    elif c.card in s.market:
        out.emit(RowCardDiscarded(seat=seat, row=GANGSTERS_ROW, card=c.card))
    else:
        raise RuleViolation(
            "not_in_row", f"Card {c.card} is in neither row.", case="rows", card=c.card
        )


def _skip(s: State, seat: int, out: Out) -> None:
    declined = resource_commands.skip(s, seat)
    if declined is not None:
        out.emit(declined)
        return
    check_stage(s, "pass_discard", "reward")
    if s.stage == "pass_discard":
        out.emit(PassDiscardSkipped(seat))
    else:
        out.emit(RewardSkipped(seat=seat, reward=s.rewards[0], forced=False))


def _discard(s: State, seat: int, c: Discard, out: Out) -> None:
    found = discard_choices(s, seat)
    if found is None:
        raise RuleViolation("wrong_phase", "You owe no discard.", case="no_discard")
    owed, pool = found
    if c.gangster not in pool:
        raise RuleViolation(
            "bad_discard",
            f"Gangster {c.gangster} cannot be discarded for this.",
            gangster=c.gangster,
            reason=owed.reason,
        )
    out.emit(
        GangsterDiscarded(
            seat=owed.seat,
            gangster=c.gangster,
            reason=owed.reason,
            chosen_by=seat,
            hospital=resources.to_hospital(s, owed.seat, owed.reason),
        )
    )


_COMMANDS = frozenset(typing.get_args(Command))


def decide(state: State, seat: int, command: Command) -> list[Event]:
    if state.stage == "over":
        raise RuleViolation("game_over", "The game is over.")
    if not isinstance(seat, int) or not 0 <= seat < state.seats:
        raise RuleViolation("bad_seat", f"There is no seat {seat}.", seat=str(seat))
    if seat not in to_act(state):
        raise RuleViolation("not_your_turn", "It is not your turn to decide.")
    if type(command) not in _COMMANDS:  # before the owed decisions, which name commands
        raise RuleViolation(
            "unknown_command", "That is not a Gangsta! command.", command=type(command).__name__
        )
    if state.owed or state.jets:  # these interrupt everything else
        if discard_choices(state, seat) is not None:
            if not isinstance(command, Discard):
                raise RuleViolation("wrong_phase", "A discard is owed first.", case="discard_owed")
        elif not isinstance(command, PrivateJet | Skip):
            raise RuleViolation(
                "wrong_phase", "A private jet decision is owed first.", case="private_jet_owed"
            )
    return _run(state, seat, command).events


def _run(state: State, seat: int, command: Command) -> Out:
    out = Out(state)
    # By how often rollouts play them (see evolve.py on isinstance's cost).
    match command:
        case Commit():
            _commit(state, seat, command, out)
        case Pass():
            _pass(state, seat, out)
        case ChooseHeist():
            _choose_heist(state, seat, command, out)
        case DiscardRowCard():
            _discard_row_card(state, seat, command, out)
        case Hire():
            _hire(state, seat, command, out)
        case Ready():
            _ready(state, seat, command, out)
        case CancelHeist():
            _cancel_heist(state, seat, out)
        case Discard():
            _discard(state, seat, command, out)
        case Skip():
            _skip(state, seat, out)
        case Diversion():
            diversion(state, seat, command, out)
        case Theft():
            theft(state, seat, command, out)
        case LearnSkill():
            learn_skill(state, seat, command, out)
        case Assassination():
            assassination(state, seat, command, out)
        case FastRecruit():
            fast_recruit(state, seat, command, out)
        case IgnoreSkill():
            _ignore_skill(state, seat, command, out)
        case KeepResource():
            out.emit_all(resource_commands.keep(state, seat, command))
        case Headquarters():
            out.emit_all(resource_commands.headquarters(state, seat, command))
        case PrivateJet():
            out.emit_all(resource_commands.private_jet(state, seat, command))
        case SecretSociety():
            out.emit_all(resource_commands.secret_society(state, seat, command))
        case Discharge():
            out.emit_all(resource_commands.discharge(state, seat, command))
        case _:
            assert_never(command)
    advance(out)
    return out


def play(state: State, seat: int, command: Command) -> State:
    """The state after ``seat`` plays ``command``, one of ``legal(state, seat)``: what folding
    ``decide``'s events through ``evolve`` gives, without folding them twice (decide folds
    them into a scratch state as it goes) and without decide's checks of who may act now.
    For search, which asks this of every command of a rollout."""
    return _run(state, seat, command).state
