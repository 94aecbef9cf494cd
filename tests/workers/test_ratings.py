"""Ratings from the projection: a set of finished games (2-4 seats, people and AI, draws, an
unrated seat) rated by the workers in whatever order they project them equals a fresh fold of
the same games in their order, and so does ``omerta rebuild``; folding is once per game."""

from __future__ import annotations

import random
import threading
from typing import Any

import msgspec
import pytest
import redis

from api.cli import main as omerta
from bootstrap import Container
from domain import GAMES
from domain.core import Game, Result
from services.errors import CommandIdReused, RuleRejected
from services.eventstore import shards
from services.games.commandinput import ai_command_id
from services.games.commands import CommandService
from services.identity.players import Players
from services.readside import ratingmath
from services.readside import ratings as rt
from tests.burst import BurstWorker
from tests.services.helpers import pick_move
from workers import queues as wq
from workers.projection import jobs as project_jobs
from workers.projection import ratings as rating_jobs
from workers.projection.projector import Projector
from workers.projection.rebuild import snapshot

pytestmark = pytest.mark.server


class Judged:
    """Gangsta! with the results the table layer gives: a draw agreed (every seat wins) in
    2-seat games, a forfeiting seat (1) left unrated in 3-seat games (the same ``Result``
    shapes); 4-seat games as the rules end them."""

    def __init__(self, game: Game) -> None:
        self._game = game

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)

    def result(self, state: Any) -> Result | None:
        result = self._game.result(state)
        if result is None or len(result.scores) == 4:
            return result
        if len(result.scores) == 2:
            return Result(result.scores, [0, 1], "draw_agreed", {"unrated": []})
        return Result(result.scores, result.winners, result.reason, {"unrated": [1]})


