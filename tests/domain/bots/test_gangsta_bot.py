"""The greedy Gangsta! bot in explicit situations (GANGSTA.md), from real views and legal()."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from domain.bots import choose
from domain.gangsta import game
from domain.gangsta.messages import (
    ChooseHeist,
    Commit,
    Discard,
    DiscardRowCard,
    HeistCompleted,
    Hire,
    KeepResource,
    Owed,
    PrivateJet,
    Ready,
    Skip,
)
from domain.gangsta.state import State
from domain.play import play, secret_for
from tests.domain.gangsta.helpers import build, member, run


def greedy(state: State, seat: int = 0) -> Any:
    command = choose("gangsta", "greedy", game.view(state, seat), game.legal(state, seat), b"t")
    assert command in game.legal(state, seat)
    return command


def test_picks_the_heist_with_the_best_reward_per_gangster() -> None:
    # 203 pays $4 for one gangster (111: Mercenary and Sniper); 201 $3, 210 $1 + 1 influence.
    state = build([[103, 111], [101]], [0, 0], heist_row=[210, 201, 203, 213])
    assert greedy(state) == ChooseHeist(203)


def test_commits_the_gangster_covering_most_of_what_is_needed() -> None:
    state = build([[103, 111], [101]], [0, 0], heist_row=[203])
    _, state = run(state, 0, ChooseHeist(203))
    assert greedy(state) == Commit(111)


def test_takes_a_free_mobilisation_first() -> None:
    state = build(
        [[101, member(121, engaged=True)], [102]], [5, 5], heist_row=[220], free_readies=1
    )
    assert greedy(state) == Ready(121)


def test_hires_a_cheap_useful_gangster_rather_than_pass() -> None:
    state = build([[101], [102]], [8, 8], heist_row=[213], market=[117, 121])
    assert greedy(state) == Hire(121)


def test_discards_its_least_valuable_gangster() -> None:
    state = build([[101, 117, 121], [102]], [0, 0], heist_row=[213])
    state = msgspec.structs.replace(state, owed=(Owed(seat=0, chooser=0, reason="snitch"),))
    assert greedy(state) == Discard(121)


def test_chooses_the_opponents_most_valuable_gangster() -> None:
    state = build([[101, 117], [102, 117 - 1, 121]], [0, 0], heist_row=[213])
    state = msgspec.structs.replace(state, owed=(Owed(seat=1, chooser=0, reason="gang_war"),))
    assert greedy(state) == Discard(116)


def test_after_a_pass_discards_the_card_the_next_player_wants() -> None:
    # Seat 1's 112 (Sniper, Brawler) can take 218 alone; nobody there has a Mercenary for 205.
    state = build([[103, 111], [101, 112]], [0, 0], heist_row=[205, 218], stage="pass_discard")
    assert greedy(state) == DiscardRowCard(218)


def test_prefers_a_heist_that_engages_everyone_left_synchronisation() -> None:
    # 203 ($4) needs only 111; 201 ($3) needs the Boss (Leader) and 111 (Mercenary): the whole
    # gang Engaged, so all of it is Available again at the start of the next turn.
    state = build([[101, 111], [102]], [0, 0], heist_row=[203, 201])
    assert greedy(state) == ChooseHeist(201)


def test_takes_a_cooperative_heist_with_the_opponents_gangsters() -> None:
    # 303 needs Leader, Mercenary, Informant, Sniper: the Boss 103 brings the first two, the
    # opponent's 101 (Sniper) and 114 (Informant) the rest.
    state = build([[103], [101, 114]], [0, 0], heist_row=[303], chapter=2)
    assert greedy(state) == ChooseHeist(303)
    _, state = run(state, 0, ChooseHeist(303))
    assert greedy(state) == Commit(103)  # the first gangster committed is one's own
    events: list[Any] = []
    while state.stage == "heist":
        step, state = run(state, 0, greedy(state))
        events += step
    (done,) = [e for e in events if isinstance(e, HeistCompleted)]
    assert (done.seat, done.heist, sorted(done.participants)) == (0, 303, [101, 103, 114])


# --- Resources module -----------------------------------------------------------------------


def bot_policy(level: str, name: bytes) -> Any:
    """A policy for domain.play: the bot of that level, seeded per move as the AI worker does
    (a fixed seed per state would repeat a random choose-and-cancel forever)."""
    moves = iter(range(1_000_000))

    def policy(seat: int, view: Any, legal: list[Any]) -> Any:
        return choose("gangsta", level, view, legal, name + b"-%d" % next(moves))

    return policy


def test_greedy_and_random_bots_play_resources_games_to_the_end() -> None:
    """Every seat count, greedy against random: each keeps a card, uses the abilities the
    legal commands offer, and the game ends."""
    used: set[str] = set()
    for seats in (2, 3, 4):
        for n in range(3):
            policies = [
                bot_policy("greedy" if (seat + n) % 2 == 0 else "random", b"%d" % seat)
                for seat in range(seats)
            ]
            options = game.options({"resources": True})
            steps = list(play(game, seats, secret_for(800 + 10 * seats + n), options, policies))
            assert game.result(steps[-1].state) is not None
            used |= {type(step.command).__name__ for step in steps}
    assert {"KeepResource", "Hire", "ChooseHeist", "Pass"} <= used


def test_greedy_keeps_the_resource_card_it_can_activate_for_more_influence() -> None:
    s = build([[104], [102]], [0, 0], heist_row=[213], options={"resources": True})
    players = (msgspec.structs.replace(s.players[0], dealt=(901, 909)), s.players[1])
    s = msgspec.structs.replace(s, players=players, stage="resources")
    # 909 Bank (influence 4) needs 2 Hackers, the Boss 104 has one; 901 (3) needs 4 skills.
    assert greedy(s) == KeepResource(909)


def test_greedy_declines_a_private_jet_that_would_spoil_the_synchronisation() -> None:
    s = build(
        [[member(101, engaged=True), member(114, engaged=True)], [103]],
        [0, 0],
        heist_row=[213],
        options={"resources": True},
    )
    s = msgspec.structs.replace(s, jets=(0,), stage="reward", rewards=("rally",), active=1)
    assert game.legal(s, 0) == [PrivateJet(101), PrivateJet(114), Skip()]
    assert greedy(s) == Skip()
    s = msgspec.structs.replace(
        s,
        players=(
            msgspec.structs.replace(s.players[0], gang=(member(101, engaged=True), member(114))),
            s.players[1],
        ),
    )
    assert greedy(s) == PrivateJet(101)


def test_a_rich_gang_with_leaders_hires_rather_than_pass_forever() -> None:
    # Seen in greedy-only games: three Leaders' income ($3 a pass) outweighed every hire, so a
    # gang with $700 passed for ever and the game never ended. Money a gang cannot need is
    # worth little; a gangster is worth hiring.
    state = build([[104, 115, 137], [101, 125]], [700, 8], heist_row=[213], market=[142, 136])
    assert isinstance(greedy(state), Hire)


@pytest.mark.slow
def test_greedy_games_end() -> None:
    # Four greedy gangs, seeds that once stalled (every seat passing, nobody hiring).
    def bot(n: int) -> Any:
        def policy(seat: int, view: Any, legal: list[Any]) -> Any:
            return choose("gangsta", "greedy", view, legal, f"{n}-{seat}-{len(legal)}".encode())

        return policy

    for n in range(40):
        steps = list(play(game, 4, secret_for(n), game.options({}), [bot(n)] * 4, 3000))
        assert game.result(steps[-1].state) is not None
