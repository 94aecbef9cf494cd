"""The command service on fakeredis, with the real games."""

from __future__ import annotations

import logging
import random
from typing import Any

import fakeredis
import msgspec
import pytest

from domain.core import Secret, check_commitment
from domain.famiglia import messages as famiglia_messages
from services.errors import (
    BadRequest,
    CommandIdReused,
    Conflict,
    RuleRejected,
    ServiceError,
    UnknownGame,
    WrongSeat,
)
from services.eventstore import keys, shards
from services.eventstore.store import WAKE_TTL_MS, EventStore
from services.games.commands import CommandService
from services.games.handling import Accepted
from services.games.repository import EventStoreRepository
from tests.feeds import changed
from tests.services.helpers import pick_move, play_out

Hooked = list[tuple[str, int, bool]]


@pytest.fixture
def hooked() -> Hooked:
    return []


@pytest.fixture
def svc(fake_redis: fakeredis.FakeRedis, hooked: Hooked) -> CommandService:
    return CommandService(
        EventStoreRepository(
            EventStore(fake_redis), hooks=[lambda g, v, w: hooked.append((g, v, w))]
        )
    )


def snapshot(client: fakeredis.FakeRedis) -> dict[bytes, Any]:
    """Every key's serialized value: equal snapshots mean nothing changed."""
    return {key: client.dump(key) for key in client.keys("*")}


def move(svc: CommandService, game_id: str, seed: int = 0) -> tuple[int, Any]:
    found = pick_move(svc, game_id, random.Random(seed))
    assert found is not None
    return found


@pytest.mark.parametrize(("name", "seats"), [("famiglia", 2), ("gangsta", 3)])
def test_create_game_stores_meta_and_a_fresh_secret(
    svc: CommandService, name: str, seats: int
) -> None:
    first = svc.create_game(name, seats, {}, ai={"1": 3})
    second = svc.create_game(name, seats, {})
    assert first != second and len(first) == 22
    game, state, version, meta = svc.load(first)
    assert (meta.game, meta.seats, meta.ai) == (name, seats, {1: 3})
    assert game.name == name and version >= 1 and game.result(state) is None
    started = [svc.events(g)[0].event for g in (first, second)]
    assert all(isinstance(s.secret, Secret) and len(s.secret.seed) == 32 for s in started)
    assert started[0].secret != started[1].secret
    assert all(check_commitment(s.secret, s.commitment) for s in started)


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("chess", 2, {}), "unknown_game_name"),
        (("famiglia", 3, {}), "bad_seats"),
        (("gangsta", 5, {}), "bad_seats"),
        (("gangsta", True, {}), "bad_seats"),
        (("famiglia", 2, {"no_such_option": 1}), "bad_options"),
        (("gangsta", 2, {"refill": "sometimes"}), "bad_options"),
    ],
)
def test_create_game_refuses_bad_input(
    svc: CommandService, fake_redis: fakeredis.FakeRedis, args: tuple[Any, ...], code: str
) -> None:
    with pytest.raises(BadRequest) as caught:
        svc.create_game(*args)
    assert (caught.value.code, caught.value.status) == (code, 400)
    assert fake_redis.keys("*") == []


@pytest.mark.parametrize("ai", [{2: 1}, {-1: 1}, {"x": 1}, {0: [1]}])
def test_create_game_refuses_bad_ai_seats(svc: CommandService, ai: dict[Any, Any]) -> None:
    with pytest.raises(BadRequest) as caught:
        svc.create_game("famiglia", 2, {}, ai=ai)
    assert caught.value.code == "bad_ai"


def test_create_game_refuses_unknown_ai_levels(svc: CommandService, fake_redis: Any) -> None:
    with pytest.raises(BadRequest) as caught:
        svc.create_game("famiglia", 2, {}, ai={1: "godlike"})
    assert caught.value.code == "bad_ai_level"
    assert fake_redis.keys("*") == []


