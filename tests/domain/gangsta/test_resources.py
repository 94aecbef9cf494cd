"""Scenario tests of the resources module (option ``resources``; GANGSTA.md "Resources module",
docs/gangsta.md): the set-up choice, activation, one test per card named after it, and the
hidden information (kept card, a deck top seen with 910 or 912)."""

from __future__ import annotations

from typing import Any

import msgspec

from domain import rng
from domain.gangsta import cards, game, resources, rules
from domain.gangsta.messages import (
    CancelHeist,
    ChooseHeist,
    Commit,
    Discard,
    Discharge,
    GangsterDiscarded,
    GangsterHired,
    GangsterPeeked,
    GangWar,
    Headquarters,
    HeistChosen,
    HeistCompleted,
    HeistPeeked,
    Hire,
    HospitalDischarged,
    IgnoreSkill,
    KeepResource,
    MoneyPrinted,
    Pass,
    PrivateJet,
    PrivateJetUsed,
    ResourceActivated,
    ResourceDiscarded,
    ResourceKept,
    ResourcesRevealed,
    SecretSociety,
    SecretSocietyUsed,
    Skip,
    SnitchRevealed,
    Theft,
    TurnStarted,
)
from domain.gangsta.state import RESOURCES_LABEL, State
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

RES = {"resources": True}
ROW = [201, 202, 203, 204, 205]
MARKET = [132, 133, 134, 136, 137]
GANG_WAR = [302, 303, 304, 305]  # one short: the refill draws the deck's top
DOMINATION = [401, 402, 403, 404, 405]


def holding(state: State, owned: dict[int, int], active: bool = True) -> State:
    """The seats in ``owned`` keep these resource cards (revealed; active unless told)."""
    players = list(state.players)
    for seat, card in owned.items():
        players[seat] = msgspec.structs.replace(
            players[seat], dealt=(card,), resource=card, resource_active=active
        )
    return msgspec.structs.replace(state, players=tuple(players), revealed=True)


def end_turn(state: State) -> tuple[list[Any], State]:
    """The active player passes and declines the pass discard."""
    seat = state.active
    events, state = run(state, seat, Pass())
    more, state = run(state, seat, Skip())
    return events + more, state


# --- Set-up and activation -----------------------------------------------------------------


def test_setup_every_player_keeps_one_of_two_at_the_same_time_then_all_are_revealed() -> None:
    s = started(3, RES)
    order = rng.shuffled(s.secret.seed, RESOURCES_LABEL, cards.RESOURCE_IDS)
    assert [p.dealt for p in s.players] == [tuple(order[0:2]), tuple(order[2:4]), tuple(order[4:6])]
    assert s.stage == "resources" and len(s.heist_row) == 5 and len(s.market) == 5
    assert game.to_act(s) == {0, 1, 2}  # every seat owes its choice at once
    for seat in range(3):
        assert game.legal(s, seat) == [KeepResource(c) for c in s.players[seat].dealt]
    theirs = s.players[2].dealt[0]
    assert rejected(s, 1, KeepResource(theirs)) == "not_dealt"
    kept = s.players[1].dealt[1]
    events, s = run(s, 1, KeepResource(kept))
    assert events == [ResourceKept(seat=1, card=kept)]  # no turn starts before all chose
    assert game.to_act(s) == {0, 2} and rejected(s, 1, KeepResource(kept)) == "not_your_turn"
    for viewer in (0, 2, None):
        assert game.redact(events[0], viewer) == ResourceKept(seat=1, card=None)
        seen = game.view(s, viewer).players[1]
        assert seen.resource is None and seen.resource_chosen and seen.dealt == ()
    assert game.redact(events[0], 1) == events[0]
    assert game.view(s, 1).players[1].resource == kept
    assert game.view(s, 1).players[1].dealt == s.players[1].dealt
    _, s = run(s, 2, KeepResource(s.players[2].dealt[0]))
    events, s = run(s, 0, KeepResource(s.players[0].dealt[0]))
    chosen = (s.players[0].dealt[0], kept, s.players[2].dealt[0])
    assert of_type(events, ResourcesRevealed) == [ResourcesRevealed(cards=chosen)]
    assert of_type(events, TurnStarted)[0].seat == s.start_player and s.stage == "turn"
    for viewer in (0, 1, 2, None):
        assert [p.resource for p in game.view(s, viewer).players] == list(chosen)
    assert sorted(all_places(s)) == sorted(cards.ALL_CARDS)


