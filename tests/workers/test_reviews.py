"""Post-game reviews with real RQ workers on the session's server and the real engine (a small
iteration budget): a bot game that ends is reviewed by a worker and ``GET /games/{id}/review``
serves it; the job is idempotent and reproducible; ``OMERTA_REVIEW=off`` enqueues nothing and
``POST`` asks for the review of such a game; a running game's review is refused without a
figure; a review whose worker is killed is finished by another, found by the catch-up."""

from __future__ import annotations

import dataclasses
import os
import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
import redis

from api.app import create_app
from bootstrap import Container, bootstrap
from domain.review import Review
from services.eventstore import keys
from services.platform import config
from services.readside.archiving import Archiver, Refused
from services.readside.readmodels import ReadModels
from services.readside.reviews import Reviews, progress_key, review_key
from tests.api.helpers import Api
from tests.workers.helpers import start_worker, stop, wait
from workers import queues as wq
from workers import review, rqworker, turns, worker
from workers.projection import leases

pytestmark = pytest.mark.server

ITERATIONS = 6  # per decision: a Famiglia game's review in well under a second
# The queues but the reviews': what a game needs to be played to its end by its bots.
PLAYING = [q for q in wq.QUEUES if q != wq.ANALYSIS]
WAIT = 120.0


@pytest.fixture
def reviewing(
    real_redis: redis.Redis, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> Container:
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("OMERTA_REVIEW", "on")  # the suite's default is off (tests/conftest.py)
    monkeypatch.setenv("OMERTA_REVIEW_ITERATIONS", str(ITERATIONS))
    # Lowered, but not to 19: beside a CPU hog (the suite must pass beside one) a nice-19
    # analysis worker gets next to no processor and the reviews here would wait for the hog.
    monkeypatch.setenv("OMERTA_ANALYSIS_NICE", "1")
    return bootstrap()


@pytest.fixture
def api(reviewing: Container) -> Iterator[Api]:
    with create_app(reviewing).test_client(use_cookies=False) as client:
        yield Api(client)


def play_to_the_end(container: Container) -> str:
    """A greedy-vs-greedy Famiglia game, played to its end by a real worker (reviews aside)."""
    game_id = container.commands.create_game("famiglia", 2, ai={0: "greedy", 1: "greedy"})
    worker.make_worker(container.context, queues=PLAYING).work(burst=True, logging_level="WARNING")
    game, state, _, _ = container.commands.load(game_id)
    assert game.result(state) is not None
    return game_id


def configured(redis_url: str, **env: str) -> config.Settings:
    """The suite's settings on the session's server, reviews on a small budget, ``env`` over
    them."""
    review_budget = {"OMERTA_REVIEW_ITERATIONS": str(ITERATIONS)}
    return config.settings({**os.environ, "REDIS_URL": redis_url, **review_budget, **env})


def run_reviews(container: Container) -> None:
    worker.make_worker(container.context, queues=[wq.ANALYSIS]).work(
        burst=True, logging_level="WARNING"
    )


def test_a_finished_bot_game_is_reviewed_by_a_worker_and_served(
    reviewing: Container, api: Api
) -> None:
    game_id = play_to_the_end(reviewing)
    assert api.ok("GET", f"/games/{game_id}/review") == {
        "game_id": game_id,
        "state": "queued",
        "progress": None,
        "review": None,
    }
    assert [j.id for j in reviewing.queues.queue(wq.ANALYSIS).jobs] == [review.job_id(game_id)]
    run_reviews(reviewing)

    response = api.call("GET", f"/games/{game_id}/review")
    assert response.status_code == 200 and response.json["state"] == "done"
    found = msgspec.convert(response.json["review"], Review)
    assert found.game == "famiglia" and found.iterations == ITERATIONS
    assert found.version == reviewing.commands.load(game_id).version
    assert found.decisions and [p.seat for p in found.players] == [0, 1]
    assert all(p.accuracy is not None and 0 <= p.accuracy <= 100 for p in found.players)
    sample = reviewing.registry.get_sample_value
    assert sample("omerta_review_seconds_count", {"game": "famiglia"}) == 1
    assert sample("omerta_jobs_done_total", {"queue": wq.ANALYSIS}) == 1
    # Cacheable once done: the same ETag, and 304 for it.
    etag = response.headers["ETag"]
    again = api.call("GET", f"/games/{game_id}/review", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.headers["ETag"] == etag


@pytest.mark.parametrize(("setting", "shown"), [("on", "queued"), ("off", "none")])
def test_a_game_is_queued_from_the_moment_it_ends(
    redis_url: str,
    real_redis: redis.Redis,
    monkeypatch: pytest.MonkeyPatch,
    setting: str,
    shown: str,
) -> None:
    """A concession ends the game; the GET right after it, before any worker ran (no
    projection, no job), already says ``queued``: ``none`` would have the client offer "Ask for
    a review" for a review on its way. With reviews off it is ``none`` throughout."""
    container = bootstrap(configured(redis_url, OMERTA_REVIEW=setting))
    with create_app(container).test_client(use_cookies=False) as client:
        api = Api(client)
        ann, bob = api.player("Ann"), api.player("Bob")
        made = api.new_game(ann, game="famiglia", seats=2)
        game_id = made["game_id"]
        api.join(bob, game_id, made["invites"][0]["code"])
        conceded = api.call(
            "POST", f"/games/{game_id}/commands", ann, json={"command": {"type": "concede"}}
        )
        assert conceded.status_code == 200, conceded.json
        assert len(container.queues.queue(wq.ANALYSIS)) == 0  # nothing has told the reviews
        assert api.ok("GET", f"/games/{game_id}/review")["state"] == shown
        # The projection (the reviews' listener owes it and enqueues its job): still the same,
        # also at the moment the read model shows the end (it is owed before that write).
        at_write: list[str] = []
        write = container.projector.write

        def watched(*args: Any, **kwargs: Any) -> bool:
            written = write(*args, **kwargs)
            at_write.append(api.ok("GET", f"/games/{game_id}/review")["state"])
            return written

        monkeypatch.setattr(container.projector, "write", watched)
        worker.make_worker(container.context, queues=PLAYING).work(
            burst=True, logging_level="WARNING"
        )
        assert at_write and set(at_write) == {shown}
        assert api.ok("GET", f"/games/{game_id}/review")["state"] == shown
        run_reviews(container)
        after = api.ok("GET", f"/games/{game_id}/review")["state"]
    assert after == ("done" if setting == "on" else "none")


def test_the_job_is_idempotent_and_reproducible(reviewing: Container) -> None:
    game_id = play_to_the_end(reviewing)
    run_reviews(reviewing)
    stored = reviewing.store.get(review_key(game_id))
    assert stored is not None
    # Run again: nothing recomputed, nothing rewritten, nothing owed.
    assert review.review_game(reviewing.context, game_id) == "done"
    assert reviewing.store.get(review_key(game_id)) == stored
    # Recomputed from scratch (the key gone, the job again): the same bytes.
    reviewing.store.delete(review_key(game_id))
    assert review.review_game(reviewing.context, game_id) == "reviewed"
    assert reviewing.store.get(review_key(game_id)) == stored
    found = Reviews(reviewing.store).read(game_id)
    assert found == review.compute(reviewing.commands, reviewing.secret, game_id, ITERATIONS)
    assert msgspec.json.decode(found or b"", type=Review).iterations == ITERATIONS
    assert Reviews(reviewing.store).status(game_id).state == "done"
    assert Reviews(reviewing.store).owed(range(64)) == []


def test_a_running_game_has_no_review_and_no_figure(reviewing: Container, api: Api) -> None:
    player = api.player("Ada")
    game_id = reviewing.commands.create_game("famiglia", 2, ai={0: "greedy", 1: "greedy"})
    for method, who in (("GET", None), ("POST", player)):
        response = api.call(method, f"/games/{game_id}/review", who)
        assert response.status_code == 409
        assert response.mimetype == "application/problem+json"
        body = response.json
        assert body["code"] == "game_running"
        assert not {"review", "progress", "state"} & set(body)
    assert api.call("GET", "/games/no-such-game/review").status_code == 404
    assert Reviews(reviewing.store).status(game_id).state == "none"
    assert len(reviewing.queues.queue(wq.ANALYSIS)) == 0


def test_off_enqueues_nothing_and_a_player_asks_for_one(
    real_redis: redis.Redis, redis_url: str
) -> None:
    off = bootstrap(configured(redis_url, OMERTA_REVIEW="off"))
    game_id = play_to_the_end(off)
    assert len(off.queues.queue(wq.ANALYSIS)) == 0
    assert Reviews(off.store).owed(range(64)) == []
    with create_app(off).test_client(use_cookies=False) as client:
        api = Api(client)
        assert api.ok("GET", f"/games/{game_id}/review")["state"] == "none"
        assert api.call("POST", f"/games/{game_id}/review").status_code == 401
        player = api.player("Grace")
        asked = api.call("POST", f"/games/{game_id}/review", player)
        assert asked.status_code == 202 and asked.json["state"] == "queued"
        # Asked again: the same job, not another.
        assert api.call("POST", f"/games/{game_id}/review", player).json["state"] == "queued"
        assert len(off.queues.queue(wq.ANALYSIS)) == 1
        run_reviews(off)
        assert api.ok("GET", f"/games/{game_id}/review")["state"] == "done"


def test_an_archived_game_is_reviewed_from_its_archive(
    real_redis: redis.Redis, redis_url: str, tmp_path: Path
) -> None:
    settings = configured(redis_url, OMERTA_VAR=str(tmp_path))  # where the archive's files go
    played = bootstrap(settings)
    game_id = play_to_the_end(played)
    assert Archiver(played.events).archive(game_id) == "ok"
    assert not real_redis.exists(keys.events_key(game_id))
    fresh = bootstrap(settings)  # another process: nothing of the game cached
    with create_app(fresh).test_client(use_cookies=False) as client:
        api = Api(client)
        asked = api.call("POST", f"/games/{game_id}/review", api.player("Edsger"))
        assert asked.status_code == 202 and asked.json["state"] == "queued"
        run_reviews(bootstrap(settings))
        done = api.ok("GET", f"/games/{game_id}/review")
    assert done["state"] == "done" and done["review"]["version"] == played.events.version(game_id)


def test_a_review_moves_with_its_archived_game(
    real_redis: redis.Redis, redis_url: str, tmp_path: Path
) -> None:
    """A reviewed game's review leaves the store with it, and is served as before."""
    settings = configured(redis_url, OMERTA_VAR=str(tmp_path), OMERTA_REVIEW="on")
    played = bootstrap(settings)
    game_id = play_to_the_end(played)
    reviews = Reviews.of(played.events)
    with pytest.raises(Refused, match="being reviewed"):
        Archiver(played.events).archive(game_id)
    run_reviews(played)
    before = reviews.read(game_id)
    assert before is not None
    assert Archiver(played.events).archive(game_id) == "ok"
    assert not real_redis.exists(review_key(game_id))
    fresh = bootstrap(settings)  # another process: nothing of the game cached
    assert Reviews.of(fresh.events).read(game_id) == before
    with create_app(fresh).test_client(use_cookies=False) as client:
        done = Api(client).ok("GET", f"/games/{game_id}/review")
        asked = Api(client).call("POST", f"/games/{game_id}/review", Api(client).player("Ada"))
    assert done["state"] == "done" and asked.json["state"] == "done"
    assert fresh.queues.queue(wq.ANALYSIS).count == 0


def test_a_review_killed_with_its_worker_is_finished_by_another(
    reviewing: Container,
    api: Api,
    redis_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game_id = play_to_the_end(reviewing)
    # A budget that makes each decision take a while: the kill lands mid-review.
    monkeypatch.setenv("OMERTA_REVIEW_ITERATIONS", "150")
    reviews = Reviews(reviewing.store)
    first = start_worker(redis_url, tmp_path / "analysis-1.log", "--queues", "analysis")
    try:
        wait(lambda: reviews.status(game_id).done >= 1, WAIT, "the review under way")
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    killed_at = reviews.status(game_id)
    assert killed_at.state == "running" and killed_at.done < killed_at.total
    started = (tmp_path / "analysis-1.log").read_text()
    assert re.search(r"started \(pid \d+, nice 1\): omerta-analysis$", started, re.M)
    shown = api.ok("GET", f"/games/{game_id}/review")  # its last report, until it expires
    assert shown["state"] == "running" and shown["review"] is None
    assert shown["progress"] == {"done": killed_at.done, "total": killed_at.total}
    assert reviewing.store.exists(progress_key(game_id))  # it expires: no report any more

    # A worker of the projections (whose catch-up finds the review owed, neither running nor
    # queued) and one of the reviews.
    logs = tmp_path / "projections.log", tmp_path / "analysis-2.log"
    catching_up = start_worker(redis_url, logs[0], "--queues", "projections")
    second = start_worker(redis_url, logs[1], "--queues", "analysis")
    try:
        wait(lambda: reviews.read(game_id) is not None, WAIT, "the review done by another")
    finally:
        stop(second, logs[1])
        stop(catching_up, logs[0])
    assert "review of" in logs[0].read_text()  # the catch-up's line: enqueued again
    assert reviews.status(game_id).state == "done" and reviews.owed(range(64)) == []
    computed = review.compute(reviewing.commands, reviewing.secret, game_id, 150)
    assert computed == reviews.read(game_id)


@pytest.mark.parametrize(
    "env",
    [{"OMERTA_REVIEW": "maybe"}, {"OMERTA_REVIEW_ITERATIONS": "0"},
     {"OMERTA_REVIEW_ITERATIONS": "ten"}],
)  # fmt: skip
def test_a_bad_review_setting_stops_the_start_naming_it(env: dict[str, str]) -> None:
    with pytest.raises(config.ConfigError, match=next(iter(env))):
        config.settings(env)


def test_the_review_settings() -> None:
    assert (config.settings({}).review, config.settings({}).review_iterations) == (True, None)
    off = config.settings({"OMERTA_REVIEW": "off", "OMERTA_REVIEW_ITERATIONS": "50"})
    assert (off.review, off.review_iterations) == (False, 50)


# A budget whose review outlasts what the tests below watch, beside other work: a Famiglia
# game's decisions take a second or more each (a minute or more in all).
LONG = "2000"


def review_under_way(reviewing: Container, game_id: str, decisions: int) -> None:
    """Until the review has stored ``decisions`` decisions."""
    reviews = Reviews(reviewing.store)
    wait(lambda: reviews.status(game_id).done >= decisions, WAIT, "the review under way")


def test_a_worker_in_a_long_review_stays_alive(
    reviewing: Container, redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its liveness (which tells a default worker to leave the reviews to it) holds over a
    review longer than the staleness of a worker unheard of."""
    game_id = play_to_the_end(reviewing)
    monkeypatch.setenv("OMERTA_REVIEW_ITERATIONS", LONG)
    log = tmp_path / "analysis.log"
    analysis = start_worker(redis_url, log, "--queues", "analysis")
    try:
        review_under_way(reviewing, game_id, 1)
        watched = time.monotonic()
        while time.monotonic() - watched < worker.AI_WORKER_STALE + 5:
            assert leases.ai_worker_alive(reviewing.store, None, wq.ANALYSIS), "seen dead"
            time.sleep(0.5)  # a sample every half second, over the whole window
        assert Reviews(reviewing.store).read(game_id) is None, "the review ended: watch longer"
    finally:
        stop(analysis, log)


def test_a_default_worker_in_a_review_moves_and_projects_first(
    reviewing: Container, redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker of every queue (started as documented, no analysis worker alive) in the
    middle of a long review: an AI move owed by a new game is made, and projected, while the
    review goes on, not after it."""
    game_id = play_to_the_end(reviewing)
    monkeypatch.setenv("OMERTA_REVIEW_ITERATIONS", LONG)
    log = tmp_path / "worker.log"
    default = start_worker(redis_url, log)
    try:
        review_under_way(reviewing, game_id, 1)
        ai_game = ai_to_start(reviewing)
        version = reviewing.commands.load(ai_game).version
        wait(lambda: reviewing.commands.load(ai_game).version > version, WAIT, "the AI move")
        moved = reviewing.commands.load(ai_game).version
        read_models = ReadModels(reviewing.store)
        wait(lambda: read_models.version(ai_game) == moved, WAIT, "the move projected")
        assert Reviews(reviewing.store).read(game_id) is None, "moved after the review ended"
        assert f"review of {game_id} paused" in log.read_text()  # it gave the worker back
    finally:
        stop(default, log)


def ai_to_start(container: Container) -> str:
    """A Famiglia game whose AI seat 0 plays first (seat 1 a person's: one AI move, then it
    waits)."""
    while True:
        game_id = container.commands.create_game("famiglia", 2, ai={0: "greedy"})
        game, state, _, _ = container.commands.load(game_id)
        if 0 in game.to_act(state):
            return game_id


def test_a_review_stops_at_sigterm_and_resumes_from_its_last_decision(
    reviewing: Container, redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id = play_to_the_end(reviewing)
    monkeypatch.setenv("OMERTA_REVIEW_ITERATIONS", LONG)
    reviews = Reviews(reviewing.store)
    logs = tmp_path / "analysis-1.log", tmp_path / "analysis-2.log"
    first = start_worker(redis_url, logs[0], "--queues", "analysis")
    try:
        review_under_way(reviewing, game_id, 2)
        first.send_signal(signal.SIGTERM)
        asked = time.monotonic()
        assert first.wait(rqworker.STOP_GRACE) == 0
        stopped_in = time.monotonic() - asked
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    assert "after it was asked to stop" not in logs[0].read_text()
    kept = reviews.status(game_id).done if reviews.running(game_id) else None
    assert reviews.read(game_id) is None, f"stopped {stopped_in:.1f} s after SIGTERM, reviewed"
    saved = len(reviews.decisions(game_id, int(LONG)))
    assert saved >= 2 and kept in (None, saved)
    second = start_worker(redis_url, logs[1], "--queues", "analysis")
    try:
        review_under_way(reviewing, game_id, saved + 1)
    finally:
        stop(second, logs[1])
    # The second job went on from the first one's last decision, not from the start.
    resumed = rf"review of {game_id} resumed at decision {saved} of \d+"
    assert re.search(resumed, logs[1].read_text())


def test_a_review_in_slices_is_the_review_in_one(reviewing: Container) -> None:
    """A review that gives its worker back after every decision (other work always waiting)
    continues in a job of its own each time, from its last decision, and ends with the same
    bytes as one computed in one go."""
    game_id = play_to_the_end(reviewing)
    analysis = reviewing.queues.queue(wq.ANALYSIS)
    analysis.empty()
    always = turns.Turns()
    always.watch(lambda: True)
    context = dataclasses.replace(reviewing.context, turns=always)
    slices = 0
    while review.review_game(context, game_id) == "paused":
        slices += 1
        (continued,) = analysis.job_ids  # its continuation, queued
        analysis.remove(continued)
    written = Reviews(reviewing.store).read(game_id) or b""
    total = len(msgspec.json.decode(written, type=Review).decisions)
    assert slices == total - 1  # one decision a job
    assert Reviews(reviewing.store).read(game_id) == review.compute(
        reviewing.commands, reviewing.secret, game_id, ITERATIONS
    )
    assert Reviews(reviewing.store).status(game_id).state == "done"
    assert reviews_left(reviewing, game_id) == {}


def reviews_left(container: Container, game_id: str) -> dict[int, bytes]:
    return Reviews(container.store).decisions(game_id, ITERATIONS)
