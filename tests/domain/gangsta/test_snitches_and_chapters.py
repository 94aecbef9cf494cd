"""Scenario tests: snitches, chapter changes (opportunity income, gang war) and the game end."""

from __future__ import annotations

from domain import rng
from domain.gangsta import cards, game
from domain.gangsta.messages import (
    CardsDealt,
    ChapterChanged,
    DeckReshuffled,
    Discard,
    GameEnded,
    GangWar,
    Hire,
    Pass,
    Skip,
    SnitchRevealed,
    SnitchShuffledBack,
    TurnStarted,
)
from domain.gangsta.state import State, reshuffle_label
from tests.domain.gangsta.helpers import all_places, build, gang, money, of_type, rejected, run

MARKET = [132, 133, 134, 136, 137]
GANG_WAR = [302, 303, 304, 305]  # one short: the refill draws the snitch first
DOMINATION = [401, 402, 403, 404]


def end_turn(state: State) -> tuple[list, State]:
    """The active player passes and declines the discard; the turn ends."""
    seat = state.active
    events, state = run(state, seat, Pass())
    more, state = run(state, seat, Skip())
    return events + more, state


def test_snitch_every_player_pays_informants_reduce_short_players_discard() -> None:
    s = build(
        [[105, 141], [102, 123], [104]],
        [5, 1, 0],
        heist_row=GANG_WAR,
        market=MARKET,
        chapter=2,
        heist_top=[332, 301],  # informants 3
    )
    events, s = end_turn(s)  # seat 0 passes: +$1 (its Leader)
    snitch = of_type(events, SnitchRevealed)[0]
    # seat 0 owes 3 - 2 Informants = 1; seat 1 owes 3, has 1; seat 2 owes 3, has only its Boss.
    assert snitch == SnitchRevealed(card=332, informants=3, payments=(1, 1, 0), discards=(1,))
    assert money(s) == [5, 0, 0] and s.snitches == (332,)
    assert game.to_act(s) == {1} and game.legal(s, 1) == [Discard(123)]
    assert game.legal(s, 0) == [] and rejected(s, 0, Pass()) == "not_your_turn"
    assert rejected(s, 1, Discard(102)) == "bad_discard"  # never the Boss
    events, s = run(s, 1, Discard(123))
    assert gang(s, 1) == [102] and 123 in s.removed and 123 not in s.gangster_discard
    assert of_type(events, CardsDealt) == [CardsDealt(row="heists", cards=(301,))]
    assert of_type(events, TurnStarted)[0].seat == 1


def test_snitch_discards_owed_by_several_players_at_once() -> None:
    s = build(
        [[105], [102, 123], [104, 143]],
        [5, 0, 0],
        heist_row=GANG_WAR,
        market=MARKET,
        chapter=2,
        heist_top=[333, 301],
    )
    _, s = end_turn(s)
    assert game.to_act(s) == {1, 2}
    _, s = run(s, 2, Discard(143))
    assert game.to_act(s) == {1} and s.stage == "refill" and len(s.heist_row) == 4
    _, s = run(s, 1, Discard(123))
    assert game.to_act(s) == {1} and s.stage == "turn" and len(s.heist_row) == 5


def test_snitch_in_one_per_row_refill_is_replaced_by_the_next_card() -> None:
    s = build(
        [[105], [102]],
        [5, 5],
        heist_row=GANG_WAR,
        market=MARKET,
        chapter=2,
        heist_top=[331, 301],
        options={"refill": "one_per_row"},
    )
    events, s = end_turn(s)
    assert of_type(events, SnitchRevealed)[0].card == 331
    assert s.heist_row == (*GANG_WAR, 301)


def test_domination_snitch_values_follow_the_option() -> None:
    for options, value in (({}, 2), ({"preset": "published"}, 3)):
        s = build(
            [[101], [102]],
            [9, 9],
            heist_row=DOMINATION,
            market=MARKET,
            chapter=3,
            heist_top=[431, 405],
            options=options,
        )
        events, s = end_turn(s)
        assert of_type(events, SnitchRevealed)[0].informants == value
        assert money(s) == [10 - value, 9 - value]


