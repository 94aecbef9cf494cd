"""Scenario tests: cooperative heists and every special reward."""

from __future__ import annotations

from domain.gangsta import game
from domain.gangsta.messages import (
    Assassination,
    ChooseHeist,
    Commit,
    Discard,
    Diversion,
    FastRecruit,
    GangRallied,
    HeistCompleted,
    LearnSkill,
    PlayAgain,
    RewardSkipped,
    Skip,
    Theft,
    TurnStarted,
)
from domain.gangsta.state import State
from tests.domain.gangsta.helpers import (
    build,
    engaged,
    gang,
    member,
    money,
    of_type,
    rejected,
    run,
)

MARKET = [132, 133, 134, 141, 142]
GENESIS = [201, 202, 207, 215, 225]
GANG_WAR = [305, 311, 318, 323, 314]
DOMINATION = [418, 402, 403, 405, 406]


def heist(state: State, seat: int, card: int, gangsters: list[int]) -> tuple[list, State]:
    events: list = []
    _, state = run(state, seat, ChooseHeist(card))
    for g in gangsters:
        new, state = run(state, seat, Commit(g))
        events += new
    return events, state


# --- Cooperative heists -----------------------------------------------------------------------


def coop_state(options: dict | None = None, partner_engaged: bool = False) -> State:
    # 305 needs Leader, Mercenary, Hacker; cooperation reward $2, card money $0, influence 2.
    return build(
        [[103, 151], [member(104, engaged=partner_engaged), 112], [105]],
        [0, 0, 0],
        heist_row=GANG_WAR,
        market=MARKET,
        chapter=2,
        options=options,
    )


def test_cooperative_heist_first_gangster_own_then_anyone_and_reward_to_each() -> None:
    s = coop_state()
    _, s = run(s, 0, ChooseHeist(305))
    assert rejected(s, 0, Commit(104)) == "not_your_gangster"  # the first must be our own
    _, s = run(s, 0, Commit(103))
    assert Commit(104) in game.legal(s, 0) and Commit(151) in game.legal(s, 0)
    events, s = run(s, 0, Commit(104))
    done = of_type(events, HeistCompleted)[0]
    assert done.coop_money == (2, 2, 0) and money(s) == [2, 2, 0]
    assert engaged(s, 104) and engaged(s, 103) and not engaged(s, 151)
    assert s.players[0].heists == (305,) and s.players[1].heists == ()


def test_cooperative_heist_chosen_only_when_the_others_can_cover_it() -> None:
    s = coop_state(partner_engaged=True)  # 151 brings the Hacker: no partner needed
    assert ChooseHeist(305) in game.legal(s, 0)
    s = build([[103], [member(104, engaged=True)]], heist_row=GANG_WAR, market=MARKET, chapter=2)
    assert rejected(s, 0, ChooseHeist(305)) == "heist_not_possible"


def test_cooperation_reward_alone_default_and_coop_reward_needs_partner_option() -> None:
    events, _ = heist(coop_state(), 0, 305, [103, 151])
    assert of_type(events, HeistCompleted)[0].coop_money == (2, 0, 0)
    events, _ = heist(coop_state({"coop_reward_needs_partner": True}), 0, 305, [103, 151])
    assert of_type(events, HeistCompleted)[0].coop_money == (0, 0, 0)
    events, _ = heist(coop_state({"coop_reward_needs_partner": True}), 0, 305, [103, 104])
    assert of_type(events, HeistCompleted)[0].coop_money == (2, 2, 0)


def test_other_players_gangsters_never_join_a_normal_heist() -> None:
    s = build([[103], [104, 153]], heist_row=GENESIS, market=MARKET)
    _, s = run(s, 0, ChooseHeist(201))
    assert rejected(s, 0, Commit(153)) == "not_your_gangster"


# --- Special rewards ----------------------------------------------------------------------------


def test_fast_recruitment_hires_at_once() -> None:
    # 207 needs Informant + Hacker, pays $2, fast recruitment.
    s = build([[105, 151], [102]], [3, 0], heist_row=GENESIS, market=MARKET)
    events, s = heist(s, 0, 207, [105, 151])
    assert s.stage == "reward" and s.rewards == ("fast_recruit",)
    assert set(game.legal(s, 0)) == {FastRecruit(g) for g in MARKET} | {Skip()}
    events, s = run(s, 0, FastRecruit(132))
    assert gang(s, 0) == [105, 151, 132] and money(s)[0] == 0 and not engaged(s, 132)
    assert of_type(events, TurnStarted)[-1].seat == 1


def test_fast_recruitment_skipped_when_nothing_is_affordable() -> None:
    s = build([[105, 151], [102]], [0, 0], heist_row=GENESIS, market=[123, 132, 142])
    events, s = heist(s, 0, 207, [105, 151])
    assert RewardSkipped(seat=0, reward="fast_recruit", forced=True) in events
    assert s.active == 1


def test_learn_a_skill_one_participant_gains_it() -> None:
    # 215 needs a Mercenary and teaches Leader.
    s = build([[102, 152, 153], [101]], heist_row=GENESIS, market=MARKET)
    _, s = heist(s, 0, 215, [152])
    assert game.legal(s, 0) == [LearnSkill(152), Skip()]
    assert rejected(s, 0, LearnSkill(153)) == "not_participant"
    _, s = run(s, 0, LearnSkill(152))
    assert s.players[0].gang[1].learned == "leader"


