"""The notification jobs' bookkeeping on a real server, without a worker: a version's fan-out is
enqueued once however many projections of that version tell it (RQ's ``unique`` enqueue), and
the catch-ups read only the shards they are given."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import msgspec
import pytest
import redis
from rq.job import Job

from api.app import create_app
from bootstrap import Container
from services.eventstore import shards
from services.eventstore.store import now_ms
from services.games.seats import player_games_key, seats_key
from services.notify import notifications as nt
from services.readside.readmodels import SeatSummary, Summary
from tests.api.helpers import Api
from tests.feeds import id_in
from workers import queues as wq
from workers.notify import mail_pending as notify_mail_pending
from workers.notify import notices as notify
from workers.notify.push import Push
from workers.notify.webhooks import Webhooks
from workers.projection.projector import Listener, Projector

pytestmark = pytest.mark.server


def summary(due: dict[int, int], version: int) -> Summary:
    return Summary(
        game_id="g1",
        game="gangsta",
        version=version,
        head="",
        created=0,
        updated=0,
        options={},
        seats=[SeatSummary(0, "player", "ann"), SeatSummary(1, "player", "bob")],
        public=False,
        status="running",
        to_act=sorted(due),
        due=due,
        result=None,
    )


def test_two_projections_of_one_version_enqueue_one_fan_out(
    container: Container, workers_redis: redis.Redis, drain: Callable[[], None]
) -> None:
    before, after = summary({0: 100}, 4), summary({1: 200}, 5)
    assert nt.derive(before, after)  # the change notifies: on_change enqueues
    queue = container.queues.queue(wq.NOTIFY)
    notifications = notify.Notifications(workers_redis, container.queues)
    notifications.on_change(before, after)
    notifications.on_change(before, after)  # a second projection, from the same stored summary
    assert queue.get_job_ids() == ["notify-g1-5-2"]
    kept = shards.keys(notify.FAN_OUTS)
    assert sum(workers_redis.zcard(key) for key in kept) == 1  # one member: the same notices
    # The job's own record is the claim: gone once it ran (result_ttl=0), so a later projection
    # of that version (one that died before its write) enqueues it again. The fan-out's member
    # goes with it, once the channels have their sendings.
    drain()
    assert queue.get_job_ids() == [] and not workers_redis.exists("rq:job:notify-g1-5-2")
    assert not any(workers_redis.zcard(key) for key in kept)
    assert queue.failed_job_registry.get_job_ids() == []
    notifications.on_change(before, after)
    assert queue.get_job_ids() == ["notify-g1-5-2"]


def test_a_sending_enqueued_twice_is_one_job(
    container: Container, workers_redis: redis.Redis
) -> None:
    """A fan-out run again (a retry, or a projection after the first one's job ended) while
    the sendings it enqueued wait."""
    notice = nt.Notice("ann", nt.Event.YOUR_TURN.value, "g1", "gangsta", 5, 0)
    hooks = Webhooks(workers_redis, container.queues, container.settings, container.secret)
    hooks.send("ann", "h1", notice)
    hooks.send("ann", "h1", notice)
    delivery = nt.delivery_id(notice, "webhook", "h1")
    assert container.queues.queue(wq.NOTIFY).get_job_ids() == [f"webhook-{delivery}"]


@pytest.mark.parametrize("store", ["server", pytest.param("cluster", marks=pytest.mark.cluster)])
def test_the_catch_up_revives_the_sendings_of_the_shards_it_is_given(
    container: Container, workers_redis: redis.Redis, request: pytest.FixtureRequest, store: str
) -> None:
    """The store (pending sets, delivery records) on one server or a cluster; RQ's server is
    the test's server either way. The fan-outs' pending set is caught up as the channels' are."""
    client = workers_redis if store == "server" else request.getfixturevalue("cluster_redis")
    ann, bob = id_in(3), id_in(9)
    turn = nt.Notice(ann, nt.Event.YOUR_TURN.value, "g1", "gangsta", 5, 0)
    ended = nt.Notice(bob, nt.Event.GAME_ENDED.value, "g1", "gangsta", 5, 1)
    # Pending sendings past their time that nobody holds (their workers died before a try):
    # a webhook call of shard 3's player; a webhook call, a push and a mail of shard 9's.
    past = now_ms() - 1000
    for who, notice in ((ann, turn), (bob, ended)):
        Webhooks(client, container.queues, container.settings, container.secret).pending.hold(
            msgspec.json.encode((who, "h1", notice)).decode(), past
        )
    Push(client, container.queues, container.settings).pending.hold(
        msgspec.json.encode((bob, "s1", ended)).decode(), past
    )
    mail = notify_mail_pending.member(notify_mail_pending.MAIL, bob, "g1", "b1")
    notify_mail_pending.pending_set(client, container.settings).hold(mail, 0)
    # And a fan-out of a game of shard 60 whose job is gone (RQ's server lost it).
    game = id_in(60)
    lost = nt.Notice(bob, nt.Event.PLAYER_JOINED.value, game, "gangsta", 2, 0)
    fan_out = msgspec.json.encode((f"notify-{game}-2-2", game, [lost])).decode()
    notify.fan_outs(client).hold(fan_out, past)
    queue = container.queues.queue(wq.NOTIFY)

    def players() -> set[str]:
        jobs = [Job.fetch(j, connection=queue.connection) for j in queue.get_job_ids()]
        return {j.args[0] for j in jobs if not j.id.startswith("notify-")}

    channels = (client, container.queues, container.settings, container.secret)
    assert notify.catch_up(*channels, [3]) == 1
    assert players() == {ann}
    assert notify.catch_up(*channels, which=[9, 60]) == 4
    assert players() == {ann, bob} and queue.count == 5
    (revived,) = [j for j in queue.get_job_ids() if j.startswith(f"notify-{game}-2-2-catch-up-")]
    assert Job.fetch(revived, connection=queue.connection).args == (fan_out,)
    assert notify.catch_up(*channels, []) == 0


@pytest.fixture
def api(container: Container) -> Iterator[Api]:
    with create_app(container).test_client(use_cookies=False) as client:
        yield Api(client)


class Told(Listener):
    """The notices of each change the projector tells."""

    def __init__(self) -> None:
        self.notices: list[nt.Notice] = []

    def on_change(self, before: Summary, after: Summary) -> None:
        self.notices.extend(nt.derive(before, after))


@pytest.mark.parametrize("first_projection", ["at_the_join", "after_creation", "during_creation"])
def test_a_game_whose_joiner_acts_first_tells_them_and_the_creator(
    container: Container, api: Api, first_projection: str
) -> None:
    """Ann creates a game at seat 1, Bob takes seat 0 (the first to act): Bob's turn and his
    joining are notified, whether the game's first projection came after the join, before it,
    or while the creation was still being written (the events appended, the creator's seat not
    yet: the projection saw every seat open, and Bob was then told that Ann joined)."""
    listener = Told()
    projector = Projector(container.events, listeners=[listener])
    told = listener.notices
    ann, bob = api.player("Ann"), api.player("Bob")
    created = api.new_game(ann, game="famiglia", seats=2, seat=1)
    while (
        _first_to_act(container, created["game_id"]) != 0
    ):  # the deal decides: a new game until Bob's
        created = api.new_game(ann, game="famiglia", seats=2, seat=1)
    game_id = created["game_id"]
    if first_projection == "during_creation":
        store = container.store
        written = {key: store.dump(key) for key in (seats_key(game_id), player_games_key(ann.id))}
        store.delete(*written)  # as before the creation wrote them
        projector.project(game_id)
        for key, value in written.items():
            store.restore(key, 0, value, replace=True)
        assert told == []
    if first_projection == "after_creation":
        projector.project(game_id)
        assert told == []  # Ann made it: nothing to tell her
    assert api.join(bob, game_id, created["invites"][0]["code"]) == 0
    projector.project(game_id)
    assert sorted((n.player, n.event, n.seat) for n in told) == sorted(
        [(bob.id, "your_turn", 0), (ann.id, "player_joined", 0)]
    )


def _first_to_act(container: Container, game_id: str) -> int:
    game, state, _, _ = container.commands.load(game_id)
    (seat,) = game.to_act(state)
    return seat


def test_a_creator_to_act_first_against_a_bot_is_told_nothing(
    container: Container, api: Api
) -> None:
    listener = Told()
    projector = Projector(container.events, listeners=[listener])
    told = listener.notices
    ann = api.player("Ann")
    spec = {"game": "famiglia", "seats": 2, "seat": 0, "ai": {"1": "random"}}
    created = api.new_game(ann, **spec)
    while _first_to_act(container, created["game_id"]) != 0:
        created = api.new_game(ann, **spec)
    assert projector.project(created["game_id"]) is not None
    assert told == []


class Held(Listener):
    """Records each change's notices as the fan-out job ids keep them (the first enqueue of an
    id wins: ``pending.enqueue_once``, its job assumed still queued), and, while ``hold`` is
    set, keeps its projection between its read and its write until ``release``."""

    def __init__(self, jobs: dict[str, list[nt.Notice]]) -> None:
        self.jobs = jobs
        self.hold, self.held, self.release = False, threading.Event(), threading.Event()

    def on_change(self, before: Summary, after: Summary) -> None:
        found = nt.derive(before, after)
        seated = sum(1 for s in after.seats if s.kind in ("player", "ai"))
        if found:
            self.jobs.setdefault(f"{after.game_id}-{after.version}-{seated}", found)
        if self.hold:
            self.held.set()
            assert self.release.wait(10)


POINTS = ("during_creation", "created", "joined")


@pytest.mark.parametrize("late_write", [False, True])
@pytest.mark.parametrize(
    ("first", "second"), [(a, b) for i, a in enumerate(POINTS) for b in POINTS[i:]]
)
def test_two_projections_interleaved_around_the_join_announce_it_once(
    container: Container, api: Api, first: str, second: str, late_write: bool
) -> None:
    """Two projectors (two workers' processes) project one game around its creation and its
    join: the first reads at ``first`` and, with ``late_write``, writes only after the second
    read and wrote at ``second``; a third projects once all is done. Whatever the order, the
    fan-out jobs kept tell the creator of the join once, and the first player their turn
    once."""
    jobs: dict[str, list[nt.Notice]] = {}
    listeners = [Held(jobs) for _ in range(3)]
    projectors = [Projector(container.events, listeners=[x]) for x in listeners]
    ann, bob = api.player("Ann"), api.player("Bob")
    created = api.new_game(ann, game="famiglia", seats=2, seat=0)
    game_id, store = created["game_id"], container.store
    written = {key: store.dump(key) for key in (seats_key(game_id), player_games_key(ann.id))}
    store.delete(*written)  # as before the creation wrote the seats

    def advance(point: str) -> None:
        if point != "during_creation" and not store.exists(seats_key(game_id)):
            for key, value in written.items():
                store.restore(key, 0, value, replace=True)
        if point == "joined" and len(store.hgetall(seats_key(game_id))) < 2:
            assert api.join(bob, game_id, created["invites"][0]["code"]) == 1

    advance(first)
    listeners[0].hold = late_write
    one = threading.Thread(target=projectors[0].project, args=(game_id,))
    one.start()
    if late_write:
        assert listeners[0].held.wait(10)
    else:
        one.join()
    advance(second)
    projectors[1].project(game_id)
    listeners[0].release.set()
    one.join()
    advance("joined")
    projectors[2].project(game_id)
    told = sorted((n.player, n.event, n.seat) for found in jobs.values() for n in found)
    (owing,) = _to_act(container, game_id)
    turn = [ann.id, bob.id][owing]
    assert told == sorted([(ann.id, "player_joined", 1), (turn, "your_turn", owing)])


def _to_act(container: Container, game_id: str) -> set[int]:
    game, state, _, _ = container.commands.load(game_id)
    return set(game.to_act(state))
