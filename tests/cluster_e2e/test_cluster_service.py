"""The service on a real Valkey Cluster (3 masters, 3 replicas) with two web processes, two
workers and an AI worker (``tests.cluster_e2e.service``): games played to the end over HTTP,
each request to the other web process; games against the AI; racing writers; ``omerta verify
--all`` and ``omerta rebuild``; and a master killed in the middle of the load: its replica
takes over, the killed node comes back as a replica (as a supervisor restarts it), no
acknowledged command is lost, every game goes on and the read models catch up on their own.

The tests share the module's processes and run in this order; each checks only what it made,
except the rebuild (every read model) and the failover (every game)."""

from __future__ import annotations

import random
import signal
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import redis

from services.eventstore import keys
from services.eventstore.store import EventStore
from services.games.commands import CommandService
from services.games.repository import EventStoreRepository
from services.platform.embedded import EmbeddedServer
from tests.cluster_e2e.clients import (
    STATUSES,
    Alternating,
    Web,
    eventually,
    lagging,
    playing,
)
from tests.cluster_e2e.service import ClusterService
from tests.crowd import Crowd
from tests.faults.load import Game, acknowledged_once, games_go_on, statuses
from tests.services import racer
from tests.services.helpers import pick_move
from workers.projection.rebuild import snapshot

pytestmark = [pytest.mark.cluster, pytest.mark.server]

FAMIGLIA_AI = {"game": "famiglia", "seats": 2, "ai": {"1": "greedy"}}
GANGSTA_AI = {"game": "gangsta", "seats": 3, "ai": {"1": "random", "2": "greedy"}}


def inbox(web: Web, token: str) -> set[tuple[str, int]]:
    return {(g["game_id"], g["version"]) for g in web.ok("GET", "/me/inbox", token=token)["games"]}


Who = dict[str, Any]


def play_interleaved(web: Web, seats: dict[str, list[Who]], everyone: tuple[Who, ...]) -> list[int]:
    """Random moves in each game in turn until every game is over, checking before each round
    that every player's inbox is exactly the games where they are to act, at their versions;
    the games' last versions."""
    rng = random.Random(17)
    moves, running, last = 0, set(seats), {}
    while running:
        tables = {g: web.ok("GET", f"/games/{g}", token=everyone[0]["token"]) for g in running}
        for who in everyone:
            expected = {
                (g, t["version"])
                for g, t in tables.items()
                if any(seats[g][s]["id"] == who["id"] for s in t["to_act"])
            }
            eventually(
                lambda w=who, e=expected: inbox(web, w["token"]) == e, f"{who['name']}'s inbox"
            )
        for game_id, table in tables.items():
            last[game_id] = table["version"]
            if table["result"] is not None:
                running.discard(game_id)
                continue
            mover = seats[game_id][rng.choice(table["to_act"])]
            accepted = web.random_move(mover["token"], game_id, rng, f"{game_id}-{moves}")
            assert accepted["version"] > table["version"]
            moves += 1
    assert moves > 20
    return [last[g] for g in seats]


