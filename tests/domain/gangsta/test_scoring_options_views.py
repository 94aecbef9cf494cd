"""Scenario tests: final scoring and tie-break, the clans option, option validation and the
published preset, views and redaction of hidden information."""

from __future__ import annotations

import msgspec
import pytest

from domain.core import RuleViolation
from domain.gangsta import game, rules
from domain.gangsta.messages import (
    CardsDealt,
    ChooseHeist,
    Commit,
    GameEnded,
    GameStarted,
    Hire,
    Options,
)
from domain.gangsta.state import State
from domain.play import secret_for
from tests.domain.gangsta.helpers import build, run, started

MARKET = [123, 132, 133, 134, 136]


def final(state: State) -> GameEnded:
    return rules.final_scores(state, "nine_gangsters")


def test_scoring_gangsters_heists_most_money_and_most_gangsters() -> None:
    # seat 0: gang influence 0+3+3, heist 204 (2); seat 1: gang 0+3, heists 212 (1) + 217 (2).
    s = build([[101, 117, 152], [102, 125]], [5, 5], heists=[[204], [212, 217]])
    ended = final(s)
    assert ended.gang_influence == (6, 3) and ended.heist_influence == (2, 3)
    assert ended.money_bonus == (1, 1)  # tied for most money: 1 each
    assert ended.size_bonus == (2, 0)
    assert ended.scores == (11, 7) and ended.winners == (0,)


def test_scoring_equal_totals_and_equal_gangster_counts_share_the_win() -> None:
    s = build([[101, 152], [102, 125]], [0, 0])
    ended = final(s)
    assert ended.scores == (5, 5) and ended.winners == (0, 1)  # same size: shared win
    s = build([[101, 152, 121], [102, 125, 131], [104, 122, 141]], [3, 3, 0])
    ended = final(s)  # 4+1+1, 4+1+1, 2+0+1: two tied, same size
    assert ended.scores == (6, 6, 3) and ended.winners == (0, 1)


def test_scoring_tie_broken_by_gangster_count() -> None:
    s = build([[101, 152, 141], [102, 125]], [0, 3])
    ended = final(s)  # seat 0: 3+1 + 0 + 2 = 6; seat 1: 3 + 2 + 0 = 5
    assert ended.scores == (6, 5)
    s = build([[101, 152, 141], [102, 125]], [0, 3], heists=[[], [210]])
    ended = final(s)  # seat 1 gains 1: 6 and 6, seat 0 has more gangsters
    assert ended.scores == (6, 6) and ended.winners == (0,)


def test_clans_option_hire_discount_from_the_boss_clan() -> None:
    s = build([[102], [101]], [3, 3], market=[123, 132, 141], heist_row=[201, 202])
    assert Hire(123) not in game.legal(s, 0)  # a Cartel gangster, $4
    s = build(
        [[102], [101]],
        [3, 3],
        market=[123, 132, 141],
        heist_row=[201, 202],
        options={"clans": True},
    )
    assert Hire(123) in game.legal(s, 0)
    events, s = run(s, 0, Hire(123))
    assert events[0].cost == 3 and s.players[0].money == 0


def test_clans_option_clan_majorities_replace_most_gangsters() -> None:
    # Cartel: seat 0 has 102, 121 (2) against 0; Bratva: seat 1 has 101, 111 against seat 0's 112:
    # seat 1 alone; Mafia: 141 and 142 one each: tied.
    gangs = [[102, 121, 112, 141], [101, 111, 142]]
    ended = final(build(gangs, [0, 0], options={"clans": True}))
    assert ended.size_bonus == (2 + 1, 2 + 1)
    ended = final(build(gangs, [0, 0]))
    assert ended.size_bonus == (2, 0)


def test_options_defaults_are_the_description() -> None:
    assert game.options(None) == Options()
    assert Options().domination_snitches == (2, 3, 3, 4, 4)


def test_published_preset_switches_every_option_and_can_be_overridden() -> None:
    opts = game.options({"preset": "published"})
    assert opts.domination_snitches == (3, 3, 3, 4, 4)
    assert opts.coop_reward_needs_partner and opts.refill == "one_per_row"
    assert opts.pass_discard and not opts.public_heist_influence and not opts.clans
    opts = game.options({"preset": "published", "min_pass_income": 2})
    assert opts.min_pass_income == 2 and opts.refill == "one_per_row"


