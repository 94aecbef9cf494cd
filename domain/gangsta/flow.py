"""Gangsta!'s automatic steps (GANGSTA.md, "A turn" 4, Snitches, Chapters): everything that
follows a decision without a choice — rewards with nothing to choose, the end of the turn,
refills, snitches, chapter changes, the next turn, the resources module's own steps — and the
start of a game.

Events are folded into a scratch state as they are emitted, so every step reads the state
exactly as ``evolve`` will build it.
"""

from __future__ import annotations

from domain import rng
from domain.core import RuleViolation, Secret, commitment
from domain.gangsta import cards, resources
from domain.gangsta.evolve import evolve
from domain.gangsta.messages import (
    CardsDealt,
    ChapterChanged,
    DeckReshuffled,
    Event,
    GameStarted,
    GangRallied,
    GangWar,
    Options,
    PlayAgain,
    ResourcesDealt,
    RewardSkipped,
    SnitchRevealed,
    SnitchShuffledBack,
    TurnStarted,
)
from domain.gangsta.queries import non_boss, reward_choices
from domain.gangsta.scoring import final_scores
from domain.gangsta.state import (
    BOSSES_LABEL,
    DEALING,
    GANGSTERS_ROW,
    HEISTS_ROW,
    ROW_SIZE,
    START_PLAYER_LABEL,
    State,
    domination_snitches_revealed,
    gang_skills,
    skill_count,
    skills_of,
    snitch_value,
)

MIN_SEATS, MAX_SEATS = 2, 4
CHAPTER_GANG_SIZE = {1: 4, 2: 7}  # a gang this big ends the chapter
END_GANG_SIZE = 9
END_SNITCHES = 3
# Stages that wait for a player's decision.
DECIDING = ("over", "resources", "turn", "heist", "hospital", "pass_discard")


class Out:
    """Events of one decision, folded into a scratch state as they are emitted."""

    __slots__ = ("events", "state")

    def __init__(self, state: State, events: list[Event] | None = None) -> None:
        self.state = state
        self.events: list[Event] = events or []

    def emit(self, event: Event) -> None:
        self.state = evolve(self.state, event)
        self.events.append(event)

    def emit_all(self, events: list[Event]) -> None:
        for event in events:
            self.emit(event)


def _snitch(state: State, card: int) -> SnitchRevealed:
    value = snitch_value(state, card)
    payments, discards = [], []
    for seat, p in enumerate(state.players):
        owe = max(0, value - skill_count(p.gang, cards.INFORMANT))
        owe = resources.snitch_cost(state, seat, owe)
        if p.money >= owe:
            payments.append(owe)
        else:
            payments.append(p.money)
            if non_boss(state, seat):
                discards.append(seat)
    return SnitchRevealed(
        card=card, informants=value, payments=tuple(payments), discards=tuple(discards)
    )


def _refill(state: State) -> Event | None:
    """The next refill event, or None when the rows are done (GANGSTA.md, end of turn 4)."""
    dealing = state.stage in DEALING
    for row in (HEISTS_ROW, GANGSTERS_ROW):
        heists = row == HEISTS_ROW
        shown = state.heist_row if heists else state.market
        if len(shown) >= ROW_SIZE:
            continue
        full = (
            state.options.refill == "full"
            or state.stage == "setup"
            or (state.stage == "opening" and heists)
        )
        if not full and state.drawn[0 if heists else 1]:
            continue
        deck = state.heist_deck if heists else state.gangster_deck
        if not deck:
            discard = state.heist_discard if heists else state.gangster_discard
            if discard:
                return DeckReshuffled(row=row, size=len(discard))
            continue
        if deck[0] in cards.SNITCHES:
            return SnitchShuffledBack(deck[0]) if dealing else _snitch(state, deck[0])
        take = []
        for card in deck[: ROW_SIZE - len(shown) if full else 1]:
            if card in cards.SNITCHES:
                break
            take.append(card)
        return CardsDealt(row=row, cards=tuple(take))
    return None


def _next_turn(state: State) -> TurnStarted:
    if state.stage == "setup":
        seat, extra = state.start_player, False
    elif state.play_again:
        seat, extra = state.active, True
    else:
        seat, extra = (state.active + 1) % state.seats, False
    gang = state.players[seat].gang
    synchronised = all(m.engaged for m in gang)
    free = 0 if synchronised else sum(skills_of(m)[cards.LEADER] for m in gang if not m.engaged)
    return TurnStarted(seat=seat, extra=extra, synchronised=synchronised, free_readies=free)