def test_learn_a_skill_at_most_one_per_gangster() -> None:
    # 225 needs 2 Leaders and teaches Informant; 154 has learned already.
    s = build([[101, member(154, learned="hacker")], [102]], heist_row=GENESIS, market=MARKET)
    _, s = heist(s, 0, 225, [101, 154])
    assert game.legal(s, 0) == [LearnSkill(101), Skip()]
    assert rejected(s, 0, LearnSkill(154)) == "already_learned"


def test_learn_a_skill_never_a_second_leader() -> None:
    # The Boss 103 (Leader, Mercenary) is the only participant of 215 (teaches Leader).
    s = build([[103], [102]], heist_row=GENESIS, market=MARKET)
    events, s = heist(s, 0, 215, [103])
    assert RewardSkipped(seat=0, reward="learn_skill", forced=True) in events
    assert s.players[0].gang[0].learned is None


def test_play_again_takes_another_turn_but_not_twice_in_a_row() -> None:
    s = build(
        [[101, 121, 146, 152, 122], [102]],
        heist_row=GANG_WAR,
        market=MARKET,
        chapter=2,
    )
    events, s = heist(s, 0, 323, [101, 121])  # Leader, 2 Snipers: play again
    assert PlayAgain(seat=0, granted=True) in events
    start = of_type(events, TurnStarted)[-1]
    assert start.seat == 0 and start.extra and s.extra_turn
    events, s = heist(s, 0, 314, [146, 152, 122])  # 2 Leaders, Mercenary, Informant
    assert PlayAgain(seat=0, granted=False) in events
    assert of_type(events, TurnStarted)[-1].seat == 1 and not s.extra_turn


def test_theft_takes_up_to_n_from_one_opponent() -> None:
    # 318 needs Sniper + 2 Brawlers: theft $2.
    s = build([[102, 112], [101], [103]], [0, 5, 1], heist_row=GANG_WAR, market=MARKET, chapter=2)
    _, s = heist(s, 0, 318, [112, 102])
    assert set(game.legal(s, 0)) == {Theft(1, 1), Theft(1, 2), Theft(2, 1), Skip()}
    assert rejected(s, 0, Theft(2, 2)) == "bad_amount"
    assert rejected(s, 0, Theft(0, 1)) == "bad_target"
    _, s = run(s, 0, Theft(1, 2))
    assert money(s) == [2, 3, 1]


def test_diversion_engages_up_to_n_available_opponent_gangsters() -> None:
    # 311 needs 2 Mercenaries + a Brawler: diversion x2.
    s = build(
        [[103, 117], [102, 123, member(131, engaged=True)], [104]],
        heist_row=GANG_WAR,
        market=MARKET,
        chapter=2,
    )
    _, s = heist(s, 0, 311, [117])
    assert set(game.legal(s, 0)) == {Diversion(102), Diversion(123), Diversion(104), Skip()}
    assert rejected(s, 0, Diversion(131)) == "not_available"
    assert rejected(s, 0, Diversion(103)) == "bad_target"
    _, s = run(s, 0, Diversion(123))
    assert engaged(s, 123) and s.diversions_left == 1 and s.stage == "reward"
    _, s = run(s, 0, Diversion(104))
    assert engaged(s, 104) and s.active == 1 and s.stage == "turn"


def test_diversion_can_stop_early() -> None:
    s = build([[103, 117], [102, 123]], heist_row=GANG_WAR, market=MARKET, chapter=2)
    _, s = heist(s, 0, 311, [117])
    _, s = run(s, 0, Diversion(123))
    _, s = run(s, 0, Skip())
    assert not engaged(s, 102) and s.active == 1


def test_assassination_victim_discards_a_two_skill_gangster_of_their_choice() -> None:
    # 418 needs a Sniper + 2 Brawlers: assassination.
    s = build(
        [
            [102, 112],
            [101, 111, 117, member(121, learned="brawler")],
            [104, 153],
            [105, 131],
        ],
        heist_row=DOMINATION,
        market=MARKET,
        chapter=3,
    )
    _, s = heist(s, 0, 418, [112, 102])
    assert set(game.legal(s, 0)) == {Assassination(1), Assassination(2), Skip()}
    assert rejected(s, 0, Assassination(3)) == "bad_target"
    _, s = run(s, 0, Assassination(1))
    assert game.to_act(s) == {1} and game.legal(s, 0) == []
    assert set(game.legal(s, 1)) == {Discard(111), Discard(121)}  # 117 has 3 skills
    assert rejected(s, 1, Discard(117)) == "bad_discard"
    assert rejected(s, 0, Skip()) == "not_your_turn"
    _, s = run(s, 1, Discard(121))
    assert gang(s, 1) == [101, 111, 117] and 121 in s.removed and 121 not in s.gangster_discard
    assert s.active == 1 and s.stage == "turn"


def test_rally_makes_the_whole_gang_available() -> None:
    # 402 needs Mercenary, Informant, 2 Snipers: influence 3 and rally.
    s = build(
        [[105, 111, 121, member(152, engaged=True)], [102]],
        heist_row=DOMINATION,
        market=MARKET,
        chapter=3,
    )
    events, s = heist(s, 0, 402, [111, 105, 121])
    assert GangRallied(0) in events
    assert not any(m.engaged for m in s.players[0].gang)