@pytest.fixture
def judged(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(GAMES, "gangsta", Judged(GAMES["gangsta"]))


def seat_people(
    container: Container, client: redis.Redis, game_id: str, people: list[str], ai: set[int]
) -> None:
    """Seat these players (ids) in the game's seats that are not AI, in order."""
    players = Players(client)
    humans = [s for s in range(container.commands.load(game_id).meta.seats) if s not in ai]
    invites = players.open_table(game_id, 0, humans, people[0], humans[0], public=False)
    for seat, person in zip(humans[1:], people[1:], strict=False):
        players.join(game_id, person, invites[seat])


def play_to_the_end(
    svc: CommandService, game_id: str, rng: random.Random, prefix: str = "c"
) -> None:
    """Random legal moves for every seat until the game is over; the AI seats' with the AI's
    command ids (the service lets only those move for a bot's seat), as a worker's job sends.
    Where a worker runs, its AI job may make an AI seat's move first: then that one stands."""
    ai = svc.load(game_id).meta.ai
    sent = 0
    while (move := pick_move(svc, game_id, rng)) is not None:
        seat, command = move
        version = svc.load(game_id).version
        command_id = ai_command_id(version, seat) if seat in ai else f"{prefix}{sent}"
        try:
            svc.handle(game_id, seat, msgspec.to_builtins(command), command_id)
        except (CommandIdReused, RuleRejected):
            if seat not in ai or svc.load(game_id).version == version:
                raise
        sent += 1


def play_games(container: Container, client: redis.Redis, rng: random.Random) -> list[str]:
    """A mix of finished games: Famiglia and Gangsta! with 2 to 4 seats, people and AI levels
    (two seats of one level in a game too), one seat left open."""
    players = Players(client)
    people = [players.create(name)[0].id for name in ("Ann", "Bo", "Cy", "Di")]
    tables: list[tuple[str, int, dict[int, str], list[str]]] = [
        ("famiglia", 2, {}, people[:2]),
        ("famiglia", 2, {1: "greedy"}, people[:1]),
        ("famiglia", 2, {0: "random"}, people[2:3]),
        ("famiglia", 2, {}, people[1:3]),
        ("gangsta", 2, {1: "random"}, people[3:]),
        ("gangsta", 3, {2: "greedy"}, people[:2]),
        ("gangsta", 3, {}, people[1:4]),
        ("gangsta", 4, {1: "greedy", 3: "greedy"}, people[2:4]),
        ("gangsta", 4, {0: "random"}, people[:2]),  # seat 3 stays open: nobody rated there
        ("famiglia", 2, {}, [people[3], people[0]]),
    ]
    game_ids = []
    for n, (kind, seats, ai, seated) in enumerate(tables):
        game_id = container.commands.create_game(kind, seats, ai=ai)
        seat_people(container, client, game_id, seated, set(ai))
        play_to_the_end(container.commands, game_id, rng, prefix=f"g{n}-")
        game_ids.append(game_id)
    return game_ids


def fresh_fold(
    container: Container, game_ids: list[str]
) -> dict[str, dict[str, ratingmath.Rating]]:
    """The ratings of these games computed from scratch: each game's result from the rules, its
    seats, its finish time from its final event, folded in (finish time, game id) order."""
    svc = container.commands
    client = svc.store.redis
    inputs = {}
    for game_id in game_ids:
        game, state, _, meta = svc.load(game_id)
        owners = Players(client).seats(game_id)
        finished = svc.store.read(game_id)[-1].envelope.time
        inputs[game_id] = ratingmath.rated_game(meta, owners, game.result(state), finished)
    out: dict[str, dict[str, ratingmath.Rating]] = {}
    for game_id in ratingmath.order(inputs):
        kind = out.setdefault(inputs[game_id].game, {})
        kind.update(ratingmath.fold(kind, inputs[game_id]))
    return out


def stored(client: redis.Redis) -> dict[str, dict[str, ratingmath.Rating]]:
    ratings = rt.Ratings(client)
    out = {}
    for kind in GAMES:
        total, rows = ratings.leaderboard(kind, 0, 1000)
        assert total == len(rows)
        out[kind] = dict(rows)
    return out


def test_ratings_after_a_set_of_games_equal_a_fresh_fold_and_the_rebuild(
    container: Container,
    workers_redis: redis.Redis,
    judged: None,
    capsys: pytest.CaptureFixture[str],
) -> None:
    game_ids = play_games(container, workers_redis, random.Random(15))
    # the projection jobs: every game, each enqueueing its rating job
    for shard in range(shards.SHARDS):
        project_jobs.project_changed(container.context, shard)
    assert rt.Ratings(workers_redis).unfolded()
    # Rating jobs in the order the changed set gave the games: some come late and fold again.
    projections = container.queues.queue(wq.PROJECTIONS)
    BurstWorker(
        [projections], connection=workers_redis, job_class=wq.bound(container.context)
    ).work(burst=True, logging_level="WARNING")
    assert not rt.Ratings(workers_redis).unfolded()
    expected = fresh_fold(container, game_ids)
    assert stored(workers_redis) == expected
    results = [
        container.commands.load(g).game.result(container.commands.load(g).state) for g in game_ids
    ]
    assert any(r.reason == "draw_agreed" for r in results)  # the mix has its draws ...
    assert any(r.details.get("unrated") for r in results)  # ... and its unrated seats
    assert {"ai:greedy", "ai:random"} <= expected["famiglia"].keys()
    assert {"ai:greedy", "ai:random"} <= expected["gangsta"].keys()
    # Two games of greedy (one with two seats of it, counted once); the open seat rates nobody.
    assert expected["gangsta"]["ai:greedy"].games == 2
    assert len(expected["gangsta"]) == 6

    before = snapshot(workers_redis)
    assert omerta(["rebuild", "--quiet"]) == 0
    assert "identical" in capsys.readouterr().out
    assert snapshot(workers_redis) == before
    assert stored(workers_redis) == expected


def unrated(container: Container) -> Projector:
    """The container's projector, less its listener that enqueues the rating jobs."""
    listeners = container.projector.listeners
    kept = [each for each in listeners if not isinstance(each, rating_jobs.Ratings)]
    return Projector(container.events, listeners=kept)


def test_rating_a_game_twice_or_late_changes_nothing_more(
    container: Container, workers_redis: redis.Redis, judged: None
) -> None:
    game_ids = play_games(container, workers_redis, random.Random(4))
    projector = unrated(container)  # this test rates by hand, in its own order
    for game_id in game_ids:
        projector.project(game_id)
    ratings = rt.Ratings(workers_redis)
    store = container.commands.store
    by_finish = sorted(game_ids, key=lambda g: (store.read(g)[-1].envelope.time, g))
    assert ratings.rate(by_finish[-1]) == "rated"
    assert ratings.rate(by_finish[0]) == "refolded"  # it finished before the one folded
    once = snapshot(workers_redis)
    assert ratings.rate(by_finish[0]) == "unchanged"
    assert snapshot(workers_redis) == once
    assert rating_jobs.catch_up(workers_redis) == len(game_ids) - 2  # the jobs never ran
    assert rating_jobs.catch_up(workers_redis) == 0
    expected = fresh_fold(container, game_ids)
    assert stored(workers_redis) == expected

    ann = Players(workers_redis).seats(game_ids[0])[0]
    history = ratings.history(ann, "famiglia", 100)
    assert [p.time for p in history] == sorted(p.time for p in history)
    assert len(history) == expected["famiglia"][ann].games == 3
    assert history[-1].rating.mu == expected["famiglia"][ann].mu


def test_rating_jobs_racing_each_other_agree(
    container: Container, workers_redis: redis.Redis, judged: None
) -> None:
    """Four workers' rating jobs at once, each in its own order: one fold wins each round, the
    others fold again on what it wrote; the end equals the fresh fold."""
    game_ids = play_games(container, workers_redis, random.Random(9))
    projector = unrated(container)
    for game_id in game_ids:
        projector.project(game_id)
    errors: list[BaseException] = []

    def race(seed: int) -> None:
        try:
            ratings = rt.Ratings(container.commands.store.redis)
            for game_id in random.Random(seed).sample(game_ids, len(game_ids)):
                ratings.rate(game_id)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=race, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    assert stored(workers_redis) == fresh_fold(container, game_ids)


def test_a_seat_taken_after_the_end_is_rated_too(
    container: Container, workers_redis: redis.Redis
) -> None:
    """A seat nobody had joined when the game ended (its clock ran out) is left out; a person
    joining it later changes the game's input, and the ratings fold again with it."""
    players = Players(workers_redis)
    ann, bo = players.create("Ann")[0].id, players.create("Bo")[0].id
    game_id = container.commands.create_game("famiglia", 2)
    invites = players.open_table(game_id, 0, [0, 1], ann, 0, public=False)
    play_to_the_end(container.commands, game_id, random.Random(2))
    container.projector.project(game_id)  # on_finished: the rating job (not run here)
    ratings = rt.Ratings(workers_redis)
    assert ratings.rate(game_id) == "rated"
    assert stored(workers_redis)["famiglia"] == {}  # one identity: nobody to rate against
    players.join(game_id, bo, invites[1])
    container.projector.project(game_id)
    assert ratings.rate(game_id) == "refolded"
    assert set(stored(workers_redis)["famiglia"]) == {ann, bo}


def test_a_running_game_is_not_rated(container: Container, workers_redis: redis.Redis) -> None:
    game_id = container.commands.create_game("famiglia", 2)
    container.projector.project(game_id)
    assert rt.Ratings(workers_redis).rate(game_id) == "not_finished"
    assert msgspec.to_builtins(stored(workers_redis)) == {"famiglia": {}, "gangsta": {}}


def test_the_leaderboard_is_in_the_order_of_the_ratings_it_shows_while_they_change(
    real_redis: redis.Redis,
) -> None:
    """A writer moves ten identities' ratings (as folds do: ratings and leaderboard in one
    transaction) while the leaderboard is read: every page read is in the order of its
    ratings, and the rated count is the page's."""
    board = rt.Ratings(real_redis)
    names = [f"p{i}" for i in range(10)]
    stop = threading.Event()

    def write() -> None:
        rng = random.Random(7)
        while not stop.is_set():
            moved = {n: ratingmath.Rating(rng.uniform(10, 40), rng.uniform(1, 8), 1) for n in names}
            with real_redis.pipeline(transaction=True) as pipe:
                rt._write(pipe, "gangsta", moved, [])
                pipe.execute()

    writer = threading.Thread(target=write)
    writer.start()
    try:
        for _ in range(2000):
            total, rows = board.leaderboard("gangsta", 0, 10)
            ordinals = [rating.ordinal for _, rating in rows]
            assert ordinals == sorted(ordinals, reverse=True), rows
            assert total == len(rows)
    finally:
        stop.set()
        writer.join()
