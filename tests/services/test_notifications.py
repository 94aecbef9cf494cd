"""What a read-model change notifies (``services.notify.notifications.derive``), the once-only
records of sendings, and the webhooks' URL checks and signatures."""

from __future__ import annotations

import hashlib
import hmac

import pytest
import redis

from services.notify import notifications as nt
from services.notify import webhooks as wh
from services.readside.readmodels import SeatSummary, Summary


def summary(
    seats: list[SeatSummary],
    due: dict[int, int],
    version: int = 5,
    status: str = "running",
) -> Summary:
    return Summary(
        game_id="g1",
        game="gangsta",
        version=version,
        head="",
        created=0,
        updated=0,
        options={},
        seats=seats,
        public=False,
        status=status,
        to_act=sorted(due),
        due=due,
        result=None,
    )


ANN, BOB, CAT = (
    SeatSummary(0, "player", "ann"),
    SeatSummary(1, "player", "bob"),
    SeatSummary(2, "player", "cat"),
)
OPEN2, AI2 = SeatSummary(2, "open"), SeatSummary(2, "ai", level="random")


def events(found: list[nt.Notice]) -> list[tuple[str, str, int]]:
    return [(n.player, n.event, n.seat) for n in found]


def test_the_turn_passing_notifies_the_player_now_to_act() -> None:
    before = summary([ANN, BOB, AI2], {0: 100}, version=4)
    after = summary([ANN, BOB, AI2], {1: 200})
    assert events(nt.derive(before, after)) == [("bob", "your_turn", 1)]
    assert nt.derive(before, after)[0].version == 5


def test_a_turn_still_owed_notifies_nobody_and_a_new_one_does() -> None:
    before = summary([ANN, BOB, AI2], {0: 100}, version=4)
    assert nt.derive(before, summary([ANN, BOB, AI2], {0: 100})) == []
    # Ann moved, Bob moved, Ann owes again (one projection saw both): her turn came round.
    assert events(nt.derive(before, summary([ANN, BOB, AI2], {0: 300}))) == [
        ("ann", "your_turn", 0)
    ]


def test_no_notice_for_an_ai_seat_or_an_open_one() -> None:
    before = summary([ANN, BOB, OPEN2], {0: 100}, version=4)
    assert nt.derive(before, summary([ANN, BOB, OPEN2], {2: 200})) == []


def test_the_end_notifies_every_player() -> None:
    before = summary([ANN, BOB, AI2], {0: 100}, version=4)
    after = summary([ANN, BOB, AI2], {}, status="finished")
    assert events(nt.derive(before, after)) == [
        ("ann", "game_ended", 0),
        ("bob", "game_ended", 1),
    ]


def test_a_seat_taken_notifies_the_others_not_the_joiner() -> None:
    before = summary([ANN, BOB, OPEN2], {})
    after = summary([ANN, BOB, CAT], {})
    assert events(nt.derive(before, after)) == [
        ("ann", "player_joined", 2),
        ("bob", "player_joined", 2),
    ]


def test_the_last_seat_taken_tells_every_seat_owing_a_decision_the_creator_too() -> None:
    """Ann made the game and owes the first move since; she has left by the time Cat takes
    the last seat (asynchronous play): she is told it is her turn, as anybody owing one."""
    waiting = summary([ANN, BOB, OPEN2], {0: 10}, version=5)
    started = summary([ANN, BOB, CAT], {0: 10}, version=5)
    assert events(nt.derive(waiting, started)) == [
        ("ann", "your_turn", 0),
        ("ann", "player_joined", 2),
        ("bob", "player_joined", 2),
    ]
    # A seat taken with one still open: no start, nothing owed anew.
    bob_open = summary([ANN, SeatSummary(1, "open"), OPEN2], {0: 10}, version=5)
    assert events(nt.derive(bob_open, waiting)) == [("ann", "player_joined", 1)]
    # A rematch's reserved seat taken starts it too; a game never waiting (its other seats
    # AI's) starts with its creation, which tells its creator nothing.
    reserved = summary([ANN, BOB, SeatSummary(2, "reserved", "cat")], {0: 10}, version=5)
    assert ("ann", "your_turn", 0) in events(nt.derive(reserved, started))
    against_ai = summary([ANN, SeatSummary(1, "ai", level="random")], {0: 10})
    assert nt.derive(nt.as_created(against_ai, "ann"), against_ai) == []


def test_a_game_first_projected_is_compared_with_the_game_as_its_creator_made_it() -> None:
    """Ann created it (the decision her seat owes she knew of); Bob and Cat joined before its
    first projection, Bob's seat owes a decision."""
    after = summary([ANN, BOB, CAT], {0: 10, 1: 10})
    assert events(nt.derive(nt.as_created(after, "ann"), after)) == [
        ("ann", "your_turn", 0),  # the game starts: her turn, as Bob's
        ("bob", "your_turn", 1),
        ("ann", "player_joined", 1),
        ("cat", "player_joined", 1),
        ("ann", "player_joined", 2),
        ("bob", "player_joined", 2),
    ]
    alone = summary([ANN, OPEN2], {0: 10})
    assert nt.derive(nt.as_created(alone, "ann"), alone) == []
    # Ann's game list not written yet (her creation is under way): nobody else joined.
    assert nt.derive(nt.as_created(alone, None), alone) == []


