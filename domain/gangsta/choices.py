"""Gangsta!'s ``legal``: the commands a seat may send now (bots and searches choose among
them; rules.py decides them)."""

from __future__ import annotations

from domain.gangsta import cards, resources
from domain.gangsta.messages import (
    CancelHeist,
    ChooseHeist,
    Command,
    Commit,
    Discard,
    DiscardRowCard,
    Discharge,
    Headquarters,
    Hire,
    Pass,
    Ready,
    Skip,
)
from domain.gangsta.queries import (
    commit_candidates,
    discard_choices,
    doable_top,
    heist_possible,
    hirable_top,
    hire_cost,
    possible_heists,
    reward_choices,
    to_act,
)
from domain.gangsta.resources import commands as resource_commands
from domain.gangsta.state import State


def _turn_choices(state: State, seat: int) -> list[Command]:
    p = state.players[seat]
    out: list[Command] = []
    if state.free_readies > 0 or p.money >= 1:
        out += [Ready(m.card) for m in p.gang if m.engaged]
    if resource_commands.headquarters_possible(state, seat):
        out.append(Headquarters())
    out += [Hire(g) for g in state.market if hire_cost(state, seat, g) <= p.money]
    top = hirable_top(state, seat)
    if top is not None and resources.peek_cost(state, seat, top) <= p.money:
        out.append(Hire(top))
    out += [ChooseHeist(h) for h in possible_heists(state, seat, state.heist_row)]
    heist = doable_top(state, seat)
    if (
        heist is not None
        and p.money >= resources.BIKERS_COST
        and heist_possible(state, seat, cards.HEISTS[heist])
    ):
        out.append(ChooseHeist(heist))
    out.append(Pass())
    return out


def legal(state: State, seat: int) -> list[Command]:
    if state.stage == "over" or seat not in to_act(state):
        return []
    if state.owed or state.jets:
        found = discard_choices(state, seat)
        if found is not None:
            return [Discard(g) for g in found[1]]
        return resource_commands.jet_choices(state, seat)
    if state.stage == "resources":
        return resource_commands.keep_choices(state, seat)
    if state.stage == "turn":
        return _turn_choices(state, seat)
    if state.stage == "heist":
        out: list[Command] = [Commit(g) for g in commit_candidates(state, seat)]
        out += resource_commands.ignore_choices(state, seat)
        return out if state.from_deck else [*out, CancelHeist()]
    if state.stage == "hospital":
        return [Discharge(), Skip()]
    if state.stage == "end":
        return resource_commands.society_choices(state)
    if state.stage == "pass_discard":
        return [
            *(DiscardRowCard(c) for c in state.heist_row),
            *(DiscardRowCard(c) for c in state.market),
            Skip(),
        ]
    if state.stage == "reward":
        return [*reward_choices(state, seat, state.rewards[0]), Skip()]
    return []