def test_third_domination_snitch_ends_the_game_once_resolved() -> None:
    s = build(
        [[101], [102, 123]],
        [9, 0],
        heist_row=DOMINATION,
        market=MARKET,
        chapter=3,
        heist_top=[433, 405],
        snitches=[331, 431, 432],
    )
    _, s = end_turn(s)
    assert game.result(s) is None and game.to_act(s) == {1}
    events, s = run(s, 1, Discard(123))
    assert of_type(events, GameEnded)[0].reason == "third_snitch"
    assert game.result(s) is not None and game.to_act(s) == set() and game.legal(s, 0) == []
    assert rejected(s, 0, Pass()) == "game_over"


def test_gang_war_snitches_do_not_count_towards_the_end() -> None:
    s = build(
        [[101], [102]],
        heist_row=DOMINATION,
        market=MARKET,
        chapter=3,
        heist_top=[431, 405],
        snitches=[331, 332, 333],
    )
    _, s = end_turn(s)
    assert game.result(s) is None


def test_genesis_ends_at_four_gangsters_with_opportunity_income() -> None:
    s = build(
        [[101, 121, 131], [102], [105, 135]],  # skills 4, 2, 4
        [9, 0, 0],
        heist_row=[201, 202, 203, 204, 205],
        market=[151, *MARKET[:4]],
        later_tops={2: [331, 301, 302, 303, 304, 306]},
    )
    events, s = run(s, 0, Hire(151))  # 4 gangsters, 5 skills
    assert of_type(events, ChapterChanged) == [ChapterChanged(chapter=2, income=(0, 3, 1))]
    assert money(s) == [7, 3, 1] and s.chapter == 2
    # The snitch drawn for the opening row goes back; the deck is reshuffled.
    assert of_type(events, SnitchShuffledBack) == [SnitchShuffledBack(331)]
    assert s.snitches == () and 331 in s.heist_deck
    assert len(s.heist_row) == 5 and all(cards.HEISTS[h].chapter == 2 for h in s.heist_row)
    # Re-deal by hand: every snitch on top is shuffled back with the next label.
    deck = [331, 301, 302, 303, 304, 306] + [
        c for c in cards.CHAPTER_DECKS[1] if c not in (331, 301, 302, 303, 304, 306)
    ]
    row: list[int] = []
    shuffles = 0
    while len(row) < 5:
        if deck[0] in cards.SNITCHES:
            deck = rng.shuffled(s.secret.seed, reshuffle_label("gang_war", shuffles), sorted(deck))
            shuffles += 1
        else:
            row.append(deck.pop(0))
    assert list(s.heist_row) == row and list(s.heist_deck) == deck
    assert all(c in s.removed for c in (201, 202, 203, 204, 205))
    assert sorted(all_places(s)) == sorted(cards.ALL_CARDS)


def war_state(gangs: list[list[int]], hirer_card: int = 147) -> State:
    return build(
        gangs,
        [9] * len(gangs),
        heist_row=[301, 302, 303, 304, 305],
        market=[hirer_card, *MARKET[:4]],
        chapter=2,
    )


def test_gang_war_unique_leader_keeps_everyone_else_discards() -> None:
    # seat 0 reaches 7 with 147 (Mercenary): Mercenaries 4, 1, 1.
    s = war_state([[103, 153, 121, 131, 141, 151], [102, 111], [104, 144]])
    events, s = run(s, 0, Hire(147))
    assert of_type(events, GangWar) == [GangWar(mercenaries=(4, 1, 1), losers=(1, 2), chooser=None)]
    assert game.to_act(s) == {1, 2}
    _, s = run(s, 1, Discard(111))
    events, s = run(s, 2, Discard(144))
    assert of_type(events, ChapterChanged)[0].chapter == 3
    assert len(s.heist_row) == 5 and all(cards.HEISTS[h].chapter == 3 for h in s.heist_row)
    assert gang(s, 1) == [102] and gang(s, 2) == [104] and len(gang(s, 0)) == 7
    # Lost gangsters leave the game: never in the gangster discard pile, never reshuffled.
    assert {111, 144} <= set(s.removed) and s.gangster_discard == ()