@pytest.mark.parametrize(("name", "seats"), [("famiglia", 2), ("gangsta", 4)])
def test_commands_as_structs_dicts_or_json_are_appended(
    svc: CommandService, name: str, seats: int, hooked: Hooked
) -> None:
    game_id = svc.create_game(name, seats, {})
    for i, form in enumerate(["struct", "dict", "json"]):
        seat, command = move(svc, game_id, i)
        before = svc.load(game_id).version
        sent = {
            "struct": command,
            "dict": msgspec.to_builtins(command),
            "json": msgspec.json.encode(command).decode(),
        }[form]
        accepted = svc.handle(game_id, seat, sent, f"c{i}")
        assert accepted.first == before + 1 and accepted.version > before
        assert not accepted.duplicate
        assert svc.load(game_id).version == accepted.version
        stored = svc.events(game_id, after=before)
        assert {(r.actor, r.command_id) for r in stored} == {(seat, f"c{i}")}
        assert hooked[-1] == (game_id, accepted.version, False)  # the creation woke them


def test_appends_mark_their_game_changed_and_the_first_one_wakes_the_read_side(
    svc: CommandService, fake_redis: fakeredis.FakeRedis, hooked: Hooked, one_shard: int
) -> None:
    game_id = svc.create_game("famiglia", 2, {})
    other = svc.create_game("gangsta", 2, {})
    assert [w for _, _, w in hooked] == [True, False]  # the flag was still set for the second
    assert changed(fake_redis) == {game_id.encode(), other.encode()}
    # what the shard's projection job does first
    fake_redis.delete(keys.changed_key(one_shard), keys.wake_key(one_shard))
    seat, command = move(svc, game_id)
    accepted = svc.handle(game_id, seat, command, "c1")
    assert hooked[-1] == (game_id, accepted.version, True)
    assert changed(fake_redis) == {game_id.encode()}
    assert 0 < fake_redis.pttl(keys.wake_key(one_shard)) <= WAKE_TTL_MS
    svc.notify(other, svc.load(other).version)  # a seat taken: not an event, marked the same way
    assert hooked[-1] == (other, svc.load(other).version, False)
    assert changed(fake_redis) == {game_id.encode(), other.encode()}


def test_a_retried_command_appends_nothing_and_returns_the_first_result(
    svc: CommandService, fake_redis: fakeredis.FakeRedis
) -> None:
    game_id = svc.create_game("gangsta", 2, {})
    seat, command = move(svc, game_id)
    first = svc.handle(game_id, seat, command, "once")
    before = snapshot(fake_redis)
    for again in [command, msgspec.to_builtins(command)]:
        retried = svc.handle(game_id, seat, again, "once", expected_version=first.first - 1)
        assert retried == Accepted(game_id, "once", first.version, first.first, duplicate=True)
    assert snapshot(fake_redis) == before
    fresh = CommandService(
        EventStoreRepository(EventStore(fake_redis))
    )  # another process: no cache
    assert fresh.handle(game_id, seat, command, "once").duplicate


def test_a_command_id_reused_for_another_command_is_refused(svc: CommandService) -> None:
    game_id = svc.create_game("gangsta", 2, {})
    seat, command = move(svc, game_id)
    svc.handle(game_id, seat, command, "id-1")
    other_seat, other = move(svc, game_id)
    assert other != command
    if other_seat != seat:  # ids are scoped by seat: the other seat's "id-1" is its own
        assert not svc.handle(game_id, other_seat, other, "id-1").duplicate
    with pytest.raises(CommandIdReused) as caught:
        svc.handle(game_id, seat, other, "id-1")
    assert (caught.value.status, caught.value.code) == (409, "command_id_reused")


