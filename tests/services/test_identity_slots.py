"""Players and everything per player, on one real server and on a real Redis Cluster (3 masters,
3 replicas): every script and transaction touches one slot (a cross-slot one fails here), and a
write split into single-slot steps is completed by its retry when only its first steps ran."""

from __future__ import annotations

from collections.abc import Iterator

import msgspec
import pytest
import redis
from redis.cluster import RedisCluster

from services.eventstore import idempotency, shards
from services.eventstore.idempotency import Record
from services.eventstore.serversecret import ServerSecret
from services.eventstore.store import now_ms
from services.games import vacation
from services.games.chat import Chat
from services.games.rematch import Rematches, reserved_key
from services.games.seats import seats_key
from services.identity import devices as devices_module
from services.identity.devices import (
    FIRST,
    BadSignIn,
    Devices,
    code_key,
    digest,
    link_key,
    normal_code,
)
from services.identity.emails import VERIFY, Emails, Link, address_hash, owner_key
from services.identity.passkeys import PasskeyExists, Passkeys
from services.identity.players import Players, Unauthorized, player_key
from services.notify import notifications
from services.notify.push import Subscriptions
from services.notify.webhooks import Webhooks
from services.platform import config
from services.readside import ratingmath, seen
from services.readside import ratings as rt
from services.readside import readmodels as rm
from workers.notify import mail as notify_mail
from workers.notify import mail_pending as queued
from workers.notify import webhooks as notify_webhooks
from workers.queues import Queues

Client = redis.Redis | RedisCluster
KEY = "7b0f3c6e-0d7a-4c8e-9a54-3f1e2d5c6b7a"  # an Idempotency-Key: a random UUID


@pytest.fixture(
    params=[
        pytest.param("server", marks=pytest.mark.server),
        pytest.param("cluster", marks=pytest.mark.cluster),
    ]
)
def client(request: pytest.FixtureRequest) -> Iterator[Client]:
    yield request.getfixturevalue("real_redis" if request.param == "server" else "cluster_redis")


class Lost(Exception):
    """The process lost between two steps."""


def lose(*_: object, **__: object) -> None:
    raise Lost()


# -- players --------------------------------------------------------------------------------


def test_a_player_is_made_in_its_shards_slot_and_signs_in(client: Client) -> None:
    players = Players(client)
    ann, token = players.create("Ann")
    assert shards.in_home_slot(ann.id)
    assert players.authenticate(token) == ann
    assert players.names([ann.id]) == {ann.id: "Ann"}


def test_a_keyed_creation_answers_its_retry_the_same_player(client: Client) -> None:
    fingerprint = idempotency.fingerprint({"name": "Ann"})
    first, token = Players(client).create("Ann", KEY, fingerprint)
    again, same = Players(client).create("Ann", KEY, fingerprint)
    assert (again, same) == (first, token)
    with pytest.raises(idempotency.KeyReused):
        Players(client).create("Bob", KEY, idempotency.fingerprint({"name": "Bob"}))