@pytest.mark.parametrize(
    "raw",
    [
        {"unknown": 1},
        {"refill": "sometimes"},
        {"domination_snitches": [2, 3]},
        {"domination_snitches": [2, 3, 3, 4, -1]},
        {"pass_discard": "yes"},
        {"min_pass_income": -1},
        {"preset": "deluxe"},
        {"resources": "yes"},
    ],
)
def test_bad_options_are_refused_with_a_clear_message(raw: dict) -> None:
    with pytest.raises(RuleViolation) as exc:
        game.options(raw)
    assert exc.value.code == "bad_options"
    assert next(iter(raw)) in exc.value.message or "preset" in exc.value.message


def test_view_hides_other_players_heists_unless_public_or_over() -> None:
    s = build([[101, 117], [102]], [5, 5], heists=[[204, 212], [217]])
    v = game.view(s, 0)
    assert v.players[0].heists == (204, 212) and v.players[0].heist_influence == 3
    assert v.players[1].heists is None and v.players[1].heist_influence is None
    assert v.players[1].heists_completed == 1
    spectator = game.view(s, None)
    assert all(p.heists is None and p.heist_influence is None for p in spectator.players)
    public = game.view(
        build([[101], [102]], heists=[[204], [217]], options={"public_heist_influence": True}), 1
    )
    assert public.players[0].heist_influence == 2


def test_view_shows_deck_sizes_never_order_and_never_the_seed() -> None:
    s = started(3)
    v = game.view(s, 1)
    assert v.gangster_deck == len(s.gangster_deck) and v.heist_decks == (25, 36, 35)
    raw = msgspec.json.encode(v)
    assert b"secret" not in raw and b"seed" not in raw


def test_redact_drops_the_secret_and_the_end_reveals_it() -> None:
    events = game.start(2, secret_for(4), game.options(None))
    started_event = events[0]
    assert isinstance(started_event, GameStarted) and started_event.secret == secret_for(4)
    assert game.redact(started_event, 0).secret is None
    assert game.redact(started_event, None).secret is None
    dealt = next(e for e in events if isinstance(e, CardsDealt))
    assert game.redact(dealt, 1) == dealt


def test_completed_heist_identity_is_public_history_but_views_keep_totals_hidden() -> None:
    s = build([[103, 152], [102]], heist_row=[201, 202, 203, 204, 205], market=MARKET)
    _, s = run(s, 0, ChooseHeist(201))
    events, s = run(s, 0, Commit(152))
    events, s = run(s, 0, Commit(103))
    assert any(getattr(game.redact(e, 1), "heist", None) == 201 for e in events)
    assert game.view(s, 1).players[0].heist_influence is None


def test_evolve_refuses_history_that_does_not_match_the_seed() -> None:
    events = game.start(2, secret_for(5), game.options(None))
    state = game.evolve(None, events[0])
    dealt = next(e for e in events if isinstance(e, CardsDealt))
    forged = msgspec.structs.replace(dealt, cards=tuple(reversed(dealt.cards)))
    with pytest.raises(RuleViolation, match="top of the deck") as exc:
        game.evolve(state, forged)
    assert exc.value.code == "history_mismatch"


def test_terminal_runner_plays_random_players_to_the_end(capsys: pytest.CaptureFixture) -> None:
    from domain import GAMES
    from domain.cli import main

    assert GAMES["gangsta"].inner is game  # played at the table (domain.table)
    assert main(game, ["--seats", "4", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "seat 0:" in out and "game_ended" in out and "winners:" in out


def test_the_result_says_a_tie_was_broken_by_the_gangster_counts() -> None:
    s = build([[101, 152, 141], [102, 125]], [0, 3], heists=[[], [210]])
    result = game.evolve(s, final(s)).result
    assert result.winners == [0]
    assert result.details["gangsters"] == [3, 2] and result.details["tie_break"] is True
    s = build([[101, 152, 141], [102, 125]], [0, 3])
    assert game.evolve(s, final(s)).result.details["tie_break"] is False  # no tie: 6 to 5
