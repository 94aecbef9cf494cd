"""The notification channels' registry (issue 24): a channel is one class implementing
``workers.notify.channel.Channel``, and the fan-out and the catch-up serve every channel of the
registry they are given the same way (preferences, pending set, catch-up)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import msgspec
import pytest
import redis

from api.app import create_app
from bootstrap import Container
from services.eventstore.store import now_ms
from services.notify import notifications as nt
from services.readside.readmodels import Summary
from tests.api.helpers import Api
from workers.notify import channel, notices
from workers.notify.pending import Pending
from workers.projection.projector import Listener, Projector
from workers.queues import NOTIFY

pytestmark = pytest.mark.server

_notice = msgspec.json.Decoder(nt.Notice)


class Inbox:
    """A channel that delivers a notice at once, by appending its event to the player's inbox
    (a Redis list): one a test can read."""

    name = "inbox"

    def __init__(self, client: redis.Redis) -> None:
        self.client = client
        self.pending = Pending(
            client, "test:inbox:pending", lambda e: _notice.decode(e).player, lambda: [1], lambda: 5
        )

    def enqueue(self, notices: Sequence[nt.Notice]) -> int:
        for notice in notices:
            entry = msgspec.json.encode(notice)
            self.pending.hold_for_lease(entry)
            self.deliver(entry)
        return len(notices)

    def deliver(self, entry: bytes) -> None:
        notice = _notice.decode(entry)
        self.client.rpush(inbox(notice.player), notice.event)
        nt.mark_sent(self.client, self.delivery_of(entry))
        self.pending.done(entry)

    def delivery_of(self, entry: bytes) -> str:
        return nt.delivery_id(_notice.decode(entry), self.name, "inbox")

    def revive(self, entry: bytes) -> None:
        self.deliver(entry)


def inbox(player: str) -> str:
    return f"test:inbox:{player}"


def received(client: redis.Redis, player: str) -> list[str]:
    return [raw.decode() for raw in client.lrange(inbox(player), 0, -1)]


@pytest.fixture
def api(container: Container) -> Iterator[Api]:
    with create_app(container).test_client(use_cookies=False) as client:
        yield Api(client)


class FanOut(Listener):
    """The projector's listener that hands a change's notices to the test's registry."""

    def __init__(self, client: redis.Redis, registry: Sequence[channel.Channel]) -> None:
        self.client, self.registry = client, registry
        self.counts: list[int] = []

    def on_change(self, before: Summary, after: Summary) -> None:
        notices = nt.derive(before, after)
        self.counts.append(channel.fan_out(self.client, self.registry, notices))


def test_a_channel_in_the_registry_gets_the_notices_its_players_want(
    container: Container, api: Api
) -> None:
    """Ann's game, Bob joins: with the inbox beside the registry's channels, each is told what
    the projection of the join says (its first player's turn; Ann, that he joined), unless
    they turned that event off for the inbox."""
    client = container.store
    registry = (
        *notices.channels(client, container.queues, container.settings, container.secret),
        Inbox(client),
    )
    fan_out = FanOut(client, registry)
    projector = Projector(container.events, listeners=[fan_out])
    ann, bob = api.player("Ann"), api.player("Bob")
    nt.Preferences(client).put(ann.id, {"inbox": {"game_ended": False}})
    nt.Preferences(client).put(bob.id, {"inbox": {"player_joined": False}})
    created = api.new_game(ann, game="famiglia", seats=2, seat=1)
    game_id = created["game_id"]
    projector.project(game_id)
    assert api.join(bob, game_id, created["invites"][0]["code"]) == 0
    projector.project(game_id)
    game, state, _, _ = container.commands.load(game_id)
    (seat,) = game.to_act(state)
    # The game starts: whoever acts first is told, Ann too.
    told_ann = received(client, ann.id)
    assert told_ann == (["your_turn"] if seat == 1 else []) + ["player_joined"]
    assert received(client, bob.id) == (["your_turn"] if seat == 0 else [])
    # Ann's and Bob's mails wait for an address, push and webhooks for a target: the inbox's.
    assert sum(fan_out.counts) == len(received(client, ann.id) + received(client, bob.id))
    nt.Preferences(client).put(ann.id, {"inbox": {"player_joined": False}})
    joined = nt.Notice(ann.id, nt.Event.PLAYER_JOINED.value, game_id, "famiglia", 9, 0)
    assert channel.fan_out(client, registry, [joined]) == 0
    assert received(client, ann.id) == told_ann


def test_the_catch_up_delivers_what_a_registered_channel_left_pending(
    container: Container, workers_redis: redis.Redis
) -> None:
    """A sending recorded as pending and never delivered (its worker died) is delivered by the
    catch-up once past its time, and forgotten once sent: the catch-up of every channel."""
    box = Inbox(workers_redis)
    registry = (
        *notices.channels(workers_redis, container.queues, container.settings, container.secret),
        box,
    )
    notice = nt.Notice("ann", nt.Event.YOUR_TURN.value, "g1", "gangsta", 5, 0)
    entry = msgspec.json.encode(notice)
    box.pending.hold_for_lease(entry)
    assert channel.catch_up(registry) == 0  # its try may still be under way
    box.pending.hold(entry, now_ms() - 1)
    assert channel.catch_up(registry) == 1
    assert received(workers_redis, "ann") == ["your_turn"]
    box.pending.hold(entry, now_ms() - 1)  # sent, yet left pending: forgotten, not sent again
    assert channel.catch_up(registry) == 0
    assert received(workers_redis, "ann") == ["your_turn"]
    assert workers_redis.zcard(box.pending.key("ann")) == 0
    assert container.queues.queue(NOTIFY).count == 0