def test_delivery_ids_differ_by_every_part_and_repeat_for_the_same() -> None:
    notice = nt.Notice("ann", "your_turn", "g1", "gangsta", 5, 0)
    same = nt.delivery_id(notice, "webhook", "wh_1")
    assert same == nt.delivery_id(notice, "webhook", "wh_1")
    others = {
        nt.delivery_id(nt.Notice("bob", "your_turn", "g1", "gangsta", 5, 0), "webhook", "wh_1"),
        nt.delivery_id(nt.Notice("ann", "your_turn", "g1", "gangsta", 6, 0), "webhook", "wh_1"),
        nt.delivery_id(nt.Notice("ann", "game_ended", "g1", "gangsta", 5, 0), "webhook", "wh_1"),
        nt.delivery_id(notice, "email", "wh_1"),
        nt.delivery_id(notice, "webhook", "wh_2"),
    }
    assert same not in others and len(others) == 5


def test_a_claim_is_exclusive_until_released_and_final_once_sent(fake_redis: redis.Redis) -> None:
    token = nt.claim(fake_redis, "d1", 30)
    assert token is not None
    with pytest.raises(nt.Claimed):
        nt.claim(fake_redis, "d1", 30)
    nt.release(fake_redis, "d1", "claim:not-mine")  # another try's release leaves it
    with pytest.raises(nt.Claimed):
        nt.claim(fake_redis, "d1", 30)
    nt.release(fake_redis, "d1", token)
    again = nt.claim(fake_redis, "d1", 30)
    assert again is not None
    nt.mark_sent(fake_redis, "d1")
    assert nt.claim(fake_redis, "d1", 30) is None and nt.was_sent(fake_redis, "d1")


def test_a_dead_senders_claim_expires(fake_redis: redis.Redis) -> None:
    assert nt.claim(fake_redis, "d1", 30) is not None
    assert 0 < fake_redis.ttl(nt.record_key("d1")) <= 30  # the lease a retry waits out


def test_preferences_default_on_and_keep_what_is_not_sent(fake_redis: redis.Redis) -> None:
    prefs = nt.Preferences(fake_redis)
    assert prefs.get("ann")["webhook"] == dict.fromkeys(nt.EVENTS, True)
    prefs.put("ann", {"webhook": {"your_turn": False}})
    prefs.put("ann", {"email": {"game_ended": False}})
    got = prefs.get("ann")
    assert got["webhook"] == {
        "your_turn": False, "game_ended": True, "player_joined": True, "time_low": True
    }  # fmt: skip
    assert got["email"]["game_ended"] is False and got["push"]["game_ended"] is True
    assert not prefs.wants("ann", "webhook", "your_turn")
    assert prefs.wants("bob", "webhook", "your_turn")


@pytest.mark.parametrize(
    "url",
    [
        "ftp://example.com/hook",
        "javascript:alert(1)",
        "http://",
        "http://user:pw@example.com/",
        "http://127.0.0.1:8080/hook",
        "http://10.1.2.3/hook",
        "http://192.168.0.1/",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]/hook",
        "http://[fd00::1]/hook",
        "http://localhost/hook",
        "http://api.localhost/hook",
        "http://0.0.0.0/",
        "http://[::ffff:127.0.0.1]/",
        "http://example.com:99999/",
        "https://" + "a" * wh.MAX_URL + ".com/",
    ],
)
def test_urls_webhooks_may_not_call(url: str) -> None:
    with pytest.raises(wh.BadUrl):
        wh.check_url(url, allow_private=False, resolve=False)


def test_public_urls_pass_and_private_ones_only_when_allowed() -> None:
    wh.check_url("https://93.184.215.14/hook", allow_private=False, resolve=False)
    wh.check_url("https://hooks.example.org/x", allow_private=False, resolve=False)
    wh.check_url("http://127.0.0.1:8080/hook", allow_private=True)
    with pytest.raises(wh.BadUrl):
        wh.check_url("ftp://127.0.0.1/", allow_private=True)


def test_a_name_resolving_to_loopback_is_refused_before_a_call() -> None:
    with pytest.raises(wh.BadUrl):
        wh.check_url("http://localhost./hook", allow_private=False, resolve=True)


def test_the_signature_is_hmac_sha256_over_timestamp_and_body() -> None:
    body = b'{"event":"your_turn"}'
    expected = hmac.new(b"s3cret", b"1700000000." + body, hashlib.sha256).hexdigest()
    assert wh.sign("s3cret", 1700000000, body) == "sha256=" + expected
    assert wh.sign("s3cret", 1700000001, body) != wh.sign("s3cret", 1700000000, body)


def test_signing_secrets_are_derived_per_hook_and_stored_nowhere(fake_redis: redis.Redis) -> None:
    hooks = wh.Webhooks(fake_redis)
    hook, secret = hooks.add("ann", "https://hooks.example.org/x")
    other, other_secret = hooks.add("ann", "https://hooks.example.org/y")
    assert secret == hooks.secret(hook.id) and secret != other_secret
    stored = b"".join(
        v
        for k in fake_redis.keys("*")
        if fake_redis.type(k) == b"hash"
        for v in fake_redis.hvals(k)
    )
    assert secret.encode() not in stored and other_secret.encode() not in stored
    # Oldest first; two made in the same millisecond (often, here) in the order of their ids.
    in_order = sorted([hook, other], key=lambda h: (h.created, h.id))
    assert [h.id for h in hooks.list("ann")] == [h.id for h in in_order]