def test_a_card_activates_once_the_whole_gang_holds_its_skills_engaged_included() -> None:
    # 905 Private jet needs an Informant and a Sniper: the Boss 101's Sniper is Engaged.
    s = build(
        [[member(101, engaged=True), member(121, engaged=True)], [102]],
        heist_row=ROW,
        market=[141, *MARKET[:4]],
        options=RES,
    )
    s = holding(s, {0: 905}, active=False)
    assert not resources.has(s, 0, "private_jet")
    events, s = run(s, 0, Hire(141))  # an Informant
    assert events[1] == ResourceActivated(seat=0, card=905)  # at once, before the turn ends
    assert s.players[0].resource_active


def test_a_learned_skill_counts_and_losing_skills_later_never_deactivates() -> None:
    # 909 Bank needs 2 Hackers: 104's and the one 121 learned.
    s = build(
        [[104, member(121, learned="hacker")], [102, 123]],
        [2, 0],
        heist_row=GANG_WAR,
        market=MARKET,
        chapter=2,
        heist_top=[333, 301],
        options=RES,
    )
    s = holding(s, {0: 909, 1: 912}, active=False)
    events, s = run(s, 0, Pass())
    assert events[1] == ResourceActivated(seat=0, card=909)
    _, s = run(s, 0, Skip())  # the snitch (4): seat 0 pays what it has and loses 121
    _, s = run(s, 0, Discard(121))
    assert gang(s, 0) == [104] and s.players[0].resource_active  # stays active
    assert not s.players[1].resource_active  # 912 was never within reach


# --- One test per card -----------------------------------------------------------------------


def test_901_police_station_a_snitch_costs_at_most_1() -> None:
    s = build(
        [[103], [102, 123], [104, 143]],
        [5, 0, 3],
        heist_row=GANG_WAR,
        market=MARKET,
        chapter=2,
        heist_top=[333, 301],  # informants 4
        options=RES,
    )
    s = holding(s, {1: 901})
    events, s = end_turn(s)
    snitch = of_type(events, SnitchRevealed)[0]
    # seat 0 pays 4; seat 1 owes only $1 but has $0: the usual rule, a discard; seat 2 pays 3.
    assert snitch.payments == (4, 0, 3) and snitch.discards == (1, 2)
    s = build(
        [[103], [102, 123]],
        [5, 3],
        heist_row=GANG_WAR,
        market=MARKET,
        chapter=2,
        heist_top=[333, 301],
        options=RES,
    )
    events, s = end_turn(holding(s, {1: 901}))
    assert of_type(events, SnitchRevealed)[0].payments == (4, 1) and money(s) == [2, 2]


def test_902_black_market_2_more_on_every_pass() -> None:
    s = holding(build([[101], [102]], [0, 0], heist_row=ROW, market=MARKET, options=RES), {0: 902})
    events, s = run(s, 0, Pass())
    assert events[0].income == 1 + 2 and money(s) == [3, 0]
    opts = {**RES, "min_pass_income": 2}
    s = build([[101], [102]], [0, 0], heist_row=ROW, market=MARKET, options=opts)
    events, _ = run(holding(s, {0: 902}), 0, Pass())
    assert events[0].income == 2 + 2  # on top of the pass income, whatever it is


def test_903_headquarters_pay_1_once_to_make_the_whole_gang_available() -> None:
    gang0 = [101, member(121, engaged=True), member(131, engaged=True)]
    s = build([gang0, [102]], [3, 3], heist_row=ROW, market=MARKET, options=RES)
    assert Headquarters() not in game.legal(s, 0)
    assert rejected(s, 0, Headquarters()) == "no_resource"
    s = holding(s, {0: 903})
    assert Headquarters() in game.legal(s, 0)
    _, s = run(s, 0, Headquarters())
    assert not engaged(s, 121) and not engaged(s, 131) and money(s) == [2, 3]
    assert Headquarters() not in game.legal(s, 0) and s.stage == "turn"
    assert rejected(s, 0, Headquarters()) == "already_used"


