"""An open game nobody joined expires (issue "open games expire"): the table's ``expired``
event ends it, unrated for every seat, revealing the secret as every end does."""

from __future__ import annotations

import msgspec
import pytest

from domain import GAMES
from domain.core import HistoryMismatch, RuleViolation, check_commitment
from domain.table import Concede, Expired, expire
from tests.domain.table.test_table import apply, send, started


@pytest.mark.parametrize(("name", "seats"), [("famiglia", 2), ("gangsta", 4)])
def test_an_expired_game_is_over_unrated_with_no_winner(name: str, seats: int) -> None:
    game = GAMES[name]
    state = started(name, seats)
    (event,) = expire(state, 0.5)
    assert event == Expired(days=0.5, secret=event.secret)
    assert event.secret is not None and check_commitment(event.secret, state.game.commitment)
    state = apply(name, state, [event])
    result = game.result(state)
    assert result is not None
    assert (result.reason, result.winners) == ("expired", [])
    assert result.details["unrated"] == list(range(seats))
    assert result.details["days"] == 0.5  # for the pages: "nobody joined within N days"
    assert game.to_act(state) == set()
    assert game.view(state, None).result == result


def test_a_game_already_over_does_not_expire() -> None:
    state = send("famiglia", started("famiglia", 2), 0, Concede())
    with pytest.raises(RuleViolation) as exc:
        expire(state, 14)
    assert exc.value.code == "game_over"


def test_a_history_with_an_expiry_that_hides_the_secret_is_refused() -> None:
    state = started("famiglia", 2)
    with pytest.raises(HistoryMismatch):
        apply("famiglia", state, [Expired(days=14)])


def test_the_expiry_goes_over_the_wire_with_its_days() -> None:
    (event,) = expire(started("gangsta", 2), 14)
    wire = msgspec.json.decode(msgspec.json.encode(event))
    assert (wire["type"], wire["days"]) == ("expired", 14)