def refusals(svc: CommandService, game_id: str) -> list[tuple[Any, type[ServiceError], str]]:
    seat, command = move(svc, game_id)
    plain = msgspec.to_builtins(command)
    return [
        (("nope", seat, command, "c"), UnknownGame, "unknown_game"),
        ((game_id, 2, command, "c"), WrongSeat, "wrong_seat"),
        ((game_id, -1, command, "c"), WrongSeat, "wrong_seat"),
        ((game_id, "0", command, "c"), WrongSeat, "wrong_seat"),
        ((game_id, seat, {"type": "no_such_command"}, "c"), BadRequest, "bad_command"),
        ((game_id, seat, {**plain, "extra": 1}, "c"), BadRequest, "bad_command"),
        ((game_id, seat, "{not json", "c"), BadRequest, "bad_command"),
        ((game_id, seat, famiglia_messages.Pass(), "c"), BadRequest, "bad_command"),
        ((game_id, seat, command, ""), BadRequest, "bad_command_id"),
        ((game_id, seat, command, "x" * 129), BadRequest, "bad_command_id"),
        ((game_id, seat, command, "c", 0), Conflict, "conflict"),
        ((game_id, seat, command, "c", "3"), BadRequest, "bad_expected_version"),
        ((game_id, seat, command, "c", -1), BadRequest, "bad_expected_version"),
    ]


@pytest.mark.parametrize("case", range(13))
def test_refusals_are_typed_and_change_nothing(
    svc: CommandService, fake_redis: fakeredis.FakeRedis, case: int
) -> None:
    game_id = svc.create_game("gangsta", 2, {})
    svc.handle(game_id, *move(svc, game_id), "first")
    args, kind, code = refusals(svc, game_id)[case]
    before = snapshot(fake_redis)
    with pytest.raises(kind) as caught:
        svc.handle(*args)
    error = caught.value
    assert (error.code, error.status) == (code, kind.status)
    assert error.message and code in str(error)
    assert snapshot(fake_redis) == before


def test_a_rule_violation_carries_the_rules_code(
    svc: CommandService, fake_redis: fakeredis.FakeRedis
) -> None:
    game_id = svc.create_game("famiglia", 2, {})
    game, state, _, _ = svc.load(game_id)
    idle = 1 - next(iter(game.to_act(state)))
    before = snapshot(fake_redis)
    with pytest.raises(RuleRejected) as caught:
        svc.handle(game_id, idle, {"type": "pass"}, "c1")
    assert (caught.value.status, caught.value.code) == (422, "not_your_turn")
    assert snapshot(fake_redis) == before


Move = tuple[int, Any]


def find_race(svc: CommandService, game_id: str) -> tuple[Move, Move]:
    """Play on until a rival move exists after which another command (decided before it)
    is still legal: (rival move, racing move)."""
    for i in range(200):
        game, before, _, _ = svc.load(game_id)
        waiting = sorted(game.to_act(before))
        for rival_seat in waiting:
            for rival in game.legal(before, rival_seat):
                after = before
                for event in game.decide(before, rival_seat, rival):
                    after = game.evolve(after, event)
                for seat in sorted(game.to_act(after) & set(waiting)):
                    still = [c for c in game.legal(before, seat) if c in game.legal(after, seat)]
                    if still:
                        return (rival_seat, rival), (seat, still[0])
        svc.handle(game_id, *move(svc, game_id, i), f"setup-{i}")
    raise AssertionError("no position with a race found")


class RacingStore(EventStore):
    """Lets a rival's move in just before each of this store's appends: a real lost race."""

    def __init__(self, client: fakeredis.FakeRedis, rival: CommandService, moves: list[Move]):
        super().__init__(client)
        self.rival = rival
        self.moves = moves
        self.appends = 0

    def append(self, game_id: str, *args: Any, **kwargs: Any) -> Any:
        self.appends += 1
        if self.moves:
            self.rival.handle(game_id, *self.moves.pop(0), f"rival-{self.appends}")
        return super().append(game_id, *args, **kwargs)


