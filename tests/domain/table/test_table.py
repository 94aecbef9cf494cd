"""The table's commands and events over both games ("When time runs out, or a player
leaves"; docs/table.md): concessions, time-outs, draws, results, refusals."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from domain import GAMES
from domain.core import RuleViolation, check_commitment
from domain.play import random_policy, secret_for
from domain.table import (
    AcceptDraw,
    Concede,
    DeclineDraw,
    DrawAgreed,
    OfferDraw,
    TimedOut,
    Undo,
    bots,
    table_view,
    time_out,
)


def started(name: str, seats: int, number: int = 1) -> Any:
    game = GAMES[name]
    state = None
    for event in game.start(seats, secret_for(number), game.options(None)):
        state = game.evolve(state, event)
    return state


def apply(name: str, state: Any, events: list[Any]) -> Any:
    for event in events:
        # Every table event goes over the wire as the game's Event union: round-trip it.
        event = msgspec.json.decode(msgspec.json.encode(event), type=GAMES[name].Event)
        state = GAMES[name].evolve(state, event)
    return state


def send(name: str, state: Any, seat: int, command: Any) -> Any:
    return apply(name, state, GAMES[name].decide(state, seat, command))


def refused(name: str, state: Any, seat: int, command: Any) -> RuleViolation:
    with pytest.raises(RuleViolation) as exc:
        GAMES[name].decide(state, seat, command)
    return exc.value


@pytest.mark.parametrize("name", ["famiglia", "gangsta"])
def test_a_concession_in_a_2_player_game_ends_it_as_the_conceders_loss(name: str) -> None:
    game = GAMES[name]
    state = started(name, 2)
    idle = 1 - min(game.to_act(state))  # conceding is allowed at any time, not only one's turn
    (event,) = game.decide(state, idle, Concede())
    assert event.secret is not None and check_commitment(event.secret, state.game.commitment)
    state = apply(name, state, [event])
    result = game.result(state)
    assert result is not None
    assert (result.winners, result.reason) == ([1 - idle], "conceded")
    assert result.details["unrated"] == [] and len(result.scores) == 2
    assert game.to_act(state) == set() and game.legal(state, 1 - idle) == []
    assert game.view(state, 0).result == result  # the page shows the end as any other
    assert refused(name, state, 1 - idle, Concede()).code == "game_over"
    assert refused(name, state, 1 - idle, Undo()).code == "game_over"


def test_a_concession_with_4_players_makes_a_bot_seat_that_is_unrated() -> None:
    game = GAMES["gangsta"]
    state = send("gangsta", started("gangsta", 4), 2, Concede())
    assert game.result(state) is None and bots(state) == {2}
    shown = table_view(state, 0)
    assert (shown.bots, shown.unrated, shown.conceded) == ([2], [2], [2])
    assert refused("gangsta", state, 2, Concede()).code == "seat_is_bot"
    assert game.legal(state, min(game.to_act(state)))  # the game goes on, bots play seat 2


@pytest.mark.parametrize(
    ("seats", "forfeit", "ends", "unrated"),
    [(2, True, True, []), (2, False, False, []), (3, True, False, [1]), (4, False, False, [])],
)
def test_time_outs(seats: int, forfeit: bool, ends: bool, unrated: list[int]) -> None:
    game = GAMES["gangsta"]
    state = started("gangsta", seats)
    events = time_out(state, 1, forfeit)
    assert [type(e) for e in events] == [TimedOut]
    assert (events[0].secret is not None) == ends
    state = apply("gangsta", state, events)
    result = game.result(state)
    if ends:
        assert result is not None and result.reason == "timed_out" and 1 not in result.winners
    else:
        assert result is None and bots(state) == {1}
        assert table_view(state, None).unrated == unrated
        assert time_out(state, 1, forfeit) == []  # already a bot seat: nothing more happens
    assert table_view(state, None).timed_out == [1]


def test_a_draw_offered_and_accepted_ends_as_a_draw() -> None:
    game = GAMES["famiglia"]
    state = send("famiglia", started("famiglia", 2), 0, OfferDraw())
    assert table_view(state, 1).draw_offer == 0
    assert refused("famiglia", state, 0, AcceptDraw()).code == "no_draw_offer"  # not one's own
    assert refused("famiglia", state, 1, OfferDraw()).code == "draw_already_offered"
    (event,) = game.decide(state, 1, AcceptDraw())
    assert isinstance(event, DrawAgreed)
    result = game.result(apply("famiglia", state, [event]))
    assert result is not None and (result.winners, result.reason) == ([0, 1], "draw_agreed")


def test_a_declined_offer_is_not_repeated_before_a_move() -> None:
    game = GAMES["famiglia"]
    state = send("famiglia", started("famiglia", 2), 1, OfferDraw())
    state = send("famiglia", state, 0, DeclineDraw())
    assert table_view(state, 0).draw_offer is None
    assert refused("famiglia", state, 1, OfferDraw()).code == "draw_offer_declined"
    assert refused("famiglia", state, 0, DeclineDraw()).code == "no_draw_offer"
    seat = min(game.to_act(state))
    state = send("famiglia", state, seat, game.legal(state, seat)[0])
    state = send("famiglia", state, 1, OfferDraw())  # a move of the game was made since
    assert table_view(state, 0).draw_offer == 1


def test_draws_are_for_two_players() -> None:
    assert refused("gangsta", started("gangsta", 3), 0, OfferDraw()).code == "draw_two_players_only"
    assert not table_view(started("gangsta", 3), 0).draws


def _after_a_reveal() -> tuple[Any, int, Any]:
    """A Famiglia position right after a refresh turned cards up (FAMIGLIA.md, action 1), and a
    move of the same seat that does not end its turn (an Accountant or a Brute)."""
    game = GAMES["famiglia"]
    for number in range(1, 50):
        state = started("famiglia", 2, number)
        policy = random_policy(str(number).encode())
        while game.result(state) is None:
            seat = min(game.to_act(state))
            events = game.decide(state, seat, policy(seat, None, game.legal(state, seat)))
            state = apply("famiglia", state, events)
            if type(events[-1]).__name__ != "StreetRevealed" or game.to_act(state) != {seat}:
                continue
            for command in game.legal(state, seat):
                if type(command).__name__ in ("PlayAccountant", "PlayBrute"):
                    return state, seat, command
    raise AssertionError("no refresh followed by an Accountant or a Brute")


def test_undo_is_refused_right_after_a_reveal_and_allowed_after_a_move() -> None:
    game = GAMES["famiglia"]
    state, seat, move = _after_a_reveal()
    assert not table_view(state, seat).can_undo
    violation = refused("famiglia", state, seat, Undo())
    assert (violation.code, violation.params["case"]) == ("undo_not_allowed", "revealed")
    before = [game.view(state, s) for s in (0, 1, None)]
    moved = send("famiglia", state, seat, move)
    assert table_view(moved, seat).can_undo and not table_view(moved, 1 - seat).can_undo
    assert refused("famiglia", moved, 1 - seat, Undo()).params["case"] == "not_your_turn"
    undone = send("famiglia", moved, seat, Undo())
    assert [game.view(undone, s) for s in (0, 1, None)] == before
    assert refused("famiglia", undone, seat, Undo()).params["case"] == "nothing"


def test_the_table_view_says_who_may_offer_a_draw() -> None:
    state = started("famiglia", 2)
    assert table_view(state, 0).can_offer_draw and not table_view(state, None).can_offer_draw
    offered = send("famiglia", state, 0, OfferDraw())
    assert not table_view(offered, 0).can_offer_draw and not table_view(offered, 1).can_offer_draw
    declined = send("famiglia", offered, 1, DeclineDraw())
    assert not table_view(declined, 0).can_offer_draw and table_view(declined, 1).can_offer_draw


def ended_by_the_table(name: str, how: str) -> Any:
    """A 2-player game the table ended: seat 1 concedes or forfeits on time, or a draw."""
    state = started(name, 2)
    if how == "conceded":
        return send(name, state, 1, Concede())
    if how == "timed_out":
        return apply(name, state, time_out(state, 1, True))
    return send(name, send(name, state, 0, OfferDraw()), 1, AcceptDraw())


@pytest.mark.parametrize("how", ["conceded", "timed_out", "draw_agreed"])
@pytest.mark.parametrize("seat", [0, 1, None])
def test_a_game_the_table_ended_is_viewed_as_over_like_a_rules_end(
    how: str, seat: int | None
) -> None:
    """Pages read the end from the view alone (its phase or stage, who is to move): a game the
    table ended must not show anyone still to move, for the seats and for a spectator."""
    famiglia = GAMES["famiglia"].view(ended_by_the_table("famiglia", how), seat)
    assert (famiglia.phase, famiglia.to_move, famiglia.actions) == ("over", None, [])
    gangsta = GAMES["gangsta"].view(ended_by_the_table("gangsta", how), seat)
    assert (gangsta.stage, gangsta.to_act, gangsta.owed, gangsta.jets) == ("over", (), (), ())
    assert gangsta.result is not None and gangsta.result.reason == how


@pytest.mark.parametrize("how", ["conceded", "timed_out", "draw_agreed"])
def test_famiglia_shows_both_hands_once_the_table_ended_it_as_at_a_rules_end(how: str) -> None:
    state = ended_by_the_table("famiglia", how)
    hands = [list(hand) for hand in state.game.hands]
    for seat in (0, 1, None):
        assert GAMES["famiglia"].view(state, seat).hands == hands


def test_famiglia_hides_the_other_hand_while_the_game_runs() -> None:
    state = started("famiglia", 2)
    assert GAMES["famiglia"].view(state, 0).hands is None
    assert GAMES["famiglia"].view(state, None).hands is None