def test_two_famiglia_games_over_both_web_processes(service: ClusterService) -> None:
    """Ann and Bob play by invite, Cy and Bob a public game Bob found in the lobby, the moves
    interleaved, each request to the other web process; at every step each player's inbox is
    exactly the games where they are to act, at the game's version (the inbox is written in
    the player's slot, the game in its own); at the end both games are in their players'
    lists, over, and the read models at the streams' versions. Live streams of both games and
    Bob's own, open on each web process, got the last versions and Bob's empty inbox (each
    web process follows the games' and the player's shards on the cluster)."""
    web = Web(service.bases)
    ann, bob, cy = (web.player(name) for name in ("Ann", "Bob", "Cy"))
    invited = web.ok("POST", "/games", {"game": "famiglia", "seats": 2}, token=ann["token"])
    first = invited["game_id"]
    web.ok("POST", f"/games/{first}/join", {"invite": invited["invites"][0]["code"]},
           token=bob["token"])  # fmt: skip
    public = {"game": "famiglia", "seats": 2, "public": True}
    second = web.ok("POST", "/games", public, token=cy["token"])["game_id"]
    eventually(
        lambda: [g["game_id"] for g in web.ok("GET", "/lobby")["games"]] == [second], "the lobby"
    )
    assert web.ok("POST", f"/games/{second}/join", {"invite": None}, token=bob["token"])["seat"]
    eventually(lambda: web.ok("GET", "/lobby")["games"] == [], "the lobby emptied")

    seats = {first: [ann, bob], second: [cy, bob]}
    crowds = [Crowd(port) for port in service.ports]
    try:
        for crowd in crowds:
            crowd.open([f"/games/{first}/events", f"/games/{second}/events"])
            crowd.open(["/me/events"], token=bob["token"])
        versions = play_interleaved(web, seats, (ann, bob, cy))
        for crowd in crowds:
            *games, bobs = crowd.streams
            eventually(
                lambda g=games, b=bobs: [s.seen for s in g] == versions and b.count == 0,
                "the live streams to show the ends",
            )
            assert crowd.errors == []
    finally:
        for crowd in crowds:
            crowd.close()

    def listed(who: Who, games: set[str]) -> bool:
        found = web.ok("GET", "/me/games", token=who["token"])["games"]
        return {(g["game_id"], g["over"]) for g in found} == {(g, True) for g in games}

    for who, games in ((ann, {first}), (bob, {first, second}), (cy, {second})):
        eventually(lambda w=who, g=games: listed(w, g), f"{who['name']}'s finished games")
        assert inbox(web, who["token"]) == set()
    store = EventStore(service.store())
    assert lagging(store, [first, second]) == {}
    for game_id in (first, second):
        history = web.ok("GET", f"/games/{game_id}/history", token=bob["token"])["events"]
        assert [e["version"] for e in history] == list(range(1, len(history) + 1))
        assert history[-1]["type"] == "game_ended"
    assert set(web.statuses) <= {200, 201}, web.statuses
    assert service.dead() == []


# Ids no game or player has: a 22-character one (a game id's length), a player id's length, a
# short one, ones with a hash tag of their own ({s07}, and a brace inside): on a cluster each is
# in a slot that no shard's keys share, which a script of two slots would refuse client-side.
UNDRAWN = ["AAAAAAAAAAAAAAAAAAAAAA", "AAAAAAAAAAAAAAAA", "x", "%7Bs07%7D", "a%7Bb%7Dc"]


def test_ids_the_service_never_drew_are_unknown_not_errors(service: ClusterService) -> None:
    """Every route that takes a game or player id from the client answers 404 (or 401 without
    a token) for an id that is in no shard's slot, never a 500."""
    web = Web(service.bases)
    token = web.player("Kim")["token"]
    for made_up in UNDRAWN:
        game = f"/games/{made_up}"
        for path in (game, f"{game}/view", f"{game}/legal", f"{game}/history",
                     f"{game}/replay/1", f"{game}/chat"):  # fmt: skip
            assert web.status("GET", path, token=token) == (404, "unknown_game"), path
        for path, body in ((f"{game}/join", {"invite": None}), (f"{game}/join", {"invite": "ab"}),
                           (f"{game}/commands", {"command": {"type": "pass"}}),
                           (f"{game}/chat", {"text": "hi"}), (f"{game}/rematch", {})):  # fmt: skip
            assert web.status("POST", path, body, token) == (404, "unknown_game"), path
            assert web.status("POST", path, body) == (401, "missing_token"), path
        assert web.status("GET", f"/players/{made_up}") == (404, "unknown_player")
        for page in (f"/play/{made_up}", f"/play/{made_up}/replay", f"/play/{made_up}/join",
                     f"/profile/{made_up}", f"{game}/events"):  # fmt: skip
            assert web.status("GET", page, token=token)[0] == 404, page
    assert max(web.statuses) < 500, web.statuses


def play_one(players: list[Alternating]) -> None:
    """Each player plays one game against the AI to its end."""
    with playing(players):
        for player in players:
            eventually(lambda p=player: p.games, f"{player.name}'s game", 60)