@pytest.mark.parametrize(("name", "seats"), [("famiglia", 2), ("gangsta", 3)])
def test_a_lost_race_is_decided_again_on_the_new_state(
    fake_redis: fakeredis.FakeRedis, name: str, seats: int
) -> None:
    rival = CommandService(EventStoreRepository(EventStore(fake_redis)))
    game_id = rival.create_game(name, seats, {})
    rival_move, racing_move = find_race(rival, game_id)
    store = RacingStore(fake_redis, rival, [rival_move])
    racer = CommandService(EventStoreRepository(store))
    decided_on = racer.load(game_id).version
    accepted = racer.handle(game_id, *racing_move, "racer")
    assert store.appends == 2
    after_rival = [r.version for r in rival.events(game_id) if r.command_id == "rival-1"]
    assert accepted.first == after_rival[-1] + 1 > decided_on + 1
    assert rival.load(game_id).version == accepted.version


def test_losing_every_race_ends_in_a_conflict_that_changes_nothing(
    fake_redis: fakeredis.FakeRedis,
) -> None:
    rival = CommandService(EventStoreRepository(EventStore(fake_redis)))
    game_id = rival.create_game("gangsta", 3, {})
    rival_move, racing_move = find_race(rival, game_id)
    racer = CommandService(
        EventStoreRepository(RacingStore(fake_redis, rival, [rival_move])), max_attempts=1
    )
    with pytest.raises(Conflict) as caught:
        racer.handle(game_id, *racing_move, "racer")
    assert caught.value.status == 409
    assert caught.value.version == rival.load(game_id).version
    assert not any(r.command_id == "racer" for r in rival.events(game_id))


def test_a_refreshed_cache_sees_other_writers_before_deciding(
    fake_redis: fakeredis.FakeRedis,
) -> None:
    a = CommandService(EventStoreRepository(EventStore(fake_redis)))
    b = CommandService(EventStoreRepository(EventStore(fake_redis)))
    game_id = a.create_game("gangsta", 2, {})
    a.load(game_id)  # a's cache is now at the creation version
    b.handle(game_id, *move(b, game_id, 1), "by-b")
    seat, command = move(b, game_id, 2)  # decided by a on the state after b's move
    accepted = a.handle(game_id, seat, command, "by-a")
    assert a.load(game_id).version == b.load(game_id).version == accepted.version


def test_expected_version_must_be_current(svc: CommandService) -> None:
    game_id = svc.create_game("famiglia", 2, {})
    version = svc.load(game_id).version
    seat, command = move(svc, game_id)
    with pytest.raises(Conflict) as caught:
        svc.handle(game_id, seat, command, "c1", expected_version=version - 1)
    assert caught.value.version == version
    assert svc.handle(game_id, seat, command, "c1", expected_version=version).first == version + 1


def test_cached_states_follow_other_writers(fake_redis: fakeredis.FakeRedis) -> None:
    a = CommandService(EventStoreRepository(EventStore(fake_redis)))
    b = CommandService(EventStoreRepository(EventStore(fake_redis)))
    game_id = a.create_game("gangsta", 2, {})
    for i in range(30):
        writer = (a, b)[i % 2]
        writer.handle(game_id, *move(writer, game_id, i), f"c{i}")
        assert a.load(game_id).version == b.load(game_id).version
        assert a.load(game_id).state == b.load(game_id).state
    replayed = CommandService(EventStoreRepository(EventStore(fake_redis))).load(game_id)
    assert replayed.state == a.load(game_id).state


def test_a_failing_hook_does_not_fail_the_command(
    fake_redis: fakeredis.FakeRedis, caplog: pytest.LogCaptureFixture
) -> None:
    calls: list[int] = []

    def broken(game_id: str, version: int, woke: bool) -> None:
        raise RuntimeError("queue down")

    svc = CommandService(
        EventStoreRepository(
            EventStore(fake_redis), hooks=[broken, lambda g, v, w: calls.append(v)]
        )
    )
    with caplog.at_level(logging.ERROR):
        game_id = svc.create_game("famiglia", 2, {})
    assert calls == [svc.load(game_id).version]
    assert "queue down" in caplog.text


