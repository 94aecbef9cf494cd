"""Scenario tests: set-up, synchronisation, mobilisation, hire, heist, pass, end-of-turn refills."""

from __future__ import annotations

from domain import rng
from domain.gangsta import cards, game
from domain.gangsta.messages import (
    CancelHeist,
    CardsDealt,
    ChooseHeist,
    Commit,
    DeckReshuffled,
    DiscardRowCard,
    HeistCompleted,
    Hire,
    Pass,
    Ready,
    Skip,
    TurnStarted,
)
from domain.gangsta.state import GANGSTERS_LABEL, reshuffle_label
from domain.play import secret_for
from tests.domain.gangsta.helpers import (
    all_places,
    build,
    engaged,
    gang,
    member,
    money,
    of_type,
    rejected,
    run,
    started,
)

ROW = [201, 202, 203, 204, 205]
MARKET = [123, 131, 132, 141, 142]


def test_setup_random_bosses_money_rows_and_start_player() -> None:
    for seats in (2, 3, 4):
        for n in range(1, 6):
            s = started(seats, n=n)
            seed = secret_for(n).seed
            bosses = rng.shuffled(seed, "bosses", cards.BOSS_IDS)[:seats]
            assert [p.boss for p in s.players] == bosses
            assert [p.gang[0].card for p in s.players] == bosses
            assert money(s) == [cards.BOSSES[b].start_money for b in bosses]
            assert len(s.heist_row) == 5 and len(s.market) == 5
            assert all(cards.HEISTS[h].chapter == 1 for h in s.heist_row)
            assert s.active == rng.choice_index(seed, "start-player", seats) == s.start_player
            assert s.stage == "turn" and game.to_act(s) == {s.start_player}
            assert sorted(all_places(s)) == sorted(cards.ALL_CARDS)


def test_setup_catch_up_cash_gives_later_players_more() -> None:
    s = started(4, {"catch_up_cash": True}, n=3)
    for seat, p in enumerate(s.players):
        order = (seat - s.start_player) % 4
        assert p.money == cards.BOSSES[p.boss].start_money + order


def test_synchronisation_all_engaged_become_available_and_no_mobilisation() -> None:
    s = build(
        [[101, 111], [member(102, engaged=True), member(153, engaged=True)]],
        heist_row=ROW,
        market=MARKET,
    )
    events, s = run(s, 0, Pass())
    events, s = run(s, 0, Skip())
    start = of_type(events, TurnStarted)[-1]
    assert start.seat == 1 and start.synchronised and start.free_readies == 0
    assert not engaged(s, 102) and not engaged(s, 153)
    assert not any(isinstance(c, Ready) for c in game.legal(s, 1))


def test_mobilisation_free_readies_only_from_leaders_available_at_start() -> None:
    # 102 (Leader, Available) gives one free ready; 154 (Leader, Engaged) gives none.
    s = build(
        [[101], [102, member(154, engaged=True), member(125, engaged=True)]],
        [5, 1],
        heist_row=ROW,
        market=MARKET,
    )
    _, s = run(s, 0, Pass())
    events, s = run(s, 0, Skip())
    assert of_type(events, TurnStarted)[-1].free_readies == 1
    events, s = run(s, 1, Ready(154))
    assert events[0].cost == 0 and not engaged(s, 154) and money(s)[1] == 1
    events, s = run(s, 1, Ready(125))  # the further one costs $1
    assert events[0].cost == 1 and money(s)[1] == 0
    assert rejected(s, 1, Ready(125)) == "not_engaged"


def test_mobilisation_paid_ready_needs_a_dollar() -> None:
    s = build([[101, member(151, engaged=True)], [102]], [0, 0], heist_row=ROW, market=MARKET)
    assert rejected(s, 0, Ready(151)) == "cannot_afford"
    assert rejected(s, 0, Ready(102)) == "not_your_gangster"


def test_hire_pays_the_bank_and_joins_available_then_market_refills() -> None:
    s = build([[101], [102]], [5, 5], heist_row=ROW, market=MARKET, gangster_top=[151])
    assert rejected(s, 0, Hire(152)) == "not_in_market"
    events, s = run(s, 0, Hire(123))
    assert money(s) == [1, 5] and gang(s, 0) == [101, 123] and not engaged(s, 123)
    assert of_type(events, CardsDealt) == [CardsDealt(row="gangsters", cards=(151,))]
    assert s.market == (131, 132, 141, 142, 151) and s.active == 1
    assert rejected(s, 1, Hire(123)) == "not_in_market"


def test_hire_refused_without_the_money() -> None:
    s = build([[101], [102]], [2, 5], heist_row=ROW, market=MARKET)
    assert rejected(s, 0, Hire(123)) == "cannot_afford"
    assert Hire(131) in game.legal(s, 0)