def test_904_counterfeit_printing_1_at_each_turn_start_discarded_at_the_gang_war() -> None:
    s = build([[101], [102]], [0, 0], heist_row=ROW, market=MARKET, options=RES)
    s = holding(s, {1: 904})
    events, s = end_turn(s)
    turn = events.index(TurnStarted(seat=1, extra=False, synchronised=False, free_readies=1))
    assert events[turn + 1] == MoneyPrinted(seat=1, amount=1) and money(s) == [1, 1]
    # The gang war discards it; its influence (3) still counts at the end.
    s = build(
        [[103, 153, 121, 131, 141, 151], [102, 111]],
        [9, 9],
        heist_row=[301, 302, 303, 304, 305],
        market=[147, *MARKET[:4]],
        chapter=2,
        options=RES,
    )
    s = holding(s, {0: 904})
    events, s = run(s, 0, Hire(147))
    assert of_type(events, GangWar) and ResourceDiscarded(seat=0, card=904) in events
    _, s = run(s, 0, Discard(111))  # double Mercenaries: seat 0 chooses
    assert s.chapter == 3 and s.players[0].resource_discarded
    assert not resources.has(s, 0, "counterfeit_printing")
    assert rules.final_scores(s, "nine_gangsters").resource_influence == (3, 0)


def test_904_never_activated_before_the_gang_war_gives_nothing() -> None:
    s = build(
        [[101, 153, 121, 111, 141, 151], [102, 112]],
        [9, 9],
        heist_row=[301, 302, 303, 304, 305],
        market=[147, *MARKET[:4]],
        chapter=2,
        options=RES,
    )
    s = holding(s, {1: 904}, active=False)  # needs a Mercenary and 2 Brawlers
    events, s = run(s, 0, Hire(147))
    assert ResourceDiscarded(seat=1, card=904) in events
    assert rules.final_scores(s, "nine_gangsters").resource_influence == (0, 0)


def test_905_private_jet_after_a_cooperative_heist_a_participant_readies_one() -> None:
    # 303 needs Leader, Mercenary, Informant, Sniper: 103 brings two, seat 1's 101 and 114 two.
    s = build([[103], [101, 114]], [0, 0], heist_row=[303], chapter=2, options=RES)
    s = holding(s, {1: 905})
    _, s = run(s, 0, ChooseHeist(303))
    for g in (103, 101):
        _, s = run(s, 0, Commit(g))
    events, s = run(s, 0, Commit(114))
    assert of_type(events, HeistCompleted) and s.jets == (1,)
    assert game.to_act(s) == {1} and game.legal(s, 0) == []  # a non-active seat decides
    assert game.legal(s, 1) == [PrivateJet(101), PrivateJet(114), Skip()]
    assert rejected(s, 1, PrivateJet(103)) == "not_your_gangster"
    events, s = run(s, 1, PrivateJet(114))
    assert events[0] == PrivateJetUsed(seat=1, gangster=114)
    assert not engaged(s, 114) and engaged(s, 101) and s.jets == ()
    assert of_type(events, TurnStarted)[0].seat == 1  # then the turn ends as usual


def test_906_media_one_per_completed_heist_with_influence_at_most_7() -> None:
    s = build([[101], [102]], heists=[[204, 210, 201], []], options=RES)
    assert rules.final_scores(holding(s, {0: 906}), "nine_gangsters").resource_influence == (2, 0)
    many = [202, 204, 207, 209, 210, 212, 214, 217, 221]  # 9 heists with influence
    s = holding(build([[101], [102]], heists=[many, []], options=RES), {0: 906})
    ended = rules.final_scores(s, "nine_gangsters")
    assert ended.resource_influence == (7, 0) and ended.scores[0] == sum(
        (ended.heist_influence[0], 7, ended.money_bonus[0], ended.size_bonus[0])
    )
    s = holding(build([[101], [102]], heists=[many, []], options=RES), {0: 906}, active=False)
    assert rules.final_scores(s, "nine_gangsters").resource_influence == (0, 0)