@pytest.mark.parametrize(("name", "seats"), [("famiglia", 2), ("gangsta", 3)])
def test_history_hides_the_secret_until_the_game_is_over(
    svc: CommandService, name: str, seats: int
) -> None:
    game_id = svc.create_game(name, seats, {})
    game = svc.load(game_id).game
    seed = svc.events(game_id)[0].event.secret.seed
    rng = random.Random(7)
    for i in range(5):
        svc.handle(game_id, *move(svc, game_id, i), f"c{i}")
    full = svc.events(game_id)
    for seat in [None, *range(seats)]:
        records = svc.history(game_id, seat)
        assert [r.event for r in records] == [game.redact(r.event, seat) for r in full]
        assert seed not in msgspec.msgpack.encode(records)
        assert records[0].event.secret is None
        for shown, stored, after in zip(records, full, [*records[1:], None], strict=True):
            hidden = shown.event != stored.event
            assert shown.hash == ("" if hidden else stored.hash)
            assert after is None or after.prev == ("" if hidden else stored.hash)
    with pytest.raises(WrongSeat):
        svc.history(game_id, seats)
    play_out(svc, game_id, rng, prefix="end-")
    records = svc.history(game_id, 0)
    stored = svc.events(game_id)
    assert [msgspec.structs.replace(r, command_id="") for r in records] == [
        msgspec.structs.replace(r, command_id="") for r in stored
    ]
    for shown, kept in zip(records, stored, strict=True):  # the seat's own ids only
        mine = kept.actor in (0, None)
        assert shown.command_id == kept.command_id if mine else shown.command_id.startswith("#")
    assert records[0].event.secret.seed == seed and records[-1].type == "game_ended"


def test_history_after_a_version(svc: CommandService) -> None:
    game_id = svc.create_game("gangsta", 2, {})
    version = svc.load(game_id).version
    seat, command = move(svc, game_id)
    svc.handle(game_id, seat, command, "c1")
    newer = svc.history(game_id, seat, after=version)
    assert newer and all(r.version > version and r.command_id == "c1" for r in newer)
    other = svc.history(game_id, 1 - seat, after=version)  # not the other seat's to see
    assert [r.command_id for r in other] == [f"#{version + 1}"] * len(newer)


def test_unknown_games_are_404(svc: CommandService) -> None:
    for call in (svc.load, svc.events, lambda g: svc.history(g, None)):
        with pytest.raises(UnknownGame) as caught:
            call("no-such-game")
        assert caught.value.status == 404


def test_events_are_stored_under_the_game_hash_tag(
    svc: CommandService, fake_redis: fakeredis.FakeRedis
) -> None:
    game_id = svc.create_game("famiglia", 2, {})
    assert sorted(fake_redis.keys("*")) == sorted(
        k.encode()
        for k in (
            keys.events_key(game_id),
            keys.meta_key(game_id),
            keys.commands_key(game_id),
            keys.feed_key(game_id),
            keys.changed_key(shards.of(game_id)),
            keys.wake_key(shards.of(game_id)),
        )
    )


class CountingStore(EventStore):
    """Counts the store's round trips of each kind."""

    def __init__(self, client: fakeredis.FakeRedis) -> None:
        super().__init__(client)
        self.calls: dict[str, int] = {"read": 0, "append": 0}

    def read(self, *args: Any, **kwargs: Any) -> Any:
        self.calls["read"] += 1
        return super().read(*args, **kwargs)

    def read_with_record(self, *args: Any, **kwargs: Any) -> Any:
        self.calls["read"] += 1
        return super().read_with_record(*args, **kwargs)

    def append(self, *args: Any, **kwargs: Any) -> Any:
        self.calls["append"] += 1
        return super().append(*args, **kwargs)