def test_heist_commits_one_at_a_time_each_covering_a_needed_skill() -> None:
    # 201 needs Leader + Mercenary: Boss 103 has both, 152 a Mercenary.
    s = build([[103, 152, 124], [102]], [0, 0], heist_row=ROW, market=MARKET)
    assert rejected(s, 0, ChooseHeist(204)) == "heist_not_possible"  # needs 2 Leaders
    _, s = run(s, 0, ChooseHeist(201))
    assert rejected(s, 0, Commit(124)) == "skill_not_needed"  # Informant and Sniper
    assert rejected(s, 0, Commit(102)) == "not_your_gangster"
    _, s = run(s, 0, Commit(152))
    assert rejected(s, 0, Commit(152)) == "already_committed"
    assert game.legal(s, 0) == [Commit(103), CancelHeist()]  # 103 still adds its Leader
    events, s = run(s, 0, Commit(103))
    done = of_type(events, HeistCompleted)[0]
    assert done.participants == (152, 103) and done.money == 3
    assert engaged(s, 152) and engaged(s, 103) and not engaged(s, 124)
    assert s.players[0].heists == (201,) and money(s) == [3, 0]
    assert 201 not in s.heist_row and len(s.heist_row) == 5  # refilled at the end of the turn


def test_heist_can_be_cancelled_before_it_is_complete() -> None:
    s = build([[103, 152], [102]], heist_row=ROW, market=MARKET)
    _, s = run(s, 0, ChooseHeist(201))
    _, s = run(s, 0, Commit(152))
    _, s = run(s, 0, CancelHeist())
    assert s.stage == "turn" and s.heist is None and not engaged(s, 152)
    assert rejected(s, 0, Commit(103)) == "wrong_phase"


def test_engaged_gangsters_cannot_take_part() -> None:
    s = build([[103, member(152, engaged=True)], [102]], [0, 0], heist_row=ROW, market=MARKET)
    assert rejected(s, 0, ChooseHeist(205)) == "heist_not_possible"  # 2 Mercenaries
    assert ChooseHeist(210 if 210 in s.heist_row else 201) in game.legal(s, 0)


def test_pass_income_counts_every_leader_engaged_or_learned() -> None:
    gang0 = [101, member(154, engaged=True), member(151, learned="leader")]
    s = build([gang0, [102]], [0, 0], heist_row=ROW, market=MARKET)
    events, s = run(s, 0, Pass())
    assert events[0].income == 3 and money(s) == [3, 0]


def test_min_pass_income_option() -> None:
    s = build([[101], [102]], [0, 0], heist_row=ROW, market=MARKET, options={"min_pass_income": 2})
    events, _ = run(s, 0, Pass())
    assert events[0].income == 2


def test_pass_discard_of_either_row_then_refill() -> None:
    s = build([[101], [102]], heist_row=ROW, market=MARKET, heist_top=[206], gangster_top=[151])
    _, s = run(s, 0, Pass())
    assert s.stage == "pass_discard" and rejected(s, 0, DiscardRowCard(999)) == "not_in_row"
    _, s = run(s, 0, DiscardRowCard(203))
    assert s.heist_discard == (203,) and s.heist_row == (201, 202, 204, 205, 206)
    _, s = run(s, 1, Pass())
    _, s = run(s, 1, DiscardRowCard(123))
    assert s.gangster_discard == (123,) and s.market == (131, 132, 141, 142, 151)


def test_pass_discard_option_off_ends_the_turn() -> None:
    s = build([[101], [102]], heist_row=ROW, market=MARKET, options={"pass_discard": False})
    _, s = run(s, 0, Pass())
    assert s.stage == "turn" and s.active == 1


def test_refill_one_per_row_option() -> None:
    s = build(
        [[101], [102]],
        heist_row=ROW[:2],
        market=MARKET[:1],
        options={"refill": "one_per_row"},
    )
    _, s = run(s, 0, Pass())
    events, s = run(s, 0, Skip())
    assert len(of_type(events, CardsDealt)) == 2
    assert len(s.heist_row) == 3 and len(s.market) == 2


def test_refill_full_option_deals_each_row_back_to_five() -> None:
    s = build([[101], [102]], heist_row=ROW[:2], market=MARKET[:1])
    _, s = run(s, 0, Pass())
    _, s = run(s, 0, Skip())
    assert len(s.heist_row) == 5 and len(s.market) == 5


def test_empty_gangster_deck_reshuffles_the_discarded_gangsters() -> None:
    s = build(
        [[101], [102]],
        heist_row=ROW,
        market=MARKET,
        gangster_discard=[151, 152],
        rest_in_decks=False,
    )
    _, s = run(s, 0, Pass())
    events, s = run(s, 0, DiscardRowCard(131))
    assert of_type(events, DeckReshuffled) == [DeckReshuffled(row="gangsters", size=3)]
    order = rng.shuffled(s.secret.seed, reshuffle_label(GANGSTERS_LABEL, 0), [131, 151, 152])
    assert s.market[-1] == order[0] and s.gangster_deck == tuple(order[1:])
    assert sorted(all_places(s)) == sorted(cards.ALL_CARDS)


def test_empty_chapter_deck_reshuffles_its_own_discards() -> None:
    s = build(
        [[101], [102]],
        heist_row=ROW[:4],
        market=MARKET,
        heist_discard=[206, 207],
        rest_in_decks=False,
    )
    events, s = run(s, 0, Pass())
    events, s = run(s, 0, Skip())
    assert of_type(events, DeckReshuffled) == [DeckReshuffled(row="heists", size=2)]
    order = rng.shuffled(s.secret.seed, reshuffle_label("genesis", 0), [206, 207])
    assert s.heist_row == (*ROW[:4], order[0]) and s.heist_deck == (order[1],)
    assert s.heist_discard == ()
    assert sorted(all_places(s)) == sorted(cards.ALL_CARDS)