def test_907_high_tech_equipment_ignores_one_required_skill_of_an_art_theft() -> None:
    # 228 Art theft needs a Sniper and a Hacker; 101 has only the Sniper.
    s = build([[101], [102]], heist_row=[228, 218, 220], market=MARKET, options=RES)
    assert ChooseHeist(228) not in game.legal(s, 0)
    s = holding(s, {0: 907})
    legal = game.legal(s, 0)
    assert ChooseHeist(228) in legal
    assert ChooseHeist(220) not in legal  # one skill only: somebody must still perform it
    _, s = run(s, 0, ChooseHeist(228))
    # Only the Hacker may go: ignoring the Sniper would leave a Hacker nobody has.
    assert IgnoreSkill("hacker") in game.legal(s, 0)
    assert IgnoreSkill("sniper") not in game.legal(s, 0)
    assert rejected(s, 0, IgnoreSkill("leader")) == "skill_not_needed"
    _, s = run(s, 0, Commit(101))
    events, s = run(s, 0, IgnoreSkill("hacker"))
    assert of_type(events, HeistCompleted)[0].participants == (101,)
    assert s.players[0].heists == (228,)
    s = holding(build([[101], [102]], heist_row=[218], market=MARKET, options=RES), {0: 907})
    assert ChooseHeist(218) not in game.legal(s, 0)  # any other heist: nothing ignored


def test_908_secret_society_an_engaged_leader_available_at_the_end_of_the_turn() -> None:
    gang0 = [101, member(154, engaged=True), member(121, engaged=True)]
    s = holding(build([gang0, [102]], heist_row=ROW, market=MARKET, options=RES), {0: 908})
    _, s = run(s, 0, Pass())
    _, s = run(s, 0, Skip())  # no pass discard: the end of the turn
    assert s.stage == "end" and game.to_act(s) == {0}
    assert game.legal(s, 0) == [SecretSociety(154), Skip()]  # 121 is no Leader
    events, s = run(s, 0, SecretSociety(154))
    assert events[0] == SecretSocietyUsed(seat=0, gangster=154) and not engaged(s, 154)
    assert of_type(events, TurnStarted)[0].seat == 1
    s = holding(build([gang0, [102]], heist_row=ROW, market=MARKET, options=RES), {0: 908})
    _, s = run(s, 0, Pass())
    _, s = run(s, 0, Skip())
    events, s = run(s, 0, Skip())  # declined (it would spoil a synchronisation)
    assert events[0] == SecretSocietyUsed(seat=0, gangster=None) and engaged(s, 154)


def test_909_bank_theft_cannot_take_the_first_10() -> None:
    # 320 Hack attack (Leader, Mercenary, Hacker: all of 116) lets the player steal up to $4.
    s = build([[105, 116], [102]], [0, 12], heist_row=[320], market=MARKET, chapter=2, options=RES)
    s = holding(s, {1: 909})
    _, s = run(s, 0, ChooseHeist(320))
    _, s = run(s, 0, Commit(116))
    assert game.legal(s, 0) == [Theft(target=1, amount=1), Theft(target=1, amount=2), Skip()]
    assert rejected(s, 0, Theft(target=1, amount=3)) == "bad_amount"
    s = build([[105, 116], [102]], [0, 9], heist_row=[320], market=MARKET, chapter=2, options=RES)
    s = holding(s, {1: 909})
    _, s = run(s, 0, ChooseHeist(320))
    events, s = run(s, 0, Commit(116))
    assert money(s)[1] == 9  # nothing to steal: the theft is skipped
    assert any(getattr(e, "forced", False) for e in events)


def test_910_bikers_gang_sees_the_top_heist_privately_and_may_do_it_for_1() -> None:
    s = build(
        [[103, 131], [102]],
        [3, 0],
        heist_row=ROW,
        market=MARKET,
        active=1,
        heist_top=[206],  # Casino: Mercenary, Brawler
        options=RES,
    )
    s = holding(s, {0: 910})
    events, s = end_turn(s)
    peeked = of_type(events, HeistPeeked)
    assert peeked == [HeistPeeked(seat=0, card=206)]
    for viewer in (1, None):
        assert game.redact(peeked[0], viewer) == HeistPeeked(seat=0, card=None)
        assert game.view(s, viewer).players[0].peek_heist is None
    assert game.redact(peeked[0], 0) == peeked[0] and game.view(s, 0).players[0].peek_heist == 206
    assert ChooseHeist(206) in game.legal(s, 0) and ChooseHeist(206) not in game.legal(s, 1)
    events, s = run(s, 0, ChooseHeist(206))
    assert events == [HeistChosen(seat=0, heist=206, from_deck=True)] and money(s)[0] == 2
    assert CancelHeist() not in game.legal(s, 0)  # no putting it back
    assert rejected(s, 0, CancelHeist()) == "wrong_phase"
    _, s = run(s, 0, Commit(103))
    events, s = run(s, 0, Commit(131))
    assert s.players[0].heists == (206,) and 206 not in s.heist_deck and s.heist_row == tuple(ROW)
    assert money(s)[0] == 2 + 3
    assert sorted(all_places(s)) == sorted(cards.ALL_CARDS)


