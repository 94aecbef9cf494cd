"""The resources module (option ``resources``; GANGSTA.md, "Resources module"): the deal, when
a card activates, what each ability changes, and the automatic steps it adds. The optional
abilities are commands (resources/commands.py); their events are folded in evolve.py.

A card's ability is named by its ``ability`` in cards.json. Only an active card (activated for
good once its owner's whole gang holds its required skills) that was not discarded (904 at the
gang war) gives its ability; an active card gives its influence at the end even if discarded.
"""

from __future__ import annotations

from domain import rng
from domain.gangsta import cards
from domain.gangsta.messages import (
    Event,
    GangsterPeeked,
    HeistPeeked,
    MoneyPrinted,
    ResourceActivated,
    ResourceDiscarded,
    ResourcesRevealed,
)
from domain.gangsta.state import RESOURCES_LABEL, Player, State, gang_skills, skills_of

DEALT = 2  # resource cards per player at set-up; each keeps one
SNITCH_CAP = 1  # 901 Police station: the most a snitch costs its owner
BLACK_MARKET_INCOME = 2  # 902, on every pass
HEADQUARTERS_COST = 1  # 903, once per mobilisation
PRINTED = 1  # 904, at the start of each of its owner's turns
VAULT = 10  # 909 Bank: money theft cannot take
BIKERS_COST = 1  # 910: the price of performing the top heist of the deck
INDICATOR_DISCOUNT = 1  # 912: on the top gangster of the deck, of the Boss's clan
HIGH_TECH_HEISTS = ("art theft", "hack attack")  # 907 (names as printed, any case)


def deal(seed: bytes, seats: int) -> tuple[tuple[int, ...], ...]:
    """Seat i gets the cards at positions 2i and 2i+1 of the resource cards shuffled in id order
    with the label ``resources``; the rest stay out of the game."""
    order = rng.shuffled(seed, RESOURCES_LABEL, cards.RESOURCE_IDS)
    return tuple(tuple(order[DEALT * i : DEALT * (i + 1)]) for i in range(seats))


def has(state: State, seat: int, ability: str) -> bool:
    """Whether ``seat`` has this ability now: its card is active and not discarded."""
    p = state.players[seat]
    return (
        p.resource is not None
        and p.resource_active
        and not p.resource_discarded
        and cards.RESOURCES[p.resource].ability == ability
    )


def meets(player: Player) -> bool:
    """The whole gang (Engaged gangsters and learned skills included) holds the card's needs."""
    if player.resource is None:
        return False
    needs = cards.RESOURCES[player.resource].requires
    return all(h >= n for h, n in zip(gang_skills(player.gang), needs, strict=True))


def due(state: State) -> Event | None:
    """The next automatic step of the module, if any: the reveal once all have chosen, an
    activation (checked whenever anything happened, so whenever a gang changed), the 904
    discard at the gang war."""
    if not state.options.resources:
        return None
    players = state.players
    if state.stage == "resources":
        chosen = tuple(p.resource for p in players if p.resource is not None)
        if len(chosen) == len(players):
            return ResourcesRevealed(cards=chosen)
        return None
    if not state.revealed:
        return None
    for seat, p in enumerate(players):
        pending = not p.resource_active and not p.resource_discarded
        if p.resource is not None and pending and meets(p):
            return ResourceActivated(seat=seat, card=p.resource)
    if state.stage == "gang_war":
        for seat, p in enumerate(players):
            if (
                p.resource is not None
                and not p.resource_discarded
                and cards.RESOURCES[p.resource].ability == "counterfeit_printing"
            ):
                return ResourceDiscarded(seat=seat, card=p.resource)
    return None


def turn_start(state: State) -> list[Event]:
    """What the active player's cards do at the start of their turn, after synchronisation:
    904's money (usable in this mobilisation), then 910's and 912's private look at a deck top
    (none if that deck is empty: it is only reshuffled by a refill)."""
    seat = state.active
    out: list[Event] = []
    if has(state, seat, "counterfeit_printing"):
        out.append(MoneyPrinted(seat=seat, amount=PRINTED))
    if has(state, seat, "bikers_gang") and state.heist_deck:
        out.append(HeistPeeked(seat=seat, card=state.heist_deck[0]))
    if has(state, seat, "indicator_network") and state.gangster_deck:
        out.append(GangsterPeeked(seat=seat, card=state.gangster_deck[0]))
    return out


def snitch_cost(state: State, seat: int, owed: int) -> int:
    return min(owed, SNITCH_CAP) if has(state, seat, "police_station") else owed


def stealable(state: State, seat: int) -> int:
    """The money a theft can take from ``seat`` (909 keeps up to $10 in a vault, always)."""
    money = state.players[seat].money
    return money - min(money, VAULT) if has(state, seat, "bank") else money


def pass_bonus(state: State, seat: int) -> int:
    return BLACK_MARKET_INCOME if has(state, seat, "black_market") else 0


def to_hospital(state: State, seat: int, reason: str) -> bool:
    return reason != "snitch" and has(state, seat, "hospital")


def high_tech(state: State, seat: int, heist: cards.Heist) -> bool:
    """907 applies: its owner performs a heist named Art theft or Hack attack."""
    return heist.name.lower() in HIGH_TECH_HEISTS and has(state, seat, "high_tech_eq")


def jets_after(state: State, participants: tuple[int, ...]) -> tuple[int, ...]:
    """Seats owing a 905 decision after a cooperative heist with these participants."""
    owners = {
        seat for seat, p in enumerate(state.players) for m in p.gang if m.card in participants
    }
    return tuple(sorted(x for x in owners if has(state, x, "private_jet")))


def engaged_of(state: State, seat: int, leaders_only: bool = False) -> list[int]:
    return [
        m.card
        for m in state.players[seat].gang
        if m.engaged and (not leaders_only or skills_of(m)[cards.LEADER])
    ]


def society_pending(state: State) -> bool:
    """908 at the end of its owner's turn: one Engaged Leader may become Available."""
    seat = state.active
    return (
        state.stage == "end"
        and not state.owed
        and not state.society_done
        and has(state, seat, "private_society")
        and bool(engaged_of(state, seat, leaders_only=True))
    )


def hospital_pending(state: State, seat: int) -> bool:
    return has(state, seat, "hospital") and bool(state.players[seat].hospital)


def peeked_heist(state: State, seat: int) -> int | None:
    """The top heist ``seat`` saw with 910, while it is still the top of the deck."""
    card = state.players[seat].peek_heist
    return card if card is not None and state.heist_deck[:1] == (card,) else None


def peeked_gangster(state: State, seat: int) -> int | None:
    card = state.players[seat].peek_gangster
    return card if card is not None and state.gangster_deck[:1] == (card,) else None


def peek_cost(state: State, seat: int, gangster: int) -> int:
    """912's price: $1 less from the Boss's clan (not added to the clans option's discount)."""
    card = cards.GANGSTERS[gangster]
    boss = cards.GANGSTERS[state.players[seat].boss]
    return max(0, card.cost - INDICATOR_DISCOUNT) if card.clan == boss.clan else card.cost


def influence(player: Player) -> int:
    """An activated card's influence at the end (kept after 904's discard); 906 Media counts
    its owner's completed heists that carry influence, at most 7."""
    if player.resource is None or not player.resource_active:
        return 0
    card = cards.RESOURCES[player.resource]
    if card.ability == "media":
        return min(card.max_influence, sum(1 for h in player.heists if cards.HEISTS[h].influence))
    return card.influence