def _gang_war(state: State) -> GangWar:
    mercs = tuple(skill_count(p.gang, cards.MERCENARY) for p in state.players)
    best = max(mercs)
    leaders = [i for i, m in enumerate(mercs) if m == best]
    unique = leaders[0] if len(leaders) == 1 else None
    losers = tuple(i for i in range(state.seats) if i != unique and non_boss(state, i))
    chooser = None
    if (
        state.seats == 2
        and unique is not None
        and losers
        and mercs[unique] >= 2 * mercs[1 - unique]
    ):
        chooser = unique
    return GangWar(mercenaries=mercs, losers=losers, chooser=chooser)


def _end_check(state: State) -> Event | None:
    """End of turn, step 1: chapter change or game end (GANGSTA.md, Chapters)."""
    biggest = max(len(p.gang) for p in state.players)
    if state.chapter == 1 and biggest >= CHAPTER_GANG_SIZE[1]:
        totals = [sum(gang_skills(p.gang)) for p in state.players]
        most = max(totals)
        return ChapterChanged(chapter=2, income=tuple(most - t for t in totals))
    if state.chapter == 2 and biggest >= CHAPTER_GANG_SIZE[2]:
        return _gang_war(state)
    if state.chapter == 3 and biggest >= END_GANG_SIZE:
        return final_scores(state, "nine_gangsters")
    return None


def _step(out: Out, event: Event) -> None:
    """Emit ``event``; a new turn starts with what the player's resource card does then."""
    out.emit(event)
    if isinstance(event, TurnStarted):
        for more in resources.turn_start(out.state):
            out.emit(more)


def advance(out: Out) -> None:
    """Emit every automatic step until a player owes a decision or the game is over."""
    while True:
        s = out.state
        if s.stage == "over":
            return
        due = resources.due(s)
        if due is not None:
            out.emit(due)
            continue
        if s.stage in DECIDING or s.owed or s.jets:
            return
        if s.stage == "reward":
            head = s.rewards[0]
            if head == "rally":
                out.emit(GangRallied(s.active))
            elif head == "play_again":
                out.emit(PlayAgain(seat=s.active, granted=not s.extra_turn))
            elif reward_choices(s, s.active, head):
                return
            else:
                out.emit(RewardSkipped(seat=s.active, reward=head, forced=True))
        elif s.stage == "end":
            if resources.society_pending(s):
                return
            _step(out, _end_check(s) or _refill(s) or _next_turn(s))
        elif s.stage == "gang_war":
            out.emit(ChapterChanged(chapter=3, income=(0,) * s.seats))
        elif s.chapter == 3 and domination_snitches_revealed(s) >= END_SNITCHES:
            out.emit(final_scores(s, "third_snitch"))
        else:  # setup, opening, refill
            refill = _refill(s)
            if refill is None and s.stage == "setup" and s.options.resources and not s.revealed:
                out.emit(ResourcesDealt())  # the rows are out: now each keeps a resource
            else:
                _step(out, refill or _next_turn(s))


def start(seats: int, secret: Secret, opts: Options) -> list[Event]:
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise RuleViolation(
            "bad_seats",
            f"Gangsta! is for {MIN_SEATS} to {MAX_SEATS} players",
            seats=seats,
            min=MIN_SEATS,
            max=MAX_SEATS,
        )
    bosses = tuple(rng.shuffled(secret.seed, BOSSES_LABEL, cards.BOSS_IDS)[:seats])
    first = rng.choice_index(secret.seed, START_PLAYER_LABEL, seats)
    # catch_up_cash: the 2nd, 3rd, 4th player in turn order start with $1, $2, $3 more.
    money = tuple(
        cards.GANGSTERS[b].start_money + (((seat - first) % seats) if opts.catch_up_cash else 0)
        for seat, b in enumerate(bosses)
    )
    started = GameStarted(
        seats=seats,
        options=opts,
        commitment=commitment(secret),
        secret=secret,
        bosses=bosses,
        start_player=first,
        money=money,
    )
    out = Out(evolve(None, started), [started])
    advance(out)
    return out.events