def test_911_hospital_keeps_gang_war_losses_and_takes_them_back_on_a_pass() -> None:
    s = build(
        [[103, 153, 121, 131, 141, 151], [102, 111, 112], [104, 144]],
        [9, 9, 9],
        heist_row=[301, 302, 303, 304, 305],
        market=[147, *MARKET[:4]],
        chapter=2,
        options=RES,
    )
    s = holding(s, {1: 911})
    _, s = run(s, 0, Hire(147))
    events, s = run(s, 1, Discard(111))
    assert of_type(events, GangsterDiscarded)[0].hospital
    assert s.players[1].hospital == (111,) and 111 not in s.removed
    events, s = run(s, 2, Discard(144))  # no hospital: out of the game
    assert 144 in s.removed
    assert rules.final_scores(s, "nine_gangsters").gang_influence[1] == 2  # 112 only
    assert s.active == 1 and game.view(s, 0).players[1].hospital == (111,)
    _, s = run(s, 1, Pass())
    assert s.stage == "hospital" and game.legal(s, 1) == [Discharge(), Skip()]
    events, s = run(s, 1, Discharge())
    assert events[0] == HospitalDischarged(seat=1, gangsters=(111,))
    assert gang(s, 1) == [102, 112, 111] and not engaged(s, 111) and s.players[1].hospital == ()
    assert s.stage == "pass_discard"
    assert sorted(all_places(s)) == sorted(cards.ALL_CARDS)


def test_911_hospital_does_not_keep_snitch_losses() -> None:
    s = build(
        [[103], [102, 123]],
        [5, 0],
        heist_row=GANG_WAR,
        market=MARKET,
        chapter=2,
        heist_top=[333, 301],
        options=RES,
    )
    _, s = end_turn(holding(s, {1: 911}))
    events, s = run(s, 1, Discard(123))
    assert not of_type(events, GangsterDiscarded)[0].hospital and 123 in s.removed


def test_912_indicator_network_may_hire_the_top_gangster_1_cheaper_from_its_clan() -> None:
    for options, price in ((RES, 5), ({**RES, "clans": True}, 5)):  # no double discount
        s = build(
            [[104], [102]],
            [6, 0],
            heist_row=ROW,
            market=MARKET,
            active=1,
            gangster_top=[146, 117],  # 146: Mafia, $6, like the Boss 104
            options=options,
        )
        s = holding(s, {0: 912})
        events, s = end_turn(s)
        peeked = of_type(events, GangsterPeeked)
        assert peeked == [GangsterPeeked(seat=0, card=146)]
        assert game.redact(peeked[0], 1).card is None and game.redact(peeked[0], None).card is None
        assert game.view(s, 0).players[0].peek_gangster == 146
        assert game.view(s, 1).players[0].peek_gangster is None
        assert rejected(s, 1, Hire(146)) == "not_your_turn"
        events, s = run(s, 0, Hire(146))
        assert events[0] == GangsterHired(seat=0, gangster=146, cost=price, from_deck=True)
        assert gang(s, 0) == [104, 146] and s.gangster_deck[0] == 117 and money(s)[0] == 1
        assert game.view(s, 0).players[0].peek_gangster is None


def test_activation_is_checked_at_the_reveal_before_the_first_turn() -> None:
    # Seat 0's gang already holds 905's Informant and Sniper when the cards are revealed.
    s = build([[101, 141], [102]], heist_row=ROW, market=MARKET, stage="resources", options=RES)
    players = (
        msgspec.structs.replace(s.players[0], dealt=(905, 909)),
        msgspec.structs.replace(s.players[1], dealt=(902, 903)),
    )
    s = msgspec.structs.replace(s, players=players)
    _, s = run(s, 1, KeepResource(903))
    events, s = run(s, 0, KeepResource(905))
    kinds = [type(e).__name__ for e in events]
    assert kinds[:4] == ["ResourceKept", "ResourcesRevealed", "ResourceActivated", "TurnStarted"]
    assert events[2] == ResourceActivated(seat=0, card=905)
    assert not s.players[1].resource_active and s.stage == "turn"