def test_games_against_the_ai_are_played_to_the_end_by_the_workers(
    service: ClusterService,
) -> None:
    players = [
        Alternating(service.bases, "Dee", FAMIGLIA_AI),
        Alternating(service.bases, "Eve", GANGSTA_AI),
    ]
    play_one(players)
    store = EventStore(service.store())
    web = Web(service.bases)
    for player in players:
        [game] = player.games
        assert game.result is not None
        history = web.ok("GET", f"/games/{game.game_id}/history", token=player.token)
        acknowledged_once(game, history)
        ai_seats = {int(seat) for seat in player.spec["ai"]}
        assert ai_seats <= {e["actor"] for e in history["events"]}, "the AI never moved"
        eventually(lambda g=game: lagging(store, [g.game_id]) == {}, "the read models")
        assert inbox(web, player.token) == set()
    assert set(statuses(players)) <= {200, 201, 409}, statuses(players)
    assert service.dead() == []


def test_racing_writers_on_the_cluster_lose_and_duplicate_nothing(
    service: ClusterService, tmp_path: Path
) -> None:
    """Racer processes (``tests.services.racer``) send commands straight to the store on the
    cluster, several to one game at once: each acknowledged command is stored once at the
    versions it was told, retries are duplicates, every stream verifies (no fork)."""
    racers = racer.start(racer.CLUSTER + service.cluster.url, 4, 100, tmp_path)
    assert [p.wait(timeout=300) for p in racers] == [0] * 4
    logs = sorted(tmp_path.glob("racer-*.log"))
    acked = racer.check(service.store(), logs)
    assert len(acked) > 100
    assert sum(log.read_text().count("\ndup ") for log in logs) >= 4


def every_game(service: ClusterService) -> list[str]:
    return sorted(EventStore(service.store()).game_ids())


def lease_holders(service: ClusterService) -> Counter[bytes]:
    """How many shards each worker holds the lease of (``workers.projection.leases``)."""
    client = service.store()
    return Counter(client.get(key) for key in client.scan_iter(match="workers:lease:{*"))


def test_the_two_workers_share_the_shards(service: ClusterService) -> None:
    eventually(
        lambda: lease_holders(service) == {b"worker-0": 32, b"worker-1": 32},
        "each worker to hold half the shards",
    )


def test_verify_all_and_rebuild_on_the_cluster(service: ClusterService) -> None:
    """With every game's read model current, ``omerta verify --all`` passes every game and
    ``omerta rebuild`` builds exactly the read models the workers had built."""
    games = every_game(service)
    assert games  # the tests before made some
    store = EventStore(service.store())
    eventually(lambda: lagging(store, games) == {}, "the read models", 120)
    verify = service.omerta("verify", "--all")
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert sorted(verify.stdout.split()) == sorted(["ok"] * len(games) + games)
    # Quiet: the workers' last jobs (a rating, an inbox) may still write after the versions
    # caught up; two snapshots in a row agree once they are done.
    before = eventually(lambda: (now := snapshot(store.redis)) == snapshot(store.redis) and now,
                        "the read models to settle")  # fmt: skip
    # --force: the workers hold their shards' leases, idle now that every read model is current.
    rebuild = service.omerta("rebuild", "--quiet", "--force")
    assert rebuild.returncode == 0, rebuild.stdout + rebuild.stderr
    assert rebuild.stdout.rstrip().endswith(": identical"), rebuild.stdout
    assert snapshot(store.redis) == before
    assert service.dead() == []


def test_jobs_lost_with_the_rq_server_are_rebuilt_from_the_store(service: ClusterService) -> None:
    """RQ's server loses every job (emptied under load: the queues, the scheduled retries, the
    workers' registrations) while the workers are stalled, with the jobs of a game created
    meanwhile waiting there: the games against the AI go on, the catch-up enqueues again what
    the store says is owed (projections, AI moves), and the read models catch up."""
    players = [
        Alternating(service.bases, "Jo", FAMIGLIA_AI),
        Alternating(service.bases, "Lu", {**FAMIGLIA_AI, "ai": {"1": "random"}}),
    ]
    newcomer = Alternating(service.bases, "Mo", FAMIGLIA_AI)
    with playing(players):
        eventually(lambda: all(p.moves >= 2 for p in players), "the games to go", 120)
        rq = service.rq.client()
        for worker in service.workers:
            worker.signal(signal.SIGSTOP)
        try:
            with playing([newcomer]):
                # its game's creation enqueues its projection, which no worker takes now
                eventually(lambda: newcomer.games, "the newcomer's game", 30)
                # Waiting in its queue, or popped already by a stalled worker's BLPOP (the
                # server hands a pushed job to a blocked client even while it is stopped):
                # either way only RQ's server has it.
                eventually(lambda: rq.keys("rq:job:*"), "a job waiting", 30)
                rq.flushall()
                for worker in service.workers:
                    worker.signal(signal.SIGCONT)
                players.append(newcomer)
                games_go_on(players, "RQ's jobs were lost", 120)
        finally:
            for worker in service.workers:
                worker.signal(signal.SIGCONT)
            rq.close()
    assert all(g.result is not None for p in players for g in p.games)
    store = EventStore(service.store())
    played = [g.game_id for p in players for g in p.games]
    eventually(lambda: lagging(store, played) == {}, "the read models to catch up", 120)
    assert set(statuses(players)) <= {200, 201, 409}, statuses(players)
    assert service.dead() == []