def test_a_keyed_creation_lost_after_its_record_is_completed_by_the_retry(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    fingerprint = idempotency.fingerprint({"name": "Ann"})
    lost = Players(client)
    monkeypatch.setattr(lost, "_write", lose)
    with pytest.raises(Lost):
        lost.create("Ann", KEY, fingerprint)
    raw = client.get(idempotency.players_key(KEY))
    assert raw is not None
    claimed = idempotency.replayed(raw, fingerprint).player
    assert claimed is not None and not client.exists(player_key(claimed))
    ann, token = Players(client).create("Ann", KEY, fingerprint)
    assert ann.id == claimed and ann.name == "Ann"
    assert Players(client).authenticate(token) == ann


def test_a_keyed_creation_lost_before_its_token_is_completed_by_the_retry(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    fingerprint = idempotency.fingerprint({"name": "Ann"})
    lost = Players(client)
    monkeypatch.setattr(lost.redis, "set", _lost_on(lost.redis.set, "token:"))
    with pytest.raises(Lost):
        lost.create("Ann", KEY, fingerprint)
    monkeypatch.undo()
    (made,) = [k for k in client.scan_iter("player:*")]
    assert not list(client.scan_iter("token:*"))
    ann, token = Players(client).create("Ann", KEY, fingerprint)
    assert player_key(ann.id).encode() == made
    assert Players(client).authenticate(token) == ann


def _lost_on(call: object, prefix: str) -> object:
    """The client's method ``call``, but lost on a key starting with ``prefix``."""

    def call_or_lose(name: str, *args: object, **kwargs: object) -> object:
        if name.startswith(prefix):
            raise Lost()
        return call(name, *args, **kwargs)  # type: ignore[operator]

    return call_or_lose


def test_a_table_seats_its_creator_and_its_invites_take_their_seats(client: Client) -> None:
    players = Players(client)
    ann, bob = players.create("Ann")[0], players.create("Bob")[0]
    game = shards.new_id(16)
    codes = players.open_table(game, 1, [0, 1], ann.id, 0, public=False)
    assert players.join(game, bob.id, codes[1]) == 1
    assert players.seats(game) == {0: ann.id, 1: bob.id}
    assert players.games_of(bob.id) == [game]


def test_a_keyed_table_lost_after_its_record_is_completed_by_the_retry(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    players = Players(client)
    ann, bob = players.create("Ann")[0], players.create("Bob")[0]
    game = shards.new_id(16)
    fingerprint = idempotency.fingerprint({"game": "famiglia"})
    assert idempotency.begin_game(client, ann.id, KEY, fingerprint) is None
    lost = Players(client)
    monkeypatch.setattr(lost, "_seat_creator", lose)
    with pytest.raises(Lost):
        lost.open_table(game, 1, [0, 1], ann.id, 0, True, key=KEY, fingerprint=fingerprint)
    assert players.seats(game) == {}
    made = idempotency.begin_game(client, ann.id, KEY, fingerprint)
    assert made is not None and made.public
    codes = players.reopened_table(ann.id, KEY, made)
    assert players.seats(game) == {0: ann.id} and players.games_of(ann.id) == [game]
    assert client.get(f"game:{{{game}}}:public") == b"1"
    assert players.join(game, bob.id, codes[1]) == 1
    # A retry after the invite was taken offers it again to nobody.
    players.reopened_table(ann.id, KEY, made)
    assert client.hlen(f"game:{{{game}}}:invites") == 0


def test_a_keyed_join_answers_its_retry_the_same_seat(client: Client) -> None:
    players = Players(client)
    ann, bob = players.create("Ann")[0], players.create("Bob")[0]
    game = shards.new_id(16)
    players.open_table(game, 1, [0, 1, 2], ann.id, 0, public=True)
    assert players.join(game, bob.id, None, KEY, "f") == 1
    assert players.join(game, bob.id, None, KEY, "f") == 1


# -- devices and sign-in secrets ------------------------------------------------------------


def test_devices_are_added_listed_and_signed_out(client: Client) -> None:
    players = Players(client)
    ann, token = players.create("Ann")
    assert players.session(token, "phone")[1] == FIRST
    device, other = players.devices.add(ann.id, "laptop", 5)
    assert players.session(other) == (ann, device)
    assert {d.id for d in players.devices.listing(ann.id)} == {FIRST, device}
    gone = players.devices.revoke(ann.id, [FIRST, device])
    assert sorted(gone) == sorted([digest(token), digest(other)])
    players.forget(gone)
    for signed_out in (token, other):
        with pytest.raises(Unauthorized):
            players.authenticate(signed_out)
    assert players.devices.listing(ann.id) == []


def test_a_device_lost_before_its_session_is_listed_and_signed_out(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    ann = Players(client).create("Ann")[0]
    devices = Devices(client)
    monkeypatch.setattr(devices.redis, "set", lose)
    with pytest.raises(Lost):
        devices.add(ann.id, "laptop", 5)
    monkeypatch.undo()
    assert not list(client.scan_iter("session:*"))  # nothing works that is not listed
    (listed,) = devices.listing(ann.id)
    devices.revoke(ann.id, [listed.id])
    assert devices.listing(ann.id) == []


def test_sign_in_secrets_replace_each_other_and_are_revoked(client: Client) -> None:
    ann = Players(client).create("Ann")[0]
    devices = Devices(client)
    old = devices.make_signin(ann.id, 1)
    assert devices.player_of(old.secret, None) == devices.player_of(None, old.code) == ann.id
    new = devices.make_signin(ann.id, 2)
    assert devices.player_of(None, new.code.lower()) == ann.id
    for stale in ((old.secret, None), (None, old.code)):
        with pytest.raises(BadSignIn):
            devices.player_of(*stale)
    devices.revoke_signin(ann.id)
    for revoked in ((new.secret, None), (None, new.code)):
        with pytest.raises(BadSignIn):
            devices.player_of(*revoked)
    assert devices.signin_made(ann.id) is None


def test_sign_in_secrets_left_by_a_lost_request_sign_nobody_in(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    ann = Players(client).create("Ann")[0]
    devices = Devices(client)
    old = devices.make_signin(ann.id, 1)
    lost = Devices(client)
    orphan = "ABCD-EFGH-JKLM-NPQR"
    monkeypatch.setattr(devices_module, "new_code", lambda: orphan)
    monkeypatch.setattr(lost, "_swap", lose)  # the new index keys written, the hash not yet
    with pytest.raises(Lost):
        lost.make_signin(ann.id, 2)
    monkeypatch.undo()
    assert client.get(code_key(digest(normal_code(orphan) or ""))) == ann.id.encode()
    with pytest.raises(BadSignIn):
        devices.player_of(None, orphan)
    assert devices.player_of(old.secret, None) == ann.id  # nothing changed for the player
    # Lost after the hash names the new ones, before the old index keys went.
    monkeypatch.setattr(devices_module, "_drop", lose)
    with pytest.raises(Lost):
        devices.make_signin(ann.id, 3)
    assert client.get(link_key(digest(old.secret))) == ann.id.encode()
    for stale in ((old.secret, None), (None, old.code)):
        with pytest.raises(BadSignIn):
            devices.player_of(*stale)


def test_emails_verify_and_move_between_players(client: Client) -> None:
    players = Players(client)
    ann, bob = players.create("Ann")[0], players.create("Bob")[0]
    emails = Emails(client)
    for who in (ann, bob):
        emails.set_address(who.id, "Same@Example.org", "en")
        link = emails.redeem(VERIFY, emails.new_link(VERIFY, who.id))
        assert link is not None and emails.owner("same@example.org") == who.id
    assert not emails.get(ann.id).verified  # type: ignore[union-attr]
    assert emails.wants_notices(bob.id)


@pytest.mark.parametrize("step", ["hset", "set", "delete"])  # the mark, the index, the link
def test_a_verification_lost_at_any_step_reads_as_before_or_after_and_its_link_completes_it(
    client: Client, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    players = Players(client)
    ann, bob = players.create("Ann")[0], players.create("Bob")[0]
    emails = Emails(client)
    for who in (ann, bob):
        emails.set_address(who.id, "Same@Example.org", "en")
    assert emails.redeem(VERIFY, emails.new_link(VERIFY, ann.id)) is not None
    link = emails.new_link(VERIFY, bob.id)  # Bob proves the mailbox too: it moves to him
    prefix = {"hset": "player:", "set": "email:", "delete": "mailtoken:"}[step]
    monkeypatch.setattr(emails.redis, step, _lost_on(getattr(emails.redis, step), prefix))
    with pytest.raises(Lost):
        emails.redeem(VERIFY, link)
    monkeypatch.undo()
    # Whoever the index names, and only they, read as verified: never both, never neither.
    owner = emails.owner("same@example.org")
    assert owner in (ann.id, bob.id)
    assert [who.id for who in (ann, bob) if emails.wants_notices(who.id)] == [owner]
    assert emails.redeem(VERIFY, link) == Link(bob.id, "Same@Example.org")  # clicked again
    assert emails.owner("same@example.org") == bob.id
    assert emails.wants_notices(bob.id) and not emails.wants_notices(ann.id)
    assert emails.redeem(VERIFY, link) is None  # used


def test_an_address_changed_before_its_index_key_went_is_nobodys(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    ann = Players(client).create("Ann")[0]
    emails = Emails(client)
    emails.set_address(ann.id, "ann@example.org", "en")
    assert emails.redeem(VERIFY, emails.new_link(VERIFY, ann.id)) is not None
    monkeypatch.setattr(emails.redis, "delete", _lost_on(emails.redis.delete, "email:"))
    with pytest.raises(Lost):
        emails.set_address(ann.id, "ann@example.net", "en")
    monkeypatch.undo()
    assert client.get(owner_key(address_hash("ann@example.org"))) == ann.id.encode()
    assert emails.owner("ann@example.org") is None  # no sign-in link to ann@example.net for it
    assert not emails.get(ann.id).verified  # type: ignore[union-attr]


def test_a_passkey_lost_before_its_record_is_completed_by_registering_it_again(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    players = Players(client)
    ann, bob = players.create("Ann")[0], players.create("Bob")[0]
    passkeys = Passkeys(client)
    monkeypatch.setattr(passkeys.redis, "hset", lose)
    with pytest.raises(Lost):
        passkeys.add(ann.id, "cred", b"key", 0, "phone", 1)
    monkeypatch.undo()
    assert passkeys.find("cred") is None
    with pytest.raises(PasskeyExists):  # one player's
        passkeys.add(bob.id, "cred", b"key", 0, "phone", 1)
    passkeys.add(ann.id, "cred", b"key", 0, "phone", 1)
    found = passkeys.find("cred")
    assert found is not None and found[0] == ann.id
    with pytest.raises(PasskeyExists):
        passkeys.add(ann.id, "cred", b"key", 0, "phone", 1)
    passkeys.delete(ann.id, "cred")
    assert passkeys.find("cred") is None


# -- what else a player keeps ---------------------------------------------------------------


def test_a_players_other_records_work_in_its_slot(client: Client) -> None:
    ann = Players(client).create("Ann")[0]
    game = shards.new_id(16)
    assert seen.record(client, ann.id, game, 3) == 0
    assert seen.record(client, ann.id, game, 2) == 3
    state = vacation.start(client, ann.id, 1_000, 10, days=2)
    assert state.current is not None
    assert vacation.end(client, ann.id, 2_000, 10).current is None
    vacation.bump(client, [game, shards.new_id(16)])
    prefs = notifications.Preferences(client)
    prefs.put(ann.id, {"email": {"your_turn": False}})
    assert not prefs.wants(ann.id, "email", "your_turn")
    token = notifications.claim(client, "d1", 30)
    assert token is not None
    with pytest.raises(notifications.Claimed):
        notifications.claim(client, "d1", 30)
    notifications.release(client, "d1", token)
    notifications.mark_sent(client, "d1")
    assert notifications.claim(client, "d1", 30) is None
    hook, _ = Webhooks(client).add(ann.id, "https://example.org/hook")
    assert Webhooks(client).list(ann.id) == [hook]
    sub = Subscriptions(client).add(ann.id, "https://push.example/1", "p", "a", "ja")
    assert Subscriptions(client).get(ann.id, sub.id) == sub


def test_a_chat_message_and_a_reserved_seat_stay_in_their_games_slot(client: Client) -> None:
    players = Players(client)
    ann = players.create("Ann")[0]
    game = shards.new_id(16)
    chat = Chat(client)
    assert chat.post(game, 0, "good game").id == 1
    assert [m.text for m in chat.read(game)] == ["good game"]
    client.hset(reserved_key(game), "1", ann.id)
    rematches = Rematches(None, players)  # type: ignore[arg-type]  # taking needs no service
    assert rematches.take(game, ann.id) == 1
    assert client.hget(seats_key(game), "1") == ann.id.encode()


# -- ratings --------------------------------------------------------------------------------


def test_ratings_fold_in_one_slot_and_a_late_game_folds_every_game_again(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    ann, bob = shards.new_id(12), shards.new_id(12)
    inputs = {
        "g1": ratingmath.RatedGame("famiglia", 10, [(ann, 1), (bob, 2)]),
        "g2": ratingmath.RatedGame("famiglia", 20, [(ann, 1), (bob, 2)]),
        "g0": ratingmath.RatedGame("famiglia", 5, [(bob, 1), (ann, 2)]),
    }
    ratings = rt.Ratings(client)
    monkeypatch.setattr(ratings, "input_of", inputs.get)
    assert [ratings.rate(g) for g in ("g1", "g2", "g0")] == ["rated", "rated", "refolded"]
    assert ratings.rate("g1") == "unchanged"
    total, rows = ratings.leaderboard("famiglia", 0, 10)
    assert total == 2 and rows[0][0] == ann
    assert [p.game_id for p in ratings.history(ann, "famiglia", 10)] == ["g0", "g1", "g2"]
    for shard, game in ((3, "g1"), (4, "g2"), (5, "g0"), (5, "g9")):
        client.zadd(rm.index_key(rm.FINISHED, shard), {game: 1})
    client.zadd(rm.FINISHED, {"g8": 1})
    assert sorted(ratings.unfolded()) == ["g8", "g9"]
    inputs["g9"] = ratingmath.RatedGame("famiglia", 30, [(bob, 1), (ann, 2)])
    assert ratings.rebuild() == 4  # the finished games that rate (g8 has no input)


def test_a_keyed_record_says_whether_the_table_is_public() -> None:
    made = Record("f", game="g", seat=0, version=1, invited=[1], public=True)
    assert idempotency.replayed(idempotency.encode(made), "f").public


# -- notifications --------------------------------------------------------------------------


def test_mail_routing_and_the_pending_sets_stay_in_the_players_slot(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    ann = Players(client).create("Ann")[0]
    emails = Emails(client)
    emails.set_address(ann.id, "ann@example.org", "en")
    assert emails.redeem(VERIFY, emails.new_link(VERIFY, ann.id)) is not None
    went: list[tuple[str, str]] = []
    monkeypatch.setattr(queued, "enqueue_mail", lambda *a: went.append(("mail", a[5])) or 1)
    monkeypatch.setattr(queued, "schedule_digest", lambda *a: went.append(("digest", a[5])) or 1)
    game = shards.new_id(16)
    turn = notifications.Notice(ann.id, "your_turn", game, "famiglia", 3, 0)
    ended = notifications.Notice(ann.id, "game_ended", game, "famiglia", 9, 0)
    settings = config.settings({})
    assert notify_mail.route(client, Queues(client), settings, [turn]) == 1
    # routed before: the same mail
    assert notify_mail.route(client, Queues(client), settings, [turn]) == 1
    # the window is open: the digest
    assert notify_mail.route(client, Queues(client), settings, [ended]) == 1
    assert [kind for kind, _ in went] == ["mail", "mail", "digest"]
    pending = notify_webhooks.Webhooks(
        client, Queues(client), settings, ServerSecret(client)
    ).pending
    entry = msgspec.json.encode((ann.id, "wh_1", turn)).decode()
    pending.hold(entry, now_ms() + 5000)
    assert client.zcard(shards.key("notify:pending", shards.of(ann.id))) == 1
    pending.done(entry)
    assert not any(client.zcard(key) for key in shards.keys("notify:pending"))