def test_gang_war_tie_everyone_discards() -> None:
    s = war_state([[103, 121, 131, 141, 151, 124], [104, 111]], hirer_card=122)
    events, s = run(s, 0, Hire(122))
    assert of_type(events, GangWar) == [GangWar(mercenaries=(1, 1), losers=(0, 1), chooser=None)]
    assert game.to_act(s) == {0, 1}


def test_gang_war_two_players_double_mercenaries_leader_chooses() -> None:
    s = war_state([[103, 153, 121, 131, 141, 151], [102, 111, 112]])
    events, s = run(s, 0, Hire(147))  # Mercenaries 5 against 1
    assert of_type(events, GangWar)[0].chooser == 0
    assert game.to_act(s) == {0} and set(game.legal(s, 0)) == {Discard(111), Discard(112)}
    assert rejected(s, 1, Discard(111)) == "not_your_turn"
    events, s = run(s, 0, Discard(112))
    assert gang(s, 1) == [102, 111] and s.chapter == 3


def test_gang_war_two_players_opponent_with_no_mercenary_counts_as_double() -> None:
    s = war_state([[102, 121, 131, 141, 151, 124], [104, 112]], hirer_card=147)
    events, _ = run(s, 0, Hire(147))
    assert of_type(events, GangWar)[0] == GangWar(mercenaries=(1, 0), losers=(1,), chooser=0)


def test_gang_war_two_players_less_than_double_loser_chooses() -> None:
    s = war_state([[103, 153, 121, 131, 141, 151], [102, 111, 117]], hirer_card=122)
    events, s = run(s, 0, Hire(122))  # Mercenaries 3 against 3: a tie
    assert of_type(events, GangWar)[0].losers == (0, 1)
    s = war_state([[103, 153, 121, 131, 141, 151], [102, 117]], hirer_card=147)
    events, s = run(s, 0, Hire(147))  # 4 against 2: double
    assert of_type(events, GangWar)[0].chooser == 0
    s = war_state([[103, 153, 121, 131, 141, 151], [102, 111, 144]], hirer_card=122)
    events, s = run(s, 0, Hire(122))  # 3 against 2: the loser chooses
    assert of_type(events, GangWar)[0] == GangWar(mercenaries=(3, 2), losers=(1,), chooser=None)
    assert game.to_act(s) == {1}


def test_game_ends_when_a_gang_reaches_nine_in_domination() -> None:
    s = build(
        [[101, 121, 122, 123, 124, 125, 126, 127], [102]],
        [9, 0],
        heist_row=[401, 402, 403, 404, 405],
        market=[131, *MARKET[:4]],
        chapter=3,
    )
    events, s = run(s, 0, Hire(131))
    ended = of_type(events, GameEnded)[0]
    assert ended.reason == "nine_gangsters" and ended.secret == s.secret
    assert game.result(s).winners == [0]


def test_lost_gangsters_leave_the_game_and_the_market_can_run_empty() -> None:
    # No gangster deck and no discards: the snitch's victim 123 leaves the game, so the
    # refill has nothing to deal or reshuffle and the market stays empty for good.
    s = build(
        [[105, 141], [102, 123]],
        [5, 0],
        heist_row=GANG_WAR,
        market=[],
        chapter=2,
        heist_top=[332, 301, 306],
        rest_in_decks=False,
    )
    events, s = end_turn(s)
    _, s = run(s, 1, Discard(123))
    assert 123 in s.removed and s.gangster_discard == () and s.gangster_deck == ()
    assert s.market == () and s.stage == "turn" and s.active == 1
    assert not any(isinstance(c, Hire) for c in game.legal(s, 1))
    assert game.view(s, 1).market == () and game.view(s, None).gangster_deck == 0
    events, s = end_turn(s)  # another end of turn with nothing to refill the market from
    assert not of_type(events, DeckReshuffled) and s.market == ()
    assert sorted(all_places(s)) == sorted(cards.ALL_CARDS)