def settled(service: ClusterService, node: EmbeddedServer) -> bool:
    """The restarted node is a replica again, in sync with its master."""
    client = node.client()
    try:
        replication = client.info("replication")
    except redis.RedisError:
        return False
    finally:
        client.close()
    return replication["role"] == "slave" and replication.get("master_link_status") == "up"


def test_a_master_killed_under_load_loses_no_acknowledged_command(
    service: ClusterService,
) -> None:
    """Players play against the AI through both web processes; the master of a busy game's
    slot is SIGKILLed. Its replica takes over; the killed node is started again (as its
    supervisor would) and rejoins as a replica. The games go on, every one ends, every command
    acknowledged (a 2xx) is in its game's stream at the version it was acknowledged at, no
    request got a 5xx other than the store's 503, the racers' unfinished games still take
    moves, and the read models catch up on their own (``omerta rebuild``: identical)."""
    players = [
        Alternating(service.bases, "Fay", FAMIGLIA_AI),
        Alternating(service.bases, "Gus", FAMIGLIA_AI),
        Alternating(service.bases, "Hal", {**FAMIGLIA_AI, "ai": {"1": "random"}}),
        Alternating(service.bases, "Ivy", GANGSTA_AI),
    ]
    with playing(players):
        eventually(lambda: all(p.moves >= 3 for p in players), "the games to go", 120)
        # A game still running: it ends only after the failover, its last moves on the new
        # master.
        victim = next(g.game_id for p in players for g in p.games if g.result is None)
        slot_key = keys.events_key(victim)
        killed = service.cluster.kill_master_of(slot_key)
        began = time.monotonic()
        service.cluster.wait_promoted(slot_key, timeout=60)
        promoted = time.monotonic() - began
        killed.restart()
        eventually(lambda: settled(service, killed), "the killed node back as a replica")
        moved = games_go_on(players, "the failover", 120)
    games: list[tuple[Alternating, Game]] = [(p, g) for p in players for g in p.games]
    assert all(g.result is not None for _, g in games)
    web = Web(service.bases)
    for player, game in games:
        acknowledged_once(game, web.ok("GET", f"/games/{game.game_id}/history", token=player.token))
    assert set(statuses(players)) <= STATUSES, statuses(players)
    assert service.dead() == []

    store = EventStore(service.store())
    svc = CommandService(EventStoreRepository(store))
    rng = random.Random(5)
    for game_id in racer.games(store.redis):  # the racers' games, left as they were
        found = pick_move(svc, game_id, rng)
        if found is not None:
            svc.handle(game_id, *found, f"after-failover-{game_id}")
    everything = every_game(service)
    eventually(lambda: lagging(store, everything) == {}, "the read models to catch up", 120)
    rebuild = service.omerta("rebuild", "--quiet", "--force")  # the workers idle, as above
    assert rebuild.returncode == 0 and rebuild.stdout.rstrip().endswith(": identical"), (
        rebuild.stdout + rebuild.stderr
    )
    print(f"\n[cluster] master of {victim}'s slot killed: replica promoted in {promoted:.1f} s, "
          f"games moved on {moved:.1f} s after the node was back; answers seen: "
          f"{dict(sorted(statuses(players).items()))}")  # fmt: skip