@pytest.mark.parametrize("expected", [False, True])
def test_a_command_on_a_warm_cache_takes_one_round_trip(
    fake_redis: fakeredis.FakeRedis, expected: bool
) -> None:
    store = CountingStore(fake_redis)
    svc = CommandService(EventStoreRepository(store))
    game_id = svc.create_game("gangsta", 3, {})
    for i in range(5):
        seat, command = move(svc, game_id, i)
        version = svc.load(game_id).version
        store.calls = {"read": 0, "append": 0}
        accepted = svc.handle(game_id, seat, command, f"c{i}", version if expected else None)
        assert store.calls == {"read": 0, "append": 1}
        assert accepted.first == version + 1 and not accepted.duplicate
    fresh = CommandService(EventStoreRepository(EventStore(fake_redis))).load(game_id)
    assert (fresh.version, fresh.state) == (svc.load(game_id).version, svc.load(game_id).state)


def test_a_warm_append_that_lost_its_race_with_an_expected_version_is_a_conflict(
    fake_redis: fakeredis.FakeRedis,
) -> None:
    rival = CommandService(EventStoreRepository(EventStore(fake_redis)))
    game_id = rival.create_game("gangsta", 3, {})
    rival_move, racing_move = find_race(rival, game_id)
    store = CountingStore(fake_redis)
    racer = CommandService(EventStoreRepository(store))
    version = racer.load(game_id).version  # warm, and about to be stale
    rival.handle(game_id, *rival_move, "rival")
    before = snapshot(fake_redis)
    with pytest.raises(Conflict) as caught:
        racer.handle(game_id, *racing_move, "racer", expected_version=version)
    assert caught.value.version == rival.load(game_id).version > version
    assert snapshot(fake_redis) == before
    assert store.calls["append"] == 1  # tried at once; the append itself saw the new version


def test_a_stale_cache_the_rules_refuse_is_read_again(fake_redis: fakeredis.FakeRedis) -> None:
    """A command legal only after another process's move is not refused on an old state."""
    other = CommandService(EventStoreRepository(EventStore(fake_redis)))
    game_id = other.create_game("famiglia", 2, {})
    store = CountingStore(fake_redis)
    svc = CommandService(EventStoreRepository(store))
    for i in range(200):
        game, before, _, _ = svc.load(game_id)  # svc's cache: the state before other's move
        seat, command = move(other, game_id, i)
        other.handle(game_id, seat, command, f"o{i}")
        after = other.load(game_id).state
        refused_before = [
            (s, c)
            for s in sorted(game.to_act(after))
            for c in game.legal(after, s)
            if s not in game.to_act(before)
        ]
        if refused_before:
            break
    else:
        raise AssertionError("no turn passed to another seat")
    store.calls = {"read": 0, "append": 0}
    now = other.load(game_id).version
    accepted = svc.handle(game_id, *refused_before[0], "late")
    assert accepted.first == now + 1 and accepted.version == other.load(game_id).version
    assert store.calls == {"read": 1, "append": 1}


def test_a_retry_through_another_process_is_a_duplicate(fake_redis: fakeredis.FakeRedis) -> None:
    a = CommandService(EventStoreRepository(EventStore(fake_redis)))
    store = CountingStore(fake_redis)
    b = CommandService(EventStoreRepository(store))
    game_id = a.create_game("gangsta", 2, {})
    game, state, _, _ = b.load(game_id)  # b's cache: the state the command is decided on
    seat, command = move(a, game_id)
    first = a.handle(game_id, seat, command, "twice")
    store.calls = {"read": 0, "append": 0}
    before = snapshot(fake_redis)
    again = b.handle(game_id, seat, command, "twice")  # decided on b's cache, refused by the store
    assert (again.first, again.version, again.duplicate) == (first.first, first.version, True)
    assert store.calls == {"read": 0, "append": 1}
    another = next(c for c in game.legal(state, seat) if c != command)
    with pytest.raises(CommandIdReused):
        b.handle(game_id, seat, another, "twice")
    assert snapshot(fake_redis) == before
