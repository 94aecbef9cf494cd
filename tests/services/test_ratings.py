"""Ratings without a store: ranks from a result, identities of seats, one game's fold."""

from __future__ import annotations

import pytest

from domain.core import Result
from services.eventstore.records import GameMeta
from services.readside.ratingmath import (
    MODEL,
    NEW,
    RatedGame,
    Rating,
    fold,
    identities,
    order,
    ranks,
    rated_game,
)


def meta(seats: int, ai: dict[int, int | str] | None = None) -> GameMeta:
    return GameMeta("gangsta", seats, {}, ai or {}, 0)


@pytest.mark.parametrize(
    ("scores", "winners", "expected"),
    [
        ([10, 7], [0], [1, 2]),
        ([7, 10], [1], [2, 1]),
        ([5, 5], [0, 1], [1, 1]),  # a draw: every seat wins
        ([9, 3, 9, 1], [0, 2], [1, 3, 1, 4]),  # a shared win, the others by score
        ([9, 4, 4, 1], [0], [1, 2, 2, 4]),  # equal scores share a rank
        ([9, 4, 12, 1], [0], [1, 3, 2, 4]),  # the winner by the rules, not the top score
        ([3, 3, 1], [], [1, 1, 3]),  # no winner named: by score alone
    ],
)
def test_ranks(scores: list[int], winners: list[int], expected: list[int]) -> None:
    assert ranks(Result(scores, winners, "end")) == expected


def test_identities_of_people_ai_levels_and_open_seats() -> None:
    seats = identities(meta(4, {1: "greedy", 3: 0}), {0: "alice"})
    assert seats == {0: "alice", 1: "ai:greedy", 3: "ai:random"}  # seat 2 is open: nobody


def test_unrated_and_open_seats_are_left_out() -> None:
    result = Result([4, 9, 7, 1], [1], "end", {"unrated": [2]})
    game = rated_game(meta(4, {1: "greedy"}), {0: "alice", 2: "bob"}, result, 5)
    assert game == RatedGame("gangsta", 5, [("alice", 3), ("ai:greedy", 1)])
    # A result without the key (a game before the table layer) rates every seat.
    plain = rated_game(meta(2), {0: "alice", 1: "bob"}, Result([1, 2], [1], "end"), 5)
    assert plain.seats == [("alice", 2), ("bob", 1)]


def test_a_win_moves_the_winner_up_and_the_loser_down() -> None:
    new = fold({}, RatedGame("famiglia", 1, [("a", 1), ("b", 2)]))
    assert new["a"].mu > NEW.mu > new["b"].mu
    assert new["a"].sigma < NEW.sigma and new["b"].sigma < NEW.sigma
    assert new["a"].games == new["b"].games == 1
    assert new["a"].display > new["b"].display


def test_the_fold_is_the_librarys_plackett_luce() -> None:
    ratings = {"a": Rating(30.0, 4.0, 7), "b": Rating(22.0, 6.0, 2), "c": Rating(25.0, 8.0, 0)}
    new = fold(ratings, RatedGame("gangsta", 1, [("a", 3), ("b", 1), ("c", 2)]))
    teams = [[MODEL.rating(r.mu, r.sigma)] for r in ratings.values()]
    expected = MODEL.rate(teams, ranks=[3.0, 1.0, 2.0])
    for (identity, old), (rating,) in zip(ratings.items(), expected, strict=True):
        assert new[identity] == Rating(rating.mu, rating.sigma, old.games + 1)


def test_a_draw_between_equals_moves_nobody_s_mu() -> None:
    new = fold({}, RatedGame("famiglia", 1, [("a", 1), ("b", 1)]))
    assert new["a"].mu == new["b"].mu == NEW.mu
    assert new["a"].sigma < NEW.sigma


def test_two_seats_of_one_ai_level_count_once_with_both_moves() -> None:
    game = RatedGame("gangsta", 1, [("ai:greedy", 1), ("alice", 2), ("ai:greedy", 3)])
    new = fold({}, game)
    alone = MODEL.rate([[MODEL.rating()] for _ in range(3)], ranks=[1.0, 2.0, 3.0])
    mu_moves = alone[0][0].mu - NEW.mu + alone[2][0].mu - NEW.mu
    assert new["ai:greedy"].mu == pytest.approx(NEW.mu + mu_moves)
    assert new["ai:greedy"].games == 1
    assert new["alice"].mu == alone[1][0].mu


def test_a_game_with_fewer_than_two_identities_rates_nobody() -> None:
    assert fold({}, RatedGame("gangsta", 1, [("alice", 1)])) == {}
    assert fold({}, RatedGame("gangsta", 1, [("ai:random", 1), ("ai:random", 2)])) == {}


def test_the_fold_order_is_finish_time_then_game_id() -> None:
    games = {
        "b": RatedGame("famiglia", 5, []),
        "a": RatedGame("famiglia", 5, []),
        "c": RatedGame("famiglia", 2, []),
    }
    assert order(games) == ["c", "a", "b"]
