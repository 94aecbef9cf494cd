"""The AI seats' seeds come from a server-side secret: the game id, the
version and the seat, all public, no longer let anyone compute the bot's next choice. Every
process of a deployment agrees on the secret, so a retried AI job chooses the same move."""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

import msgspec
import pytest
import redis

from bootstrap import Container, bootstrap
from domain import bots
from services.eventstore import serversecret
from services.eventstore.serversecret import ServerSecret
from workers import ai

pytestmark = pytest.mark.server

GAME = "Xk3-_a9Qm2cd"


def test_the_same_secret_gives_the_same_seed_and_another_secret_another() -> None:
    one = serversecret.bot_seed(b"one secret", GAME, 7, 1)
    assert one == serversecret.bot_seed(b"one secret", GAME, 7, 1)
    assert one != serversecret.bot_seed(b"another secret", GAME, 7, 1)
    assert len({serversecret.bot_seed(b"s", GAME, v, s) for v in range(5) for s in range(4)}) == 20


def test_the_seed_is_not_made_of_public_facts_alone() -> None:
    seed = serversecret.bot_seed(b"the secret", GAME, 7, 1)
    public = [f"{GAME}:7:1", f"{GAME}|7|1", f"{GAME}71", "7:1", GAME]
    assert seed not in {p.encode() for p in public}
    assert seed not in {hashlib.sha256(p.encode()).digest() for p in public}
    assert seed not in {hmac.new(b"", p.encode(), hashlib.sha256).digest() for p in public}


def test_the_secret_is_made_once_per_store_and_shared(real_redis: redis.Redis) -> None:
    secret = ServerSecret(real_redis)  # none configured
    first = secret.key()
    assert len(first) >= 32
    assert ServerSecret(real_redis).key() == first  # another process finds the same one
    assert real_redis.get(serversecret.SECRET_KEY) == first
    real_redis.delete(serversecret.SECRET_KEY)
    assert secret.key() != first  # a random one, not derived from anything


def test_a_configured_secret_wins_and_is_not_stored(real_redis: redis.Redis) -> None:
    assert ServerSecret(real_redis, "set by the operator").key() == b"set by the operator"
    assert real_redis.get(serversecret.SECRET_KEY) is None


def test_the_ai_job_seeds_its_bot_from_the_secret(
    container: Container, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = msgspec.structs.replace(container.settings, secret="the deployment's secret")
    deployment = bootstrap(settings, store=container.store, queues_client=container.queues_client)
    seeds: list[bytes] = []
    real = bots.choose

    def spy(game: str, level: Any, view: Any, legal: list[Any], seed: bytes) -> Any:
        seeds.append(seed)
        return real(game, level, view, legal, seed)

    monkeypatch.setattr(bots, "choose", spy)
    game_id = deployment.commands.create_game("famiglia", 2, ai={0: "random", 1: "random"})
    version = deployment.commands.load(game_id).version
    seat = min(
        deployment.commands.load(game_id).game.to_act(deployment.commands.load(game_id).state)
    )
    assert ai.ai_move(deployment.context, game_id, version) == "moved"
    assert seeds[0] == serversecret.bot_seed(b"the deployment's secret", game_id, version, seat)
    assert f"{game_id}:{version}:{seat}".encode() not in seeds
